/**
 * The UID of a cluster's `kube-system` namespace: what tells two kubeconfigs apart that name the
 * same cluster differently (the API server moved from an IP to a DNS name, the CA was rotated).
 * The namespace exists from the cluster's first start and is never deleted, so its UID lives as
 * long as the cluster; a new cluster at the same address has another. Read with the kubeconfig's
 * credentials through `kube-client.ts`; a read that fails (no answer, no permission to get
 * namespaces) gives `undefined`, which callers treat as "unknown", never as "same cluster".
 *
 * @module
 */
import { Duration } from "./duration.js";
import { kubeClient } from "./kube-client.js";

/** Options of {@link kubeSystemUid}. */
export interface KubeSystemUidOptions {
  /** Kubeconfig context. @default - the current-context */
  readonly context?: string;
  /** Timeout of the request. @default - 10 seconds */
  readonly timeout?: Duration;
}

/**
 * Reads `metadata.uid` of the `kube-system` namespace of the cluster `kubeconfig` points at.
 * @returns the UID, or `undefined` when it cannot be read
 * @throws SpecError (field `kubeconfig`) when the kubeconfig is not usable
 */
export async function kubeSystemUid(
  kubeconfig: string,
  options: KubeSystemUidOptions = {},
): Promise<string | undefined> {
  const client = await kubeClient(
    kubeconfig,
    options.context !== undefined ? { context: options.context } : {},
  );
  try {
    const res = await client.get("/api/v1/namespaces/kube-system", {
      timeout: options.timeout ?? Duration.seconds(10),
    });
    if (res.status !== 200) return undefined;
    const uid = (JSON.parse(res.body) as { metadata?: { uid?: unknown } }).metadata?.uid;
    return typeof uid === "string" && uid !== "" ? uid : undefined;
  } catch {
    return undefined;
  } finally {
    client.close();
  }
}
