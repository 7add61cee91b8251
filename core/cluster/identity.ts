/**
 * Cluster identity from a kubeconfig, decided without a cluster call.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { type KubeconfigTarget, readKubeconfig } from "./kubeconfig.js";

/** Which cluster a kubeconfig points at. Credentials (the user) never change it. */
export interface ClusterIdentity {
  /** API server URL of the context's cluster (normalized: no trailing slash). */
  readonly server: string;
  /** sha256 hex of the CA certificate's DER; `""` when the cluster names no CA. */
  readonly caFingerprint: string;
  /** `"sha256:"` + the first 16 hex digits of sha256(server + "\n" + caFingerprint). */
  readonly clusterId: string;
}

/** Options of {@link clusterIdentityFromKubeconfig}. */
export interface ClusterIdentityOptions {
  /** The context to use. @default the kubeconfig's current-context */
  readonly context?: string;
}

/**
 * Identities computed, by the target `readKubeconfig` gave: it gives the same object for the same
 * text, and a new one each time a kubeconfig naming a CA file is read (the file may have changed).
 */
const computed = new WeakMap<KubeconfigTarget, ClusterIdentity>();

/**
 * Computes the identity of the cluster a kubeconfig points at, from the server URL and the CA
 * certificate (`certificate-authority-data` or the `certificate-authority` file) alone.
 * Rotating the user's token or client certificate keeps the identity; a new CA or server changes it.
 * An explicit `clusterId` given by the user overrides this (handled by callers).
 *
 * @throws SpecError (field `kubeconfig`) when the kubeconfig is not YAML or lacks the context or cluster
 */
export function clusterIdentityFromKubeconfig(
  kubeconfig: string,
  options: ClusterIdentityOptions = {},
): ClusterIdentity {
  const target = readKubeconfig(kubeconfig, options);
  const known = computed.get(target) ?? identityOfTarget(target);
  computed.set(target, known);
  return { ...known };
}

function identityOfTarget(target: KubeconfigTarget): ClusterIdentity {
  const caFingerprint =
    target.caDer === undefined ? "" : createHash("sha256").update(target.caDer).digest("hex");
  const id = createHash("sha256").update(`${target.server}\n${caFingerprint}`).digest("hex").slice(0, 16);
  return { server: target.server, caFingerprint, clusterId: `sha256:${id}` };
}
