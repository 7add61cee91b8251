/**
 * The cdk8s handoff under the real GitOps controllers: a cdk8s app, run in a process of its own as
 * `cdk8s synth` runs it, renders a CNI-like chart with
 * `ClusterAddon` (`output: "Manifests"`), applied server-side as manager `helm`; the app's handoff
 * record (`ClusterAddon.handoffRecord`) is written to a file, and the `FluxHandoff` or
 * `ArgoCdHandoff` construct of that record is applied. Flux installs the release over the applied
 * objects and Argo CD tracks them, both without recreating any (UIDs unchanged); `helm-handoff
 * status` reads the record file.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ArgoCdHandoff, FluxHandoff } from "../../../constructs/index.js";
import { clusterIdentityFromKubeconfig } from "../../../core/cluster/identity.js";
import type { HandoffRecord } from "../../../core/handoff/record.js";
import type { KubeObject } from "../../../core/util/kube-object.js";
import type { LocalCluster } from "../../../local-cluster/index.js";
import { liveRelease } from "../../support/addon.js";
import { skipUnlessBuilt } from "../../support/binaries.js";
import { applyAll, synth, synthApp } from "../../support/capi.js";
import { clusterSuite } from "../../support/cluster.js";
import { isolateCache, RawApplier } from "../../support/constructs.js";
import { conditionOf, getObject, runHandoffCli, uidsOf, waitFor } from "../../support/gitops.js";
import { type HttpChartRepo, startHttpChartRepo } from "../../support/repos.js";
import { CNI_OBJECTS, CNI_VALUES, exampleChart } from "../../support/takeover.js";

/** The cdk8s app: the CNI-like chart from the test's repository as a Manifests output, and its handoff record. */
const APP = `
const { App, Chart } = await import(process.env.CDK8S);
const { ClusterAddon } = await import(process.env.HELM_HANDOFF_CDK8S);
const chart = new Chart(new App(), "bootstrap");
const addon = new ClusterAddon(chart, "cni", {
  chart: { repo: process.env.REPO, name: "cni", version: "1.0.0" },
  namespace: "kube-system",
  values: ${JSON.stringify(CNI_VALUES)},
});
const record = addon.handoffRecord({ clusterId: process.env.CLUSTER_ID, server: process.env.SERVER });
process.stdout.write(JSON.stringify({ objects: chart.toJson(), record }));
`;

/** The cdk8s side of one suite: the chart repository, the applied Manifests output and its record file. */
function cdk8sApp(suite: { readonly cluster: LocalCluster }) {
  const state: { repo?: HttpChartRepo; dir?: string; cache?: ReturnType<typeof isolateCache> } = {};
  before(async () => {
    state.cache = isolateCache();
    state.dir = mkdtempSync(join(tmpdir(), "hh-cdk8s-handoff-"));
    state.repo = await startHttpChartRepo({
      charts: [exampleChart("cni")],
    });
  });
  after(async () => {
    await state.repo?.close();
    if (state.dir) rmSync(state.dir, { recursive: true, force: true });
    state.cache?.restore();
  });
  return {
    /** Synthesizes the app, applies its Manifests output as manager `helm`, writes the record file; returns the record. */
    async bootstrap(): Promise<{ record: HandoffRecord; file: string; uids: Record<string, string> }> {
      const { cluster } = suite;
      const { clusterId, server } = clusterIdentityFromKubeconfig(cluster.kubeconfig);
      const { objects, record } = (await synthApp(APP, {
        REPO: state.repo?.url ?? "",
        CLUSTER_ID: clusterId,
        SERVER: server,
      })) as { objects: KubeObject[]; record: HandoffRecord };
      const applier = new RawApplier(cluster.kubeconfig);
      for (const o of objects) await applier.apply(o, { fieldManager: "helm" });
      const file = join(state.dir ?? "", "cni-handoff.json");
      writeFileSync(file, JSON.stringify(record));
      return { record, file, uids: await uidsOf(cluster, "kube-system", CNI_OBJECTS) };
    },
  };
}

const status = (cluster: LocalCluster, file: string) =>
  runHandoffCli(["status", "--kubeconfig", cluster.kubeconfigPath, file], "");
/** `helm-handoff status` on the record file before any takeover: exit 3, the release applied as manifests and named by nobody. */
async function notTakenOverYet(cluster: LocalCluster, file: string) {
  const run = await status(cluster, file);
  assert.equal(run.code, 3, run.stderr);
  assert.equal(
    run.stdout.split("\n")[0],
    "kube-system/cni: not-taken-over: applied as manifests (revision 0 in the record: a cdk8s Manifests output), with no Helm release yet; no Flux HelmRelease or Argo CD Application names the release",
  );
  return run;
}
/** `helm-handoff status --release NS/NAME` with no record at all. */
const statusAlone = (cluster: LocalCluster) =>
  runHandoffCli(["status", "--kubeconfig", cluster.kubeconfigPath, "--release", "kube-system/cni"], "");

