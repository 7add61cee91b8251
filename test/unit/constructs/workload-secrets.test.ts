/**
 * Secrets for a fleet (constructs/workload-secrets.ts): `workloadSecrets` of a HelmChartProxy
 * add-on become Secret objects in resource-set Secret carriers of a ClusterResourceSet
 * `RELEASE-secrets` with the proxy's selector, the release namespace carried first with
 * `createNamespace`; the secret's text is in no HelmChartProxy and in no message; other outputs
 * and bad Secrets are refused with a `SpecError`. No helm runs.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Testing } from "cdk8s";
import { parse } from "yaml";
import { ClusterAddon, type ClusterAddonProps } from "../../../constructs/index.js";
import { SpecError } from "../../../core/errors.js";
import type { KubeObject } from "../../../core/util/kube-object.js";
import { newChart, testChart } from "../../support/constructs.js";
import { runDocsExample } from "../../support/docs-example.js";

const KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nfleet-key-5521\n-----END OPENSSH PRIVATE KEY-----\n";
const SELECTOR = { matchLabels: { gitops: "flux" } };

function objects(props: Partial<ClusterAddonProps>): KubeObject[] {
  const { chart } = newChart();
  new ClusterAddon(chart, "flux", {
    chart: { repo: "https://charts.example.org", name: "flux2", version: "2.16.4" },
    namespace: "flux-system",
    createNamespace: true,
    values: { gitRepository: { secretRef: "deploy-key" } },
    output: "HelmChartProxy",
    carrierNamespace: "fleet",
    clusterSelector: SELECTOR,
    ...props,
  });
  return Testing.synth(chart) as KubeObject[];
}

function specError(props: Partial<ClusterAddonProps>): { field: string; message: string } {
  try {
    objects(props);
  } catch (e) {
    assert.ok(e instanceof SpecError);
    return { field: e.field, message: e.message };
  }
  assert.fail("the add-on was built");
}

describe("workloadSecrets", () => {
  it("carries each Secret in a resource-set Secret of a ClusterResourceSet with the proxy's selector, the namespace first", () => {
    const all = objects({
      workloadSecrets: [
        { name: "deploy-key", stringData: { identity: KEY } },
        {
          name: "registry-token",
          namespace: "tenants",
          type: "kubernetes.io/basic-auth",
          stringData: { username: "bot", password: "t0k3n" },
        },
      ],
    });
    assert.deepEqual(
      all.map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`),
      ["Secret fleet/flux-secrets-000", "ClusterResourceSet fleet/flux-secrets", "HelmChartProxy fleet/flux"],
    );
    const [carrier, crs, hcp] = all;
    assert.equal((carrier as { type?: string } | undefined)?.type, "addons.cluster.x-k8s.io/resource-set");
    assert.deepEqual((crs as { spec?: unknown } | undefined)?.spec, {
      clusterSelector: SELECTOR,
      strategy: "ApplyOnce",
      resources: [{ name: "flux-secrets-000", kind: "Secret" }],
    });
    const carried = Object.entries(
      (carrier as { data?: Record<string, string> } | undefined)?.data ?? {},
    ).map(([k, v]) => [k, parse(Buffer.from(v, "base64").toString("utf8"))]);
    assert.deepEqual(carried, [
      [
        "0000-namespace-flux-system.yaml",
        {
          apiVersion: "v1",
          kind: "Namespace",
          metadata: {
            name: "flux-system",
            annotations: {
              "argocd.argoproj.io/sync-options": "Delete=false",
              "helm.sh/resource-policy": "keep",
              "kustomize.toolkit.fluxcd.io/prune": "disabled",
            },
          },
        },
      ],
      [
        "0001-secret-flux-system-deploy-key.yaml",
        {
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name: "deploy-key", namespace: "flux-system" },
          type: "Opaque",
          data: { identity: Buffer.from(KEY).toString("base64") },
        },
      ],
      [
        "0002-secret-tenants-registry-token.yaml",
        {
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name: "registry-token", namespace: "tenants" },
          type: "kubernetes.io/basic-auth",
          data: {
            username: Buffer.from("bot").toString("base64"),
            password: Buffer.from("t0k3n").toString("base64"),
          },
        },
      ],
    ]);
    const proxy = JSON.stringify(hcp);
    for (const t of ["fleet-key-5521", Buffer.from(KEY).toString("base64"), "t0k3n"])
      assert.equal(proxy.includes(t), false);
  });

  it("uses the strategy and ClusterResourceSet API version of the add-on, and carries no namespace without createNamespace", () => {
    const [carrier, crs] = objects({
      createNamespace: false,
      strategy: "Reconcile",
      clusterApiVersion: "v1beta1",
      workloadSecrets: [{ name: "deploy-key", stringData: { identity: KEY } }],
    });
    assert.deepEqual(Object.keys((carrier as { data?: object } | undefined)?.data ?? {}), [
      "0000-secret-flux-system-deploy-key.yaml",
    ]);
    assert.equal(crs?.apiVersion, "addons.cluster.x-k8s.io/v1beta1");
    assert.equal((crs as { spec?: { strategy?: string } } | undefined)?.spec?.strategy, "Reconcile");
  });

  it("refuses workloadSecrets with an output that renders at synth, naming the route that works", () => {
    const { chart } = newChart();
    assert.throws(
      () =>
        new ClusterAddon(chart, "flux", {
          chart: { path: testChart("workload") },
          workloadSecrets: [{ name: "deploy-key", stringData: { identity: KEY } }],
        }),
      {
        message:
          'workloadSecrets only applies to output "HelmChartProxy"; with output "Manifests" the chart renders at synth: give the secret in values with sensitive: true (a ClusterResourceSet carries it in Secrets), or create the Secret yourself',
      },
    );
  });

  it("refuses a bad name, an empty or repeated Secret and a value that is not text, never showing the value", () => {
    assert.deepEqual(specError({ workloadSecrets: [{ name: "Deploy_Key", stringData: { a: "b" } }] }), {
      field: "workloadSecrets[0].name",
      message: 'workloadSecrets[0].name "Deploy_Key" is invalid: must be a lowercase DNS-1123 name',
    });
    assert.deepEqual(specError({ workloadSecrets: [{ name: "k", stringData: {} }] }), {
      field: "workloadSecrets[0].stringData",
      message: "workloadSecrets[0].stringData is empty: give the Secret's keys and values",
    });
    const twice = { name: "k", stringData: { a: "b" } };
    assert.equal(
      specError({ workloadSecrets: [twice, twice] }).message,
      "workloadSecrets[1] is Secret flux-system/k again: give each Secret once",
    );
    const notText = specError({
      workloadSecrets: [{ name: "k", stringData: { a: 5521 as unknown as string } }],
    });
    assert.deepEqual(notText, {
      field: "workloadSecrets[0].stringData",
      message:
        'workloadSecrets[0].stringData["a"] is invalid: must be a string, got a number (a secret field: its content is never shown)',
    });
  });

  it("the secrets example of docs/cdk8s.md synthesizes the carrier, the ClusterResourceSet and a proxy without the key", async () => {
    const all = await runDocsExample("### Secrets for a fleet", { DEPLOY_KEY: KEY });
    assert.deepEqual(
      all.map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`),
      [
        "Secret default/flux-sync-secrets-000",
        "ClusterResourceSet default/flux-sync-secrets",
        "HelmChartProxy default/flux-sync",
      ],
    );
    const proxy = JSON.stringify(all[2]);
    assert.equal(proxy.includes("fleet-key-5521"), false);
    assert.ok(proxy.includes("flux-deploy-key"));
  });
});
