/**
 * The async runner's spawn (`core/helm/spawn.ts`) against small shell scripts standing in for
 * helm: the timeout and a cancel end the process with SIGTERM and say which it was, a helm that
 * ignores SIGTERM gets SIGKILL, stdin gets the input, output lines stream as they come, and a
 * missing binary is reported as such. Then the same through `HelmRunner`, with the exact errors.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { HelmNotFoundError, PermanentHelmError, TransientHelmError } from "../../../../core/errors.js";
import { HelmRunner } from "../../../../core/helm/index.js";
import { type SpawnOptions, spawnHelm } from "../../../../core/helm/spawn.js";
import { Duration } from "../../../../core/spec/duration.js";

const root = mkdtempSync(join(tmpdir(), "hh-spawn-test-"));
after(() => rmSync(root, { recursive: true, force: true }));

let scripts = 0;
/** An executable sh script with `body`; `version` answers v4 so that a runner accepts it. */
function script(body: string): string {
  const bin = join(root, `helm-${++scripts}`);
  writeFileSync(bin, `#!/bin/sh\n[ "$1" = version ] && { printf v4.9.9; exit 0; }\n${body}\n`);
  chmodSync(bin, 0o755);
  return bin;
}

const BASE: SpawnOptions = {
  env: { PATH: process.env.PATH },
  input: "",
  timeoutMs: 60_000,
  forceKillAfterMs: 5_000,
  streamStdout: false,
};

test("a helm that outlives the timeout is ended with SIGTERM and reported as timed out", async () => {
  const r = await spawnHelm(script("exec sleep 30"), [], { ...BASE, timeoutMs: 200 });
  assert.equal(r.failure?.timedOut, true);
  assert.equal(r.failure?.canceled, false);
  assert.equal(r.failure?.signal, "SIGTERM");
  assert.equal(r.failure?.exitCode, undefined);
});

test("a helm that ignores SIGTERM is killed with SIGKILL once forceKillAfter has passed", async () => {
  const r = await spawnHelm(script("trap '' TERM\nexec sleep 30"), [], {
    ...BASE,
    timeoutMs: 100,
    forceKillAfterMs: 200,
  });
  assert.equal(r.failure?.timedOut, true);
  assert.equal(r.failure?.signal, "SIGKILL");
});

test("a cancel ends helm with SIGTERM and is reported as cancelled, not timed out", async () => {
  const cancel = new AbortController();
  setTimeout(() => cancel.abort(), 100);
  const r = await spawnHelm(script("exec sleep 30"), [], { ...BASE, signal: cancel.signal });
  assert.equal(r.failure?.canceled, true);
  assert.equal(r.failure?.timedOut, false);
  assert.equal(r.failure?.signal, "SIGTERM");
});

test("stdin gets the input, and each output line reaches onLine as it comes (stdout only when streamed)", async () => {
  const bin = script("cat\necho err1 >&2\nprintf err2 >&2\necho out2");
  const quiet: string[] = [];
  const q = await spawnHelm(bin, [], { ...BASE, input: "out1\n", onLine: (l) => quiet.push(l) });
  assert.deepEqual(q, { stdout: "out1\nout2\n", stderr: "err1\nerr2" });
  assert.deepEqual(quiet, ["err1", "err2"]);
  const streamed: string[] = [];
  await spawnHelm(bin, [], { ...BASE, input: "out1\n", streamStdout: true, onLine: (l) => streamed.push(l) });
  assert.deepEqual([...streamed].sort(), ["err1", "err2", "out1", "out2"]);
});

test("a helm that exits non-zero is a failure with its exit code and stderr", async () => {
  const r = await spawnHelm(script("echo 'Error: boom' >&2\nexit 3"), ["install"], BASE);
  assert.equal(r.failure?.exitCode, 3);
  assert.equal(r.failure?.stderr, "Error: boom\n");
  assert.deepEqual(r.failure?.command.slice(1), ["install"]);
  assert.equal(r.failure?.signal, undefined);
});

test("a binary that does not exist is reported as not found, without an exit code", async () => {
  const r = await spawnHelm(join(root, "no-such-helm"), [], BASE);
  assert.equal(r.failure?.notFound, true);
  assert.equal(r.failure?.exitCode, undefined);
});

test("through the runner, a timed-out helm is a transient error and a cancelled one a permanent one", async () => {
  const helmHome = join(root, "home");
  const kubeconfig = "apiVersion: v1\nkind: Config\n";
  const bin = script("exec sleep 30");
  const timedOut = new HelmRunner({
    kubeconfig,
    helmBinary: bin,
    helmHome,
    commandTimeout: Duration.millis(300),
  });
  await assert.rejects(timedOut.status("x", "default"), (e: unknown) => {
    assert.ok(e instanceof TransientHelmError);
    assert.match(
      e.message,
      new RegExp(
        `^helm status timed out \\(transient: attempt timed out after 3\\d\\dms\\)\n  command: ${bin} status x `,
      ),
    );
    return true;
  });
  const cancel = new AbortController();
  const cancelled = new HelmRunner({ kubeconfig, helmBinary: bin, helmHome, signal: cancel.signal });
  setTimeout(() => cancel.abort(), 200);
  await assert.rejects(cancelled.status("x", "default"), (e: unknown) => {
    assert.ok(e instanceof PermanentHelmError);
    assert.match(
      e.message,
      new RegExp(`^helm status was cancelled \\(permanent: cancelled\\)\n  command: ${bin} status x `),
    );
    return true;
  });
  await assert.rejects(
    new HelmRunner({ helmBinary: join(root, "no-such-helm"), helmHome }).version(),
    HelmNotFoundError,
  );
});
