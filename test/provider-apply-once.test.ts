/**
 * ClusterAddon in ApplyOnce mode on the real Pulumi engine, real helm and a
 * real local cluster: every row of the lifecycle table.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { clusterIdentityFromKubeconfig } from "../core/index.js";
import { type LocalCluster, startLocalCluster } from "../local-cluster/index.js";
import type { HandoffRecord } from "../provider/index.js";
import { type AddonStack, addonStack, liveRelease } from "./support/addon.js";
import { localChart, runHelm } from "./support/charts.js";
import { withLocalCluster } from "./support/cluster.js";
import { createHelmSpy, type HelmSpy } from "./support/helm-spy.js";

describe("ClusterAddon with strategy ApplyOnce", { timeout: 1_200_000 }, () => {
  let cluster: LocalCluster;
  let spy: HelmSpy;
  const stacks: AddonStack[] = [];

  before(async () => {
    [cluster, spy] = await Promise.all([
      startLocalCluster({ name: "apply-once", workloads: true }),
      createHelmSpy(),
    ]);
    await cluster.ready;
  });
  after(async () => {
    await Promise.allSettled(stacks.map((s) => s.dispose()));
    await Promise.allSettled([cluster?.stop(), spy?.remove()]);
  });

  async function stackOf(name: string, values: Record<string, unknown>): Promise<AddonStack> {
    const s = await addonStack(
      [{ name, args: { kubeconfig: cluster.kubeconfig, chart: { path: localChart("workload") }, values } }],
      spy,
    );
    stacks.push(s);
    return s;
  }

  test("installs the chart once and exports the handoff record", async () => {
    const s = await stackOf("once", { message: "first" });
    const up = await s.up();
    const handoff = up.outputs.onceHandoff?.value as HandoffRecord;
    assert.equal(handoff.kind, "helm-handoff.dev/HandoffRecord");
    assert.equal(handoff.cluster.id, clusterIdentityFromKubeconfig(cluster.kubeconfig).clusterId);
    assert.equal(handoff.cluster.server, cluster.server);
    assert.deepEqual(handoff.release, { name: "once", namespace: "default", storageNamespace: "default" });
    assert.equal(handoff.revision, 1);
    assert.equal(handoff.strategy, "ApplyOnce");
    assert.match(handoff.valuesDigest, /^sha256:[0-9a-f]{64}$/);
    const live = await liveRelease(cluster, "once");
    assert.equal(live?.status, "deployed");
    assert.deepEqual(live?.values, { message: "first" });
  });

  test("ignores a values change after handoff: no helm call and the release stays at revision 1", async () => {
    const s = await stackOf("frozen", { message: "first" });
    await s.up();
    s.current = [{ ...s.current[0]!, args: { ...s.current[0]!.args, values: { message: "second" } } }];
    await spy.reset();
    const preview = await s.preview();
    assert.match(s.output(), /ApplyOnce: the spec changed but is ignored after handoff/);
    assert.equal(preview.changeSummary.update ?? 0, 0);
    const up = await s.up();
    assert.equal(up.summary.resourceChanges?.update ?? 0, 0);
    assert.deepEqual(await spy.calls(), []);
    const live = await liveRelease(cluster, "frozen");
    assert.equal(live?.revision, 1);
    assert.deepEqual(live?.values, { message: "first" });
  });

  test("a replace leaves a release that GitOps upgraded and then failed exactly as it was: adopted, no helm write", async () => {
    const s = await stackOf("gitops-owned", { message: "first" });
    await s.up();
    const kc = ["--kubeconfig", cluster.kubeconfigPath];
    const chart = localChart("workload");
    // GitOps takes over: one upgrade that works (revision 2), one that the API server rejects (revision 3, failed).
    await runHelm([
      "upgrade",
      "gitops-owned",
      chart,
      ...kc,
      "--reuse-values",
      "--set",
      "message=gitops",
      "--wait",
    ]);
    const rejected = await runHelm(
      ["upgrade", "gitops-owned", chart, ...kc, "--reuse-values", "--set", "replicaCount=-1"],
      { check: false },
    );
    assert.notEqual(rejected.exitCode, 0);
    const before = await liveRelease(cluster, "gitops-owned");
    assert.equal(before?.status, "failed");
    assert.equal(before?.revision, 3);

    const deployment = (await s.stack.exportStack()).deployment as {
      resources: Array<{ urn: string; type: string }>;
    };
    const release = deployment.resources.find((r) => r.type.endsWith(":ClusterAddonRelease"));
    assert.ok(release);
    await spy.reset();
    const up = await s.stack.up({ replace: [release.urn], color: "never", onOutput: () => {} });
    assert.equal(up.summary.resourceChanges?.replace, 1);
    assert.deepEqual(
      (await spy.calls()).map((c) => c.split(" ")[0]).filter((c) => c !== "version"),
      ["install", "status", "get"],
      "one refused install, then a look: no rollback, uninstall or upgrade",
    );
    const after = await liveRelease(cluster, "gitops-owned");
    assert.deepEqual(after, before);
    const status = up.outputs["gitops-ownedStatus"]?.value as {
      adopted: boolean;
      revision: number;
      status: string;
    };
    assert.deepEqual([status.adopted, status.revision, status.status], [true, 3, "failed"]);
    const handoff = up.outputs["gitops-ownedHandoff"]?.value as HandoffRecord;
    assert.deepEqual([handoff.adopted, handoff.revision], [true, 3]);
  });

  test("adopts a release that is already deployed instead of failing or upgrading it", async () => {
    await runHelm([
      "install",
      "existing",
      localChart("workload"),
      "--kubeconfig",
      cluster.kubeconfigPath,
      "--set",
      "message=theirs",
      "--wait",
    ]);
    const s = await stackOf("existing", { message: "ours" });
    const up = await s.up();
    const status = up.outputs.existingStatus?.value as { adopted: boolean; revision: number };
    assert.equal(status.adopted, true);
    assert.equal(status.revision, 1);
    assert.deepEqual((await liveRelease(cluster, "existing"))?.values, { message: "theirs" });
  });

  test("destroy makes no helm call and leaves the release running", async () => {
    const s = await stackOf("kept", { message: "kept" });
    await s.up();
    await spy.reset();
    await s.destroy();
    assert.deepEqual(await spy.calls(), []);
    assert.equal((await liveRelease(cluster, "kept"))?.status, "deployed");
  });

  test("refresh and destroy succeed without any cluster call when the cluster is gone", async () => {
    await withLocalCluster({ name: "gone" }, async (other) => {
      // No workload controllers on this cluster: install without waiting for pods.
      const args = {
        kubeconfig: other.kubeconfig,
        chart: { path: localChart("workload") },
        install: { wait: false },
      };
      const s = await addonStack([{ name: "orphan", args }], spy);
      stacks.push(s);
      await s.up();
      await other.stopApiServer();
      await spy.reset();
      await s.refresh();
      await s.destroy();
      assert.deepEqual(await spy.calls(), []);
    });
  });

  test("rotated credentials for the same cluster cause no replace and no helm call", async () => {
    const s = await stackOf("rotated", {});
    await s.up();
    // Same server and CA, other user entry: the identity must not change.
    const rotated = cluster.kubeconfig.replaceAll(`${cluster.name}-admin`, `${cluster.name}-rotated`);
    assert.notEqual(rotated, cluster.kubeconfig);
    s.current = [{ ...s.current[0]!, args: { ...s.current[0]!.args, kubeconfig: rotated } }];
    await spy.reset();
    const up = await s.up();
    assert.equal(up.summary.resourceChanges?.replace ?? 0, 0);
    assert.equal(up.summary.resourceChanges?.create ?? 0, 0);
    assert.deepEqual(await spy.calls(), []);
  });

  test("a replaced cluster is bootstrapped again and the old one is never touched", async () => {
    const s = await stackOf("moved", { message: "a" });
    await s.up();
    await withLocalCluster({ name: "replacement", workloads: true }, async (next) => {
      await next.ready;
      s.current = [
        {
          name: "moved",
          args: {
            kubeconfig: next.kubeconfig,
            chart: { path: localChart("workload") },
            values: { message: "a" },
          },
        },
      ];
      const up = await s.up();
      assert.equal(up.summary.resourceChanges?.replace, 1);
      assert.equal((await liveRelease(next, "moved"))?.status, "deployed");
      assert.equal(
        (await liveRelease(cluster, "moved"))?.status,
        "deployed",
        "the old cluster keeps its release",
      );
      const handoff = up.outputs.movedHandoff?.value as HandoffRecord;
      assert.equal(handoff.cluster.server, next.server);
    });
  });

  test("no secret value appears in the state file, in helm's argv or in the engine's output", async () => {
    const secretValue = "s3cr3t-value-9f8e7d";
    const s = await stackOf("secrets", { message: secretValue });
    await spy.reset();
    await s.up();
    await s.preview();
    await s.refresh();
    const state = await s.stateText();
    const argv = (await spy.calls()).join("\n");
    const keyLine = cluster.kubeconfig.split("\n").find((l) => l.includes("client-key-data"))!;
    const clientKey = keyLine.split(":")[1]!.trim();
    for (const [where, text] of [
      ["state", state],
      ["argv", argv],
      ["output", s.output()],
    ] as const) {
      assert.ok(!text.includes(secretValue), `the values secret leaked into ${where}`);
      assert.ok(!text.includes(clientKey), `the kubeconfig client key leaked into ${where}`);
    }
    assert.ok(argv.length > 0, "helm ran at least once");
  });
});
