/**
 * A release that CAAPH installed with InstallOnce, taken over by the workload cluster's own Flux: a
 * local management cluster runs the real Cluster API core manager and CAAPH; its one workload
 * cluster runs workloads and the real Flux controllers. The cdk8s app's HelmChartProxy installs a
 * CNI-like chart there; the app's handoff record (`ClusterAddon.handoffRecord`, revision 1) feeds
 * the `FluxHandoff` construct, applied to the workload cluster; Flux upgrades the release, and a
 * re-applied proxy with new values leaves it alone.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { ClusterAddon, FluxHandoff } from "../../../constructs/index.js";
import { clusterIdentityFromKubeconfig } from "../../../core/cluster/identity.js";
import type { HandoffRecord } from "../../../core/handoff/record.js";
import type { KubeObject } from "../../../core/util/kube-object.js";
import type { CapiWorkloadCluster } from "../../../local-cluster/index.js";
import { liveRelease } from "../../support/addon.js";
import { skipUnlessBuilt } from "../../support/binaries.js";
import { applyAll, proxyObserved, synth } from "../../support/capi.js";
import { clusterSuite } from "../../support/cluster.js";
import { isolateCache } from "../../support/constructs.js";
import { conditionOf, getObject, runHandoffCli, uidsOf, waitFor } from "../../support/gitops.js";
import { repoRoot } from "../../support/repo-root.js";
import { type HttpChartRepo, startHttpChartRepo } from "../../support/repos.js";

const CNI_OBJECTS = [
  { apiVersion: "v1", kind: "ConfigMap", name: "cni-config" },
  { apiVersion: "apps/v1", kind: "DaemonSet", name: "cni-agent" },
];

describe("the workload cluster's own Flux takes over what CAAPH installed once", {
  skip: skipUnlessBuilt(["capi-manager", "caaph-manager", "helm-controller", "source-controller", "kwok"]),
  timeout: 600_000,
}, () => {
  const suite = clusterSuite({ name: "capi-flux", capi: { workloadClusters: 0 } });
  let repo: HttpChartRepo;
  let cache: ReturnType<typeof isolateCache>;
  let dir: string;
  let workload: CapiWorkloadCluster;
  let record: HandoffRecord | undefined;
  const app = (values: Record<string, unknown>): KubeObject[] =>
    synth((chart) => {
      const addon = new ClusterAddon(chart, "cni", {
        chart: { repo: repo.url, name: "cni", version: "1.0.0" },
        namespace: "kube-system",
        values,
        output: "HelmChartProxy",
        carrierNamespace: "default",
        clusterSelector: { matchLabels: { cni: "bootstrap" } },
      });
      const { clusterId, server } = clusterIdentityFromKubeconfig(workload.kubeconfig);
      record = addon.handoffRecord({ clusterId, server, revision: 1 });
    });

  before(async () => {
    cache = isolateCache();
    dir = mkdtempSync(join(tmpdir(), "hh-capi-flux-"));
    repo = await startHttpChartRepo({ charts: [join(repoRoot(), "examples", "bootstrap", "charts", "cni")] });
    const added = await suite.cluster.capi?.addCluster({
      labels: { cni: "bootstrap" },
      workloads: true,
      gitops: "flux",
    });
    assert.ok(added);
    workload = added;
  });
  after(async () => {
    await repo?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    cache?.restore();
  });

  test("Flux upgrades the release CAAPH installed with InstallOnce, keeps its objects, and CAAPH leaves it alone after a values change", async () => {
    const first = { ipam: { mode: "kubernetes" } };
    await applyAll(suite.cluster, app(first));
    const installed = await waitFor("CAAPH's install at revision 1", async () => {
      const r = await liveRelease(workload.local, "cni", "kube-system");
      return r?.status === "deployed" ? r : undefined;
    });
    assert.deepEqual([installed.revision, installed.values], [1, first]);
    const uids = await uidsOf(workload.local, "kube-system", CNI_OBJECTS);
    assert.ok(record);
    const file = join(dir, "cni-handoff.json");
    writeFileSync(file, JSON.stringify(record));

    await applyAll(
      workload.local,
      synth((chart) => new FluxHandoff(chart, "handoff", { record: record as HandoffRecord, values: first })),
    );
    const hr = () =>
      getObject(workload.local, "helm.toolkit.fluxcd.io/v2", "HelmRelease", "flux-system", "cni");
    await waitFor(
      "HelmRelease cni Ready",
      async () => (conditionOf(await hr(), "Ready")?.status === "True" ? true : undefined),
      240_000,
      async () => JSON.stringify((await hr())?.status ?? {}),
    );
    const upgraded = await liveRelease(workload.local, "cni", "kube-system");
    assert.deepEqual([upgraded?.revision, upgraded?.status], [2, "deployed"]);
    assert.deepEqual(await uidsOf(workload.local, "kube-system", CNI_OBJECTS), uids, "nothing was recreated");
    const status = await runHandoffCli(["status", "--kubeconfig", workload.kubeconfigPath, file], "");
    assert.equal(status.code, 0, status.stderr);
    assert.equal(
      status.stdout.split("\n")[0],
      "kube-system/cni: handed-off: handed off to Flux HelmRelease flux-system/cni: revision 2 deployed by helm-controller, Ready",
    );
    assert.match(status.stdout, /^ {2}since: \d{4}-/m);

    await applyAll(suite.cluster, app({ ipam: { mode: "cluster-pool" } }));
    await waitFor("the proxy to be reconciled", () => proxyObserved(suite.cluster, "default", "cni"), 60_000);
    await sleep(5_000);
    const after = await liveRelease(workload.local, "cni", "kube-system");
    assert.deepEqual([after?.revision, after?.values], [2, first]);
  });
});
