/**
 * Shared pieces of the tests against the real Cluster API controllers: synthesizing a cdk8s app the
 * way `cdk8s synth` does and server-side applying its objects to the management cluster as
 * `kubectl apply --server-side` would, reading what CAAPH and the ClusterResourceSet controller
 * record there (HelmChartProxy, HelmReleaseProxies, ClusterResourceSetBindings), changing a
 * `Cluster` (its labels, or anything with `updateCluster`), deleting objects, and the `gated` test
 * chart (an add-on that cannot install before its Secret is there). Test-only code.
 *
 * @module
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import type { Chart } from "cdk8s";
import type { KubeObject } from "../../core/util/kube-object.js";
import { clusterPath } from "../../local-cluster/controllers/capi/objects.js";
import type { LocalCluster } from "../../local-cluster/index.js";
import { newChart, RawApplier } from "./constructs.js";
import type { Json } from "./gitops.js";

/** The field manager `kubectl apply --server-side` uses. */
export const KUBECTL = "kubectl";

/** CAAPH's API (HelmChartProxy, HelmReleaseProxy). */
export const CAAPH_API = "/apis/addons.cluster.x-k8s.io/v1alpha1";
/** Cluster API's addons API (ClusterResourceSet, ClusterResourceSetBinding). */
export const CRS_API = "/apis/addons.cluster.x-k8s.io/v1beta2";

/** The objects of a cdk8s Chart built by `build`, as `cdk8s synth` writes them (resolved, in order). */
export function synth(build: (chart: Chart) => void): KubeObject[] {
  const { chart } = newChart("capi");
  build(chart);
  return chart.toJson() as KubeObject[];
}

/**
 * Runs a cdk8s app in a process of its own, as `cdk8s synth` does, and returns what it printed
 * (JSON). The app is ES module source; it imports `cdk8s` and `helm-handoff/cdk8s` from the URLs in
 * `process.env.CDK8S` and `process.env.HELM_HANDOFF_CDK8S`, and reads `env`. Needed whenever the
 * app renders a chart from a repository this test process serves: the construct runs helm
 * synchronously, which would block the repository's event loop in-process.
 */
