import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import { test } from "node:test";
import {
  digestOf,
  isKeyedDigest,
  keyedValuesDigest,
  newDigestKey,
  valuesFingerprint,
} from "../../../../core/handoff/digests.js";
import { makeHandoffRecord } from "../../../../core/handoff/record.js";
import { canonicalJson } from "../../../../core/util/canonical-json.js";

test("valuesFingerprint does not depend on key order", () => {
  const a = valuesFingerprint({ b: 1, a: { y: [1, 2], x: "s" } });
  const b = valuesFingerprint({ a: { x: "s", y: [1, 2] }, b: 1 });
  assert.equal(a, b);
  assert.match(a, /^sha256:[0-9a-f]{64}$/);
});

test("valuesFingerprint changes when a value or array order changes", () => {
  assert.notEqual(valuesFingerprint({ a: 1 }), valuesFingerprint({ a: 2 }));
  assert.notEqual(valuesFingerprint({ a: [1, 2] }), valuesFingerprint({ a: [2, 1] }));
});

test("empty, undefined and null values have the same digest", () => {
  assert.equal(valuesFingerprint(undefined), valuesFingerprint({}));
  assert.equal(valuesFingerprint(null), digestOf({}));
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
    valuesDigest: "",
    revision: 1,
    strategy: "ApplyOnce",
    installedAt: "2024-01-02T03:04:05.000Z",
    adopted: false,
  });
  assert.equal(JSON.stringify(record).includes("p4ssw0rd"), false);
  assert.deepEqual(JSON.parse(JSON.stringify(record)), record);
});

test("makeHandoffRecord records the values digest keyed under the given key, never unkeyed", () => {
  const values = { ipam: { mode: "kubernetes" } };
  const base = {
    clusterId: "c",
    server: "https://127.0.0.1:6443",
    releaseName: "cni",
    namespace: "kube-system",
    chart: { path: "/charts/cni" },
    chartVersion: "1.2.3",
    values,
    revision: 1,
    strategy: "ApplyOnce",
    installedAt: "2024-01-02T03:04:05.000Z",
  } as const;
  const record = makeHandoffRecord({ ...base, valuesDigestKey: "key-1" });
  assert.equal(record.valuesDigest, keyedValuesDigest(values, "key-1"));
  assert.notEqual(record.valuesDigest, valuesFingerprint(values));
  assert.equal(makeHandoffRecord(base).valuesDigest, "");
});

test("keyedValuesDigest is HMAC-SHA256 of the canonical JSON keyed with the key's UTF-8 bytes", () => {
  const values = { b: [1, 2], a: "s3cr3t" };
  const expected = createHmac("sha256", "k").update('{"a":"s3cr3t","b":[1,2]}').digest("hex");
  assert.equal(keyedValuesDigest(values, "k"), `hmac-sha256:${expected}`);
  assert.equal(keyedValuesDigest(null, "k"), keyedValuesDigest({}, "k"));
});

test("the same values under two keys give two digests, neither containing the unkeyed SHA-256", () => {
  const values = { password: "123456" };
  const [k1, k2] = [newDigestKey(), newDigestKey()];
  assert.notEqual(k1, k2);
  assert.match(k1, /^[A-Za-z0-9_-]{43}$/);
  const d1 = keyedValuesDigest(values, k1);
  const d2 = keyedValuesDigest(values, k2);
  assert.notEqual(d1, d2);
  const unkeyed = createHash("sha256").update(canonicalJson(values)).digest("hex");
  assert.ok(!d1.includes(unkeyed) && !d2.includes(unkeyed));
});

test("isKeyedDigest accepts only hmac-sha256 digests", () => {
  assert.equal(isKeyedDigest(keyedValuesDigest({}, "k")), true);
  assert.equal(isKeyedDigest(valuesFingerprint({})), false);
  assert.equal(isKeyedDigest(""), false);
  assert.equal(isKeyedDigest(undefined), false);
});
