/**
 * `retireHelmStorage`: after an Argo CD takeover, deletes Helm's stale release Secrets (Argo CD
 * renders with `helm template` and never updates them, so `helm ls` keeps showing helm-handoff's
 * revision and a stray `helm uninstall` would delete what Argo CD manages). It is never automatic
 * and deletes only what it must: the record is validated first (DNS-safe names; Helm's storage in
 * the release's namespace unless the stored release itself says it lives elsewhere), the
 * kubeconfig must point at the record's cluster by its CA-based identity when the record has one,
 * the verdict read right before must be "handed off to Argo CD with every object tracked", the
 * current revision must still be the one helm-handoff wrote, and only Secrets of type
 * `helm.sh/release.v1` named `sh.helm.release.v1.NAME.vN` with Helm's labels are deleted, each with
 * its uid and resourceVersion as preconditions, so a revision written since the read is never deleted.
 *
 * @module
 */
import { HelmHandoffError, SpecError } from "../errors.js";
import { markedByHelmHandoff } from "../lifecycle/ownership.js";
import { Duration } from "../spec/duration.js";
import { type HandoffStatus, judgeHandoff } from "./judge.js";
import { observe } from "./observe.js";
import type { HandoffRecord } from "./record.js";
import { type VerifyHandoffOptions, withClient } from "./verify.js";

/** Retiring Helm's storage was refused: the verdict or the release's revision do not allow it. */
export class RetireRefusedError extends HelmHandoffError {
  /** The verdict read right before. */
  readonly status: HandoffStatus;
  constructor(status: HandoffStatus, why: string) {
    super("RETIRE_REFUSED", `helm-handoff retire-helm-storage: ${status.release}: refused: ${why}`);
    this.status = status;
  }
}

/** What {@link retireHelmStorage} deleted. */
export interface RetiredStorage {
  /** `namespace/name` of the release. */
  readonly release: string;
  /** The Secrets deleted, oldest revision first. */
  readonly deleted: readonly string[];
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Refuses a record whose release names could not be Helm's (they become paths and selectors of
 * the deletes), naming the field and the fix.
 * @throws SpecError on `release.name`, `release.namespace` or `release.storageNamespace`
 */
export function validateRetireRecord(record: HandoffRecord): void {
  const fix = "use the handoff record helm-handoff exported, unedited";
  const { name, namespace, storageNamespace } = record.release ?? {};
  if (typeof name !== "string" || name.length > 53 || !DNS1123_SUBDOMAIN.test(name)) {
    throw new SpecError(
      "release.name",
      `the handoff record's release.name ${JSON.stringify(name)} is not a Helm release name (a lowercase DNS-1123 name of at most 53 characters): ${fix}`,
    );
  }
  for (const [field, value] of [
    ["release.namespace", namespace],
    ["release.storageNamespace", storageNamespace],
  ] as const) {
    if (typeof value !== "string" || value.length > 63 || !DNS1123_LABEL.test(value)) {
      throw new SpecError(
        field,
        `the handoff record's ${field} ${JSON.stringify(value)} is not a namespace (a lowercase DNS-1123 label of at most 63 characters): ${fix}`,
      );
    }
  }
}

/**
 * Deletes Helm's release Secrets of a release Argo CD has taken over (every object tracked by
 * the Application, Synced and Healthy), once the current revision is checked to be the one
 * helm-handoff wrote at handoff.
 * @throws SpecError for a record that names no Helm release; WrongClusterError; RetireRefusedError
 * when the takeover is not complete, the release changed, or the storage is not the release's
 */
export async function retireHelmStorage(
  record: HandoffRecord,
  options: VerifyHandoffOptions,
): Promise<RetiredStorage> {
  validateRetireRecord(record);
  const strict = true;
  return withClient(
    record,
    options,
    async (client) => {
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
      const { name, namespace, storageNamespace } = record.release;
      if (stored.recorded.name !== name || stored.recorded.namespace !== namespace) {
        throw new RetireRefusedError(
          verdict,
          `Helm's storage in namespace ${storageNamespace} holds release ${stored.recorded.namespace}/${stored.recorded.name}, not ${namespace}/${name}: the record's release.storageNamespace must be where Helm keeps this release (helm-handoff records release.namespace)`,
        );
      }
      const latest = stored.latest;
      if (!markedByHelmHandoff(latest) || latest.revision !== record.revision) {
        throw new RetireRefusedError(
          verdict,
          `the current revision ${latest.revision} is not the revision ${record.revision} helm-handoff wrote at handoff; someone used helm since, so Helm's storage is not stale`,
        );
      }
      const deleted: string[] = [];
      for (const rev of stored.revisions) {
        const path = `/api/v1/namespaces/${encodeURIComponent(storageNamespace)}/secrets/${encodeURIComponent(rev.secret.name)}`;
        const preconditions = { uid: rev.secret.uid, resourceVersion: rev.secret.resourceVersion };
        const res = await client.delete(
          path,
          { timeout: Duration.seconds(30) },
          { apiVersion: "v1", kind: "DeleteOptions", preconditions },
        );
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
    },
    strict,
  );
}
