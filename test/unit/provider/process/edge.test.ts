/**
 * Node's compile cache in the provider processes (`keepCompileCache`): a child process
 * stands in for a provider, and is ended the way Pulumi's engine ends a plugin, SIGINT to its
 * process group. With `keepCompileCache` the cache is on disk afterwards and the process still dies
 * of the signal; with Node's `enableCompileCache` alone nothing is written (why the module exists).
 * The engine's own SIGINT is in test/e2e/pulumi/yaml-program.test.ts. The last test: the gRPC
 * option `ownSubchannelPools` sets on the SDK's own client options when the package loads
 * (the collision it prevents is forced in test/e2e/faults/engine-connection.test.ts).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "../../../support/repo-root.js";

const KEEP = join(repoRoot(), "dist", "provider", "process", "edge.js");

/** Runs `setup` then loads a module in a node child, ends it with SIGINT to its group, and counts the cache's files. */
async function endedBySigint(setup: string): Promise<{ signal: string | null; files: number }> {
  const dir = await mkdtemp(join(tmpdir(), "hh-compile-cache-"));
  try {
    const cache = join(dir, "cache");
    const loaded = join(dir, "loaded.cjs");
    await writeFile(loaded, "module.exports = function loaded() { return 1; };\n");
    const code = `${setup}\nrequire(${JSON.stringify(loaded)});\nconsole.log("ready");\nsetInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ["-e", code], {
      detached: true,
      env: { ...process.env, NODE_COMPILE_CACHE: cache },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = new Promise<string | null>((resolve) =>
      child.on("exit", (_code, signal) => resolve(signal)),
    );
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    process.kill(-(child.pid as number), "SIGINT");
    const signal = await exited;
    const versions = await readdir(cache).catch(() => []);
    let files = 0;
    for (const v of versions) files += (await readdir(join(cache, v))).length;
    return { signal, files };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test("a provider process writes Node's compile cache when SIGINT ends it, and still dies of that signal", async () => {
  const kept = await endedBySigint(`require(${JSON.stringify(KEEP)}).keepCompileCache();`);
  assert.equal(kept.signal, "SIGINT");
  assert.ok(kept.files > 0, `the cache has ${kept.files} files`);
});

test("with Node's compile cache merely enabled, a process that SIGINT ends writes nothing", async () => {
  const enabled = await endedBySigint(`require("node:module").enableCompileCache();`);
  assert.deepEqual(enabled, { signal: "SIGINT", files: 0 });
});

/** What a node child running `code` prints to stdout. */
async function printedBy(code: string): Promise<string> {
  const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  await new Promise((resolve) => child.on("exit", resolve));
  return out;
}

test("keeping the compile cache twice installs one SIGINT listener", async () => {
  const code = `const { keepCompileCache: keep } = require(${JSON.stringify(KEEP)}); keep(); keep(); console.log(process.listenerCount("SIGINT"));`;
  assert.equal(await printedBy(code), "1\n");
});

test("loading helm-handoff/pulumi gives the runtime's engine clients a gRPC subchannel pool of their own", async () => {
  const settings = join(repoRoot(), "node_modules", "@pulumi", "pulumi", "runtime", "settings.js");
  const addon = join(repoRoot(), "dist", "provider", "index.js");
  const code = `const s = require(${JSON.stringify(settings)}); const before = s.grpcClientOptions["grpc.use_local_subchannel_pool"]; import(${JSON.stringify(addon)}).then(() => console.log(JSON.stringify([before ?? null, s.grpcClientOptions["grpc.use_local_subchannel_pool"]])));`;
  assert.equal(await printedBy(code), "[null,1]\n");
});
