/**
 * Secrets for a fleet: what a chart installed by a HelmChartProxy needs in every workload cluster
 * (a Git deploy key, a repository token) and a HelmChartProxy cannot carry (its `valuesTemplate`
 * is plain text in the management cluster, copied into every HelmReleaseProxy). They travel the
 * way Cluster API carries secrets as it is: Secret objects inside resource-set Secret carriers
 * (type `addons.cluster.x-k8s.io/resource-set`) of a ClusterResourceSet `RELEASE-secrets` with the
 * HelmChartProxy's selector, which the ClusterResourceSet controller applies into each selected
 * workload cluster; the chart's values name them (`existingSecret`-style). With
 * `createNamespace`, the release namespace is carried first, so the Secrets can be created before
 * CAAPH's install makes it. The Secrets get no Helm ownership metadata: they are not the release's,
 * and an uninstall leaves them.
 *
 * @module
 */
import { SpecError } from "../core/errors.js";
import type { Strategy } from "../core/spec/index.js";
import type { KubeObject } from "../core/util/kube-object.js";
import {
  type ClusterApiVersion,
  clusterResourceSetObjects,
  type LabelSelector,
} from "./cluster-resource-set.js";
import { KEEP_ANNOTATIONS } from "./manifest.js";

/** One Secret to create in every selected workload cluster. */
export interface WorkloadSecret {
  /** The Secret's name in the workload cluster. */
  readonly name: string;
  /** Its namespace there. @default the release namespace */
  readonly namespace?: string;
  /** Its type. @default "Opaque" */
  readonly type?: string;
  /** Its data, as text (never shown in a message). */
  readonly stringData: Readonly<Record<string, string>>;
}

/** Options of {@link workloadSecretObjects}. */
export interface WorkloadSecretOptions {
  /** The release: the ClusterResourceSet is `RELEASE-secrets`. */
  readonly releaseName: string;
  /** The release namespace, the Secrets' default namespace. */
  readonly releaseNamespace: string;
  /** Carry the release namespace first. */
  readonly createNamespace: boolean;
  /** Namespace of the ClusterResourceSet and its carriers. @default unset */
  readonly namespace?: string | undefined;
  /** The HelmChartProxy's selector. */
  readonly clusterSelector: LabelSelector;
  /** ApplyOnce: the Secrets are created once; Reconcile: the controller re-applies changes. */
  readonly strategy: Strategy;
  /** The ClusterResourceSet's API version. @default "v1beta2" */
  readonly apiVersion?: ClusterApiVersion;
}

const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const KEY = /^[-._a-zA-Z0-9]+$/;

/**
 * The carriers and the ClusterResourceSet for `secrets` (none for an empty list).
 * @throws SpecError naming `workloadSecrets[i]…` for a bad name, namespace, type or key, an empty
 * or non-text value (by type only), or the same Secret twice
 */
export function workloadSecretObjects(
  secrets: readonly WorkloadSecret[],
  options: WorkloadSecretOptions,
): KubeObject[] {
  if (secrets.length === 0) return [];
  const seen = new Set<string>();
  const objects: KubeObject[] = secrets.map((s, i) => {
    const at = `workloadSecrets[${i}]`;
    if (typeof s?.name !== "string" || s.name.length > 253 || !NAME.test(s.name)) {
      throw new SpecError(
        `${at}.name`,
        `${at}.name ${JSON.stringify(s?.name)} is invalid: must be a lowercase DNS-1123 name`,
      );
    }
    const namespace = s.namespace ?? options.releaseNamespace;
    if (typeof namespace !== "string" || namespace.length > 63 || !LABEL.test(namespace)) {
      throw new SpecError(
        `${at}.namespace`,
        `${at}.namespace ${JSON.stringify(namespace)} is invalid: must be a namespace name`,
      );
    }
    if (s.type !== undefined && (typeof s.type !== "string" || s.type === "")) {
      throw new SpecError(`${at}.type`, `${at}.type is invalid: must be a Secret type, e.g. "Opaque"`);
    }
    const id = `${namespace}/${s.name}`;
    if (seen.has(id)) throw new SpecError(`${at}.name`, `${at} is Secret ${id} again: give each Secret once`);
    seen.add(id);
    const entries = Object.entries(s.stringData ?? {});
    if (entries.length === 0) {
      throw new SpecError(`${at}.stringData`, `${at}.stringData is empty: give the Secret's keys and values`);
    }
    const data: Record<string, string> = {};
    for (const [k, v] of entries) {
      if (!KEY.test(k)) {
        throw new SpecError(
          `${at}.stringData`,
          `${at}.stringData key ${JSON.stringify(k)} is invalid: letters, digits, "-", "_" and "." only`,
        );
      }
      if (typeof v !== "string") {
        throw new SpecError(
          `${at}.stringData`,
          `${at}.stringData[${JSON.stringify(k)}] is invalid: must be a string, got a ${typeof v} (a secret field: its content is never shown)`,
        );
      }
      data[k] = Buffer.from(v, "utf8").toString("base64");
    }
    return {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: s.name, namespace },
      type: s.type ?? "Opaque",
      data,
    };
  });
  const namespaces =
    options.createNamespace && objects.some((o) => o.metadata.namespace === options.releaseNamespace)
      ? [
          {
            apiVersion: "v1",
            kind: "Namespace",
            metadata: { name: options.releaseNamespace, annotations: { ...KEEP_ANNOTATIONS } },
          },
        ]
      : [];
  return clusterResourceSetObjects([...namespaces, ...objects], {
    name: `${options.releaseName}-secrets`,
    ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
    clusterSelector: options.clusterSelector,
    strategy: options.strategy,
    apiVersion: options.apiVersion ?? "v1beta2",
    sensitive: true,
  });
}
