/**
 * The `helm-handoff` CLI's own guards on a real local cluster (etcd + kube-apiserver) with real helm:
 * `retire-helm-storage` deletes only Helm's release Secrets of the recorded release, in the
 * recorded cluster, and `status` prints what the cluster wrote without control characters or the
 * kubeconfig's secrets. The GitOps objects here are plain objects of minimal CRDs written by the
 * test (an Argo CD Application with its status, a tracking annotation; a Flux HelmRelease with a
 * condition): these guards are helm-handoff's, not a controller's, so no controller runs (the
 * takeover by the real controllers is test/e2e/gitops/argocd.test.ts and test/e2e/gitops/flux.test.ts).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parse as parseYaml } from "yaml";
import { clusterIdentityFromKubeconfig } from "../../../core/cluster/identity.js";
import { type HandoffRecord, makeHandoffRecord } from "../../../core/handoff/record.js";
import { HelmRunner } from "../../../core/helm/index.js";
import { ensureRelease } from "../../../core/lifecycle/ensure.js";
import { validateSpec } from "../../../core/spec/index.js";
import { localChart } from "../../support/charts.js";
import { clusterSuite } from "../../support/cluster.js";
import { createObjects, getObject, runHandoffCli } from "../../support/gitops.js";

const OWNER = { id: "c".repeat(40), name: "platform.prod.cni", instance: "c1" };

/** A CRD that stores any object of `kind` (no schema, no status subresource: the test writes status). */
function crd(group: string, version: string, kind: string, plural: string) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        },
      ],
    },
  };
}

