/**
 * What the fleet status reads in a Cluster API management cluster, read only: the workload
 * `Cluster`s (all in a namespace, those a label selector matches, or those a HelmChartProxy or
 * ClusterResourceSet selects, whose `spec.clusterSelector` becomes the list's `labelSelector`), the
 * add-on each carrier delivers (a HelmChartProxy's `releaseName` and `namespace`, with CAAPH's
 * HelmReleaseProxy per cluster telling the installed revision; a ClusterResourceSet's release, read
 * from the `meta.helm.sh/release-name` annotations of the objects its first ConfigMap or Secret
 * carries, with the cluster's ClusterResourceSetBinding telling whether it was applied), and each
 * cluster's `<cluster>-kubeconfig` Secret (key `value`). Nothing here is printed as read: the
 * kubeconfig is only handed back, and messages name objects, never their content.
 *
 * @module
 */
import { parseAllDocuments } from "yaml";
import type { KubeClient, KubeResponse } from "../cluster/client.js";
import { Duration } from "../spec/duration.js";

/** A label selector as Cluster API carriers hold it. */
export interface Selector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly {
    readonly key: string;
    readonly operator: string;
    readonly values?: readonly string[];
  }[];
}

/** One workload `Cluster` as the fleet status needs it. */
export interface FleetCluster {
  readonly namespace: string;
  readonly name: string;
  /** When the Cluster is being deleted: its `deletionTimestamp`. */
  readonly deleting: string | undefined;
}

/** The add-on a carrier delivers, and what the carrier says it did on each cluster. */
export interface CarrierAddon {
  /** `Kind namespace/name` of the carrier. */
  readonly carrier: string;
  readonly releaseName: string;
  readonly namespace: string;
  /** `{repo, name}` of a HelmChartProxy's chart; undefined for a ClusterResourceSet (manifests). */
  readonly chart: { readonly repo: string; readonly name: string } | undefined;
  readonly version: string;
  /** The Clusters' label selector. */
  readonly selector: Selector;
  /** What to run to see the carrier's side. */
  readonly inspect: string;
  /** Per cluster name: delivered, and the revision it delivered (0 for manifests). */
  delivery(cluster: string): Promise<{ readonly delivered: boolean; readonly revision: number }>;
}

const READ = { timeout: Duration.seconds(30), maxBytes: 64 * 1024 * 1024 };
const CLUSTERS = "/apis/cluster.x-k8s.io/v1beta2";
const CAAPH = "/apis/addons.cluster.x-k8s.io/v1alpha1";
const CRS = "/apis/addons.cluster.x-k8s.io/v1beta2";
const RELEASE_NAME = "meta.helm.sh/release-name";
const RELEASE_NAMESPACE = "meta.helm.sh/release-namespace";

interface Item {
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly deletionTimestamp?: string;
    readonly annotations?: Record<string, string>;
  };
  readonly spec?: Record<string, unknown>;
  readonly status?: Record<string, unknown>;
  readonly data?: Record<string, string>;
}

/** The answer's JSON, or an error naming `what` and the HTTP status (never the body of a Secret). */
function answer<T>(res: KubeResponse, what: string, quoteBody = true): T {
  if (res.status < 200 || res.status >= 300) {
    const detail = quoteBody ? `: ${res.body.slice(0, 300)}` : "";
    throw new Error(`reading ${what} in the management cluster failed: HTTP ${res.status}${detail}`);
  }
  try {
    return JSON.parse(res.body) as T;
  } catch {
    throw new Error(`reading ${what} in the management cluster failed: the answer is not JSON`);
  }
}

/** A selector as the `labelSelector` query of a list (`a=b,c in (d,e),!f`). */
export function selectorQuery(selector: Selector): string {
  const terms = Object.entries(selector.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of selector.matchExpressions ?? []) {
    const values = (e.values ?? []).join(",");
    if (e.operator === "In") terms.push(`${e.key} in (${values})`);
    else if (e.operator === "NotIn") terms.push(`${e.key} notin (${values})`);
    else if (e.operator === "Exists") terms.push(e.key);
    else if (e.operator === "DoesNotExist") terms.push(`!${e.key}`);
    else
      throw new Error(
        `label selector operator "${e.operator}" is not one of In, NotIn, Exists, DoesNotExist`,
      );
  }
  return terms.join(",");
}

