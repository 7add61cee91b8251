/**
 * helm's environment is an allowlist, proven on a real helm against a real local cluster: with
 * variables in the process environment that would point helm at another API server, identity or
 * storage driver (`HELM_KUBEAPISERVER`, `HELM_KUBETOKEN`, `HELM_KUBEASUSER`, `HELM_DRIVER`, …), an
 * install still goes to the cluster of the kubeconfig it was given, as the kubeconfig's user, into
 * helm's default Secret storage.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { HelmRunner } from "../../../core/helm/index.js";
import { validateSpec } from "../../../core/spec/index.js";
import { localChart } from "../../support/charts.js";
import { withLocalCluster } from "../../support/cluster.js";

const FOREIGN_ENV = {
  HELM_KUBEAPISERVER: "https://127.0.0.1:1",
  HELM_KUBETOKEN: "token-from-the-environment",
  HELM_KUBEASUSER: "someone-else",
  HELM_KUBEINSECURE_SKIP_TLS_VERIFY: "true",
  HELM_DRIVER: "memory",
  HELM_NAMESPACE: "elsewhere",
  KUBECONFIG: "/nonexistent/kubeconfig",
};

test("an install goes to the kubeconfig's cluster and storage whatever HELM_KUBE* and HELM_DRIVER say", {
  timeout: 300_000,
}, async () => {
  await withLocalCluster({ name: "helm-env" }, async (cluster) => {
    const saved = { ...process.env };
    Object.assign(process.env, FOREIGN_ENV);
    try {
      const runner = new HelmRunner({ kubeconfig: cluster.kubeconfig });
      const spec = validateSpec({ chart: { path: localChart("schema") }, releaseName: "env-proof" });
      const installed = await runner.install(spec);
      assert.deepEqual(
        [installed.status, installed.revision, installed.namespace],
        ["deployed", 1, "default"],
      );
      // stored where helm's default driver keeps it: a Secret in the release namespace
      const secret = await cluster.request(
        "GET",
        "/api/v1/namespaces/default/secrets/sh.helm.release.v1.env-proof.v1",
      );
      assert.equal(secret.status, 200);
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  });
});