describe("the helm-handoff CLI's guards", { timeout: 600_000 }, () => {
  const suite = clusterSuite({ name: "handoff-cli" });
  let crdsReady: Promise<void> | undefined;

  /** Installs the CRDs once and waits until the API server serves both kinds. */
  function crds(): Promise<void> {
    crdsReady ??= (async () => {
      const cluster = suite.cluster;
      for (const c of [
        crd("argoproj.io", "v1alpha1", "Application", "applications"),
        crd("helm.toolkit.fluxcd.io", "v2", "HelmRelease", "helmreleases"),
      ]) {
        const res = await cluster.request(
          "POST",
          "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
          c,
        );
        assert.ok(res.ok, res.text);
      }
      // Served once a list answers (discovery comes first, while the storage still initializes: 429).
      for (const path of [
        "/apis/argoproj.io/v1alpha1/applications",
        "/apis/helm.toolkit.fluxcd.io/v2/helmreleases",
      ]) {
        for (let i = 0; ; i++) {
          if ((await cluster.request("GET", path)).ok) break;
          assert.ok(i < 100, `${path} is not served`);
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      for (const ns of ["argocd", "flux-system", "other"]) {
        await cluster.request("POST", "/api/v1/namespaces", {
          apiVersion: "v1",
          kind: "Namespace",
          metadata: { name: ns },
        });
      }
    })();
    return crdsReady;
  }

  /** Installs the `schema` chart (one ConfigMap NAME-schema) as `namespace/name`, marked by helm-handoff; its handoff record. */
  async function bootstrap(name: string, namespace: string): Promise<HandoffRecord> {
    const cluster = suite.cluster;
    const spec = validateSpec({
      chart: { path: localChart("schema") },
      releaseName: name,
      namespace,
      values: { replicas: 1, mode: "a" },
      install: { timeout: "20s" },
      retry: { deadline: "30s", minBackoff: "10ms", maxBackoff: "50ms" },
    });
    const { release } = await ensureRelease(new HelmRunner({ kubeconfig: cluster.kubeconfig }), spec, {
      owner: OWNER,
    });
    const identity = clusterIdentityFromKubeconfig(cluster.kubeconfig);
    return makeHandoffRecord({
      clusterId: identity.clusterId,
      server: identity.server,
      releaseName: name,
      namespace,
      chart: { path: localChart("schema") },
      chartVersion: release.chartVersion,
      revision: release.revision,
      strategy: "ApplyOnce",
      installedAt: release.lastDeployed,
    });
  }

  /** What Argo CD leaves after a complete takeover of `namespace/name`: an Application (Synced, Healthy) and the tracking annotation. */
  async function handToArgo(name: string, namespace: string, objectNamespace = namespace): Promise<void> {
    const cluster = suite.cluster;
    const configMap = `${name}-schema`;
    await createObjects(cluster, [
      {
        apiVersion: "argoproj.io/v1alpha1",
        kind: "Application",
        metadata: { name, namespace: "argocd" },
        spec: {
          destination: { namespace },
          source: { repoURL: "https://charts.example.org", chart: "schema", helm: { releaseName: name } },
        },
        status: {
          sync: { status: "Synced" },
          health: { status: "Healthy" },
          resources: [
            {
              version: "v1",
              kind: "ConfigMap",
              namespace: objectNamespace,
              name: configMap,
              status: "Synced",
            },
          ],
        },
      },
    ]);
    const path = `/api/v1/namespaces/${objectNamespace}/configmaps/${configMap}`;
    const live = (await cluster.request("GET", path)).json<{ metadata: Record<string, unknown> }>();
    const annotations = {
      "argocd.argoproj.io/tracking-id": `${name}:/ConfigMap:${objectNamespace}/${configMap}`,
    };
    const res = await cluster.request("PUT", path, { ...live, metadata: { ...live.metadata, annotations } });
    assert.ok(res.ok, res.text);
  }

  const secretNames = async (namespace: string, name: string): Promise<string[]> => {
    const res = await suite.cluster.request(
      "GET",
      `/api/v1/namespaces/${namespace}/secrets?labelSelector=${encodeURIComponent(`owner=helm,name=${name}`)}`,
    );
    return res
      .json<{ items: { metadata: { name: string } }[] }>()
      .items.map((i) => i.metadata.name)
      .sort();
  };
  const retire = (record: HandoffRecord) =>
    runHandoffCli(
      ["retire-helm-storage", "--kubeconfig", suite.cluster.kubeconfigPath],
      JSON.stringify(record),
    );

  test("retire-helm-storage refuses a record whose storageNamespace holds another namespace's release of that name", async () => {
    await crds();
    const record = await bootstrap("edited", "default");
    await bootstrap("edited", "other");
    await handToArgo("edited", "default");
    // The other namespace's objects look tracked too: only the stored release's own namespace tells them apart.
    const cm = "/api/v1/namespaces/other/configmaps/edited-schema";
    const live = (await suite.cluster.request("GET", cm)).json<{ metadata: Record<string, unknown> }>();
    const annotations = { "argocd.argoproj.io/tracking-id": "edited:/ConfigMap:other/edited-schema" };
    assert.ok(
      (await suite.cluster.request("PUT", cm, { ...live, metadata: { ...live.metadata, annotations } })).ok,
    );
    const run = await retire({ ...record, release: { ...record.release, storageNamespace: "other" } });
    assert.equal(run.code, 1, run.stdout);
    assert.equal(
      run.stderr,
      "helm-handoff: helm-handoff retire-helm-storage: default/edited: refused: Helm's storage in namespace other holds release other/edited, not default/edited: the record's release.storageNamespace must be where Helm keeps this release (helm-handoff records release.namespace)\n",
    );
    assert.deepEqual(
      await secretNames("other", "edited"),
      ["sh.helm.release.v1.edited.v1"],
      "nothing deleted",
    );
  });

  test("retire-helm-storage deletes only Helm's release Secrets of the release: look-alikes stay", async () => {
    await crds();
    const record = await bootstrap("alike", "default");
    await handToArgo("alike", "default");
    const labels = { owner: "helm", name: "alike", version: "1", status: "deployed" };
    await createObjects(suite.cluster, [
      // Helm's labels and type, not Helm's name; Helm's name and labels, not Helm's type.
      {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "alike-backup", namespace: "default", labels },
        type: "helm.sh/release.v1",
        stringData: { note: "keep" },
      },
      {
        apiVersion: "v1",
        kind: "Secret",
        metadata: {
          name: "sh.helm.release.v1.alike.v2",
          namespace: "default",
          labels: { ...labels, version: "2" },
        },
        type: "Opaque",
        stringData: { note: "keep" },
      },
    ] as never);
    const run = await retire(record);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "default/alike: deleted Helm's release Secrets sh.helm.release.v1.alike.v1\n");
    assert.deepEqual(await secretNames("default", "alike"), ["alike-backup", "sh.helm.release.v1.alike.v2"]);
  });

  test("retire-helm-storage refuses a kubeconfig of the record's server URL whose CA is not the record's", async () => {
    await crds();
    const record = await bootstrap("elsewhere", "default");
    await handToArgo("elsewhere", "default");
    const identity = clusterIdentityFromKubeconfig(suite.cluster.kubeconfig);
    const run = await retire({ ...record, cluster: { ...record.cluster, id: "sha256:00000000000000ff" } });
    assert.equal(run.code, 1, run.stdout);
    assert.equal(
      run.stderr,
      `helm-handoff: the handoff record of default/elsewhere is for cluster ${identity.server} (sha256:00000000000000ff), but the kubeconfig points at ${identity.server} (${identity.clusterId}): pass the kubeconfig (or --context) of the record's cluster\n`,
    );
    assert.deepEqual(await secretNames("default", "elsewhere"), ["sh.helm.release.v1.elsewhere.v1"]);
  });

  test("status escapes control characters and redacts the kubeconfig's secrets in what the cluster wrote", async () => {
    await crds();
    const record = await bootstrap("noisy", "flux-system");
    const kubeconfig = parseYaml(suite.cluster.kubeconfig) as { users: { user: Record<string, string> }[] };
    const key = kubeconfig.users[0]?.user["client-key-data"] ?? "";
    assert.ok(key.length > 100);
    const message = `upgrade failed\u001b[2J\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007\r\nkey: ${key} \u202eevil`;
    await createObjects(suite.cluster, [
      {
        apiVersion: "helm.toolkit.fluxcd.io/v2",
        kind: "HelmRelease",
        metadata: { name: "noisy", namespace: "flux-system" },
        spec: { releaseName: "noisy" },
        status: {
          conditions: [
            {
              type: "Ready",
              status: "False",
              reason: "UpgradeFailed",
              message,
              lastTransitionTime: "2026-12-05T00:00:00Z",
            },
          ],
        },
      },
    ] as never);
    const run = await runHandoffCli(
      ["status", "--kubeconfig", suite.cluster.kubeconfigPath],
      JSON.stringify(record),
    );
    assert.equal(run.code, 1, run.stderr);
    assert.equal(
      run.stdout,
      [
        "flux-system/noisy: stalled: Flux HelmRelease flux-system/noisy failed (UpgradeFailed: upgrade failed\\u{1b}[2J\\u{1b}]8;;https://evil.example\\u{7}click\\u{1b}]8;;\\u{7}\\u{d}\\u{a}key: [redacted] \\u{202e}evil); the release is at revision 1 (deployed)",
        "  since: 2026-12-05T00:00:00Z",
        "  next: fix what the message says in the HelmRelease (kubectl describe helmrelease -n flux-system noisy); helm-handoff does not write to the release",
        "",
      ].join("\n"),
    );
    const json = await runHandoffCli(
      ["status", "--json", "--kubeconfig", suite.cluster.kubeconfigPath],
      JSON.stringify(record),
    );
    assert.ok(!json.stdout.includes(key));
    assert.ok(!/\\u001b|\\u0007/.test(json.stdout), "no control character, not even JSON-escaped");
    assert.ok(await getObject(suite.cluster, "v1", "ConfigMap", "flux-system", "noisy-schema"));
  });
});
