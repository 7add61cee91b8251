/**
 * Reads what a cluster says about one handed-off release, as plain facts for the verdict (`judgeHandoff`): Helm's
 * storage of the release (every revision's labels, and the latest revision's objects and deploy
 * time), every Flux `HelmRelease` and Argo CD `Application` that names the release, and, when an
 * Application does, each of the release's objects as it is live (exists? tracked by which
 * Application?). Reads only: nothing here writes.
 *
 * @module
 */
import { gunzipSync } from "node:zlib";
import { parseAllDocuments } from "yaml";
import type { KubeClient, KubeResponse } from "../cluster/client.js";
import { Duration } from "../spec/duration.js";
import { type ManagedFields, otherFieldManagers } from "./field-managers.js";
import type { HandoffRecord } from "./record.js";

/** `group/Kind namespace/name` of one object (`namespace` empty for cluster-scoped objects). */
export interface ObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

/** One revision in Helm's storage (the release Secret's metadata). */
export interface StoredRevision {
  readonly revision: number;
  readonly status: string;
  readonly labels: Readonly<Record<string, string>>;
  /** The Secret's name, uid and resourceVersion (for a delete that removes exactly what was read). */
  readonly secret: { readonly name: string; readonly uid: string; readonly resourceVersion: string };
}

/** The release as Helm's storage holds it. */
export interface StoredRelease {
  /** The release's name and namespace as its latest revision records them (Helm's `name`, `namespace`). */
  readonly recorded: { readonly name: string; readonly namespace: string };
  /** Every revision, oldest first. */
  readonly revisions: readonly StoredRevision[];
  /** The latest revision. */
  readonly latest: StoredRevision;
  /** When the latest revision was deployed (ISO 8601), if recorded. */
  readonly deployedAt: string | undefined;
  /** The objects of the latest revision's manifest. */
  readonly objects: readonly ObjectRef[];
}

/** A Flux HelmRelease that names the release. */
export interface FluxClaim {
  readonly namespace: string;
  readonly name: string;
  /** The Ready condition: status, reason, message and since when. */
  readonly ready: {
    readonly status: string;
    readonly reason: string;
    readonly message: string;
    readonly since: string;
  };
  /** The last release action failed (`Released` False, or `Stalled` True): reason, message, since. */
  readonly failed: { readonly reason: string; readonly message: string; readonly since: string } | undefined;
  /** The newest snapshot of Flux's release history, if it has one. */
  readonly latest: { readonly version: number; readonly status: string } | undefined;
  /** When Flux first deployed the release (its oldest snapshot), if recorded. */
  readonly firstDeployedByFlux: string | undefined;
}

/** An Argo CD Application that names the release. */
export interface ArgoClaim {
  readonly namespace: string;
  readonly name: string;
  /** `status.sync.status`: Synced, OutOfSync or Unknown. */
  readonly sync: string;
  /** `status.health.status`: Healthy, Progressing, Degraded, Missing, … */
  readonly health: string;
  /** When the last sync operation finished (ISO 8601), if one ran. */
  readonly lastSyncedAt: string | undefined;
  /** The resources Argo CD lists for the Application, with their sync status. */
  readonly resources: readonly (ObjectRef & { readonly status: string })[];
}

/** One of the release's objects as it is live. */
export interface LiveObject {
  readonly ref: ObjectRef;
  readonly exists: boolean;
  /** The Argo CD Application that tracks it (from `argocd.argoproj.io/tracking-id`), if any. */
  readonly trackedBy: string | undefined;
  /**
   * Field managers other than helm that own its fields (see `otherFieldManagers`): a
   * server-side apply, or a GitOps controller's write.
   */
  readonly managers?: readonly string[];
}

/** Everything the verdict is decided from. */
export interface Observation {
  readonly release: StoredRelease | undefined;
  readonly flux: readonly FluxClaim[];
  readonly argo: readonly ArgoClaim[];
  /** The release's objects, live (read only when an Application names the release). */
  readonly objects: readonly LiveObject[];
}

/** Argo CD's annotation tracking (the default since v3): `APP:GROUP/KIND:NAMESPACE/NAME`. */
export const ARGO_TRACKING_ANNOTATION = "argocd.argoproj.io/tracking-id";

