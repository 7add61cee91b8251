/**
 * Packing rendered objects into a Cluster API ClusterResourceSet (addons.cluster.x-k8s.io).
 *
 * CAPI reads only `.data` of each ConfigMap/Secret, applies the resources in the order of
 * `spec.resources` and the keys of each one in alphabetical order, and caps each ConfigMap/Secret
 * at 1 MiB. Objects are therefore written one per key, the keys numbered in apply order
 * (`0000-namespace-kube-system.yaml`, `0001-…`) across all carriers, and carriers are filled up to
 * a byte budget (900 KiB by default) so a large add-on (a 1.6 MB operator) fits.
 *
 * @module
 */
import { stringify } from "yaml";
import { SpecError } from "../core/errors.js";
import type { Strategy } from "../core/spec/index.js";
import { describeObject, type KubeObject } from "../core/util/kube-object.js";

/** A Kubernetes label selector. */
export interface LabelSelector {
  /** Labels that must all match. @default none */
  readonly matchLabels?: Readonly<Record<string, string>>;
  /** Set-based requirements, ANDed. @default none */
  readonly matchExpressions?: readonly {
    /** Label key. */
    readonly key: string;
    /** How the key's value is compared with `values`. */
    readonly operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
    /** Values for `In` and `NotIn`. */
    readonly values?: readonly string[];
  }[];
}

/** The ClusterResourceSet API versions supported. */
export type ClusterApiVersion = "v1beta2" | "v1beta1";

/** Secret type CAPI requires for Secrets referenced by a ClusterResourceSet. */
export const RESOURCE_SET_SECRET_TYPE = "addons.cluster.x-k8s.io/resource-set";

/** Default byte budget of one ConfigMap/Secret (CAPI's hard cap is 1 MiB = 1048576). */
export const DEFAULT_MAX_CARRIER_BYTES = 900 * 1024;

/** Options of {@link clusterResourceSetObjects}. */
export interface ClusterResourceSetOptions {
  /** Name of the ClusterResourceSet; the carriers are named `NAME-000`, `NAME-001`, … */
  readonly name: string;
  /** Namespace of the ClusterResourceSet and its carriers (where the Clusters are). @default unset (the namespace they are applied to) */
  readonly namespace?: string;
  /** Selects the Clusters (required and non-empty in v1beta2). */
  readonly clusterSelector: LabelSelector;
  /** `ApplyOnce` → CRS `strategy: ApplyOnce`; `Reconcile` → `strategy: Reconcile`. */
  readonly strategy: Strategy;
  /** API version. @default "v1beta2" */
  readonly apiVersion?: ClusterApiVersion;
  /** Use Secrets of type {@link RESOURCE_SET_SECRET_TYPE} instead of ConfigMaps. @default false */
  readonly sensitive?: boolean;
  /** Byte budget of one carrier's data (keys + values). @default {@link DEFAULT_MAX_CARRIER_BYTES} */
  readonly maxBytes?: number;
  /** Labels for the carriers and the ClusterResourceSet. @default none */
  readonly labels?: Readonly<Record<string, string>>;
}

/** A carrier key for the object at apply position `index`: `NNNN-kind-namespace-name.yaml`. */
export function carrierKey(index: number, o: KubeObject): string {
  const parts = [o.kind, o.metadata.namespace, o.metadata.name].filter((p) => p !== undefined && p !== "");
  const slug = parts
    .join("-")
    .toLowerCase()
    .replace(/[^-._a-z0-9]+/g, "-")
    .slice(0, 200);
  return `${String(index).padStart(4, "0")}-${slug}.yaml`;
}

/** The YAML text of one object, keys sorted. */
export function objectYaml(o: KubeObject): string {
  return stringify(o, { sortMapEntries: true, lineWidth: 0 });
}

/**
 * The carriers (ConfigMaps or Secrets, in apply order) followed by the ClusterResourceSet.
 * Objects must already be in apply order (see `prepareObjects`).
 *
 * @throws SpecError when one object alone exceeds the byte budget, the selector is empty (v1beta2)
 * or there are more than 100 carriers
 */
export function clusterResourceSetObjects(
  objects: readonly KubeObject[],
  options: ClusterResourceSetOptions,
): KubeObject[] {
  const apiVersion = options.apiVersion ?? "v1beta2";
  const max = options.maxBytes ?? DEFAULT_MAX_CARRIER_BYTES;
  if (apiVersion === "v1beta2" && isEmptySelector(options.clusterSelector)) {
    throw new SpecError(
      "clusterSelector",
      'clusterSelector is required for a ClusterResourceSet: give matchLabels or matchExpressions selecting the Clusters, e.g. { matchLabels: { cni: "bootstrap" } } (an empty selector is rejected by Cluster API v1beta2)',
    );
  }
  const chunks: Record<string, string>[] = [];
  let current: Record<string, string> = {};
  let size = 0;
  objects.forEach((o, i) => {
    const key = carrierKey(i, o);
    const text = objectYaml(o);
    const bytes = Buffer.byteLength(key) + Buffer.byteLength(text);
    if (bytes > max) {
      throw new SpecError(
        "output",
        `${describeObject(o)} is ${bytes} bytes as YAML, more than the ${max} bytes one ClusterResourceSet ConfigMap/Secret may carry: use output "Manifests" or "HelmChartProxy" for this chart`,
      );
    }
    if (size + bytes > max && size > 0) {
      chunks.push(current);
      current = {};
      size = 0;
    }
    current[key] = text;
    size += bytes;
  });
  if (size > 0 || chunks.length === 0) chunks.push(current);
  if (chunks.length > 100) {
    throw new SpecError(
      "output",
      `the add-on needs ${chunks.length} ConfigMaps/Secrets, more than the 100 resources one ClusterResourceSet may reference`,
    );
  }
  const kind = options.sensitive ? "Secret" : "ConfigMap";
  const meta = (name: string) => ({
    name,
    ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
    ...(options.labels !== undefined ? { labels: { ...options.labels } } : {}),
  });
  const carriers: KubeObject[] = chunks.map((data, i) => {
    const name = `${options.name}-${String(i).padStart(3, "0")}`;
    if (!options.sensitive) return { apiVersion: "v1", kind, metadata: meta(name), data };
    const encoded: Record<string, string> = {};
    for (const [k, v] of Object.entries(data)) encoded[k] = Buffer.from(v).toString("base64");
    return { apiVersion: "v1", kind, metadata: meta(name), type: RESOURCE_SET_SECRET_TYPE, data: encoded };
  });
  const crs: KubeObject = {
    apiVersion: `addons.cluster.x-k8s.io/${apiVersion}`,
    kind: "ClusterResourceSet",
    metadata: meta(options.name),
    spec: {
      clusterSelector: options.clusterSelector,
      strategy: options.strategy,
      resources: carriers.map((c) => ({ name: c.metadata.name, kind })),
    },
  };
  return [...carriers, crs];
}

/** Whether a selector selects nothing in particular (no labels, no expressions). */
export function isEmptySelector(s: LabelSelector | undefined): boolean {
  return (
    s === undefined ||
    (Object.keys(s.matchLabels ?? {}).length === 0 && (s.matchExpressions ?? []).length === 0)
  );
}
