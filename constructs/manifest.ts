/**
 * From helm's rendered YAML to the objects a later Helm, Flux or Argo CD install adopts:
 * hooks handled by policy, Helm's ownership metadata added, namespaces made explicit, and a
 * stable apply order.
 *
 * @module
 */
import { parseAllDocuments } from "yaml";
import { SpecError } from "../core/errors.js";
import { isPlainObject } from "../core/spec/index.js";
import { describeObject, type KubeObject } from "../core/util/kube-object.js";
import { yamlErrorSummary } from "../core/util/yaml-error.js";

/**
 * What to do with objects annotated `helm.sh/hook` (chart hooks such as a pre-install Job).
 * Test hooks are never rendered.
 * - `"drop"`: leave them out. Helm runs them itself when it takes the release over (hooks are not
 *   part of a release's manifest and are never adopted), so applying them beforehand would run
 *   them twice or clash with helm's own copy.
 * - `"include"`: keep them as ordinary objects (for charts whose hooks create something the
 *   release needs, e.g. generated certificates). `pre-*` hooks are placed before the regular
 *   objects and the others after, each group by `helm.sh/hook-weight`. They get no Helm ownership
 *   metadata (helm never adopts hooks); their `helm.sh/hook*` annotations are kept, so helm's
 *   `before-hook-creation` delete policy replaces them on takeover.
 */
export type HooksPolicy = "drop" | "include";

/** The hook policies, see {@link HooksPolicy}. */
export const HOOKS_POLICIES: readonly HooksPolicy[] = ["drop", "include"];

/** Label and annotations that make helm adopt an object into a release. */
export const HELM_MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
/** Annotation naming the owning release. */
export const HELM_RELEASE_NAME_ANNOTATION = "meta.helm.sh/release-name";
/** Annotation naming the owning release's namespace. */
export const HELM_RELEASE_NAMESPACE_ANNOTATION = "meta.helm.sh/release-namespace";

/**
 * Annotations that keep CRDs and Namespaces alive through a takeover: helm's uninstall, Argo CD's
 * prune/delete and Flux's kustomize prune all leave them in place.
 */
export const KEEP_ANNOTATIONS: Readonly<Record<string, string>> = {
  "helm.sh/resource-policy": "keep",
  "argocd.argoproj.io/sync-options": "Delete=false",
  "kustomize.toolkit.fluxcd.io/prune": "disabled",
};

/**
 * Apply order by kind: Namespaces and CRDs first, then helm's own install order
 * (helm `releaseutil.InstallOrder`), then every other kind.
 */
export const KIND_ORDER: readonly string[] = [
  "Namespace",
  "CustomResourceDefinition",
  "PriorityClass",
  "NetworkPolicy",
  "ResourceQuota",
  "LimitRange",
  "PodSecurityPolicy",
  "PodDisruptionBudget",
  "ServiceAccount",
  "Secret",
  "SecretList",
  "ConfigMap",
  "StorageClass",
  "PersistentVolume",
  "PersistentVolumeClaim",
  "ClusterRole",
  "ClusterRoleList",
  "ClusterRoleBinding",
  "ClusterRoleBindingList",
  "Role",
  "RoleList",
  "RoleBinding",
  "RoleBindingList",
  "Service",
  "DaemonSet",
  "Pod",
  "ReplicationController",
  "ReplicaSet",
  "Deployment",
  "HorizontalPodAutoscaler",
  "StatefulSet",
  "Job",
  "CronJob",
  "IngressClass",
  "Ingress",
  "APIService",
  "MutatingWebhookConfiguration",
  "ValidatingWebhookConfiguration",
];

