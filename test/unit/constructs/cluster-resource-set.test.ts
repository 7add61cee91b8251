import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Testing } from "cdk8s";
import { parseAllDocuments } from "yaml";
import {
  carrierKey,
  clusterResourceSetObjects,
  DEFAULT_MAX_CARRIER_BYTES,
  RESOURCE_SET_SECRET_TYPE,
} from "../../../constructs/cluster-resource-set.js";
import { ClusterAddon } from "../../../constructs/index.js";
import type { KubeObject } from "../../../core/util/kube-object.js";
import { isolateCache, newChart, testChart, writeChart } from "../../support/constructs.js";

function cm(name: string, bytes: number): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "ns" },
    data: { d: "x".repeat(bytes) },
  };
}

describe("ClusterResourceSet packing", () => {
  let cache: ReturnType<typeof isolateCache>;
  before(() => {
    cache = isolateCache();
  });
  after(() => cache.restore());

  it("splits the big chart into ConfigMaps under the limit, every object once, in apply order", () => {
    const { chart } = newChart();
    const addon = new ClusterAddon(chart, "big", {
      chart: { path: testChart("big") },
      namespace: "ops",
      createNamespace: true,
      output: "ClusterResourceSet",
      clusterSelector: { matchLabels: { addons: "big" } },
    });
    const objs = Testing.synth(chart) as KubeObject[];
    const carriers = objs.filter((o) => o.kind === "ConfigMap");
    assert.ok(carriers.length >= 2, `expected at least 2 carriers, got ${carriers.length}`);
    const crs = objs.find((o) => o.kind === "ClusterResourceSet");
    assert.deepEqual(
      (crs?.spec as { resources: { name: string }[] } | undefined)?.resources.map((r) => r.name),
      carriers.map((c) => c.metadata.name),
    );
    const applied: string[] = [];
    for (const c of carriers) {
      const data = c.data as Record<string, string>;
      const size = Object.entries(data).reduce(
        (n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v),
        0,
      );
      assert.ok(size <= DEFAULT_MAX_CARRIER_BYTES, `${c.metadata.name} holds ${size} bytes`);
      const keys = Object.keys(data);
      assert.deepEqual(keys, [...keys].sort(), "keys in alphabetical order = apply order");
      for (const k of keys) {
        const [doc] = parseAllDocuments(data[k] ?? "");
        const o = doc?.toJS() as KubeObject;
        applied.push(`${o.kind} ${o.metadata.name}`);
      }
    }
    assert.deepEqual(
      applied,
      addon.objects.map((o) => `${o.kind} ${o.metadata.name}`),
    );
    assert.equal(applied[0], "Namespace ops");
    assert.equal(new Set(applied).size, 13);
    assert.equal(applied.length, 13);
  });

  it("carries a render that contains a Secret in resource-set Secrets, without sensitive set", () => {
    const path = writeChart("secretful", {
      "templates/secret.yaml":
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}-creds\nstringData:\n  password: {{ .Values.password | quote }}\n",
      "templates/configmap.yaml":
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cfg\ndata:\n  mode: plain\n",
    });
    const { chart } = newChart();
    new ClusterAddon(chart, "creds", {
      chart: { path },
      values: { password: "hunter2-in-a-carrier" },
      output: "ClusterResourceSet",
      clusterSelector: { matchLabels: { addons: "creds" } },
    });
    const objs = Testing.synth(chart) as KubeObject[];
    assert.deepEqual(
      objs.map((o) => `${o.kind} ${o.metadata.name} ${String(o.type ?? "")}`),
      [`Secret creds-000 ${RESOURCE_SET_SECRET_TYPE}`, "ClusterResourceSet creds "],
    );
    assert.deepEqual((objs[1]?.spec as { resources?: unknown } | undefined)?.resources, [
      { name: "creds-000", kind: "Secret" },
    ]);
    const data = objs[0]?.data as Record<string, string>;
    assert.deepEqual(Object.keys(data), [
      "0000-secret-default-creds-creds.yaml",
      "0001-configmap-default-creds-cfg.yaml",
    ]);
    assert.match(
      Buffer.from(data["0000-secret-default-creds-creds.yaml"] ?? "", "base64").toString(),
      /password: hunter2-in-a-carrier/,
    );
    assert.doesNotMatch(
      JSON.stringify(objs),
      /hunter2-in-a-carrier/,
      "the password shows only base64-encoded",
    );
  });

  it("numbers keys across carriers so that alphabetical order is apply order", () => {
    const objs = [cm("a", 600), cm("b", 600), cm("c", 600)];
    const out = clusterResourceSetObjects(objs, {
      name: "x",
      clusterSelector: { matchLabels: { a: "b" } },
      strategy: "ApplyOnce",
      maxBytes: 1500,
    });
    assert.deepEqual(
      out.map((o) => [o.metadata.name, Object.keys((o.data ?? {}) as object)]),
      [
        ["x-000", ["0000-configmap-ns-a.yaml", "0001-configmap-ns-b.yaml"]],
        ["x-001", ["0002-configmap-ns-c.yaml"]],
        ["x", []],
      ],
    );
  });

  it("refuses one object larger than a carrier", () => {
    assert.throws(
      () =>
        clusterResourceSetObjects([cm("huge", 2000)], {
          name: "x",
          clusterSelector: { matchLabels: { a: "b" } },
          strategy: "ApplyOnce",
          maxBytes: 1000,
        }),
      {
        name: "SpecError",
        message:
          /^ConfigMap ns\/huge is \d+ bytes as YAML, more than the 1000 bytes one ClusterResourceSet ConfigMap\/Secret may carry: use output "Manifests" or "HelmChartProxy" for this chart$/,
      },
    );
  });

  it("names keys with characters a ConfigMap key allows", () => {
    const o: KubeObject = { apiVersion: "v1", kind: "ClusterRole", metadata: { name: "system:foo" } };
    assert.equal(carrierKey(7, o), "0007-clusterrole-system-foo.yaml");
  });
});
