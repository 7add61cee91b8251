/**
 * The handoff against a real API server (local-cluster): server-side apply of the Manifests
 * output, adoption by `helm install`, a takeover upgrade, and server-side dry runs of the Cluster
 * API / Flux / Argo CD objects against their upstream CRDs.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { KubeConfig, KubernetesObjectApi } from "@kubernetes/client-node";
import { parseAllDocuments } from "yaml";
import { clusterResourceSetObjects } from "../../../constructs/cluster-resource-set.js";
import { helmChartProxyObjects } from "../../../constructs/helm-chart-proxy.js";
import { ClusterAddon } from "../../../constructs/index.js";
import { argoCdApplicationObject, fluxHandoffObjects } from "../../../core/handoff/gitops.js";
import { makeHandoffRecord } from "../../../core/handoff/record.js";
import { HelmRunner } from "../../../core/helm/index.js";
import { validateSpec } from "../../../core/spec/index.js";
import type { KubeObject } from "../../../core/util/kube-object.js";
import { type LocalCluster, startLocalCluster } from "../../../local-cluster/index.js";
import { skipUnlessBuilt } from "../../support/binaries.js";
import { crdDir, crdFiles, isolateCache, newChart, RawApplier, testChart } from "../../support/constructs.js";

/**
 * The field manager used for the server-side apply: helm v4's own. helm v4 installs and upgrades
 * with server-side apply as manager "helm" and without forcing conflicts, so objects applied by
 * another manager with a value that helm later changes would conflict; applied as "helm", the
 * bootstrap's fields are helm's from the start and a takeover has nothing to fight.
 */
const FIELD_MANAGER = "helm";

/**
 * Server-side apply as {@link FIELD_MANAGER}, with the body sent as is and strict field validation
 * (see {@link RawApplier} for why not `KubernetesObjectApi.patch`).
 */
function apply(applier: RawApplier, o: KubeObject, dryRun = false): Promise<KubeObject> {
  return applier.apply(o, { fieldManager: FIELD_MANAGER, dryRun });
}

