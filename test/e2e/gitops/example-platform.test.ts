/**
 * examples/platform end to end on the real Pulumi engine, the real pulumi-resource-kubernetes
 * plugin, real helm and a local cluster with workloads and the real Flux controllers
 * (source-controller, helm-controller): bootstrap, Flux's takeover of the CNI from the
 * HelmRelease the program creates, a values change made on the GitOps side, destroy.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { valuesFingerprint } from "../../../core/handoff/digests.js";
import type { HandoffRecord } from "../../../core/handoff/record.js";
import { clusterIdentityFromKubeconfig } from "../../../core/index.js";
import { platform, type RootObjectRef } from "../../../examples/platform/program.js";
import { type LocalCluster, startLocalCluster } from "../../../local-cluster/index.js";
import { liveRelease } from "../../support/addon.js";
import { conditionOf, getObject as getJson, mergePatch, objectPath, waitFor } from "../../support/gitops.js";
import { createHelmSpy, type HelmSpy } from "../../support/helm-spy.js";
import { type TestStack, testStack } from "../../support/pulumi.js";
import { repoRoot } from "../../support/repo-root.js";
import { type HttpChartRepo, startHttpChartRepo } from "../../support/repos.js";

const exampleChart = (name: string): string => join(repoRoot(), "examples", "bootstrap", "charts", name);

/** A namespaced object read from the API server, or undefined when it does not exist. */
async function getObject(
  cluster: LocalCluster,
  ref: { group: string; version: string; plural: string; namespace: string; name: string },
): Promise<Record<string, Record<string, unknown>> | undefined> {
  const res = await cluster.request(
    "GET",
    `/apis/${ref.group}/${ref.version}/namespaces/${ref.namespace}/${ref.plural}/${ref.name}`,
  );
  if (res.status === 404) return undefined;
  assert.ok(res.ok, `GET ${ref.plural}/${ref.name}: HTTP ${res.status} ${res.text}`);
  return res.json();
}

const helmRelease = { group: "helm.toolkit.fluxcd.io", version: "v2", plural: "helmreleases" };
const helmRepository = { group: "source.toolkit.fluxcd.io", version: "v1", plural: "helmrepositories" };

