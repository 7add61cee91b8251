/**
 * Setting labels on one revision of a Helm release. helm keeps a release's labels on the
 * revision's storage Secret (`sh.helm.release.v1.NAME.vREVISION`) and has no command to change
 * them, so this is a JSON patch through the API server, refused when the revision's status is no
 * longer the one expected (another operation got there first). Nothing of the Secret's content is
 * read or reported. The helm runner calls it, under the strategy table, for every mark it writes.
 *
 * @module
 */

import { HelmHandoffError, ReleaseBusyError } from "../errors.js";
import type { Duration } from "../spec/duration.js";
import { type JsonPatchOperation, kubeClient } from "./client.js";

/** What {@link patchReleaseLabels} changes, and how it calls the API server. */
export interface ReleaseLabelsPatch {
  /** The release's name. */
  readonly releaseName: string;
  /** The release's namespace (its storage Secrets live there). */
  readonly namespace: string;
  /** The revision whose Secret is patched. */
  readonly revision: number;
  /** The labels to set. */
  readonly labels: Readonly<Record<string, string>>;
  /** The revision's status the patch requires (a `test` operation on the `status` label). */
  readonly expectStatus: string;
  /** The request's timeout. */
  readonly timeout: Duration;
  /** Cancels the request. @default not cancellable */
  readonly signal?: AbortSignal;
  /** Redacts a client error's message before it is reported. */
  readonly redact: (text: string) => string;
}

/**
 * Patches the labels of one revision's storage Secret.
 * @throws ReleaseBusyError when the revision changed or is gone (retried by the lifecycle)
 * @throws HelmHandoffError `CREDENTIALS_REJECTED` when the user may not patch Secrets there
 */
export async function patchReleaseLabels(kubeconfig: string, patch: ReleaseLabelsPatch): Promise<void> {
  const { releaseName, namespace, revision } = patch;
  const where = `${namespace}/${releaseName}`;
  const pointer = (key: string) => `/metadata/labels/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
  const operations: JsonPatchOperation[] = [
    { op: "test", path: pointer("status"), value: patch.expectStatus },
    ...Object.entries(patch.labels).map(([k, v]) => ({ op: "add" as const, path: pointer(k), value: v })),
  ];
  const secret = `sh.helm.release.v1.${releaseName}.v${revision}`;
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(secret)}`;
  const client = await kubeClient(kubeconfig);
  let status: number;
  try {
    status = (
      await client.jsonPatch(path, operations, {
        timeout: patch.timeout,
        ...(patch.signal !== undefined ? { signal: patch.signal } : {}),
      })
    ).status;
  } catch (e) {
    const why = patch.redact(e instanceof Error ? e.message : String(e));
    throw new ReleaseBusyError(where, `marking revision ${revision} failed (${why}); looking again`);
  } finally {
    client.close();
  }
  if (status >= 200 && status < 300) return;
  if (status === 401 || status === 403) {
    throw new HelmHandoffError(
      "CREDENTIALS_REJECTED",
      `the kubeconfig's user may not patch Secret ${secret} in namespace ${namespace} (HTTP ${status}): helm-handoff marks the release revisions it writes; grant it "patch" on secrets in that namespace, as helm itself needs to write releases there`,
    );
  }
  throw new ReleaseBusyError(
    where,
    `revision ${revision} changed before helm-handoff could mark it (HTTP ${status}); looking again`,
  );
}