const READ = { timeout: Duration.seconds(30), maxBytes: 64 * 1024 * 1024 };
const METADATA_ONLY = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";

interface Meta {
  readonly name: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
  readonly managedFields?: readonly ManagedFields[];
}
interface Item {
  readonly metadata: Meta;
  readonly spec?: Record<string, unknown>;
  readonly status?: Record<string, unknown>;
  readonly data?: Record<string, string>;
}

function parse<T>(res: KubeResponse, what: string): T {
  if (res.status < 200 || res.status >= 300) {
    const error = new Error(`reading ${what} failed: HTTP ${res.status} ${res.body.slice(0, 300)}`);
    throw Object.assign(error, { status: res.status });
  }
  try {
    return JSON.parse(res.body) as T;
  } catch {
    // Never quote the body: it may be a Secret (JSON.parse's message quotes the text it chokes on).
    throw new Error(`reading ${what} failed: the API server's answer is not JSON`);
  }
}

/** Lists a collection; a kind the cluster does not serve (its CRD is absent) is an empty list. */
export async function list(client: KubeClient, path: string, what: string, accept?: string): Promise<Item[]> {
  const res = await client.get(path, { ...READ, ...(accept ? { accept } : {}) });
  if (res.status === 404) return [];
  return parse<{ items?: Item[] }>(res, what).items ?? [];
}

/** Decodes a release Secret's `data.release`: base64 (the Secret) of base64 of gzip of JSON. */
export function decodeRelease(data: string, secretName: string): Record<string, unknown> {
  try {
    const inner = Buffer.from(Buffer.from(data, "base64").toString("utf8"), "base64");
    const json = inner[0] === 0x1f && inner[1] === 0x8b ? gunzipSync(inner) : inner;
    return JSON.parse(json.toString("utf8")) as Record<string, unknown>;
  } catch {
    // The release holds the values: no parser message (which quotes its input) leaves here.
    throw new Error(`Helm's release Secret ${secretName} cannot be decoded (not base64 of gzipped JSON)`);
  }
}

/** The objects of a rendered manifest, namespaced ones without a namespace put in `namespace`. */
export function manifestObjects(
  manifest: string,
  namespace: string,
  namespaced: (ref: ObjectRef) => boolean,
): ObjectRef[] {
  const refs: ObjectRef[] = [];
  for (const doc of parseAllDocuments(manifest)) {
    // A document helm could not have applied names no object (and its parse error would quote it).
    if (doc.errors.length > 0) continue;
    const o = doc.toJS() as { apiVersion?: string; kind?: string; metadata?: Meta } | null;
    if (!o?.apiVersion || !o.kind || !o.metadata?.name) continue;
    const ref = {
      apiVersion: o.apiVersion,
      kind: o.kind,
      namespace: o.metadata.namespace ?? "",
      name: o.metadata.name,
    };
    refs.push(ref.namespace === "" && namespaced(ref) ? { ...ref, namespace } : ref);
  }
  return refs;
}

/** Finds each kind's REST resource through discovery (once per group/version). */
export class Discovery {
  readonly #lists = new Map<string, Promise<{ name: string; kind: string; namespaced: boolean }[]>>();
  constructor(private readonly client: KubeClient) {}

  async resource(apiVersion: string, kind: string) {
    let resources = this.#lists.get(apiVersion);
    if (resources === undefined) {
      const path = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
      resources = this.client
        .get(path, READ)
        .then((res) =>
          res.status === 404
            ? []
            : parse<{ resources: { name: string; kind: string; namespaced: boolean }[] }>(res, path)
                .resources,
        );
      this.#lists.set(apiVersion, resources);
    }
    return (await resources).find((r) => r.kind === kind && !r.name.includes("/"));
  }

  async path(ref: ObjectRef): Promise<string | undefined> {
    const r = await this.resource(ref.apiVersion, ref.kind);
    if (r === undefined) return undefined;
    const base = ref.apiVersion.includes("/") ? `/apis/${ref.apiVersion}` : `/api/${ref.apiVersion}`;
    const ns = r.namespaced && ref.namespace !== "" ? `/namespaces/${ref.namespace}` : "";
    return `${base}${ns}/${r.name}/${ref.name}`;
  }
}