describe("Flux takes the cdk8s Manifests output over", {
  skip: skipUnlessBuilt(["helm-controller", "source-controller", "kwok"]),
  timeout: 600_000,
}, () => {
  const suite = clusterSuite({ name: "cdk8s-flux", workloads: true, gitops: "flux" });
  const app = cdk8sApp(suite);

  test("the FluxHandoff of the app's record installs the release over the applied objects without recreating them, and helm-handoff status reads the record file or takes --release alone", async () => {
    const { cluster } = suite;
    const { record, file, uids } = await app.bootstrap();
    const before = await notTakenOverYet(cluster, file);
    assert.deepEqual(await statusAlone(cluster), before);
    await applyAll(
      cluster,
      synth((chart) => new FluxHandoff(chart, "handoff", { record, values: CNI_VALUES })),
    );
    const hr = () => getObject(cluster, "helm.toolkit.fluxcd.io/v2", "HelmRelease", "flux-system", "cni");
    await waitFor(
      "HelmRelease cni Ready",
      async () => (conditionOf(await hr(), "Ready")?.status === "True" ? true : undefined),
      240_000,
      async () => JSON.stringify((await hr())?.status ?? {}),
    );
    const release = await liveRelease(cluster, "cni", "kube-system");
    assert.deepEqual([release?.revision, release?.status, release?.values], [1, "deployed", CNI_VALUES]);
    assert.deepEqual(await uidsOf(cluster, "kube-system", CNI_OBJECTS), uids, "nothing was recreated");
    const after = await status(cluster, file);
    assert.equal(after.code, 0, after.stderr);
    assert.equal(
      after.stdout.split("\n")[0],
      "kube-system/cni: handed-off: handed off to Flux HelmRelease flux-system/cni: revision 1 deployed by helm-controller, Ready",
    );
    assert.match(after.stdout, /^ {2}since: \d{4}-/m);
    assert.deepEqual(await statusAlone(cluster), after);
  });
});

describe("Argo CD takes the cdk8s Manifests output over", {
  skip: skipUnlessBuilt(["argocd", "redis-server", "kwok"]),
  timeout: 600_000,
}, () => {
  const suite = clusterSuite({ name: "cdk8s-argocd", workloads: true, gitops: "argocd" });
  const app = cdk8sApp(suite);

  test("the ArgoCdHandoff of the app's record tracks the applied objects without recreating them, and helm-handoff status tells not taken over (exit 3) before and handed off (exit 0) after", async () => {
    const { cluster } = suite;
    const { record, file, uids } = await app.bootstrap();
    await notTakenOverYet(cluster, file);
    const destinationServer = cluster.gitops?.destinationServer;
    await applyAll(
      cluster,
      synth(
        (chart) =>
          new ArgoCdHandoff(chart, "handoff", {
            record,
            values: CNI_VALUES,
            destinationServer,
            automated: true,
          }),
      ),
    );
    const application = () => getObject(cluster, "argoproj.io/v1alpha1", "Application", "argocd", "cni");
    await waitFor(
      "Application cni Synced and Healthy, every object tracked",
      async () => {
        const s = (await application())?.status as
          | { sync?: { status?: string }; health?: { status?: string } }
          | undefined;
        if (s?.sync?.status !== "Synced" || s.health?.status !== "Healthy") return undefined;
        for (const o of CNI_OBJECTS) {
          const live = await getObject(cluster, o.apiVersion, o.kind, "kube-system", o.name);
          if (live?.metadata.annotations?.["argocd.argoproj.io/tracking-id"] === undefined) return undefined;
        }
        return true;
      },
      240_000,
      async () => JSON.stringify((await application())?.status ?? {}),
    );
    assert.deepEqual(await uidsOf(cluster, "kube-system", CNI_OBJECTS), uids, "nothing was recreated");
    const after = await status(cluster, file);
    assert.equal(after.code, 0, after.stdout + after.stderr);
    assert.equal(
      after.stdout.split("\n")[0],
      "kube-system/cni: handed-off: handed off to Argo CD Application argocd/cni: Synced, Healthy, 2 of 2 objects tracked",
    );
    assert.equal(
      await liveRelease(cluster, "cni", "kube-system"),
      undefined,
      "Argo CD never writes Helm's storage",
    );
  });
});
