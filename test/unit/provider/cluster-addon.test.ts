/**
 * The release resource's registration helpers, without an engine: the registration runs without
 * the SDK's per-property debug stack traces and puts the limit back afterwards, whatever happens;
 * the strategy's engine options win over the user's; the stored inputs' defaults, password and
 * values files (`provider/state/encode.ts`).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { quietPromiseStacks } from "../../../provider/process/edge.js";
import { releaseInputsOf } from "../../../provider/state/encode.js";
import { strategyOptions } from "../../../provider/state/engine-options.js";
import { releaseProps } from "../../../provider/state/resource.js";

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
    spec: { chart: { path: "./c" }, createNamespace: false, adopt: false, install: {}, retry: {} },
    values: {},
    chartPassword: "",
    chartRepo: "",
    desiredDigest: "d",
    ownerId: "o",
    ownerName: "n",
    ownerKey: "",
  });
  assert.deepEqual(Object.keys(props).sort(), [
    "chartPassword",
    "chartRepo",
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
    "ownerKey",
    "ownerName",
    "releaseName",
    "spec",
    "status",
    "strategy",
    "values",
  ]);
});

test("ApplyOnce puts its frozen inputs and retainOnDelete over the user's options, which cannot turn them off", () => {
  assert.deepEqual(
    strategyOptions("ApplyOnce", { ignoreChanges: ["clusterId"], retainOnDelete: false, protect: true }),
    {
      ignoreChanges: [
        "spec",
        "values",
        "chartPassword",
        "chartRepo",
        "releaseName",
        "namespace",
        "clusterId",
      ],
      retainOnDelete: true,
      protect: true,
    },
  );
});

test("Reconcile keeps the user's options and replaces without deleting first unless asked", () => {
  assert.deepEqual(strategyOptions("Reconcile", {}), { deleteBeforeReplace: false });
  assert.deepEqual(strategyOptions("Reconcile", { retainOnDelete: true, deleteBeforeReplace: true }), {
    retainOnDelete: true,
    deleteBeforeReplace: true,
  });
});

test("the stored inputs default the release name and namespace, keep the password apart and merge values files under values", async () => {
  const dir = await mkdtemp(join(tmpdir(), "hh-addon-inputs-"));
  try {
    const file = join(dir, "base.yaml");
    await writeFile(file, "a: 1\nnested:\n  x: 1\n  y: 1\n");
    const kubeconfig = [
      "apiVersion: v1",
      "kind: Config",
      "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:6443', insecure-skip-tls-verify: true}}]",
      "contexts: [{name: c, context: {cluster: c, user: u}}]",
      "current-context: c",
      "users: [{name: u, user: {token: t}}]",
    ].join("\n");
    const chart = { repo: "https://charts.example.org", name: "cni", username: "u", password: "pw" };
    const urn = "urn:pulumi:dev::platform::helm-handoff:index:ClusterAddon::cni";
    const inputs = releaseInputsOf(
      "cni",
      { kubeconfig, chart, valueFiles: [file], values: { nested: { y: 2 } } },
      urn,
    );
    assert.equal(inputs.releaseName, "cni");
    assert.equal(inputs.namespace, "default");
    assert.equal(inputs.clusterServer, "https://127.0.0.1:6443");
    assert.deepEqual(inputs.values, { a: 1, nested: { x: 1, y: 2 } });
    assert.deepEqual(inputs.spec.chart, { repo: "https://charts.example.org", name: "cni", username: "u" });
    assert.equal(inputs.chartPassword, "pw");
    assert.equal(inputs.ownerName, "platform.dev.cni");
    const rotated = releaseInputsOf(
      "cni",
      { kubeconfig, chart: { ...chart, password: "new" }, valueFiles: [file], values: { nested: { y: 2 } } },
      urn,
    );
    assert.equal(
      rotated.desiredDigest,
      inputs.desiredDigest,
      "the desired digest does not cover the password",
    );
    assert.equal(releaseInputsOf("cni", { kubeconfig, chart, clusterId: "prod" }, urn).clusterId, "prod");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