/** Built-in cluster-scoped kinds (objects of other kinds get the release namespace when they have none). */
export const CLUSTER_SCOPED_KINDS: readonly string[] = [
  "APIService",
  "CertificateSigningRequest",
  "ClusterRole",
  "ClusterRoleBinding",
  "ComponentStatus",
  "CSIDriver",
  "CSINode",
  "CustomResourceDefinition",
  "FlowSchema",
  "IngressClass",
  "MutatingAdmissionPolicy",
  "MutatingAdmissionPolicyBinding",
  "MutatingWebhookConfiguration",
  "Namespace",
  "Node",
  "PersistentVolume",
  "PodSecurityPolicy",
  "PriorityClass",
  "PriorityLevelConfiguration",
  "RuntimeClass",
  "StorageClass",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
  "ValidatingWebhookConfiguration",
  "VolumeAttachment",
];

/** Options of {@link prepareObjects}. */
export interface PrepareOptions {
  /** Release name for the ownership annotations. */
  readonly releaseName: string;
  /** Release namespace: ownership annotation and namespace of namespaced objects without one. */
  readonly namespace: string;
  /** Hook policy. @default "drop" */
  readonly hooks?: HooksPolicy;
  /** Add a Namespace object for the release namespace (like `helm install --create-namespace`). @default false */
  readonly createNamespace?: boolean;
  /** Extra cluster-scoped kinds (custom resources whose CRD is not part of the chart). @default none */
  readonly clusterScopedKinds?: readonly string[];
}

/** The result of {@link prepareObjects}. */
export interface PreparedObjects {
  /** The objects in apply order. */
  readonly objects: readonly KubeObject[];
  /** Hooks left out by the `"drop"` policy (`Kind namespace/name`). */
  readonly droppedHooks: readonly string[];
}

/**
 * Parses helm's output and prepares the objects for handoff. Pure and deterministic.
 * @throws SpecError (field `chart`) when a document is not a Kubernetes object
 */
export function prepareObjects(manifest: string, options: PrepareOptions): PreparedObjects {
  const hooksPolicy = options.hooks ?? "drop";
  const parsed = parseManifest(manifest);
  const clusterScoped = new Set([...CLUSTER_SCOPED_KINDS, ...(options.clusterScopedKinds ?? [])]);
  for (const o of parsed) {
    if (o.kind === "CustomResourceDefinition") {
      const spec = o.spec as { scope?: unknown; names?: { kind?: unknown } } | undefined;
      if (spec?.scope === "Cluster" && typeof spec.names?.kind === "string")
        clusterScoped.add(spec.names.kind);
    }
  }
  const pre: KubeObject[] = [];
  const post: KubeObject[] = [];
  const regular: KubeObject[] = [];
  const droppedHooks: string[] = [];
  for (const raw of parsed) {
    const o = withNamespace(raw, clusterScoped, options.namespace);
    const hook = o.metadata.annotations?.["helm.sh/hook"];
    if (hook === undefined) {
      regular.push(withOwnership(o, options));
    } else if (hooksPolicy === "drop") {
      droppedHooks.push(describeObject(o));
    } else if (hook.split(",").every((h) => h.trim().startsWith("pre-"))) {
      pre.push(o);
    } else {
      post.push(o);
    }
  }
  if (options.createNamespace && !regular.some((o) => isNamespace(o, options.namespace))) {
    regular.push({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: options.namespace, annotations: { ...KEEP_ANNOTATIONS } },
    });
  }
  return {
    objects: [...sortHooks(pre), ...sortObjects(regular), ...sortHooks(post)],
    droppedHooks: droppedHooks.sort(),
  };
}

function isNamespace(o: KubeObject, name: string): boolean {
  return o.kind === "Namespace" && o.metadata.name === name;
}

/**
 * Parses multi-document YAML into objects, skipping empty documents and `List` wrappers' shells.
 * @throws SpecError (field `chart`) naming the kind of YAML error, its position and the template it
 * came from, never the rendered text (a render may hold a Secret)
 */
