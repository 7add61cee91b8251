import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Testing } from "cdk8s";
import {
  ArgoCdHandoff,
  argoCdApplicationObject,
  FluxHandoff,
  fluxHandoffObjects,
} from "../constructs/index.js";
import { makeHandoffRecord } from "../core/handoff.js";
import { newChart } from "./support/constructs.js";

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
  it("builds a HelmRepository and a HelmRelease that name the release explicitly", () => {
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
    });
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