export async function synthApp(source: string, env: Readonly<Record<string, string>> = {}): Promise<unknown> {
  const dir = await mkdtemp(join(tmpdir(), "hh-cdk8s-app-"));
  try {
    const file = join(dir, "main.mjs");
    await writeFile(file, source);
    const { stdout } = await promisify(execFile)(process.execPath, [file], {
      env: {
        ...process.env,
        ...env,
        CDK8S: import.meta.resolve("cdk8s"),
        HELM_HANDOFF_CDK8S: new URL("../../constructs/index.js", import.meta.url).href,
      },
      maxBuffer: 64 * 1024 * 1024,
      encoding: "utf8",
    });
    return JSON.parse(stdout) as unknown;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Server-side applies every object to `cluster` as `kubectl apply --server-side` does. */
export async function applyAll(cluster: LocalCluster, objects: readonly KubeObject[]): Promise<void> {
  const applier = new RawApplier(cluster.kubeconfig);
  for (const o of objects) await applier.apply(o, { fieldManager: KUBECTL });
}

/** How long a GET waits out an API server that answers 429 or 503 (its storage starting after a restart). */
const GET_PATIENCE_MS = 60_000;

/** GET `path`, again each second while the server answers 429 or 503, for up to {@link GET_PATIENCE_MS}. */
async function get(cluster: LocalCluster, path: string): ReturnType<LocalCluster["request"]> {
  const deadline = Date.now() + GET_PATIENCE_MS;
  for (;;) {
    const res = await cluster.request("GET", path);
    if ((res.status !== 429 && res.status !== 503) || Date.now() >= deadline) return res;
    await sleep(1_000);
  }
}

/** GET `path`; undefined on 404. */
export async function read(cluster: LocalCluster, path: string): Promise<Json | undefined> {
  const res = await get(cluster, path);
  if (res.status === 404) return undefined;
  assert.ok(res.ok, `GET ${path}: HTTP ${res.status} ${res.text}`);
  return res.json<Json>();
}

/** The items of a list at `path`. */
export async function list(cluster: LocalCluster, path: string): Promise<Json[]> {
  const res = await get(cluster, path);
  assert.ok(res.ok, `GET ${path}: HTTP ${res.status} ${res.text}`);
  return res.json<{ items: Json[] }>().items;
}

/** DELETE `path` (a 404 counts as done). */
export async function remove(cluster: LocalCluster, path: string): Promise<void> {
  const res = await cluster.request("DELETE", path);
  assert.ok(res.ok || res.status === 404, `DELETE ${path}: HTTP ${res.status} ${res.text}`);
}

/** The REST path of a HelmChartProxy. */
export const proxyPath = (namespace: string, name: string): string =>
  `${CAAPH_API}/namespaces/${namespace}/helmchartproxies/${name}`;

/** The REST path of a ClusterResourceSet. */
export const resourceSetPath = (namespace: string, name: string): string =>
  `${CRS_API}/namespaces/${namespace}/clusterresourcesets/${name}`;

/** The HelmReleaseProxies CAAPH made for a HelmChartProxy, by the name of their Cluster. */
export async function releaseProxies(
  cluster: LocalCluster,
  namespace: string,
  proxy: string,
): Promise<Map<string, Json>> {
  const selector = encodeURIComponent(
    `helmreleaseproxy.addons.cluster.x-k8s.io/helmchartproxy-name=${proxy}`,
  );
  const items = await list(
    cluster,
    `${CAAPH_API}/namespaces/${namespace}/helmreleaseproxies?labelSelector=${selector}`,
  );
  return new Map(
    items.map((hrp) => [String((hrp.spec?.clusterRef as { name?: string } | undefined)?.name), hrp]),
  );
}

/** Resolves once the HelmChartProxy's status says its current generation was reconciled. */
export async function proxyObserved(
  cluster: LocalCluster,
  namespace: string,
  name: string,
): Promise<Json | undefined> {
  const hcp = await read(cluster, proxyPath(namespace, name));
  const observed = hcp?.status?.observedGeneration;
  return hcp !== undefined && observed === hcp.metadata.generation ? hcp : undefined;
}

/** The names of the Clusters a HelmChartProxy's status lists as matching. */
export function matchingClusters(hcp: Json): string[] {
  const refs = (hcp.status?.matchingClusters ?? []) as { name: string }[];
  return refs.map((r) => r.name).sort();
}

/** Replaces a `Cluster`'s labels. */
export async function setClusterLabels(
  cluster: LocalCluster,
  namespace: string,
  name: string,
  labels: Readonly<Record<string, string>>,
): Promise<void> {
  const path = clusterPath(namespace, name);
  const live = await read(cluster, path);
  assert.ok(live, `Cluster ${namespace}/${name} exists`);
  const res = await cluster.request("PUT", path, { ...live, metadata: { ...live.metadata, labels } });
  assert.ok(res.ok, `PUT ${path}: HTTP ${res.status} ${res.text}`);
}

/**
 * Changes a `Cluster` by `change` (of its live object) and PUTs it, reading it again when a
 * controller wrote it in between (409). No webhook guards a Cluster in a local management cluster.
 */
export async function updateCluster(
  cluster: LocalCluster,
  namespace: string,
  name: string,
  change: (live: Json) => Json,
): Promise<void> {
  const path = clusterPath(namespace, name);
  for (let attempt = 1; ; attempt++) {
    const live = await read(cluster, path);
    assert.ok(live, `Cluster ${namespace}/${name} exists`);
    const res = await cluster.request("PUT", path, change(live));
    if (res.ok) return;
    assert.ok(res.status === 409 && attempt < 10, `PUT ${path}: HTTP ${res.status} ${res.text}`);
  }
}

/**
 * The files of a chart of one ConfigMap `RELEASE-gate` that fails to install while the Secret its
 * `existingSecret` value names is missing (helm's `lookup` at install): an add-on that needs its
 * secret before it can install. The ConfigMap lists the Secret's keys and the `note` value.
 */
export const GATED_CHART_FILES = {
  "values.yaml": 'existingSecret: ""\nnote: ""\nrun: 0\ngen: 0\n',
  "templates/configmap.yaml": [
    '{{- $s := lookup "v1" "Secret" .Release.Namespace .Values.existingSecret }}',
    '{{- if not $s }}{{ fail (printf "Secret %s/%s not found: create it before installing" .Release.Namespace .Values.existingSecret) }}{{ end }}',
    "apiVersion: v1",
    "kind: ConfigMap",
    "metadata:",
    "  name: {{ .Release.Name }}-gate",
    "data:",
    '  keys: {{ keys $s.data | sortAlpha | join "," | quote }}',
    "  note: {{ .Values.note | quote }}",
    "",
  ].join("\n"),
};
