/**
 * What the real Cluster API controllers do with the cdk8s carriers: a local management cluster
 * runs the Cluster API core manager v1.14.2 and CAAPH v0.6.4 (built by the toolchain), with two
 * workload clusters registered as `Cluster` objects (a third one is added later); the objects of
 * `ClusterAddon` with `output: "HelmChartProxy"` and `"ClusterResourceSet"`, synthesized as
 * `cdk8s synth` does, are server-side applied to it as a user would. The tests read the releases
 * and objects in the workload clusters: InstallOnce and Continuous proxies, values with `{{`,
 * ApplyOnce and Reconcile resource sets, sets with Secret carriers as v1beta2 and v1beta1, a set
 * chunked past 1 MiB.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { ClusterAddon, type ClusterAddonProps } from "../../../constructs/index.js";
import type { KubeObject } from "../../../core/util/kube-object.js";
import type { CapiWorkloadCluster } from "../../../local-cluster/index.js";
import { type LiveRelease, liveRelease } from "../../support/addon.js";
import { skipUnlessBuilt } from "../../support/binaries.js";
import {
  applyAll,
  CRS_API,
  list,
  matchingClusters,
  proxyObserved,
  proxyPath,
  read,
  releaseProxies,
  remove,
  resourceSetPath,
  setClusterLabels,
  synth,
} from "../../support/capi.js";
import { clusterSuite } from "../../support/cluster.js";
import { isolateCache, testChart, writeChart } from "../../support/constructs.js";
import { getObject, waitFor } from "../../support/gitops.js";
import { type HttpChartRepo, startHttpChartRepo } from "../../support/repos.js";

/** Where the Clusters, the proxies and the resource sets live. */
const NS = "default";
/** The labels every workload cluster is registered with; the selector-change tests take one away. */
const LABELS = { fleet: "local", addons: "on" };
/** A chart of one ConfigMap holding two values, so that what arrived can be read back exactly. */
const NOTE_CHART = {
  "values.yaml": 'message: default\ntemplate: ""\n',
  "templates/configmap.yaml": [
    "apiVersion: v1",
    "kind: ConfigMap",
    "metadata:",
    "  name: {{ .Release.Name }}-note",
    "  namespace: {{ .Release.Namespace | quote }}",
    "data:",
    "  message: {{ .Values.message | quote }}",
    "  template: {{ .Values.template | quote }}",
    "",
  ].join("\n"),
};

