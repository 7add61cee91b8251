/**
 * `verifyHandoff`: did GitOps really take the release over? Reads the cluster (`observe`)
 * and decides (`judgeHandoff`), on the cluster the record names (`withClient`, shared with
 * `retireHelmStorage`).
 *
 * @module
 */

import { type KubeClient, kubeClient } from "../cluster/client.js";
import { clusterIdentityFromKubeconfig } from "../cluster/identity.js";
import { HelmHandoffError } from "../errors.js";
import { type HandoffStatus, judgeHandoff } from "./judge.js";
import { observe } from "./observe.js";
import type { HandoffRecord } from "./record.js";

/** Options of {@link verifyHandoff} and `retireHelmStorage`. */
export interface VerifyHandoffOptions {
  /** kubeconfig content of the cluster the record names. */
  readonly kubeconfig: string;
  /** The kubeconfig context. @default its current-context */
  readonly context?: string;
}

/** The kubeconfig points at another cluster than the handoff record names. */
export class WrongClusterError extends HelmHandoffError {
  constructor(record: HandoffRecord, server: string, clusterId: string) {
    super(
      "WRONG_CLUSTER",
      `the handoff record of ${record.release.namespace}/${record.release.name} is for cluster ${record.cluster.server} (${record.cluster.id}), but the kubeconfig points at ${server} (${clusterId}): pass the kubeconfig (or --context) of the record's cluster`,
    );
  }
}

/**
 * Runs `use` with a client of the record's cluster. A record with a CA-based identity (`sha256:…`)
 * names its cluster by server URL and CA: a read (`status`) accepts the same server URL with
 * another CA (a rotated CA), a write (`strict`) only the same identity, since a URL such as
 * `https://127.0.0.1:6443` names many clusters.
 * @throws WrongClusterError when the kubeconfig points at another cluster
 */
export async function withClient<T>(
  record: HandoffRecord,
  options: VerifyHandoffOptions,
  use: (c: KubeClient) => Promise<T>,
  strict = false,
): Promise<T> {
  const context = options.context !== undefined ? { context: options.context } : {};
  const identity = clusterIdentityFromKubeconfig(options.kubeconfig, context);
  const sameCluster = record.cluster.id.startsWith("sha256:")
    ? record.cluster.id === identity.clusterId || (!strict && record.cluster.server === identity.server)
    : record.cluster.server === identity.server;
  if (!sameCluster) throw new WrongClusterError(record, identity.server, identity.clusterId);
  const client = await kubeClient(options.kubeconfig, context);
  try {
    return await use(client);
  } finally {
    client.close();
  }
}

/**
 * Reports who owns the recorded release now: still helm-handoff, a Flux HelmRelease (at which
 * revision), an Argo CD Application (sync, health, how many of the release's objects it tracks),
 * or a problem, with since when and what to do.
 * @throws WrongClusterError when the kubeconfig points at another cluster; Error when the cluster cannot be read
 */
export function verifyHandoff(record: HandoffRecord, options: VerifyHandoffOptions): Promise<HandoffStatus> {
  return withClient(record, options, async (client) => judgeHandoff(record, await observe(client, record)));
}

/** Every handoff record anywhere inside a JSON-like value. */
export function findRecords(value: unknown, found: HandoffRecord[] = []): HandoffRecord[] {
  if (Array.isArray(value)) {
    for (const v of value) findRecords(v, found);
  } else if (value !== null && typeof value === "object") {
    const o = value as Record<string, unknown>;
    if (o.kind === "helm-handoff.dev/HandoffRecord" && o.apiVersion === "v1")
      found.push(value as HandoffRecord);
    else for (const v of Object.values(o)) findRecords(v, found);
  }
  return found;
}
