/**
 * The ownership rule (core/lifecycle/ownership.ts) on the real helm v4 and a real local cluster
 * (etcd + kube-apiserver, no workloads: a Deployment never becomes ready, so `--wait` fails). Each
 * case is one a reviewer reproduced against the lifecycle before it checked ownership: someone
 * else's failed release uninstalled by our cleanup, our own rollback losing our mark, another
 * stack's release taken over, a delete that uninstalls what its replacement manages, a write
 * racing a GitOps write, and a release uninstalled with `--keep-history` retried until the deadline.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { HelmRunner, type ReleaseInfo } from "../../../core/helm/index.js";
import { ensureRelease } from "../../../core/lifecycle/ensure.js";
import {
  OWN_REVISION_LABEL,
  OWNER_LABEL,
  OwnershipError,
  ownerLabels,
  type ReleaseOwner,
} from "../../../core/lifecycle/ownership.js";
import { removeRelease } from "../../../core/lifecycle/remove.js";
import { type AddonSpec, validateSpec } from "../../../core/spec/index.js";
import { type LocalCluster, startLocalCluster } from "../../../local-cluster/index.js";
import { localChart, runHelm } from "../../support/charts.js";

const A: ReleaseOwner = { id: "a".repeat(40), name: "platform.prod.cni", instance: "a1" };
const B: ReleaseOwner = { id: "b".repeat(40), name: "platform.staging.cni", instance: "b1" };

describe("the ownership rule on real helm and a local cluster", { timeout: 600_000 }, () => {
  let cluster: LocalCluster;

  before(async () => {
    cluster = await startLocalCluster({ name: "ownership" });
    await cluster.ready;
  });
  after(async () => {
    await cluster?.stop();
  });

  const runner = () => new HelmRunner({ kubeconfig: cluster.kubeconfig });
  const kc = () => ["--kubeconfig", cluster.kubeconfigPath, "--namespace", "default"];

  /** A spec of the `schema` chart (one ConfigMap: deployed at once without workloads). */
  function spec(releaseName: string, extra: Partial<AddonSpec> = {}) {
    return validateSpec({
      chart: { path: localChart("schema") },
      releaseName,
      values: { replicas: 1, mode: "a" },
      install: { timeout: "20s" },
      retry: { deadline: "30s", minBackoff: "10ms", maxBackoff: "50ms" },
      ...extra,
    });
  }

  /** Makes the next revision of `name` (ours) fail: an upgrade to a chart whose Deployment never becomes ready. */
  async function failOurNextRevision(name: string): Promise<void> {
    await assert.rejects(
      ensureRelease(
        runner(),
        spec(name, {
          strategy: "Reconcile",
          chart: { path: localChart("workload") },
          values: {},
          install: { timeout: "2s" },
          retry: { deadline: "2s", minBackoff: "10ms", maxBackoff: "50ms" },
        }),
        { owner: A, expectExisting: true },
      ),
    );
  }

  async function status(name: string): Promise<ReleaseInfo | undefined> {
    return runner().status(name, "default");
  }

  test("a failed ApplyOnce create leaves someone else's failed release of that name installed", async () => {
    const foreign = await runHelm(
      ["install", "foreign", localChart("workload"), ...kc(), "--wait", "--timeout", "2s"],
      { check: false },
    );
    assert.notEqual(foreign.exitCode, 0, "the foreign install fails (no workloads)");
    assert.equal((await status("foreign"))?.status, "failed");
    const messages: string[] = [];
    await assert.rejects(
      ensureRelease(
        runner(),
        spec("foreign", {
          chart: { repo: "http://127.0.0.1:9/charts", name: "schema", version: "0.1.0" },
          install: { timeout: "2s" },
          retry: { deadline: "2s", minBackoff: "10ms", maxBackoff: "50ms" },
        }),
        { owner: A, onProgress: (e) => messages.push(e.message) },
      ),
    );
    const left = await status("foreign");
    assert.equal(left?.status, "failed", "someone else's release is still there");
    assert.equal(left?.revision, 1);
    assert.ok(
      messages.some((m) => /the release of that name is failed and .*: leaving it as it is$/.test(m)),
      messages.join("\n"),
    );
    assert.ok(!messages.some((m) => /uninstalling the partial release/.test(m)), messages.join("\n"));
  });

  test("a recovery rollback leaves the release marked as ours, so the next run still repairs and upgrades it", async () => {
    await ensureRelease(runner(), spec("rolled", { strategy: "Reconcile" }), { owner: A });
    await failOurNextRevision("rolled");
    const failed = await status("rolled");
    assert.equal(failed?.status, "failed");
    assert.equal(failed?.revision, 2);
    // The next run recovers it: rollback to 1 makes revision 3, which helm labels as revision 1.
    const recovered = await ensureRelease(runner(), spec("rolled", { strategy: "Reconcile" }), {
      owner: A,
      expectExisting: true,
    });
    assert.equal(recovered.release.revision, 3);
    const now = await status("rolled");
    assert.equal(now?.status, "deployed");
    assert.deepEqual(
      Object.fromEntries(
        Object.entries(now?.labels ?? {}).filter(([k]) => k.startsWith("helm-handoff.dev/")),
      ),
      ownerLabels(A, 3),
    );
    const next = await ensureRelease(
      runner(),
      spec("rolled", { strategy: "Reconcile", values: { replicas: 2, mode: "a" } }),
      {
        owner: A,
        expectExisting: true,
      },
    );
    assert.equal(next.action, "upgraded");
    assert.equal(next.release.revision, 4);
  });

  test("a Reconcile resource of another stack is refused the release and its delete leaves it, unless it asks to adopt it", async () => {
    await ensureRelease(runner(), spec("shared", { strategy: "Reconcile" }), { owner: A });
    await assert.rejects(
      ensureRelease(runner(), spec("shared", { strategy: "Reconcile", values: { replicas: 3, mode: "b" } }), {
        owner: B,
      }),
      (e: unknown) =>
        e instanceof OwnershipError &&
        e.message.includes(
          `revision 1 was written by another helm-handoff resource (platform.prod.cni, owner id ${A.id})`,
        ),
    );
    assert.equal(await removeRelease(runner(), "shared", "default", { owner: B }), "not-ours");
    const still = await status("shared");
    assert.equal(still?.status, "deployed");
    assert.equal(still?.revision, 1, "no upgrade by the other stack");
    const adopted = await ensureRelease(
      runner(),
      spec("shared", { strategy: "Reconcile", adopt: true, values: { replicas: 3, mode: "b" } }),
      { owner: B },
    );
    assert.equal(adopted.action, "upgraded");
    assert.equal(adopted.release.revision, 2);
    assert.equal(await removeRelease(runner(), "shared", "default", { owner: A }), "not-ours");
    assert.equal(await removeRelease(runner(), "shared", "default", { owner: B }), "uninstalled");
    assert.equal(await status("shared"), undefined);
  });

  test("a replacement marks the release it takes over, and the replaced instance's delete leaves it", async () => {
    await ensureRelease(runner(), spec("moved", { strategy: "Reconcile" }), { owner: A });
    const next = { ...A, instance: "a2" };
    const taken = await ensureRelease(runner(), spec("moved", { strategy: "Reconcile" }), { owner: next });
    assert.equal(taken.release.revision, 1, "no upgrade: only the instance mark changes");
    assert.equal(await removeRelease(runner(), "moved", "default", { owner: A }), "not-ours");
    assert.equal((await status("moved"))?.status, "deployed");
    assert.equal(await removeRelease(runner(), "moved", "default", { owner: next }), "uninstalled");
  });

  test("a delete leaves a release that someone else upgraded after helm-handoff's revision", async () => {
    await ensureRelease(runner(), spec("gitops", { strategy: "Reconcile" }), { owner: A });
    await runHelm(["upgrade", "gitops", localChart("schema"), ...kc(), "--set", "replicas=2,mode=b"]);
    const messages: string[] = [];
    const outcome = await removeRelease(runner(), "gitops", "default", {
      owner: A,
      onProgress: (e) => messages.push(e.message),
    });
    assert.equal(outcome, "not-ours");
    assert.equal((await status("gitops"))?.revision, 2);
    assert.deepEqual(messages, [
      "leaving release default/gitops as it is: revision 2 was written by someone else on top of this resource's revision 1 (a person's helm upgrade or rollback, or a GitOps controller that took the release over)",
    ]);
  });

  test("a write that races a GitOps upgrade looks again instead of rolling it back", async () => {
    await ensureRelease(runner(), spec("race", { strategy: "Reconcile" }), { owner: A });
    await failOurNextRevision("race");
    assert.equal((await status("race"))?.status, "failed");
    // The GitOps controller upgrades right after helm-handoff read the history (before its rollback).
    let raced = false;
    class Racing extends HelmRunner {
      public override async history(name: string, namespace: string) {
        const h = await super.history(name, namespace);
        if (!raced) {
          raced = true;
          await runHelm(["upgrade", "race", localChart("schema"), ...kc(), "--set", "replicas=5,mode=b"]);
        }
        return h;
      }
    }
    // An ApplyOnce create (e.g. `pulumi up --replace`) finds its own failed revision and would roll it back.
    const messages: string[] = [];
    const result = await ensureRelease(new Racing({ kubeconfig: cluster.kubeconfig }), spec("race"), {
      owner: A,
      onProgress: (e) => messages.push(e.message),
    });
    assert.ok(raced);
    assert.ok(
      messages.some((m) =>
        /the release changed while helm-handoff looked at it \(revision 2 failed, now revision 3 deployed\); looking again/.test(
          m,
        ),
      ),
      messages.join("\n"),
    );
    assert.equal(result.action, "adopted");
    const live = await status("race");
    assert.equal(live?.revision, 3, "the GitOps revision stands: no rollback");
    assert.equal(live?.status, "deployed");
  });

  test("a release uninstalled with --keep-history fails at once instead of being retried until the deadline", async () => {
    await runHelm(["install", "kept", localChart("schema"), ...kc(), "--set", "replicas=1,mode=a"]);
    await runHelm(["uninstall", "kept", ...kc(), "--keep-history"]);
    const phases: string[] = [];
    const once = ensureRelease(runner(), spec("kept", { retry: { deadline: "5m" } }), {
      owner: A,
      onProgress: (e) => phases.push(e.phase),
    });
    await assert.rejects(once, {
      name: "HelmHandoffError",
      code: "RELEASE_STATE_UNSUPPORTED",
      message:
        'release default/kept was uninstalled with --keep-history (revision 1), and helm will not install under that name while its history remains: remove the history with "helm uninstall kept -n default" (on an uninstalled release it deletes the kept history), or choose another releaseName',
    });
    assert.deepEqual(phases, ["waiting-for-api-server", "installing", "adopting"], "one attempt, no retry");
    // The fix the message gives works.
    await runHelm(["uninstall", "kept", ...kc()]);
    const installed = await ensureRelease(runner(), spec("kept"), { owner: A });
    assert.equal(installed.action, "installed");
  });
  test("adopt: true waits for a release another helm is still installing instead of marking it", async () => {
    // Someone else's install, still running (its Deployment never becomes ready): pending-install.
    const other = runHelm(
      ["install", "busy", localChart("workload"), ...kc(), "--wait", "--timeout", "40s"],
      {
        check: false,
      },
    );
    await waitForStatus("busy", "pending-install");
    const messages: string[] = [];
    // Stop waiting after 3 s, long before the other install goes stale (install.timeout 20 s).
    const signal = AbortSignal.timeout(3_000);
    await assert.rejects(
      ensureRelease(
        runner(),
        spec("busy", {
          strategy: "Reconcile",
          adopt: true,
          chart: { path: localChart("workload") },
          values: {},
        }),
        { owner: A, expectExisting: true, signal, onProgress: (e) => messages.push(e.message) },
      ),
    );
    assert.ok(
      messages.some((m) =>
        /^attempt 1 failed \(default\/busy: release is pending-install since .*; waiting for the other operation to finish or to go stale \(after 20s\)\); retrying in /.test(
          m,
        ),
      ),
      messages.join("\n"),
    );
    const left = await status("busy");
    assert.equal(left?.status, "pending-install");
    assert.equal(left?.labels[OWNER_LABEL], undefined, "the busy revision was not marked");
    assert.ok(!messages.some((m) => /taking it over as asked/.test(m)), messages.join("\n"));
    await other;
  });

  test("a recovery rollback does not mark a rollback someone else made to the same revision at the same time", async () => {
    await ensureRelease(runner(), spec("twin", { strategy: "Reconcile" }), { owner: A });
    await failOurNextRevision("twin");
    // Someone else rolls back to revision 1 at the same moment and wins: helm then refuses ours.
    class Raced extends HelmRunner {
      public override async rollback(name: string, namespace: string): Promise<void> {
        await runHelm([
          "rollback",
          name,
          "1",
          "--namespace",
          namespace,
          "--kubeconfig",
          cluster.kubeconfigPath,
        ]);
        throw new Error("another rollback created revision 3 first");
      }
    }
    await assert.rejects(
      ensureRelease(new Raced({ kubeconfig: cluster.kubeconfig }), spec("twin", { strategy: "Reconcile" }), {
        owner: A,
        expectExisting: true,
      }),
      { message: "another rollback created revision 3 first" },
    );
    const now = await status("twin");
    assert.equal(now?.revision, 3);
    assert.equal(now?.description, "Rollback to 1");
    assert.equal(
      now?.labels[OWN_REVISION_LABEL],
      "1",
      "someone else's revision 3 keeps the copied mark of revision 1",
    );
    await assert.rejects(
      ensureRelease(runner(), spec("twin", { strategy: "Reconcile", values: { replicas: 2, mode: "a" } }), {
        owner: A,
        expectExisting: true,
      }),
      (e: unknown) =>
        e instanceof OwnershipError &&
        e.message.includes("revision 3 was written by someone else on top of this resource's revision 1"),
    );
  });

  /** Polls until the release `name` has `want` as status (10 s at most). */
  async function waitForStatus(name: string, want: string): Promise<void> {
    for (let i = 0; i < 100; i++) {
      if ((await status(name))?.status === want) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`release ${name} never reached ${want}: ${JSON.stringify(await status(name))}`);
  }
});
