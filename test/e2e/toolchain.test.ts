/**
 * scripts/toolchain.sh run twice at once, as a user does who starts `npm run demo` in one shell
 * while `npm test` runs in another: both runs lay out the same bin directory and the same
 * Pulumi layout at the same moment. The builds themselves are the warm cache's (its store is
 * shared through a symlink), so the test exercises only what two runs race on: the lay-out.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readlink, rm, symlink } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "../support/repo-root.js";

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function toolchain(env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      join(repoRoot(), "scripts", "toolchain.sh"),
      ["--print-bin"],
      { env, timeout: 300_000, encoding: "utf8" },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

test("two toolchain runs at once both succeed and lay out one bin directory", {
  timeout: 600_000,
}, async () => {
  const warm = join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "helm-handoff", "toolchain");
  const cache = await mkdtemp(join(tmpdir(), "hh-toolchain-race-"));
  try {
    const root = join(cache, "helm-handoff", "toolchain");
    await mkdir(root, { recursive: true });
    await symlink(join(warm, "store"), join(root, "store"));
    // Nothing of the warm toolchain on PATH, so that both runs lay out everything themselves.
    const path = (process.env.PATH ?? "")
      .split(delimiter)
      .filter((dir) => !dir.includes(join("helm-handoff", "toolchain")))
      .join(delimiter);
    const env = { ...process.env, XDG_CACHE_HOME: cache, PATH: path };
    const [a, b] = await Promise.all([toolchain(env), toolchain(env)]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    const bin = join(root, "bin");
    assert.equal(a.stdout.trim(), bin);
    assert.equal(b.stdout.trim(), bin);
    for (const name of ["pulumi", "pulumi-language-nodejs", "pulumi-resource-pulumi-nodejs"]) {
      assert.equal(await readlink(join(bin, name)), join(root, "pulumi", "bin", name), name);
    }
  } finally {
    await rm(cache, { recursive: true, force: true });
  }
});
