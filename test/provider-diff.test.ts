import assert from "node:assert/strict";
import { test } from "node:test";
import { valuesDigest } from "../core/handoff.js";
import { diff } from "../provider/dynamic.js";
import type { ReleaseInputs, ReleaseOutputs } from "../provider/state.js";

// provider/dynamic.ts `diff` without an engine or a cluster: it decides from the stored outputs
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
      install: {},
      retry: {},
    },
    values,
    chartPassword: "",
    desiredDigest: `digest-of-${version}`,
  };
}

/** The outputs after a deployed release of chart `cni` at `liveVersion` with the same values. */
function deployed(requested: string, liveVersion: string): ReleaseOutputs & Record<string, unknown> {
  const i = inputs(requested);
  return {
    ...i,
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
    handoff: {} as ReleaseOutputs["handoff"],
    liveValuesDigest: valuesDigest(i.values),
    liveChartVersion: liveVersion,
  };
}

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
  const olds = { ...deployed("0.1.0", "0.1.0"), liveValuesDigest: valuesDigest({ a: 2 }) };
  const result = await diff("id", olds, inputs("0.1.0"));
  assert.deepEqual(result, { changes: true, replaces: [], deleteBeforeReplace: false });
});
