/**
 * `verifyHandoff`: did GitOps really take the release over? Reads the cluster (`observeHandoff`)
 * and decides (`judgeHandoff`). `retireHelmStorage`: after an Argo CD takeover, deletes Helm's stale
 * release Secrets (Argo CD renders with `helm template` and never updates them, so `helm ls`
 * keeps showing helm-handoff's revision and a stray `helm uninstall` would delete what Argo CD
 * manages). It is never automatic and refuses unless the verdict, read right before, is "handed
 * off to Argo CD with every object tracked" and the current revision is still the one
 * helm-handoff wrote; each Secret is deleted with its uid and resourceVersion as preconditions,
 * so a revision written since the read is never deleted.
 *
 * @module
 */

import { type KubeClient, kubeClient } from "../cluster/client.js";
import { clusterIdentityFromKubeconfig } from "../cluster/identity.js";
import { HelmHandoffError } from "../errors.js";
import { markedByHelmHandoff } from "../lifecycle/ownership.js";
import { Duration } from "../spec/duration.js";
import { type HandoffStatus, judgeHandoff } from "./judge.js";
import { observe } from "./observe.js";
import type { HandoffRecord } from "./record.js";

/** Options of {@link verifyHandoff} and {@link retireHelmStorage}. */
export interface VerifyHandoffOptions {
  /** kubeconfig content of the cluster the record names. */
  readonly kubeconfig: string;
  /** The kubeconfig context. @default - its current-context */
  readonly context?: string;
}

/** The kubeconfig points at another cluster than the handoff record names. */
export class WrongClusterError extends HelmHandoffError {
  constructor(record: HandoffRecord, server: string) {
    super(
      "WRONG_CLUSTER",
      `the handoff record of ${record.release.namespace}/${record.release.name} is for cluster ${record.cluster.server} (${record.cluster.id}), but the kubeconfig points at ${server}: pass the kubeconfig (or --context) of the record's cluster`,
    );
  }
}

/** Retiring Helm's storage was refused: the verdict or the release's revision do not allow it. */
export class RetireRefusedError extends HelmHandoffError {
  /** The verdict read right before. */
  readonly status: HandoffStatus;
  constructor(status: HandoffStatus, why: string) {
    super("RETIRE_REFUSED", `helm-handoff retire-helm-storage: ${status.release}: refused: ${why}`);
    this.status = status;
  }
}

async function withClient<T>(
  record: HandoffRecord,
  options: VerifyHandoffOptions,
  use: (c: KubeClient) => Promise<T>,
): Promise<T> {
  const context = options.context !== undefined ? { context: options.context } : {};
  const identity = clusterIdentityFromKubeconfig(options.kubeconfig, context);
  const sameCluster = record.cluster.id.startsWith("sha256:")
    ? record.cluster.id === identity.clusterId || record.cluster.server === identity.server
    : record.cluster.server === identity.server;
  if (!sameCluster) throw new WrongClusterError(record, identity.server);
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

/** What {@link retireHelmStorage} deleted. */
export interface RetiredStorage {
  /** `namespace/name` of the release. */
  readonly release: string;
  /** The Secrets deleted, oldest revision first. */
  readonly deleted: readonly string[];
}

/**
 * Deletes Helm's release Secrets of a release Argo CD has taken over (every object tracked by
 * the Application, Synced and Healthy), once the current revision is checked to be the one
 * helm-handoff wrote at handoff.
 * @throws RetireRefusedError when the takeover is not complete or the release changed; WrongClusterError
 */
export function retireHelmStorage(
  record: HandoffRecord,
  options: VerifyHandoffOptions,
): Promise<RetiredStorage> {
  return withClient(record, options, async (client) => {
    const obs = await observe(client, record);
    const verdict = judgeHandoff(record, obs);
    if (verdict.state !== "handed-off" || verdict.owner.kind !== "argocd") {
      throw new RetireRefusedError(
        verdict,
        `only a release handed off to Argo CD with every object tracked may lose Helm's storage; now: ${verdict.message}`,
      );
    }
    const stored = obs.release;
    if (stored === undefined)
      throw new RetireRefusedError(verdict, "Helm's storage of the release is already gone");
    const latest = stored.latest;
    if (!markedByHelmHandoff(latest) || latest.revision !== record.revision) {
      throw new RetireRefusedError(
        verdict,
        `the current revision ${latest.revision} is not the revision ${record.revision} helm-handoff wrote at handoff; someone used helm since, so Helm's storage is not stale`,
      );
    }
    const deleted: string[] = [];
    for (const rev of stored.revisions) {
      const path = `/api/v1/namespaces/${record.release.storageNamespace}/secrets/${rev.secret.name}`;
      const preconditions = { uid: rev.secret.uid, resourceVersion: rev.secret.resourceVersion };
      const options = { timeout: Duration.seconds(30) };
      const res = await client.delete(path, options, {
        apiVersion: "v1",
        kind: "DeleteOptions",
        preconditions,
      });
      if (res.status === 409) {
        throw new RetireRefusedError(
          verdict,
          `Secret ${rev.secret.name} changed since it was read (deleted so far: ${deleted.join(", ") || "none"}); run it again`,
        );
      }
      if (res.status !== 404 && (res.status < 200 || res.status >= 300)) {
        throw new Error(
          `deleting Secret ${rev.secret.name} failed: HTTP ${res.status} ${res.body.slice(0, 300)}`,
        );
      }
      deleted.push(rev.secret.name);
    }
    return { release: verdict.release, deleted };
  });
}