/** The type of Helm's release Secrets (helm's Secret storage driver). */
export const HELM_RELEASE_SECRET_TYPE = "helm.sh/release.v1";

/**
 * Helm's release Secrets of release `name` in `storageNamespace`, and nothing that only looks like
 * one: of type {@link HELM_RELEASE_SECRET_TYPE}, labelled `owner=helm`, `name=NAME` and
 * `version=N`, and named `sh.helm.release.v1.NAME.vN` after those labels.
 */
async function listReleaseSecrets(
  client: KubeClient,
  name: string,
  storageNamespace: string,
): Promise<Item[]> {
  const labels = encodeURIComponent(`owner=helm,name=${name}`);
  const fields = encodeURIComponent(`type=${HELM_RELEASE_SECRET_TYPE}`);
  const path = `/api/v1/namespaces/${encodeURIComponent(storageNamespace)}/secrets?labelSelector=${labels}&fieldSelector=${fields}`;
  const items = await list(client, path, "Helm's release Secrets", METADATA_ONLY);
  return items.filter((i) => {
    const l = i.metadata.labels ?? {};
    return (
      l.owner === "helm" &&
      l.name === name &&
      /^[1-9][0-9]*$/.test(l.version ?? "") &&
      i.metadata.name === `sh.helm.release.v1.${name}.v${l.version}`
    );
  });
}

export async function readStorage(
  client: KubeClient,
  record: Pick<HandoffRecord, "release">,
  discovery: Discovery,
): Promise<StoredRelease | undefined> {
  const { name, storageNamespace, namespace } = record.release;
  const items = await listReleaseSecrets(client, name, storageNamespace);
  const revisions = items
    .map(
      (i): StoredRevision => ({
        revision: Number(i.metadata.labels?.version ?? 0),
        status: i.metadata.labels?.status ?? "",
        labels: i.metadata.labels ?? {},
        secret: {
          name: i.metadata.name,
          uid: i.metadata.uid ?? "",
          resourceVersion: i.metadata.resourceVersion ?? "",
        },
      }),
    )
    .sort((a, b) => a.revision - b.revision);
  const latest = revisions.at(-1);
  if (latest === undefined) return undefined;
  const secret = parse<Item>(
    await client.get(`/api/v1/namespaces/${storageNamespace}/secrets/${latest.secret.name}`, READ),
    latest.secret.name,
  );
  const release = decodeRelease(secret.data?.release ?? "", latest.secret.name);
  const info = (release.info ?? {}) as { last_deployed?: string };
  const recorded = { name: String(release.name ?? ""), namespace: String(release.namespace ?? "") };
  const namespaced = new Map<string, boolean>();
  const refs = manifestObjects(String(release.manifest ?? ""), namespace, () => true);
  for (const ref of refs) {
    const r = await discovery.resource(ref.apiVersion, ref.kind);
    namespaced.set(`${ref.apiVersion}/${ref.kind}`, r?.namespaced ?? true);
  }
  const objects = refs.map((ref) =>
    namespaced.get(`${ref.apiVersion}/${ref.kind}`) === false ? { ...ref, namespace: "" } : ref,
  );
  return { recorded, revisions, latest, deployedAt: info.last_deployed, objects };
}

function condition(status: Record<string, unknown> | undefined, type: string) {
  const list = (status?.conditions ?? []) as {
    type: string;
    status: string;
    reason?: string;
    message?: string;
    lastTransitionTime?: string;
  }[];
  return list.find((c) => c.type === type);
}