describe("ClusterAddon against a local cluster", {
  skip: skipUnlessBuilt(["etcd", "kube-apiserver"]),
}, () => {
  let cluster: LocalCluster;
  let api: KubernetesObjectApi;
  let applier: RawApplier;
  let cache: ReturnType<typeof isolateCache>;

  before(async () => {
    cache = isolateCache();
    cluster = await startLocalCluster({ name: "cdk8s-handoff" });
    const kc = new KubeConfig();
    kc.loadFromString(cluster.kubeconfig);
    api = KubernetesObjectApi.makeApiClient(kc);
    applier = new RawApplier(cluster.kubeconfig);
  });
  after(async () => {
    await cluster?.stop();
    cache?.restore();
  });

  it("applies the Manifests output, then helm install adopts it and an upgrade by another actor has nothing to fight", async () => {
    const { chart } = newChart();
    const addon = new ClusterAddon(chart, "boot", {
      chart: { path: testChart("workload") },
      namespace: "apps",
      createNamespace: true,
      values: { message: "from-cdk8s" },
    });
    for (const o of addon.objects) await apply(applier, o);

    const helm = new HelmRunner({ kubeconfig: cluster.kubeconfig });
    const spec = (message: string) =>
      validateSpec({
        chart: { path: testChart("workload") },
        releaseName: "boot",
        namespace: "apps",
        values: { message },
        install: { wait: false },
      });
    const installed = await helm.install(spec("from-cdk8s"));
    assert.equal(installed.status, "deployed");

    const upgraded = await helm.upgrade(spec("from-flux"));
    assert.equal(upgraded.status, "deployed");
    assert.equal(upgraded.revision, 2);

    const cm = await api.read({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "boot-config", namespace: "apps" },
    });
    assert.match(JSON.stringify((cm as { data?: unknown }).data), /from-flux/);
    const managers = (cm.metadata?.managedFields ?? []).map((f) => f.manager);
    assert.deepEqual([...new Set(managers)], ["helm"]);
  });

  it("passes a server-side dry run of every carrier and handoff object against the upstream CRDs", async (t) => {
    const dir = crdDir();
    if (dir === undefined) {
      t.skip("scripts/crds.sh could not fetch the CRDs");
      return;
    }
    for (const file of crdFiles(dir)) {
      for (const doc of parseAllDocuments(readFileSync(file, "utf8"))) {
        const crd = doc.toJS() as KubeObject | null;
        if (crd?.kind === "CustomResourceDefinition") await apply(applier, crd);
      }
    }
    await waitEstablished(cluster, 8);
    for (const ns of ["capi", "flux-system", "argocd"]) {
      await apply(applier, { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
    }

    const { chart } = newChart();
    const addon = new ClusterAddon(chart, "cni", {
      chart: { path: testChart("workload") },
      namespace: "kube-system",
    });
    const selector = { matchLabels: { cni: "bootstrap" } };
    const objects: KubeObject[] = [];
    for (const apiVersion of ["v1beta2", "v1beta1"] as const) {
      for (const sensitive of [false, true]) {
        objects.push(
          ...clusterResourceSetObjects(addon.objects, {
            name: `cni-${apiVersion}-${sensitive ? "s" : "c"}`,
            namespace: "capi",
            clusterSelector: selector,
            strategy: "ApplyOnce",
            apiVersion,
            sensitive,
          }),
        );
      }
    }
    const spec = validateSpec({
      chart: { repo: "https://charts.example.org", name: "cni", version: "1.2.3" },
      releaseName: "cni",
      namespace: "kube-system",
      strategy: "Reconcile",
    });
    objects.push(
      ...helmChartProxyObjects(spec, {
        name: "cni",
        namespace: "capi",
        clusterSelector: selector,
        values: { a: 1 },
      }),
    );
    const base = {
      clusterId: "sha256:0",
      server: cluster.server,
      releaseName: "cni",
      namespace: "kube-system",
      chartVersion: "1.2.3",
      revision: 1,
      strategy: "ApplyOnce" as const,
      installedAt: new Date(0),
    };
    for (const repo of ["https://charts.example.org", "oci://registry.example.org/charts"]) {
      const record = makeHandoffRecord({ ...base, chart: { repo, name: "cni" } });
      objects.push(...fluxHandoffObjects(record, { values: { a: 1 } }), argoCdApplicationObject(record));
    }
    const kinds = new Set<string>();
    for (const o of objects) {
      const res = await apply(applier, o, true);
      assert.equal(res.kind, o.kind);
      kinds.add(`${o.apiVersion}/${o.kind}`);
    }
    assert.deepEqual([...kinds].sort(), [
      "addons.cluster.x-k8s.io/v1alpha1/HelmChartProxy",
      "addons.cluster.x-k8s.io/v1beta1/ClusterResourceSet",
      "addons.cluster.x-k8s.io/v1beta2/ClusterResourceSet",
      "argoproj.io/v1alpha1/Application",
      "helm.toolkit.fluxcd.io/v2/HelmRelease",
      "source.toolkit.fluxcd.io/v1/HelmRepository",
      "source.toolkit.fluxcd.io/v1/OCIRepository",
      "v1/ConfigMap",
      "v1/Secret",
    ]);

    // The dry runs are strict: a field the upstream schema does not know fails them, so the
    // generated objects above carry only fields the CRDs define.
    const release = objects.find((o) => o.kind === "HelmRelease");
    assert.ok(release !== undefined);
    const spec0 = release.spec as Record<string, unknown>;
    await assert.rejects(
      apply(applier, { ...release, spec: { ...spec0, notAField: true } }, true),
      /spec\.notAField: field not declared in schema/,
    );
  });
});

async function waitEstablished(cluster: LocalCluster, count: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await cluster.request("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions");
    const body = res.json<{
      items: { status?: { conditions?: { type: string; status: string }[] } }[];
    }>();
    const established = body.items.filter((c) =>
      (c.status?.conditions ?? []).some((x) => x.type === "Established" && x.status === "True"),
    ).length;
    if (established >= count) return;
    if (Date.now() > deadline) throw new Error(`only ${established} of ${count} CRDs established after 60s`);
    await sleep(250);
  }
}
