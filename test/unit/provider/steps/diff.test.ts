import assert from "node:assert/strict";
import { test } from "node:test";
import { keyedValuesDigest } from "../../../../core/handoff/digests.js";
import { makeHandoffRecord } from "../../../../core/handoff/record.js";
import type { ReleaseInputs, ReleaseOutputs } from "../../../../provider/state/shape.js";
import { diff } from "../../../../provider/steps/index.js";

// provider/steps/diff.ts without an engine or a cluster: it decides from the stored outputs
// (what the release ran at the last helm call or refresh) and the new inputs alone.

function inputs(
  version: string,
  values: Record<string, unknown> = { a: 1 },
): ReleaseInputs & Record<string, unknown> {
  return {
    kubeconfig: "kubeconfig",
    clusterId: "cluster-1",
    clusterServer: "https://127.0.0.1:6443",
    strategy: "Reconcile",
    releaseName: "cni",
    namespace: "kube-system",
    spec: {
      chart: { repo: "https://charts.example.org", name: "cni", version },
      createNamespace: false,
      adopt: false,
      install: {},
      retry: {},
    },
    values,
    chartPassword: "",
    chartRepo: "",
    desiredDigest: `digest-of-${version}`,
    ownerId: "o".repeat(40),
    ownerName: "p.s.cni",
    ownerKey: "owner-key",
  };
}

/** The outputs after a deployed release of chart `cni` at `liveVersion` with the same values. */
function deployed(requested: string, liveVersion: string): ReleaseOutputs & Record<string, unknown> {
  const i = inputs(requested);
  return {
    ...i,
    ownerInstance: "1111",
    status: {
      revision: 1,
      status: "deployed",
      chart: "cni",
      chartVersion: liveVersion,
      appVersion: "1.0.0",
      firstDeployed: "2026-01-01T00:00:00Z",
      lastDeployed: "2026-01-01T00:00:00Z",
      attempts: 1,
      adopted: false,
    },
    handoff: makeHandoffRecord({
      clusterId: i.clusterId,
      server: i.clusterServer,
      releaseName: i.releaseName,
      namespace: i.namespace,
      chart: i.spec.chart,
      chartVersion: liveVersion,
      values: i.values,
      valuesDigestKey: KEY,
      revision: 1,
      strategy: i.strategy,
      installedAt: "2026-01-01T00:00:00Z",
    }),
    digestKey: KEY,
    liveValuesDigest: keyedValuesDigest(i.values, KEY),
    liveChartVersion: liveVersion,
  };
}

const KEY = "test-digest-key";

test('a Reconcile add-on with version "^0.1" plans no update on an unchanged up', async () => {
  const result = await diff("id", deployed("^0.1", "0.1.0"), inputs("^0.1"));
  assert.deepEqual(result, { changes: false, replaces: [], deleteBeforeReplace: false });
});

test('a Reconcile add-on with version "v0.1.0" plans no update when helm reports 0.1.0', async () => {
  const result = await diff("id", deployed("v0.1.0", "0.1.0"), inputs("v0.1.0"));
  assert.deepEqual(result, { changes: false, replaces: [], deleteBeforeReplace: false });
});

test("a Reconcile add-on whose live chart version differs from its exact version plans an update", async () => {
  const result = await diff("id", deployed("0.2.0", "0.1.0"), inputs("0.2.0"));
  assert.deepEqual(result, { changes: true, replaces: [], deleteBeforeReplace: false });
});

test("a Reconcile add-on whose live values drifted plans an update", async () => {
  const olds = { ...deployed("0.1.0", "0.1.0"), liveValuesDigest: keyedValuesDigest({ a: 2 }, KEY) };
  const result = await diff("id", olds, inputs("0.1.0"));
  assert.deepEqual(result, { changes: true, replaces: [], deleteBeforeReplace: false });
});

test("a Reconcile add-on whose values change plans an update", async () => {
  const news = { ...inputs("0.1.0", { a: 2 }), desiredDigest: "digest-of-0.1.0" };
  const result = await diff("id", deployed("0.1.0", "0.1.0"), news);
  assert.deepEqual(result, { changes: true, replaces: [], deleteBeforeReplace: false });
});

test("a Reconcile add-on whose repository password changes plans an update, though no digest covers it", async () => {
  const withUser = <T extends ReleaseInputs>(i: T): T => ({
    ...i,
    spec: { ...i.spec, chart: { ...i.spec.chart, username: "u" } },
    chartPassword: "123456",
  });
  const olds = withUser(deployed("0.1.0", "0.1.0"));
  const news = { ...withUser(inputs("0.1.0")), chartPassword: "654321" };
  assert.deepEqual(await diff("id", olds, { ...news, chartPassword: "123456" }), {
    changes: false,
    replaces: [],
    deleteBeforeReplace: false,
  });
  assert.deepEqual(await diff("id", olds, news), { changes: true, replaces: [], deleteBeforeReplace: false });
});

test("an ApplyOnce add-on plans nothing when its spec changes", async () => {
  const olds = { ...deployed("0.1.0", "0.1.0"), strategy: "ApplyOnce" as const };
  const news = {
    ...inputs("0.1.0", { a: 2 }),
    strategy: "ApplyOnce" as const,
    desiredDigest: "another-digest",
  };
  assert.deepEqual(await diff("id", olds, news), { changes: false });
});

test("a Reconcile add-on moved to another namespace or renamed is replaced by the field that changed", async () => {
  const olds = deployed("0.1.0", "0.1.0");
  const moved = await diff("id", olds, { ...inputs("0.1.0"), namespace: "cni-system" });
  assert.deepEqual(moved, { changes: true, replaces: ["namespace"], deleteBeforeReplace: false });
  const renamed = await diff("id", olds, { ...inputs("0.1.0"), releaseName: "cilium" });
  assert.deepEqual(renamed, { changes: true, replaces: ["releaseName"], deleteBeforeReplace: false });
  const both = await diff("id", olds, { ...inputs("0.1.0"), releaseName: "cilium", namespace: "cni-system" });
  assert.deepEqual(both, {
    changes: true,
    replaces: ["releaseName", "namespace"],
    deleteBeforeReplace: false,
  });
});