export async function readFlux(
  client: KubeClient,
  record: Pick<HandoffRecord, "release">,
): Promise<FluxClaim[]> {
  const items = await list(client, "/apis/helm.toolkit.fluxcd.io/v2/helmreleases", "Flux HelmReleases");
  const { name, storageNamespace } = record.release;
  return items
    .filter((hr) => {
      const spec = hr.spec ?? {};
      const target = spec.targetNamespace as string | undefined;
      const releaseName =
        (spec.releaseName as string | undefined) ??
        (target ? `${target}-${hr.metadata.name}` : hr.metadata.name);
      const storage = (spec.storageNamespace as string | undefined) ?? hr.metadata.namespace;
      return releaseName === name && storage === storageNamespace;
    })
    .map((hr) => {
      const ready = condition(hr.status, "Ready");
      const released = condition(hr.status, "Released");
      const stalled = condition(hr.status, "Stalled");
      const failure =
        stalled?.status === "True" ? stalled : released?.status === "False" ? released : undefined;
      const history = (hr.status?.history ?? []) as {
        version: number;
        status: string;
        lastDeployed?: string;
        firstDeployed?: string;
      }[];
      const newest = history[0];
      return {
        namespace: hr.metadata.namespace ?? "",
        name: hr.metadata.name,
        ready: {
          status: ready?.status ?? "Unknown",
          reason: ready?.reason ?? "",
          message: ready?.message ?? "",
          since: ready?.lastTransitionTime ?? "",
        },
        failed: failure && {
          reason: failure.reason ?? "",
          message: failure.message ?? "",
          since: failure.lastTransitionTime ?? "",
        },
        latest: newest ? { version: newest.version, status: newest.status } : undefined,
        firstDeployedByFlux: history.at(-1)?.lastDeployed,
      };
    });
}

export async function readArgo(
  client: KubeClient,
  record: Pick<HandoffRecord, "release">,
): Promise<ArgoClaim[]> {
  const items = await list(client, "/apis/argoproj.io/v1alpha1/applications", "Argo CD Applications");
  const { name, namespace } = record.release;
  return items
    .filter((app) => {
      const spec = app.spec ?? {};
      const sources = [spec.source, ...((spec.sources as unknown[] | undefined) ?? [])].filter(Boolean) as {
        helm?: { releaseName?: string };
      }[];
      const dest = (spec.destination ?? {}) as { namespace?: string };
      return (
        dest.namespace === namespace &&
        sources.some((s) => (s.helm?.releaseName ?? app.metadata.name) === name)
      );
    })
    .map((app) => {
      const status = (app.status ?? {}) as {
        sync?: { status?: string };
        health?: { status?: string };
        operationState?: { finishedAt?: string; phase?: string };
        resources?: {
          group?: string;
          version?: string;
          kind: string;
          namespace?: string;
          name: string;
          status?: string;
        }[];
      };
      return {
        namespace: app.metadata.namespace ?? "",
        name: app.metadata.name,
        sync: status.sync?.status ?? "Unknown",
        health: status.health?.status ?? "Unknown",
        lastSyncedAt:
          status.operationState?.phase === "Succeeded" ? status.operationState.finishedAt : undefined,
        resources: (status.resources ?? []).map((r) => ({
          apiVersion: r.group ? `${r.group}/${r.version ?? ""}` : (r.version ?? "v1"),
          kind: r.kind,
          namespace: r.namespace ?? "",
          name: r.name,
          status: r.status ?? "Unknown",
        })),
      };
    });
}

/** The Application that tracks a live object (annotation tracking; `ns_app` names keep their namespace). */
function trackedBy(meta: Meta | undefined): string | undefined {
  const id = meta?.annotations?.[ARGO_TRACKING_ANNOTATION];
  return id === undefined ? undefined : id.slice(0, id.indexOf(":"));
}

export async function readObjects(
  client: KubeClient,
  refs: readonly ObjectRef[],
  discovery: Discovery,
): Promise<LiveObject[]> {
  const live: LiveObject[] = [];
  for (const ref of refs) {
    const path = await discovery.path(ref);
    const res = path === undefined ? undefined : await client.get(path, READ);
    if (res === undefined || res.status === 404) {
      live.push({ ref, exists: false, trackedBy: undefined });
      continue;
    }
    const o = parse<Item>(res, `${ref.kind} ${ref.name}`);
    live.push({
      ref,
      exists: true,
      trackedBy: trackedBy(o.metadata),
      managers: otherFieldManagers(o.metadata.managedFields),
    });
  }
  return live;
}

/** Reads the cluster's facts about the recorded release. */
export async function observe(client: KubeClient, record: HandoffRecord): Promise<Observation> {
  const discovery = new Discovery(client);
  const [release, flux, argo] = await Promise.all([
    readStorage(client, record, discovery),
    readFlux(client, record),
    readArgo(client, record),
  ]);
  const refs = release?.objects ?? argo[0]?.resources ?? [];
  const objects = argo.length > 0 ? await readObjects(client, refs, discovery) : [];
  return { release, flux, argo, objects };
}
