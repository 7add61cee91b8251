/**
 * The plain Kubernetes object type of the cdk8s front end and of the GitOps handoff builders
 * (`helm-handoff/gitops`), and small helpers on it.
 *
 * @module
 */

/** Object metadata, as far as helm-handoff reads or writes it. */
export interface KubeMetadata {
  /** Object name. */
  readonly name?: string;
  /** Namespace (namespaced kinds only). */
  readonly namespace?: string;
  /** Labels. */
  readonly labels?: Readonly<Record<string, string>>;
  /** Annotations. */
  readonly annotations?: Readonly<Record<string, string>>;
  /** Any other metadata field, kept as rendered. */
  readonly [key: string]: unknown;
}

/** A Kubernetes object as plain JSON: `apiVersion`, `kind`, `metadata`, and the rest as rendered. */
export interface KubeObject {
  /** API version, e.g. `"apps/v1"`. */
  readonly apiVersion: string;
  /** Kind, e.g. `"Deployment"`. */
  readonly kind: string;
  /** Metadata. */
  readonly metadata: KubeMetadata;
  /** Every other top-level field (`spec`, `data`, …). */
  readonly [key: string]: unknown;
}

/** `Kind namespace/name` (or `Kind name` for cluster-scoped objects), for messages. */
export function describeObject(o: KubeObject): string {
  const ns = o.metadata.namespace;
  return `${o.kind} ${ns !== undefined ? `${ns}/` : ""}${o.metadata.name ?? "(unnamed)"}`;
}

/** Whether `o` is a core `v1` Secret (rendered Secrets are never cached and travel only in Secrets). */
export function isSecretObject(o: { readonly apiVersion?: unknown; readonly kind?: unknown }): boolean {
  return o.kind === "Secret" && o.apiVersion === "v1";
}