export function parseManifest(manifest: string): KubeObject[] {
  const out: KubeObject[] = [];
  for (const doc of parseAllDocuments(manifest)) {
    const error = doc.errors[0];
    if (error !== undefined) {
      const source = sourceTemplate(manifest, error.linePos?.[0].line);
      throw new SpecError(
        "chart",
        `chart rendered invalid YAML: ${yamlErrorSummary(error)}${source === undefined ? "" : ` (in ${source})`}; the rendered text is not shown, it may hold secrets: run helm template to see it`,
      );
    }
    const js = doc.toJS() as unknown;
    if (js === null || js === undefined) continue;
    const items =
      isPlainObject(js) && typeof js.kind === "string" && js.kind.endsWith("List") ? js.items : [js];
    for (const item of Array.isArray(items) ? items : []) out.push(asObject(item));
  }
  return out;
}

/** The template helm rendered line `line` (1-based) of `manifest` from: its last `# Source:` comment above the line. */
function sourceTemplate(manifest: string, line: number | undefined): string | undefined {
  if (line === undefined) return undefined;
  const lines = manifest.split("\n");
  for (let i = Math.min(line, lines.length) - 1; i >= 0; i--) {
    const m = /^# Source: (\S+)\s*$/.exec(lines[i] ?? "");
    if (m !== null) return m[1];
  }
  return undefined;
}

function asObject(js: unknown): KubeObject {
  if (
    !isPlainObject(js) ||
    typeof js.apiVersion !== "string" ||
    typeof js.kind !== "string" ||
    !isPlainObject(js.metadata) ||
    typeof js.metadata.name !== "string"
  ) {
    throw new SpecError(
      "chart",
      `chart rendered a document that is not a Kubernetes object with apiVersion, kind and metadata.name: ${JSON.stringify(js).slice(0, 200)}`,
    );
  }
  return js as unknown as KubeObject;
}

function withNamespace(o: KubeObject, clusterScoped: ReadonlySet<string>, namespace: string): KubeObject {
  if (clusterScoped.has(o.kind)) {
    if (o.metadata.namespace === undefined) return o;
    const { namespace: _dropped, ...metadata } = o.metadata;
    return { ...o, metadata };
  }
  if (o.metadata.namespace !== undefined) return o;
  return { ...o, metadata: { ...o.metadata, namespace } };
}

function withOwnership(o: KubeObject, options: PrepareOptions): KubeObject {
  const keep = o.kind === "CustomResourceDefinition" || o.kind === "Namespace";
  return {
    ...o,
    metadata: {
      ...o.metadata,
      labels: { ...o.metadata.labels, [HELM_MANAGED_BY_LABEL]: "Helm" },
      annotations: {
        ...o.metadata.annotations,
        [HELM_RELEASE_NAME_ANNOTATION]: options.releaseName,
        [HELM_RELEASE_NAMESPACE_ANNOTATION]: options.namespace,
        ...(keep ? KEEP_ANNOTATIONS : {}),
      },
    },
  };
}

function kindRank(kind: string): number {
  const i = KIND_ORDER.indexOf(kind);
  return i < 0 ? KIND_ORDER.length : i;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Sorts objects into apply order: by kind (see {@link KIND_ORDER}; unknown kinds by name), then namespace, then name. */
export function sortObjects(objects: readonly KubeObject[]): KubeObject[] {
  return [...objects].sort(
    (a, b) =>
      kindRank(a.kind) - kindRank(b.kind) ||
      compareText(a.kind, b.kind) ||
      compareText(a.apiVersion, b.apiVersion) ||
      compareText(a.metadata.namespace ?? "", b.metadata.namespace ?? "") ||
      compareText(a.metadata.name ?? "", b.metadata.name ?? ""),
  );
}

function hookWeight(o: KubeObject): number {
  const w = Number(o.metadata.annotations?.["helm.sh/hook-weight"] ?? "0");
  return Number.isFinite(w) ? w : 0;
}

function sortHooks(objects: readonly KubeObject[]): KubeObject[] {
  const sorted = sortObjects(objects);
  return sorted.sort((a, b) => hookWeight(a) - hookWeight(b));
}
