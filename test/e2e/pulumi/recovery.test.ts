/**
 * recoverInterruptedUpdate on the real engine with a `file://` backend (no cluster): which stack
 * locks it removes and which it leaves, and which pending operations it drops. The end-to-end case
 * (a `pulumi up` killed during an install) is in test/e2e/faults/cluster.test.ts.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { recoverInterruptedUpdate } from "../../../provider/index.js";
import { ADDON_TYPE, DYNAMIC_RELEASE_TYPE } from "../../../provider/state/resource.js";
import { type TestStack, testStack } from "../../support/pulumi.js";

const PROJECT = "helm-handoff-test";

describe("recoverInterruptedUpdate", { timeout: 300_000 }, () => {
  const stacks: TestStack[] = [];
  const children: ChildProcess[] = [];
  let deadPid: number;

  before(async () => {
    // A pid that surely ran and exited: a short-lived child.
    const child = spawn(process.execPath, ["-e", ""]);
    deadPid = child.pid ?? 0;
    await once(child, "exit");
  });
  after(async () => {
    for (const c of children) c.kill("SIGKILL");
    await Promise.allSettled(stacks.map((s) => s.dispose()));
  });

  async function freshStack(): Promise<TestStack> {
    const s = await testStack({ program: async () => ({ ok: true }) });
    stacks.push(s);
    await s.up();
    return s;
  }

  /** Writes a lock file the way the `file://` backend does (organization/PROJECT/STACK/ID.json). */
  async function writeLock(s: TestStack, id: string, pid: number, host: string): Promise<string> {
    const dir = join(s.backendDir, ".pulumi", "locks", "organization", PROJECT, s.stack.name);
    await mkdir(dir, { recursive: true });
    const file = join(dir, `${id}.json`);
    await writeFile(
      file,
      JSON.stringify({ pid, username: "ci", hostname: host, timestamp: "2026-12-02T10:00:00Z" }),
    );
    return file;
  }

  async function lockFiles(s: TestStack): Promise<string[]> {
    try {
      return await readdir(join(s.backendDir, ".pulumi", "locks", "organization", PROJECT, s.stack.name));
    } catch {
      return [];
    }
  }

  test("a healthy stack is only read: no lock, no pending operation, nothing done", async () => {
    const s = await freshStack();
    const lines: string[] = [];
    const result = await recoverInterruptedUpdate(s.stack, { onMessage: (l) => lines.push(l) });
    assert.deepEqual(result, {
      locks: [],
      lockRemoved: false,
      removedMetadataFiles: [],
      droppedPendingCreates: [],
      otherPendingOperations: [],
    });
    assert.deepEqual(lines, []);
  });

  test("the lock of a pulumi process of this host that no longer runs is removed, and the next up runs", async () => {
    const s = await freshStack();
    const file = await writeLock(s, "killed", deadPid, hostname());
    await assert.rejects(s.up(), /the stack is currently locked by 1 lock\(s\)/);
    const lines: string[] = [];
    const result = await recoverInterruptedUpdate(s.stack, { onMessage: (l) => lines.push(l) });
    assert.equal(result.lockRemoved, true);
    assert.deepEqual(result.locks, [
      { file, pid: deadPid, hostname: hostname(), timestamp: "2026-12-02T10:00:00Z", stale: true },
    ]);
    assert.deepEqual(lines, [
      `removed the stack lock of pulumi pid ${deadPid} (taken 2026-12-02T10:00:00Z): that process no longer runs`,
    ]);
    assert.deepEqual(await lockFiles(s), []);
    await s.up();
  });

  test("seed 3403: the metadata files a pulumi killed mid-write left empty or cut short are removed with its lock, and the next up runs", async () => {
    const s = await freshStack();
    const stacksDir = join(s.backendDir, ".pulumi", "stacks", PROJECT);
    const historyDir = join(s.backendDir, ".pulumi", "history", PROJECT, s.stack.name);
    const history = (await readdir(historyDir)).filter((f) => f.endsWith(".attrs"));
    // What the blob library leaves when the kill falls between truncating the file and writing it.
    const checkpointAttrs = join(stacksDir, `${s.stack.name}.json.attrs`);
    const historyAttrs = join(historyDir, history[0] ?? "");
    await writeFile(checkpointAttrs, "");
    await writeFile(historyAttrs, '{"user.cache_control":"","user.con');
    await writeLock(s, "killed", deadPid, hostname());
    await assert.rejects(s.stack.cancel(), /failed to load checkpoint: EOF/);
    const lines: string[] = [];
    const result = await recoverInterruptedUpdate(s.stack, { onMessage: (l) => lines.push(l) });
    assert.deepEqual([...result.removedMetadataFiles].sort(), [checkpointAttrs, historyAttrs].sort());
    assert.equal(result.lockRemoved, true);
    assert.deepEqual(
      lines.filter((l) => l.startsWith("removed /")).sort(),
      [checkpointAttrs, historyAttrs]
        .sort()
        .map(
          (f) =>
            `removed ${f}: a killed pulumi left this metadata file of the file backend unreadable (the checkpoint beside it is whole)`,
        ),
    );
    await s.up();
    assert.equal((await s.stack.history()).length, 2);
  });

  test("the lock of a running pulumi process is left alone, and so is the state", async () => {
    const s = await freshStack();
    // A live process whose command line names pulumi, as the CLI's does.
    const holder = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", "pulumi"]);
    children.push(holder);
    const pid = holder.pid ?? 0;
    await writeLock(s, "live", pid, hostname());
    const lines: string[] = [];
    const result = await recoverInterruptedUpdate(s.stack, { onMessage: (l) => lines.push(l) });
    assert.equal(result.lockRemoved, false);
    assert.deepEqual(
      result.locks.map((l) => l.stale),
      [false],
    );
    assert.deepEqual(lines, [
      `the stack is locked by pid ${pid} on ${hostname()} (taken 2026-12-02T10:00:00Z), which may still run: left as is`,
    ]);
    assert.deepEqual(await lockFiles(s), ["live.json"]);
    await assert.rejects(s.up(), /the stack is currently locked by 1 lock\(s\)/);
  });

  test("a lock taken on another host is never removed, even when its pid does not run here", async () => {
    const s = await freshStack();
    await writeLock(s, "remote", deadPid, "some-other-runner");
    const result = await recoverInterruptedUpdate(s.stack);
    assert.equal(result.lockRemoved, false);
    assert.deepEqual(await lockFiles(s), ["remote.json"]);
  });

  test("a lock whose pid now runs something other than pulumi (a reused pid) counts as stale", async () => {
    const s = await freshStack();
    const other = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"]);
    children.push(other);
    await writeLock(s, "reused", other.pid ?? 0, hostname());
    const result = await recoverInterruptedUpdate(s.stack);
    assert.equal(result.lockRemoved, true);
    assert.deepEqual(await lockFiles(s), []);
  });

  /**
   * Writes pending operations into the stack's checkpoint file, as a killed CLI leaves them (the
   * engine's own import would drop them, so they go into the backend's file directly).
   */
  async function addPendingCreates(
    s: TestStack,
    resources: Array<{ urn: string; type: string }>,
  ): Promise<void> {
    const file = join(s.backendDir, ".pulumi", "stacks", PROJECT, `${s.stack.name}.json`);
    const checkpoint = JSON.parse(await readFile(file, "utf8")) as {
      checkpoint: { latest: { pending_operations?: unknown[] } };
    };
    checkpoint.checkpoint.latest.pending_operations = resources.map((r) => ({
      resource: { urn: r.urn, custom: true, type: r.type, inputs: {}, outputs: {} },
      type: "creating",
    }));
    await writeFile(file, JSON.stringify(checkpoint));
  }

  async function pendingUrns(s: TestStack): Promise<string[]> {
    const deployment = (await s.stack.exportStack()).deployment as {
      pending_operations?: Array<{ resource: { urn: string } }>;
    };
    return (deployment.pending_operations ?? []).map((p) => p.resource.urn);
  }

  const RELEASE_TYPE = DYNAMIC_RELEASE_TYPE;
  const releaseUrn = (s: TestStack, name: string, type = RELEASE_TYPE) =>
    `urn:pulumi:${s.stack.name}::${PROJECT}::${type}::${name}`;

  test("interrupted creates that are all helm-handoff releases, of a Node.js program or a package one, are dropped, and the next up has no pending operation", async () => {
    const s = await freshStack();
    // "gitops" as a YAML, Go or Python program registers it: the package provider's add-on type.
    await addPendingCreates(s, [
      { urn: releaseUrn(s, "cni"), type: RELEASE_TYPE },
      { urn: releaseUrn(s, "gitops", ADDON_TYPE), type: ADDON_TYPE },
    ]);
    assert.equal((await pendingUrns(s)).length, 2);
    const lines: string[] = [];
    const result = await recoverInterruptedUpdate(s.stack, { onMessage: (l) => lines.push(l) });
    const gitops = releaseUrn(s, "gitops", ADDON_TYPE);
    assert.deepEqual(result.droppedPendingCreates, [releaseUrn(s, "cni"), gitops]);
    assert.deepEqual(result.otherPendingOperations, []);
    assert.deepEqual(lines, [
      `dropped the interrupted create of ${releaseUrn(s, "cni")}: the next up installs or adopts that release`,
      `dropped the interrupted create of ${gitops}: the next up installs or adopts that release`,
    ]);
    assert.deepEqual(await pendingUrns(s), []);
    await s.up();
    assert.doesNotMatch(s.output(), /pending operations from previous deployment/);
  });

  test("when another resource also has a pending operation, nothing is dropped and every one is reported", async () => {
    const s = await freshStack();
    const namespace = `urn:pulumi:${s.stack.name}::${PROJECT}::kubernetes:core/v1:Namespace::gitops`;
    await addPendingCreates(s, [
      { urn: releaseUrn(s, "cni"), type: RELEASE_TYPE },
      { urn: namespace, type: "kubernetes:core/v1:Namespace" },
    ]);
    const lines: string[] = [];
    const result = await recoverInterruptedUpdate(s.stack, { onMessage: (l) => lines.push(l) });
    assert.deepEqual(result.droppedPendingCreates, []);
    assert.deepEqual(lines, [
      `pending operation left to the engine: ${releaseUrn(s, "cni")} (creating) (check it, then run "pulumi refresh --clear-pending-creates")`,
      `pending operation left to the engine: ${namespace} (creating) (check it, then run "pulumi refresh --clear-pending-creates")`,
    ]);
    assert.deepEqual(await pendingUrns(s), [releaseUrn(s, "cni"), namespace]);
  });
});
