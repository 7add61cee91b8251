import assert from "node:assert/strict";
import { test } from "node:test";
import { canonicalJson, digestOf, makeHandoffRecord, valuesDigest } from "../core/handoff.js";

test("valuesDigest does not depend on key order", () => {
  const a = valuesDigest({ b: 1, a: { y: [1, 2], x: "s" } });
  const b = valuesDigest({ a: { x: "s", y: [1, 2] }, b: 1 });
  assert.equal(a, b);
  assert.match(a, /^sha256:[0-9a-f]{64}$/);
});

test("valuesDigest changes when a value or array order changes", () => {
  assert.notEqual(valuesDigest({ a: 1 }), valuesDigest({ a: 2 }));
  assert.notEqual(valuesDigest({ a: [1, 2] }), valuesDigest({ a: [2, 1] }));
});

test("empty, undefined and null values have the same digest", () => {
  assert.equal(valuesDigest(undefined), valuesDigest({}));
  assert.equal(valuesDigest(null), digestOf({}));
});

test("canonicalJson sorts keys recursively and drops undefined members", () => {
  assert.equal(canonicalJson({ b: 1, a: { d: undefined, c: 2 } }), '{"a":{"c":2},"b":1}');
});

test("makeHandoffRecord builds a versioned record without credentials", () => {
  const record = makeHandoffRecord({
    clusterId: "sha256:0123456789abcdef",
    server: "https://127.0.0.1:6443",
    releaseName: "cni",
    namespace: "kube-system",
    chart: {
      repo: "https://charts.example.org",
      name: "cni",
      version: "1.2.3",
      username: "u",
      password: "p4ssw0rd",
    },
    chartVersion: "1.2.3",
    values: { ipam: { mode: "kubernetes" } },
    revision: 1,
    strategy: "ApplyOnce",
    installedAt: new Date("2024-01-02T03:04:05.000Z"),
    adopted: false,
  });
  assert.deepEqual(record, {
    kind: "helm-handoff.dev/HandoffRecord",
    apiVersion: "v1",
    cluster: { id: "sha256:0123456789abcdef", server: "https://127.0.0.1:6443" },
    release: { name: "cni", namespace: "kube-system", storageNamespace: "kube-system" },
    chart: { source: { repo: "https://charts.example.org", name: "cni" }, version: "1.2.3" },
    valuesDigest: valuesDigest({ ipam: { mode: "kubernetes" } }),
    revision: 1,
    strategy: "ApplyOnce",
    installedAt: "2024-01-02T03:04:05.000Z",
    adopted: false,
  });
  assert.equal(JSON.stringify(record).includes("p4ssw0rd"), false);
  assert.deepEqual(JSON.parse(JSON.stringify(record)), record);
});
