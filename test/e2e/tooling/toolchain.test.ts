/**
 * scripts/toolchain.sh as users run it, each run with a bin directory of its own over the warm
 * cache's builds (its store is shared through a symlink), so a test sees exactly what a run lays
 * out: twice at once, as a user does who starts `npm run demo` in one shell while `npm test` runs
 * in another (both lay out the same bin directory and Pulumi layout at the same moment); and a
 * command that needs a few tools gets only those (`npm run test:unit`: node and helm;
 * `helm-handoff-local up` through scripts/with-toolchain.sh: etcd and kube-apiserver, plus the
 * workload binaries with `--workloads`, the Cluster API managers with `--capi`).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { chmod, mkdir, mkdtemp, readdir, readlink, rm, symlink, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "../../support/repo-root.js";

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(script: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      join(repoRoot(), "scripts", script),
      args,
      { env, timeout: 300_000, encoding: "utf8" },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** A cache dir of its own whose store is the warm one, and the environment that uses it. */
interface Isolated {
  readonly cache: string;
  readonly bin: string;
  readonly env: NodeJS.ProcessEnv;
}

async function isolated(): Promise<Isolated> {
  const warm = join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "helm-handoff", "toolchain");
  const cache = await mkdtemp(join(tmpdir(), "hh-toolchain-"));
  const root = join(cache, "helm-handoff", "toolchain");
  await mkdir(root, { recursive: true });
  await symlink(join(warm, "store"), join(root, "store"));
  // Nothing of the warm toolchain on PATH, so that a run lays out everything it uses itself.
  const path = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => !dir.includes(join("helm-handoff", "toolchain")))
    .join(delimiter);
  return { cache, bin: join(root, "bin"), env: { ...process.env, XDG_CACHE_HOME: cache, PATH: path } };
}

test("two toolchain runs at once both succeed and lay out one bin directory", {
  timeout: 600_000,
}, async () => {
  const { cache, bin, env } = await isolated();
  try {
    const [a, b] = await Promise.all([
      run("toolchain.sh", ["--print-bin"], env),
      run("toolchain.sh", ["--print-bin"], env),
    ]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    assert.equal(a.stdout.trim(), bin);
    assert.equal(b.stdout.trim(), bin);
    const layout = join(cache, "helm-handoff", "toolchain", "pulumi", "bin");
    for (const name of ["pulumi", "pulumi-language-nodejs", "pulumi-resource-pulumi-nodejs"]) {
      assert.equal(await readlink(join(bin, name)), join(layout, name), name);
    }
  } finally {
    await rm(cache, { recursive: true, force: true });
  }
});

test("the unit tests' toolchain is node and helm only", { timeout: 300_000 }, async () => {
  const { cache, bin, env } = await isolated();
  try {
    const r = await run("toolchain.sh", ["--unit", "--print-bin"], env);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual((await readdir(bin)).sort(), ["helm", "node"]);
  } finally {
    await rm(cache, { recursive: true, force: true });
  }
});

test("helm-handoff-local up through with-toolchain.sh gets etcd and kube-apiserver, with --workloads the workload binaries, with --capi the Cluster API managers", {
  timeout: 300_000,
}, async () => {
  const { cache, bin, env } = await isolated();
  try {
    // A stand-in for the command, which with-toolchain.sh recognizes by its name.
    const command = join(cache, "helm-handoff-local");
    await writeFile(command, '#!/bin/sh\necho "ran $*"\n');
    await chmod(command, 0o755);
    const up = await run("with-toolchain.sh", [command, "up", "--name", "dev"], env);
    assert.equal(up.code, 0, up.stderr);
    assert.equal(up.stdout.trim(), "ran up --name dev");
    assert.deepEqual((await readdir(bin)).sort(), ["etcd", "kube-apiserver", "node"]);
    const workloads = await run("with-toolchain.sh", [command, "up", "--workloads"], env);
    assert.equal(workloads.code, 0, workloads.stderr);
    assert.deepEqual((await readdir(bin)).sort(), [
      "etcd",
      "kube-apiserver",
      "kube-controller-manager",
      "kube-scheduler",
      "kwok",
      "kwok-stages",
      "node",
    ]);
    const capi = await run("with-toolchain.sh", [command, "up", "--capi", "--workload-clusters", "2"], env);
    assert.equal(capi.code, 0, capi.stderr);
    assert.deepEqual((await readdir(bin)).sort(), [
      "caaph-manager",
      "caaph-manager-crds",
      "capi-manager",
      "capi-manager-crds",
      "etcd",
      "kube-apiserver",
      "kube-controller-manager",
      "kube-scheduler",
      "kwok",
      "kwok-stages",
      "node",
    ]);
  } finally {
    await rm(cache, { recursive: true, force: true });
  }
});