describe("examples/platform: bootstrap, Flux's takeover and destroy", { timeout: 900_000 }, () => {
  let cluster: LocalCluster;
  let repo: HttpChartRepo;
  let spy: HelmSpy;
  let s: TestStack;
  const bootValues = { ipam: { mode: "kubernetes" } };
  let cniValues: Record<string, unknown> = bootValues;

  before(async () => {
    [cluster, repo, spy] = await Promise.all([
      startLocalCluster({ name: "platform", workloads: true, gitops: "flux" }),
      startHttpChartRepo({ charts: [exampleChart("cni"), exampleChart("gitops")] }),
      createHelmSpy(),
    ]);
    s = await testStack({
      projectName: "helm-handoff-platform",
      env: { HELM_HANDOFF_HELM: spy.binary },
      program: async () => ({
        ...platform({
          kubeconfig: cluster.kubeconfig,
          charts: {
            cni: { repo: repo.url, name: "cni", version: "1.0.0" },
            gitops: { repo: repo.url, name: "gitops", version: "2.0.0" },
          },
          cniValues,
        }),
      }),
    });
  });
  after(async () => {
    await s?.dispose();
    await Promise.allSettled([cluster?.stop(), repo?.close(), spy?.remove()]);
  });

  test("up deploys both releases and a Flux HelmRelease naming exactly the bootstrapped CNI release, which Flux takes over", async () => {
    const up = await s.up();
    assert.equal(up.summary.result, "succeeded");

    // helm-controller takes the release over by upgrading it, with the values the program passed.
    await waitFor("the HelmRelease to be Ready", async () => {
      const hr = await getJson(cluster, "helm.toolkit.fluxcd.io/v2", "HelmRelease", "gitops-system", "cni");
      return conditionOf(hr, "Ready")?.status === "True" ? true : undefined;
    });
    const cni = await liveRelease(cluster, "cni", "kube-system");
    assert.equal(cni?.status, "deployed");
    assert.equal(cni?.revision, 2);
    assert.deepEqual(cni?.values, bootValues);
    const gitops = await liveRelease(cluster, "gitops", "gitops-system");
    assert.equal(gitops?.status, "deployed");

    const release = await getObject(cluster, { ...helmRelease, namespace: "gitops-system", name: "cni" });
    assert.ok(release !== undefined, "the HelmRelease exists");
    assert.equal(release.spec?.releaseName, "cni");
    assert.equal(release.spec?.targetNamespace, "kube-system");
    assert.equal(release.spec?.storageNamespace, "kube-system");
    const chart = (release.spec?.chart as { spec: Record<string, unknown> } | undefined)?.spec ?? {};
    assert.equal(chart.chart, "cni");
    assert.equal(chart.version, "1.0.0");
    assert.deepEqual(chart.sourceRef, { kind: "HelmRepository", name: "cni" });
    assert.deepEqual(release.spec?.values, bootValues);
    const source = await getObject(cluster, { ...helmRepository, namespace: "gitops-system", name: "cni" });
    assert.equal(source?.spec?.url, repo.url);

    const rootObjects = up.outputs.rootObjects?.value as RootObjectRef[];
    assert.deepEqual(
      rootObjects.map((o) => `${o.apiVersion}/${o.kind} ${o.namespace}/${o.name}`),
      [
        "source.toolkit.fluxcd.io/v1/HelmRepository gitops-system/cni",
        "helm.toolkit.fluxcd.io/v2/HelmRelease gitops-system/cni",
      ],
    );
  });

  test("the stack outputs hold the documented handoff record of each add-on", async () => {
    const outputs = await s.stack.outputs();
    const cni = outputs.cniHandoff?.value as HandoffRecord;
    const id = clusterIdentityFromKubeconfig(cluster.kubeconfig).clusterId;
    assert.deepEqual(Object.keys(cni).sort(), [
      "adopted",
      "apiVersion",
      "chart",
      "cluster",
      "installedAt",
      "kind",
      "release",
      "revision",
      "strategy",
      "valuesDigest",
    ]);
    assert.equal(cni.kind, "helm-handoff.dev/HandoffRecord");
    assert.equal(cni.apiVersion, "v1");
    assert.deepEqual(cni.cluster, { id, server: cluster.server });
    assert.deepEqual(cni.release, { name: "cni", namespace: "kube-system", storageNamespace: "kube-system" });
    assert.deepEqual(cni.chart, { source: { repo: repo.url, name: "cni" }, version: "1.0.0" });
    // Keyed under the release's secret key: nobody holding the record can test guesses of the values.
    assert.match(cni.valuesDigest, /^hmac-sha256:[0-9a-f]{64}$/);
    assert.notEqual(cni.valuesDigest, valuesFingerprint(bootValues));
    assert.equal(cni.revision, 1);
    assert.equal(cni.strategy, "ApplyOnce");
    assert.equal(cni.adopted, false);
    assert.ok(!Number.isNaN(Date.parse(cni.installedAt)));
    const gitops = outputs.gitopsHandoff?.value as HandoffRecord;
    assert.deepEqual(gitops.release, {
      name: "gitops",
      namespace: "gitops-system",
      storageNamespace: "gitops-system",
    });
    assert.deepEqual(gitops.chart, { source: { repo: repo.url, name: "gitops" }, version: "2.0.0" });
  });

  test("after Flux applies new values from the HelmRelease, preview, refresh and up of changed values leave the release alone", async () => {
    // The GitOps side changes the CNI: new values in the HelmRelease, which Flux applies (revision 3).
    const gitopsValues = { ipam: { mode: "cluster-pool" }, image: "registry.example/cni-agent:1.1.0" };
    const path = objectPath("helm.toolkit.fluxcd.io/v2", "HelmRelease", "gitops-system", "cni");
    await mergePatch(cluster, path, { spec: { values: gitopsValues } });
    await waitFor("Flux to upgrade the CNI to revision 3", async () => {
      const live = await liveRelease(cluster, "cni", "kube-system");
      return live?.revision === 3 && live.status === "deployed" ? live : undefined;
    });

    // The platform repo's own values change afterwards.
    cniValues = { ipam: { mode: "eni" } };
    await spy.reset();

    const preview = await s.preview();
    assert.match(s.output(), /ApplyOnce: the spec changed but is ignored after handoff/);
    for (const op of ["create", "update", "replace", "delete"] as const) {
      assert.equal(preview.changeSummary[op] ?? 0, 0, `preview: no ${op}`);
    }
    const refresh = await s.refresh();
    assert.equal(refresh.summary.result, "succeeded");
    const up = await s.up();
    const changes = up.summary.resourceChanges ?? {};
    assert.deepEqual(Object.keys(changes), ["same"], JSON.stringify(changes));

    assert.deepEqual(await spy.calls(), [], "no helm call after handoff");
    const live = await liveRelease(cluster, "cni", "kube-system");
    assert.equal(live?.revision, 3);
    assert.equal(live?.status, "deployed");
    assert.deepEqual(live?.values, gitopsValues);
    const outputs = await s.stack.outputs();
    assert.equal(
      (outputs.cniHandoff?.value as HandoffRecord | undefined)?.revision,
      1,
      "the record is the handoff's",
    );
    const release = await getObject(cluster, { ...helmRelease, namespace: "gitops-system", name: "cni" });
    assert.deepEqual(release?.spec?.values, gitopsValues, "the root object is not rewritten");
  });

  test("destroy removes the stack and leaves every release and the root object in place", async () => {
    await spy.reset();
    const destroy = await s.destroy();
    assert.equal(destroy.summary.result, "succeeded");
    await s.stack.workspace.removeStack(s.stack.name);
    const stacks = await s.stack.workspace.listStacks();
    assert.ok(!stacks.some((x) => x.name === s.stack.name), "the stack is gone");
    assert.deepEqual(await spy.calls(), [], "no helm call on destroy");

    const cni = await liveRelease(cluster, "cni", "kube-system");
    assert.equal(cni?.status, "deployed");
    assert.equal(cni?.revision, 3);
    const gitops = await liveRelease(cluster, "gitops", "gitops-system");
    assert.equal(gitops?.status, "deployed");
    assert.equal(gitops?.revision, 1);
    const release = await getObject(cluster, { ...helmRelease, namespace: "gitops-system", name: "cni" });
    assert.equal(release?.spec?.releaseName, "cni");
    const source = await getObject(cluster, { ...helmRepository, namespace: "gitops-system", name: "cni" });
    assert.equal(source?.spec?.url, repo.url);
  });
});
