/**
 * Faults injected into a running install, on one local cluster with workloads (a kwok node, so
 * `helm install --wait` waits for real pods): the API server crashes during the wait; helm is
 * killed mid-install; helm and the dynamic provider are killed together. Each scenario ends with
 * exactly one deployed release, no object outside it, no helm-handoff temp dir and no process left.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import {
  type ClusterAddonArgs,
  type ReleaseStatus,
  recoverInterruptedUpdate,
} from "../../../provider/index.js";
import { RELEASE_TYPES } from "../../../provider/state/resource.js";
import { type AddonDecl, type AddonStack, liveRelease } from "../../support/addon.js";
import { localChart } from "../../support/charts.js";
import { clusterSuite } from "../../support/cluster.js";
import {
  assertNoLeftovers,
  createSandbox,
  faultStack,
  isRunning,
  objectsOf,
  parentPid,
  type Sandbox,
  storedRevisions,
  updateNode,
  waitFor,
} from "../../support/faults.js";

/** The label the hook chart's blocking hook pod selects (no node has it until a test adds it). */
const HOOK_NODE_LABEL = "helm-handoff.dev/no-such-node";

describe("ClusterAddon survives faults during the install", { timeout: 1_200_000 }, () => {
  const suite = clusterSuite({ name: "faults", workloads: true, helmSpy: true });
  let sandbox: Sandbox;
  let node: string;

  before(async () => {
    sandbox = suite.keep(await createSandbox());
    node = suite.cluster.nodeName!;
  });

  async function stackOf(decls: AddonDecl[]): Promise<AddonStack> {
    return suite.keep(await faultStack(decls, suite.spy, sandbox));
  }

  /** The pid of the first `helm install RELEASE` the spy saw, once it started. */
  async function helmInstallPid(release: string): Promise<number> {
    return waitFor(`helm install ${release} to start`, async () => {
      const call = (await suite.spy.pidCalls()).find((c) => c.argv.startsWith(`install ${release} `));
      return call?.pid;
    });
  }

  /**
   * Waits (up to 20 s) until a killed process is gone. A SIGKILLed helm on a loaded machine can
   * spend a moment tearing down (its command line already empty, not yet a zombie).
   */
  async function exited(pid: number): Promise<void> {
    await waitFor(`pid ${pid} to exit`, () => (isRunning(pid) ? undefined : true), { timeoutMs: 20_000 });
  }

  /** Waits until the release's pre-install hook Job exists: helm is blocked in the hook. */
  async function hookRunning(release: string): Promise<void> {
    await waitFor(`the pre-install hook of ${release}`, async () => {
      const res = await suite.cluster.request(
        "GET",
        `/apis/batch/v1/namespaces/default/jobs/${release}-pre-install`,
      );
      return res.ok ? true : undefined;
    });
  }

  /** Exactly one release revision, deployed, and the chart's objects, nothing else labelled with the release. */
  async function assertOneDeployedRelease(release: string, objects: Record<string, string[]>): Promise<void> {
    assert.deepEqual(
      (await storedRevisions(suite.cluster, release)).map((r) => r.status),
      ["deployed"],
      "one release revision, deployed",
    );
    assert.equal((await liveRelease(suite.cluster, release))?.status, "deployed");
    for (const [apiPath, names] of Object.entries(objects)) {
      assert.deepEqual(await objectsOf(suite.cluster, apiPath, release), names, `${apiPath} of ${release}`);
    }
  }

  /** An add-on of the hook chart, whose pre-install hook never completes when `blockForever`. */
  function hookArgs(o: { blockForever: boolean; timeout: string; deadline: string }): ClusterAddonArgs {
    return {
      kubeconfig: suite.cluster.kubeconfig,
      chart: { path: localChart("hook") },
      values: { hook: { blockForever: o.blockForever } },
      install: { timeout: o.timeout },
      retry: { deadline: o.deadline, minBackoff: "1s", maxBackoff: "5s" },
    };
  }

  test("the API server SIGKILLed during helm install --wait and restarted 15 s later: up succeeds with one deployed release", async () => {
    const name = "apiserver-crash";
    // A cordoned node keeps the Deployment's pod Pending, so the install is still in its wait when the API server dies.
    await updateNode(suite.cluster, node, (n) => {
      n.spec.unschedulable = true;
    });
    try {
      const args: ClusterAddonArgs = {
        kubeconfig: suite.cluster.kubeconfig,
        chart: { path: localChart("workload") },
        install: { timeout: "60s" },
        retry: { deadline: "8m", minBackoff: "1s", maxBackoff: "5s" },
      };
      const s = await stackOf([{ name, args }]);
      const up = s.up();
      up.catch(() => {}); // awaited below; keeps the rejection handled while the fault is injected
      await waitFor("the install to wait for its Deployment", async () => {
        const pending = (await storedRevisions(suite.cluster, name)).some(
          (r) => r.status === "pending-install",
        );
        const deployments = await objectsOf(suite.cluster, "apps/v1/deployments", name);
        return pending && deployments.length > 0 ? true : undefined;
      });
      await suite.cluster.killApiServer();
      await sleep(15_000);
      await suite.cluster.startApiServer();
      await updateNode(suite.cluster, node, (n) => {
        n.spec.unschedulable = false;
      });
      const result = await up;
      const status = result.outputs[`${name}Status`]?.value as ReleaseStatus;
      assert.equal(status.status, "deployed");
      await assertOneDeployedRelease(name, {
        "apps/v1/deployments": [`${name}-deploy`],
        "apps/v1/daemonsets": [`${name}-ds`],
        "v1/configmaps": [`${name}-config`],
      });
      await assertNoLeftovers(sandbox);
    } finally {
      await updateNode(suite.cluster, node, (n) => {
        n.spec.unschedulable = false;
      });
    }
  });

  test("helm killed mid-install is retried as transient: the partial release is removed and the install completes", async () => {
    const name = "helm-killed";
    const args = hookArgs({ blockForever: true, timeout: "60s", deadline: "6m" });
    const s = await stackOf([{ name, args }]);
    const up = s.up();
    up.catch(() => {});
    try {
      const pid = await helmInstallPid(name);
      await hookRunning(name);
      process.kill(pid, "SIGKILL");
      // Let the next attempt's hook pod schedule: the node now has the label the hook selects.
      await updateNode(suite.cluster, node, (n) => {
        n.metadata.labels = { ...n.metadata.labels, [HOOK_NODE_LABEL]: "true" };
      });
      const result = await up;
      const status = result.outputs[`${name}Status`]?.value as ReleaseStatus;
      assert.equal(status.status, "deployed");
      assert.ok(status.attempts >= 2, `a second attempt installed it (attempts: ${status.attempts})`);
      assert.match(s.output(), /helm install was killed \(transient: helm was killed by SIGKILL\)/);
      await exited(pid);
      await assertOneDeployedRelease(name, { "v1/configmaps": [`${name}-hook`] });
      await assertNoLeftovers(sandbox);
    } finally {
      await updateNode(suite.cluster, node, (n) => {
        const { [HOOK_NODE_LABEL]: _dropped, ...labels } = n.metadata.labels ?? {};
        n.metadata.labels = labels;
      });
    }
  });

  test("helm and the dynamic provider killed together leave pending-install, and the next up recovers it and completes", async () => {
    const name = "provider-killed";
    const args = hookArgs({ blockForever: true, timeout: "20s", deadline: "4m" });
    const s = await stackOf([{ name, args }]);
    const up = s.up();
    up.catch(() => {});
    const pid = await helmInstallPid(name);
    await hookRunning(name);
    const provider = parentPid(pid);
    assert.ok(provider !== undefined && provider > 1, "helm's parent is the dynamic provider");
    // The provider first, so that it cannot clean up after helm.
    process.kill(provider, "SIGKILL");
    process.kill(pid, "SIGKILL");
    await assert.rejects(up);
    assert.deepEqual(
      (await storedRevisions(suite.cluster, name)).map((r) => r.status),
      ["pending-install"],
      "the killed install left the release stuck",
    );

    // The next up, with a hook that completes: the stale pending-install is recognised and recovered.
    s.current = [{ name, args: { ...args, values: { hook: { blockForever: false } } } }];
    const result = await s.up();
    const status = result.outputs[`${name}Status`]?.value as ReleaseStatus;
    assert.equal(status.status, "deployed");
    const out = s.output();
    // Whether the up first waits for the pending-install to go stale depends on how long the
    // machine took to get here; what must happen in any case is the recovery below.
    assert.match(out, /is pending-install and was never deployed; uninstalling it before installing again/);
    await assertOneDeployedRelease(name, { "v1/configmaps": [`${name}-hook`] });
    await exited(pid);
    assert.equal(isRunning(provider), false);
    // The killed provider could not remove its temp dir (kubeconfig inside): the next run swept it.
    await assertNoLeftovers(sandbox);
  });
  /**
   * Starts `up` and interrupts it the way a cancelled CI job does once `interruptWhen` resolves:
   * SIGINT to the pulumi CLI (the Automation API's abort), then, 2 s later, SIGKILL to the whole
   * tree (the CLI, the dynamic provider and helm: every process with the sandbox's TMPDIR).
   */
  async function interruptedUp(s: AddonStack, interruptWhen: () => Promise<void>): Promise<void> {
    const abort = new AbortController();
    const up = s.stack.up({ signal: abort.signal, onOutput: () => {}, color: "never" });
    // an up that ends before the interruption point is a failure of the scenario itself
    await Promise.race([
      interruptWhen(),
      up.then(
        () => assert.fail("the up ended before it could be interrupted"),
        (e: unknown) => assert.fail(`the up failed before it could be interrupted: ${String(e)}`),
      ),
    ]);
    abort.abort();
    await sleep(2_000);
    // SIGKILL the whole tree; a child forked while the list was read (the spy's `sleep`) is
    // caught by the next round.
    for (let round = 0; round < 20 && sandbox.strayProcesses().length > 0; round++) {
      for (const p of sandbox.strayProcesses()) {
        try {
          process.kill(p.pid, "SIGKILL");
        } catch {
          // exited meanwhile
        }
      }
      await sleep(250);
    }
    await assert.rejects(up);
    assert.deepEqual(sandbox.strayProcesses(), [], "the whole tree is gone");
  }

  /** The next up after an interruption, as a runner does it: recover, then up. */
  async function recoveredUp(s: AddonStack, name: string): Promise<ReleaseStatus> {
    // The killed CLI could not release the backend's stack lock, and its create is pending.
    await assert.rejects(s.up(), /the stack is currently locked/);
    const recovery = await recoverInterruptedUpdate(s.stack);
    assert.equal(recovery.lockRemoved, true, "the stale lock is removed");
    assert.deepEqual(
      recovery.droppedPendingCreates.map((urn) => urn.slice(urn.lastIndexOf("::") + 2)),
      [name],
      "the interrupted create is dropped",
    );
    const result = await s.up();
    const exported = (await s.stack.exportStack()).deployment as {
      resources?: Array<{ type: string }>;
      pending_operations?: unknown[];
    };
    assert.equal(
      (exported.resources ?? []).filter((r) => RELEASE_TYPES.includes(r.type)).length,
      1,
      "one release in the state",
    );
    assert.deepEqual(exported.pending_operations ?? [], [], "no pending operation left in the state");
    return result.outputs[`${name}Status`]?.value as ReleaseStatus;
  }

  test("pulumi up interrupted (SIGINT, then SIGKILL of its process tree) while helm installs: the next up recovers the half-installed release and leaves one", async () => {
    const name = "interrupted";
    const args = hookArgs({ blockForever: true, timeout: "20s", deadline: "4m" });
    const s = await stackOf([{ name, args }]);
    let pid = 0;
    await interruptedUp(s, async () => {
      pid = await helmInstallPid(name);
      await hookRunning(name);
    });
    await exited(pid);
    assert.deepEqual(
      (await storedRevisions(suite.cluster, name)).map((r) => r.status),
      ["pending-install"],
      "the killed install left the release stuck",
    );

    s.current = [{ name, args: { ...args, values: { hook: { blockForever: false } } } }];
    const status = await recoveredUp(s, name);
    assert.equal(status.status, "deployed");
    assert.match(
      s.output(),
      /is pending-install and was never deployed; uninstalling it before installing again/,
    );
    await assertOneDeployedRelease(name, { "v1/configmaps": [`${name}-hook`] });
    await assertNoLeftovers(sandbox);
  });

  test("pulumi up interrupted after helm installed but before the engine recorded it: the next up adopts that release without installing it again", async () => {
    const name = "installed-unrecorded";
    const args = hookArgs({ blockForever: false, timeout: "60s", deadline: "4m" });
    const s = await stackOf([{ name, args }]);
    await suite.spy.holdInstalls();
    try {
      await interruptedUp(s, async () => {
        await waitFor("helm install to finish (held by the spy)", async () =>
          (await suite.spy.installHeld()) ? true : undefined,
        );
      });
    } finally {
      await suite.spy.releaseInstalls();
    }
    assert.deepEqual(
      (await storedRevisions(suite.cluster, name)).map((r) => r.status),
      ["deployed"],
      "the interrupted run installed the release",
    );

    await suite.spy.reset();
    const status = await recoveredUp(s, name);
    assert.equal(status.status, "deployed");
    assert.equal(status.revision, 1);
    assert.equal(status.adopted, true);
    // The create tries `helm install` first (helm refuses it: the name has a release), then adopts.
    assert.match(s.output(), /release default\/installed-unrecorded already exists: looking at it/);
    assert.deepEqual(
      (await suite.spy.calls()).filter((c) => /^(upgrade|uninstall|rollback) /.test(c)),
      [],
      "the next up changes nothing on the release",
    );
    assert.match(s.output(), /adopted default\/installed-unrecorded \(revision 1, deployed\)/);
    await assertOneDeployedRelease(name, { "v1/configmaps": [`${name}-hook`] });
    await assertNoLeftovers(sandbox);
  });
});
