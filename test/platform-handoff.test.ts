/**
 * examples/platform end to end on the real Pulumi engine, the real pulumi-resource-kubernetes
 * plugin, real helm and a local cluster with workloads: bootstrap, GitOps takeover, destroy.
 *
 * The Flux controllers do not run: the test installs only their CRDs (from the toolchain's CRD
 * directory) and plays "GitOps" itself with `helm upgrade`, as Flux would when it adopts the release.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { parse as parseYaml } from "yaml";
import { clusterIdentityFromKubeconfig, type HandoffRecord, valuesDigest } from "../core/index.js";
import { platform, type RootObjectRef } from "../examples/platform/program.js";
import { cacheDir, type LocalCluster, startLocalCluster } from "../local-cluster/index.js";
import { liveRelease } from "./support/addon.js";
import { repoRoot, runHelm } from "./support/charts.js";
import { createHelmSpy, type HelmSpy } from "./support/helm-spy.js";
import { type TestStack, testStack } from "./support/pulumi.js";
import { type HttpChartRepo, startHttpChartRepo } from "./support/repos.js";

const CRDS = ["helm.toolkit.fluxcd.io_helmreleases.yaml", "source.toolkit.fluxcd.io_helmrepositories.yaml"];
const crdDir = join(cacheDir(), "toolchain", "crds");
const missingCrds = CRDS.filter((f) => !existsSync(join(crdDir, f)));
const exampleChart = (name: string): string => join(repoRoot(), "examples", "bootstrap", "charts", name);

/** Creates each CRD as parsed from YAML (JSON body, every key kept) and waits until it is established. */
async function installCrds(cluster: LocalCluster): Promise<void> {
  const path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  const names: string[] = [];
  for (const file of CRDS) {
    const crd = parseYaml(readFileSync(join(crdDir, file), "utf8")) as { metadata: { name: string } };
    const res = await cluster.request("POST", path, crd);
    assert.ok(res.ok, `create CRD ${crd.metadata.name}: HTTP ${res.status} ${res.text}`);
    names.push(crd.metadata.name);
  }
  for (const name of names) {
    for (let i = 0; ; i++) {
      const res = await cluster.request("GET", `${path}/${name}`);
      const conditions =
        res.json<{ status?: { conditions?: { type: string; status: string }[] } }>().status?.conditions ?? [];
      if (conditions.some((c) => c.type === "Established" && c.status === "True")) break;
      if (i >= 240) throw new Error(`CRD ${name} is not established after 60 s`);
      await sleep(250);
    }
  }
}

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

describe("examples/platform: bootstrap, GitOps takeover and destroy", {
  timeout: 900_000,
  skip: missingCrds.length > 0 && `CRDs not fetched yet: ${missingCrds.join(", ")}`,
}, () => {
  let cluster: LocalCluster;
  let repo: HttpChartRepo;
  let spy: HelmSpy;
  let s: TestStack;
  const bootValues = { ipam: { mode: "kubernetes" } };
  let cniValues: Record<string, unknown> = bootValues;

  before(async () => {
    [cluster, repo, spy] = await Promise.all([
      startLocalCluster({ name: "platform", workloads: true }),
      startHttpChartRepo({ charts: [exampleChart("cni"), exampleChart("gitops")] }),
      createHelmSpy(),
    ]);
    await cluster.ready;
    await installCrds(cluster);
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

  test("up deploys both releases and a Flux HelmRelease naming exactly the bootstrapped CNI release", async () => {
    const up = await s.up();
    assert.equal(up.summary.result, "succeeded");

    const cni = await liveRelease(cluster, "cni", "kube-system");
    assert.equal(cni?.status, "deployed");
    assert.equal(cni?.revision, 1);
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
    assert.notEqual(cni.valuesDigest, valuesDigest(bootValues));
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

  test("after GitOps upgrades the CNI, preview, refresh and up of changed values leave the release alone", async () => {
    // GitOps takes over: another actor upgrades the release in place (revision 2).
    const gitopsValues = { ipam: { mode: "cluster-pool" }, image: "registry.example/cni-agent:1.1.0" };
    await runHelm([
      "upgrade",
      "cni",
      exampleChart("cni"),
      "--kubeconfig",
      cluster.kubeconfigPath,
      "--namespace",
      "kube-system",
      "--set",
      `ipam.mode=${gitopsValues.ipam.mode}`,
      "--set",
      `image=${gitopsValues.image}`,
    ]);
    const upgraded = await liveRelease(cluster, "cni", "kube-system");
    assert.equal(upgraded?.revision, 2);

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
    assert.equal(live?.revision, 2);
    assert.equal(live?.status, "deployed");
    assert.deepEqual(live?.values, gitopsValues);
    const outputs = await s.stack.outputs();
    assert.equal(
      (outputs.cniHandoff?.value as HandoffRecord | undefined)?.revision,
      1,
      "the record is the handoff's",
    );
    const release = await getObject(cluster, { ...helmRelease, namespace: "gitops-system", name: "cni" });
    assert.deepEqual(release?.spec?.values, bootValues, "the root object is not rewritten");
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
    assert.equal(cni?.revision, 2);
    const gitops = await liveRelease(cluster, "gitops", "gitops-system");
    assert.equal(gitops?.status, "deployed");
    assert.equal(gitops?.revision, 1);
    const release = await getObject(cluster, { ...helmRelease, namespace: "gitops-system", name: "cni" });
    assert.equal(release?.spec?.releaseName, "cni");
    const source = await getObject(cluster, { ...helmRepository, namespace: "gitops-system", name: "cni" });
    assert.equal(source?.spec?.url, repo.url);
  });
});
