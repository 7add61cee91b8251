/**
 * The release resource's registration helpers, without an engine: the registration runs without
 * the SDK's per-property debug stack traces and puts the limit back afterwards, whatever happens.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { quietPromiseStacks, releaseProps } from "../../provider/release.js";

test("a release registers with no debug stack traces and the stack trace limit comes back after", () => {
  const before = Error.stackTraceLimit;
  const restore = quietPromiseStacks();
  try {
    assert.equal(Error.stackTraceLimit, 0);
    assert.equal(new Error("x").stack, "Error: x");
  } finally {
    restore();
  }
  assert.equal(Error.stackTraceLimit, before);
});

test("a release registers its inputs and the outputs its provider fills in", () => {
  const props = releaseProps({
    kubeconfig: "k",
    clusterId: "c",
    clusterServer: "s",
    strategy: "ApplyOnce",
    releaseName: "cni",
    namespace: "kube-system",
    spec: { chart: { path: "./c" }, createNamespace: false, install: {}, retry: {} },
    values: {},
    chartPassword: "",
    desiredDigest: "d",
    ownerId: "o",
    ownerName: "n",
  });
  assert.deepEqual(Object.keys(props).sort(), [
    "chartPassword",
    "clusterId",
    "clusterServer",
    "desiredDigest",
    "digestKey",
    "handoff",
    "kubeconfig",
    "liveChartVersion",
    "liveValuesDigest",
    "namespace",
    "ownerId",
    "ownerInstance",
    "ownerName",
    "releaseName",
    "spec",
    "status",
    "strategy",
    "values",
  ]);
});
