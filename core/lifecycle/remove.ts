/**
 * Removal of a release (Reconcile delete): `helm uninstall` only of a release whose current
 * revision the owner and instance wrote (`ownershipOf`), re-read right before the
 * uninstall and retried on transient failures; a release someone else wrote since is left as it is.
 *
 * @module
 */

import { isRetryableFailure } from "../errors.js";
import type { HelmRunner } from "../helm/index.js";
import { Duration } from "../spec/duration.js";
import { retry } from "../util/retry.js";
import { claimOn } from "./claim.js";
import { describeOwnership, mayWrite, ownershipOf, type ReleaseOwner } from "./ownership.js";
import type { ProgressEvent } from "./progress.js";

/** Options of {@link removeRelease}. */
export interface RemoveReleaseOptions {
  /** Who removes: only a release whose current revision this owner and instance wrote is uninstalled. */
  readonly owner: ReleaseOwner;
  /** Receives progress. @default nothing is reported */
  readonly onProgress?: (event: ProgressEvent) => void;
  /** Wait until the resources are gone. @default true */
  readonly wait?: boolean;
  /** Timeout of one uninstall. @default 5 minutes */
  readonly timeout?: Duration;
  /** Overall deadline for transient failures. @default 5 minutes */
  readonly deadline?: Duration;
  /** Cancels waits between attempts. @default not cancellable */
  readonly signal?: AbortSignal;
}

/** What {@link removeRelease} did: uninstalled it, found none, or left a release that is not the owner's. */
export type RemoveOutcome = "uninstalled" | "absent" | "not-ours";

/**
 * Uninstalls a release (Reconcile delete) when its current revision is the owner's (re-read right
 * before the uninstall); a release that does not exist counts as done, one that someone else wrote
 * (GitOps took it over, another stack, this resource's replacement) is left as it is.
 * Transient failures are retried until the deadline.
 */
export async function removeRelease(
  runner: HelmRunner,
  releaseName: string,
  namespace: string,
  options: RemoveReleaseOptions,
): Promise<RemoveOutcome> {
  const where = `${namespace}/${releaseName}`;
  const timeout = options.timeout ?? Duration.minutes(5);
  let left = "";
  const outcome = await retry(
    async (n): Promise<RemoveOutcome> => {
      const current = await runner.status(releaseName, namespace);
      if (current === undefined || current.status === "uninstalled") return "absent";
      let owned = ownershipOf(current, options.owner);
      if (mayWrite(owned, "delete")) {
        owned = ownershipOf(current, options.owner, await claimOn(runner, releaseName, namespace));
      }
      if (!mayWrite(owned, "delete")) {
        left = describeOwnership(owned, current.revision);
        return "not-ours";
      }
      options.onProgress?.({ phase: "uninstalling", attempt: n, message: `uninstalling ${where}` });
      const existed = await runner.uninstall(releaseName, namespace, { wait: options.wait ?? true, timeout });
      return existed ? "uninstalled" : "absent";
    },
    {
      deadline: options.deadline ?? Duration.minutes(5),
      minBackoff: Duration.seconds(1),
      maxBackoff: Duration.seconds(15),
      isRetryable: isRetryableFailure,
      what: `uninstall of release ${where}`,
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      onRetry: (info) => {
        const msg =
          info.error instanceof Error ? (info.error.message.split("\n")[0] ?? "") : String(info.error);
        options.onProgress?.({
          phase: "retrying",
          attempt: info.attempt,
          message: `uninstall failed (${msg}); retrying in ${info.delay}`,
          lastError: msg,
        });
      },
    },
  );
  const messages: Record<RemoveOutcome, string> = {
    uninstalled: `uninstalled ${where}`,
    absent: `release ${where} was not installed; nothing to do`,
    "not-ours": `leaving release ${where} as it is: ${left}`,
  };
  options.onProgress?.({ phase: "done", attempt: 0, message: messages[outcome] });
  return outcome;
}