/** The Clusters of `namespace` matching `selector` (a `labelSelector` query; "" for all), by name. */
export async function listClusters(
  client: KubeClient,
  namespace: string,
  selector: string,
): Promise<FleetCluster[]> {
  const query = selector === "" ? "" : `?labelSelector=${encodeURIComponent(selector)}`;
  const res = await client.get(
    `${CLUSTERS}/namespaces/${encodeURIComponent(namespace)}/clusters${query}`,
    READ,
  );
  if (res.status === 404) {
    throw new Error(
      `the management cluster does not serve Cluster API's clusters.cluster.x-k8s.io/v1beta2: is --management-cluster a Cluster API management cluster?`,
    );
  }
  const items = answer<{ items?: Item[] }>(res, `the Clusters of namespace ${namespace}`).items ?? [];
  return items
    .map((c) => ({ namespace, name: c.metadata.name, deleting: c.metadata.deletionTimestamp }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

async function getCarrier(client: KubeClient, path: string, what: string): Promise<Item> {
  const res = await client.get(path, READ);
  if (res.status === 404) throw new Error(`${what} does not exist in the management cluster`);
  return answer<Item>(res, what);
}

/** The add-on of HelmChartProxy `namespace/name`, with CAAPH's HelmReleaseProxies telling each cluster's install. */
export async function helmChartProxyAddon(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<CarrierAddon> {
  const carrier = `HelmChartProxy ${namespace}/${name}`;
  const ns = encodeURIComponent(namespace);
  const hcp = await getCarrier(
    client,
    `${CAAPH}/namespaces/${ns}/helmchartproxies/${encodeURIComponent(name)}`,
    carrier,
  );
  const spec = hcp.spec ?? {};
  const releaseName = typeof spec.releaseName === "string" && spec.releaseName !== "" ? spec.releaseName : "";
  if (releaseName === "") {
    throw new Error(
      `${carrier} has no spec.releaseName: CAAPH then generates a name per cluster, which no GitOps object can name; give the proxy a releaseName`,
    );
  }
  const label = encodeURIComponent(`helmreleaseproxy.addons.cluster.x-k8s.io/helmchartproxy-name=${name}`);
  let proxies: Promise<Map<string, Item>> | undefined;
  const byCluster = () => {
    proxies ??= client
      .get(`${CAAPH}/namespaces/${ns}/helmreleaseproxies?labelSelector=${label}`, READ)
      .then((res) => answer<{ items?: Item[] }>(res, `the HelmReleaseProxies of ${carrier}`).items ?? [])
      .then(
        (items) =>
          new Map(items.map((p) => [String((p.spec?.clusterRef as { name?: string } | undefined)?.name), p])),
      );
    return proxies;
  };
  return {
    carrier,
    releaseName,
    namespace: typeof spec.namespace === "string" && spec.namespace !== "" ? spec.namespace : "default",
    chart: { repo: String(spec.repoURL ?? ""), name: String(spec.chartName ?? "") },
    version: String(spec.version ?? ""),
    selector: (spec.clusterSelector ?? {}) as Selector,
    inspect: `kubectl get helmreleaseproxies -n ${namespace} -l helmreleaseproxy.addons.cluster.x-k8s.io/helmchartproxy-name=${name}`,
    async delivery(cluster) {
      const proxy = (await byCluster()).get(cluster);
      const status = (proxy?.status ?? {}) as { status?: string; revision?: number };
      const delivered = status.status === "deployed";
      return { delivered, revision: delivered && typeof status.revision === "number" ? status.revision : 1 };
    },
  };
}

/** The release named by the objects a carrier's data holds (their `meta.helm.sh/release-*` annotations). */
export function carriedRelease(
  data: Readonly<Record<string, string>>,
): { name: string; namespace: string } | undefined {
  for (const key of Object.keys(data).sort()) {
    for (const doc of parseAllDocuments(data[key] ?? "")) {
      // Never quote a parse error: the carrier may be a Secret.
      if (doc.errors.length > 0) continue;
      const o = doc.toJS() as { metadata?: { annotations?: Record<string, string> } } | null;
      const a = o?.metadata?.annotations ?? {};
      const name = a[RELEASE_NAME];
      const namespace = a[RELEASE_NAMESPACE];
      if (name && namespace) return { name, namespace };
    }
  }
  return undefined;
}

/** The add-on of ClusterResourceSet `namespace/name`, with each cluster's ClusterResourceSetBinding telling whether it was applied. */
export async function clusterResourceSetAddon(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<CarrierAddon> {
  const carrier = `ClusterResourceSet ${namespace}/${name}`;
  const ns = encodeURIComponent(namespace);
  const crs = await getCarrier(
    client,
    `${CRS}/namespaces/${ns}/clusterresourcesets/${encodeURIComponent(name)}`,
    carrier,
  );
  const resources = ((crs.spec?.resources ?? []) as { name: string; kind: string }[]).filter(
    (r) => r.kind === "ConfigMap" || r.kind === "Secret",
  );
  let release: { name: string; namespace: string } | undefined;
  for (const r of resources) {
    const plural = r.kind === "Secret" ? "secrets" : "configmaps";
    const what = `${r.kind} ${namespace}/${r.name} of ${carrier}`;
    const item = answer<Item>(
      await client.get(`/api/v1/namespaces/${ns}/${plural}/${encodeURIComponent(r.name)}`, READ),
      what,
      false,
    );
    const data = Object.fromEntries(
      Object.entries(item.data ?? {}).map(([k, v]) => [
        k,
        r.kind === "Secret" ? Buffer.from(v, "base64").toString("utf8") : v,
      ]),
    );
    release = carriedRelease(data);
    if (release !== undefined) break;
  }
  if (release === undefined) {
    throw new Error(
      `${carrier} carries no object annotated ${RELEASE_NAME} and ${RELEASE_NAMESPACE}: it does not deliver a Helm release helm-handoff can judge (give the release with --release NS/NAME)`,
    );
  }
  const names = new Set(resources.map((r) => r.name));
  return {
    carrier,
    releaseName: release.name,
    namespace: release.namespace,
    chart: undefined,
    version: "",
    selector: (crs.spec?.clusterSelector ?? {}) as Selector,
    inspect: `kubectl get clusterresourcesetbindings -n ${namespace} CLUSTER -o yaml`,
    async delivery(cluster) {
      const res = await client.get(
        `${CRS}/namespaces/${ns}/clusterresourcesetbindings/${encodeURIComponent(cluster)}`,
        READ,
      );
      if (res.status === 404) return { delivered: false, revision: 0 };
      const binding = answer<Item>(res, `the ClusterResourceSetBinding ${namespace}/${cluster}`);
      const bindings = (binding.spec?.bindings ?? []) as {
        clusterResourceSetName?: string;
        resources?: { name?: string; applied?: boolean }[];
      }[];
      const applied = new Set(
        (bindings.find((b) => b.clusterResourceSetName === name)?.resources ?? [])
          .filter((r) => r.applied === true)
          .map((r) => r.name),
      );
      return { delivered: [...names].every((n) => applied.has(n)), revision: 0 };
    },
  };
}

/** What a cluster's kubeconfig Secret gave: the kubeconfig, or why there is none (no content quoted). */
export type KubeconfigSecret = { readonly kubeconfig: string } | { readonly problem: string };

/** Reads `<cluster>-kubeconfig` (key `value`), the way Cluster API stores a workload cluster's kubeconfig. */
export async function readKubeconfigSecret(
  client: KubeClient,
  cluster: FleetCluster,
): Promise<KubeconfigSecret> {
  const secret = `${cluster.namespace}/${cluster.name}-kubeconfig`;
  const res = await client.get(
    `/api/v1/namespaces/${encodeURIComponent(cluster.namespace)}/secrets/${encodeURIComponent(`${cluster.name}-kubeconfig`)}`,
    READ,
  );
  if (res.status === 404) {
    return {
      problem: `the kubeconfig Secret ${secret} does not exist (Cluster API writes it once the control plane is up)`,
    };
  }
  if (res.status < 200 || res.status >= 300) {
    return { problem: `the kubeconfig Secret ${secret} cannot be read: HTTP ${res.status}` };
  }
  let value: string | undefined;
  try {
    value = (JSON.parse(res.body) as Item).data?.value;
  } catch {
    return { problem: `the kubeconfig Secret ${secret} cannot be read: the answer is not JSON` };
  }
  if (value === undefined || value === "")
    return { problem: `the kubeconfig Secret ${secret} has no key "value"` };
  return { kubeconfig: Buffer.from(value, "base64").toString("utf8") };
}