describe("the real Cluster API controllers with the cdk8s carriers", {
  skip: skipUnlessBuilt(["capi-manager", "caaph-manager", "kube-apiserver"]),
  timeout: 900_000,
}, () => {
  const suite = clusterSuite({ name: "capi", capi: { workloadClusters: 2, labels: LABELS } });
  let repo: HttpChartRepo;
  let noteChart: string;
  let cache: ReturnType<typeof isolateCache>;
  const mgmt = () => suite.cluster;
  const workloads = (): readonly CapiWorkloadCluster[] => mgmt().capi?.clusters ?? [];

  before(async () => {
    cache = isolateCache();
    noteChart = writeChart("note", NOTE_CHART);
    repo = await startHttpChartRepo({ charts: [noteChart] });
  });
  after(async () => {
    await repo?.close();
    if (noteChart) rmSync(dirname(noteChart), { recursive: true, force: true });
    cache?.restore();
  });

  /** The objects of one ClusterAddon of the note chart from the repository, as synthesized. */
  const proxyApp = (id: string, props: Partial<ClusterAddonProps>): KubeObject[] =>
    synth((chart) => {
      new ClusterAddon(chart, id, {
        chart: { repo: repo.url, name: "note", version: "0.1.0" },
        namespace: "addons",
        createNamespace: true,
        output: "HelmChartProxy",
        carrierNamespace: NS,
        ...props,
      });
    });
  const release = (c: CapiWorkloadCluster, name: string): Promise<LiveRelease | undefined> =>
    liveRelease(c.local, name, "addons");
  const releaseAt = (name: string, revision: number, message: string) => async (c: CapiWorkloadCluster) =>
    waitFor(
      `release ${name} at revision ${revision} with message ${message} in ${c.name}`,
      async () => {
        const r = await release(c, name);
        return r?.status === "deployed" && r.revision === revision && r.values.message === message
          ? r
          : undefined;
      },
      180_000,
      async () => `${JSON.stringify(await release(c, name))}; ${mgmt().logDir}/caaph-manager.log`,
    );
  const observed = (name: string) =>
    waitFor(`HelmChartProxy ${name} to be reconciled`, () => proxyObserved(mgmt(), NS, name), 60_000);

  test("HelmChartProxy with InstallOnce: CAAPH installs the release once in every selected workload cluster, at revision 1 with exactly our values, {{ included", async () => {
    const values = { message: "first", template: "{{ not-a-template }}" };
    await applyAll(mgmt(), proxyApp("once", { values, clusterSelector: { matchLabels: { addons: "on" } } }));
    const hcp = await read(mgmt(), proxyPath(NS, "once"));
    assert.equal(hcp?.spec?.reconcileStrategy, "InstallOnce");
    assert.equal(workloads().length, 2);
    for (const c of workloads()) {
      const r = await releaseAt("once", 1, "first")(c);
      assert.deepEqual(r.values, values);
      const note = await getObject(c.local, "v1", "ConfigMap", "addons", "once-note");
      assert.deepEqual(note?.data, { message: "first", template: "{{ not-a-template }}" });
    }
  });

  test("HelmChartProxy with InstallOnce: new values in the re-synthesized proxy upgrade nothing", async () => {
    const values = { message: "second", template: "{{ not-a-template }}" };
    await applyAll(mgmt(), proxyApp("once", { values, clusterSelector: { matchLabels: { addons: "on" } } }));
    const hcp = await observed("once");
    assert.ok((hcp.metadata.generation ?? 0) >= 2);
    await sleep(5_000);
    for (const c of workloads()) {
      const r = await release(c, "once");
      assert.deepEqual([r?.revision, r?.status, r?.values.message], [1, "deployed", "first"]);
    }
    const proxies = await releaseProxies(mgmt(), NS, "once");
    for (const c of workloads()) assert.match(String(proxies.get(c.name)?.spec?.values), /message: first/);
  });

  test("HelmChartProxy with InstallOnce: a workload cluster that stops matching the selector keeps its release", async () => {
    const [, second] = workloads();
    assert.ok(second);
    await setClusterLabels(mgmt(), NS, second.name, { fleet: "local" });
    await waitFor("the proxy to match one cluster", async () => {
      const hcp = await proxyObserved(mgmt(), NS, "once");
      return hcp && matchingClusters(hcp).length === 1 ? hcp : undefined;
    });
    await sleep(5_000);
    const r = await release(second, "once");
    assert.deepEqual([r?.revision, r?.status], [1, "deployed"]);
    assert.ok(
      (await releaseProxies(mgmt(), NS, "once")).has(second.name),
      "CAAPH keeps the orphaned HelmReleaseProxy",
    );
    await setClusterLabels(mgmt(), NS, second.name, LABELS);
  });

  test("HelmChartProxy with InstallOnce: a workload cluster added later gets its install, with the proxy's values of now", async () => {
    const added = await mgmt().capi?.addCluster();
    assert.ok(added);
    assert.equal(added.name, "workload-3");
    const r = await releaseAt("once", 1, "second")(added);
    assert.equal(r.values.template, "{{ not-a-template }}");
  });

  test("HelmChartProxy with InstallOnce: deleting the proxy uninstalls nothing", async () => {
    await remove(mgmt(), proxyPath(NS, "once"));
    await waitFor("the proxy and its HelmReleaseProxies to be gone", async () => {
      const gone = (await read(mgmt(), proxyPath(NS, "once"))) === undefined;
      return gone && (await releaseProxies(mgmt(), NS, "once")).size === 0 ? true : undefined;
    });
    assert.equal(workloads().length, 3);
    for (const c of workloads()) {
      const r = await release(c, "once");
      assert.deepEqual([r?.revision, r?.status], [1, "deployed"], c.name);
    }
  });

  test("HelmChartProxy with InstallOnce: applied again after its deletion, it upgrades every release already there whose values differ", async () => {
    const values = { message: "second", template: "{{ not-a-template }}" };
    await applyAll(mgmt(), proxyApp("once", { values, clusterSelector: { matchLabels: { addons: "on" } } }));
    const [first, second, third] = workloads();
    assert.ok(first && second && third);
    await Promise.all([first, second].map(releaseAt("once", 2, "second")));
    await waitFor("a HelmReleaseProxy marked installed for every cluster", async () => {
      const proxies = await releaseProxies(mgmt(), NS, "once");
      const installed = [...proxies.values()].filter(
        (p) =>
          p.metadata.annotations?.[
            "helmreleaseproxy.addons.cluster.x-k8s.io/release-successfully-installed"
          ] !== undefined,
      );
      return installed.length === 3 ? true : undefined;
    });
    const unchanged = await release(third, "once");
    assert.deepEqual(
      [unchanged?.revision, unchanged?.values.message],
      [1, "second"],
      "same values: no upgrade",
    );
    await remove(mgmt(), proxyPath(NS, "once"));
  });

  test("HelmChartProxy with Continuous: CAAPH upgrades every release on a values change and uninstalls them when the proxy is deleted", async () => {
    const selector = { clusterSelector: { matchLabels: { fleet: "local" } }, strategy: "Reconcile" as const };
    await applyAll(mgmt(), proxyApp("continuous", { ...selector, values: { message: "one" } }));
    const hcp = await read(mgmt(), proxyPath(NS, "continuous"));
    assert.equal(hcp?.spec?.reconcileStrategy, "Continuous");
    await Promise.all(workloads().map(releaseAt("continuous", 1, "one")));
    await applyAll(mgmt(), proxyApp("continuous", { ...selector, values: { message: "two" } }));
    for (const c of await Promise.all(workloads().map(releaseAt("continuous", 2, "two")))) {
      assert.deepEqual(c.values, { message: "two" });
    }
    await remove(mgmt(), proxyPath(NS, "continuous"));
    for (const c of workloads()) {
      await waitFor(`release continuous to be uninstalled from ${c.name}`, async () =>
        (await release(c, "continuous")) === undefined ? true : undefined,
      );
    }
  });

  /** The objects of one ClusterAddon of the note chart (a local chart, rendered at synth) as a ClusterResourceSet. */
  const setApp = (id: string, strategy: "ApplyOnce" | "Reconcile", message: string): KubeObject[] =>
    synth((chart) => {
      new ClusterAddon(chart, id, {
        chart: { path: noteChart },
        namespace: "sets",
        createNamespace: true,
        values: { message },
        strategy,
        output: "ClusterResourceSet",
        carrierNamespace: NS,
        clusterSelector: { matchLabels: { fleet: "local" } },
      });
    });
  const noteIn = (c: CapiWorkloadCluster, release: string) =>
    getObject(c.local, "v1", "ConfigMap", "sets", `${release}-note`);
  const noteSays = (release: string, message: string) => (c: CapiWorkloadCluster) =>
    waitFor(`ConfigMap sets/${release}-note saying ${message} in ${c.name}`, async () => {
      const note = await noteIn(c, release);
      return note?.data?.message === message ? note : undefined;
    });

  test("ClusterResourceSet with ApplyOnce: the controller applies the objects into every matching cluster, with the Helm ownership metadata", async () => {
    await applyAll(mgmt(), [
      ...setApp("set-once", "ApplyOnce", "first"),
      ...setApp("set-reconcile", "Reconcile", "first"),
    ]);
    for (const note of await Promise.all(workloads().map(noteSays("set-once", "first")))) {
      assert.equal(note.metadata.annotations?.["meta.helm.sh/release-name"], "set-once");
      assert.equal(
        (note.metadata as { labels?: Record<string, string> }).labels?.["app.kubernetes.io/managed-by"],
        "Helm",
      );
    }
    await Promise.all(workloads().map(noteSays("set-reconcile", "first")));
    const bindings = await list(mgmt(), `${CRS_API}/namespaces/${NS}/clusterresourcesetbindings`);
    assert.deepEqual(
      bindings.map((b) => b.metadata.name).sort(),
      workloads()
        .map((c) => c.name)
        .sort(),
    );
  });

  test("ClusterResourceSet with ApplyOnce: changed content is not applied again, while a Reconcile set applies it", async () => {
    await applyAll(mgmt(), [
      ...setApp("set-once", "ApplyOnce", "second"),
      ...setApp("set-reconcile", "Reconcile", "second"),
    ]);
    await Promise.all(workloads().map(noteSays("set-reconcile", "second")));
    await sleep(5_000);
    for (const c of workloads()) assert.equal((await noteIn(c, "set-once"))?.data?.message, "first", c.name);
  });

  test("ClusterResourceSet with ApplyOnce: deleting the set leaves its objects in every cluster", async () => {
    await remove(mgmt(), resourceSetPath(NS, "set-once"));
    await waitFor("the set to be gone", async () =>
      (await read(mgmt(), resourceSetPath(NS, "set-once"))) ? undefined : true,
    );
    for (const c of workloads()) assert.equal((await noteIn(c, "set-once"))?.data?.message, "first", c.name);
  });

  test("ClusterResourceSet with sensitive carriers, as v1beta2 and as v1beta1: the controller applies both into every matching cluster, and no value is in the set itself", async () => {
    const secretApp = (id: string, clusterApiVersion: "v1beta2" | "v1beta1") =>
      synth((chart) => {
        new ClusterAddon(chart, id, {
          chart: { path: noteChart },
          namespace: "sets",
          createNamespace: true,
          values: { message: `token-${id}-5531` },
          sensitive: true,
          clusterApiVersion,
          output: "ClusterResourceSet",
          carrierNamespace: NS,
          clusterSelector: { matchLabels: { fleet: "local" } },
        });
      });
    const v2 = secretApp("set-secret", "v1beta2");
    const v1 = secretApp("set-secret-v1", "v1beta1");
    for (const [objects, apiVersion] of [
      [v2, "addons.cluster.x-k8s.io/v1beta2"],
      [v1, "addons.cluster.x-k8s.io/v1beta1"],
    ] as const) {
      const set = objects.find((o) => o.kind === "ClusterResourceSet");
      assert.equal(set?.apiVersion, apiVersion);
      assert.equal(JSON.stringify(set).includes("5531"), false, "the set holds no value");
      const carriers = objects.filter((o) => o.kind !== "ClusterResourceSet");
      assert.ok(
        carriers.length >= 1 && carriers.every((o) => o.kind === "Secret"),
        JSON.stringify(carriers.map((o) => o.kind)),
      );
    }
    await applyAll(mgmt(), [...v2, ...v1]);
    await Promise.all(workloads().map(noteSays("set-secret", "token-set-secret-5531")));
    await Promise.all(workloads().map(noteSays("set-secret-v1", "token-set-secret-v1-5531")));
    for (const name of ["set-secret", "set-secret-v1"]) {
      const live = JSON.stringify(await read(mgmt(), resourceSetPath(NS, name)));
      assert.equal(live.includes("5531"), false, `the live set ${name} holds no value`);
    }
  });

  test("ClusterResourceSet with ApplyOnce: a set chunked past 1 MiB arrives whole in every cluster", async () => {
    let rendered: readonly KubeObject[] = [];
    const objects = synth((chart) => {
      rendered = new ClusterAddon(chart, "big", {
        chart: { path: testChart("big") },
        namespace: "big",
        createNamespace: true,
        output: "ClusterResourceSet",
        carrierNamespace: NS,
        clusterSelector: { matchLabels: { fleet: "local" } },
      }).objects;
    });
    const carriers = objects.filter((o) => o.kind === "ConfigMap");
    assert.ok(carriers.length >= 2, `${carriers.length} carriers`);
    const expected = new Map(
      rendered
        .filter((o) => o.kind === "ConfigMap")
        .map((o) => [o.metadata.name, (o as { data?: unknown }).data]),
    );
    assert.equal(expected.size, 12);
    await applyAll(mgmt(), objects);
    for (const c of workloads()) {
      const maps = await waitFor(`the big chart's 12 ConfigMaps in ${c.name}`, async () => {
        const items = await list(
          c.local,
          "/api/v1/namespaces/big/configmaps?labelSelector=app.kubernetes.io%2Fname%3Dbig",
        );
        return items.length === expected.size ? items : undefined;
      });
      for (const m of maps) assert.deepEqual(m.data, expected.get(m.metadata.name), m.metadata.name);
    }
  });

  test("stop() ends every process of the management cluster and of every workload cluster", async () => {
    const all = [mgmt(), ...workloads().map((c) => c.local)].flatMap((c) => c.processes());
    assert.deepEqual(
      mgmt()
        .processes()
        .map((p) => p.name)
        .sort(),
      ["caaph-manager", "capi-manager", "etcd", "guard", "kube-apiserver"],
    );
    assert.equal(all.length, 5 + 3 * workloads().length);
    await mgmt().stop();
    const alive = all.filter((p) => {
      try {
        process.kill(p.pid, 0);
        return true;
      } catch {
        return false;
      }
    });
    assert.deepEqual(alive, []);
    for (const c of workloads()) assert.deepEqual(c.local.processes(), []);
  });
});
