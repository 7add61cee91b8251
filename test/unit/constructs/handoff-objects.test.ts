import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Testing } from "cdk8s";
import { ArgoCdHandoff, FluxHandoff } from "../../../constructs/index.js";
import { argoCdApplicationObject, fluxHandoffObjects } from "../../../core/handoff/gitops.js";
import { makeHandoffRecord } from "../../../core/handoff/record.js";
import { newChart } from "../../support/constructs.js";

const base = {
  clusterId: "sha256:0123456789abcdef",
  server: "https://10.0.0.1:6443",
  releaseName: "cni",
  namespace: "kube-system",
  chartVersion: "1.2.3",
  revision: 1,
  strategy: "ApplyOnce" as const,
  installedAt: "2025-01-01T00:00:00.000Z",
};
const httpRecord = makeHandoffRecord({ ...base, chart: { repo: "https://charts.example.org", name: "cni" } });
const ociRecord = makeHandoffRecord({
  ...base,
  chart: { repo: "oci://registry.example.org/charts", name: "cni" },
});

describe("handoff objects", () => {
  it("builds a HelmRepository and a HelmRelease that name the release explicitly and never uninstall on a failed takeover", () => {
    const [source, release] = fluxHandoffObjects(httpRecord);
    assert.deepEqual(source, {
      apiVersion: "source.toolkit.fluxcd.io/v1",
      kind: "HelmRepository",
      metadata: { name: "cni", namespace: "flux-system" },
      spec: { interval: "10m", url: "https://charts.example.org" },
    });
    assert.deepEqual(release?.spec, {
      interval: "10m",
      chart: { spec: { chart: "cni", version: "1.2.3", sourceRef: { kind: "HelmRepository", name: "cni" } } },
      releaseName: "cni",
      targetNamespace: "kube-system",
      storageNamespace: "kube-system",
      upgrade: { remediation: { strategy: "rollback" } },
    });
  });

  it("passes values from a Secret as valuesFrom, so secret values stay out of the HelmRelease", () => {
    const [, release] = fluxHandoffObjects(httpRecord, {
      values: { ipam: { mode: "kubernetes" } },
      valuesFrom: [{ kind: "Secret", name: "cni-secret-values", valuesKey: "values.yaml" }],
    });
    const spec = release?.spec as Record<string, unknown> | undefined;
    assert.deepEqual(spec?.valuesFrom, [
      { kind: "Secret", name: "cni-secret-values", valuesKey: "values.yaml" },
    ]);
    assert.deepEqual(spec?.values, { ipam: { mode: "kubernetes" } });
  });

  it("tags an OCI chart version holding + the way helm push does, with _", () => {
    const record = makeHandoffRecord({
      ...base,
      chartVersion: "1.2.3+build.7",
      chart: { repo: "oci://r.example/c", name: "cni" },
    });
    const [source] = fluxHandoffObjects(record);
    assert.deepEqual((source?.spec as Record<string, unknown> | undefined)?.ref, { tag: "1.2.3_build.7" });
  });

  it("builds an OCIRepository and a chartRef for an oci:// chart", () => {
    const [source, release] = fluxHandoffObjects(ociRecord, { values: { a: 1 } });
    assert.equal(source?.kind, "OCIRepository");
    assert.deepEqual(source?.spec, {
      interval: "10m",
      url: "oci://registry.example.org/charts/cni",
      ref: { tag: "1.2.3" },
      layerSelector: { mediaType: "application/vnd.cncf.helm.chart.content.v1.tar+gzip", operation: "copy" },
    });
    assert.deepEqual((release?.spec as Record<string, unknown> | undefined)?.chartRef, {
      kind: "OCIRepository",
      name: "cni",
    });
    assert.deepEqual((release?.spec as Record<string, unknown> | undefined)?.values, { a: 1 });
  });

  it("builds an Argo CD Application with the release name and server-side apply", () => {
    const app = argoCdApplicationObject(ociRecord);
    assert.deepEqual(app.operation, {
      initiatedBy: { username: "helm-handoff" },
      sync: { syncOptions: ["ServerSideApply=true"] },
    });
    assert.deepEqual(app.spec, {
      project: "default",
      source: {
        repoURL: "registry.example.org/charts",
        chart: "cni",
        targetRevision: "1.2.3",
        helm: { releaseName: "cni" },
      },
      destination: { server: "https://kubernetes.default.svc", namespace: "kube-system" },
      syncPolicy: { syncOptions: ["ServerSideApply=true"] },
    });
  });

  it("turns on automated sync without selfHeal or prune unless asked, and skips the first sync when told", () => {
    const policy = (options: Parameters<typeof argoCdApplicationObject>[1]) =>
      (argoCdApplicationObject(httpRecord, options).spec as { syncPolicy: unknown }).syncPolicy;
    assert.deepEqual(policy({ automated: true }), {
      automated: { prune: false, selfHeal: false },
      syncOptions: ["ServerSideApply=true"],
    });
    assert.deepEqual(policy({ automated: { selfHeal: true } }), {
      automated: { prune: false, selfHeal: true },
      syncOptions: ["ServerSideApply=true"],
    });
    assert.equal(argoCdApplicationObject(httpRecord, { syncOnCreate: false }).operation, undefined);
  });

  it("refuses a local chart with a message naming the fix", () => {
    const record = makeHandoffRecord({ ...base, chart: { path: "/charts/cni" } });
    assert.throws(() => argoCdApplicationObject(record), {
      name: "SpecError",
      message:
        "a local chart (/charts/cni) cannot be handed off to Argo CD: publish it to an https:// or oci:// repository and record that source",
    });
  });

  it("wraps the objects in cdk8s constructs", () => {
    const { chart } = newChart();
    new FluxHandoff(chart, "flux", { record: httpRecord });
    new ArgoCdHandoff(chart, "argo", { record: httpRecord, namespace: "gitops" });
    const kinds = (Testing.synth(chart) as { kind: string; metadata: { namespace?: string } }[]).map(
      (o) => `${o.kind}@${o.metadata.namespace}`,
    );
    assert.deepEqual(kinds, ["HelmRepository@flux-system", "HelmRelease@flux-system", "Application@gitops"]);
  });
});
