/**
 * The release lifecycle shared by the front ends (Pulumi-free): install with retries, adopt,
 * reconcile, recover stuck releases, remove.
 *
 * Ownership ({@link ownershipOf}): every revision this lifecycle creates is marked with its
 * owner, and it writes (upgrades, rolls back, uninstalls, relabels) only a release whose current
 * revision that owner wrote, re-reading it right before each write. Any other release is adopted
 * as it is (ApplyOnce) or refused with an `OwnershipError` (Reconcile).
 *
 * Recovery of a release of ours found in a bad state:
 * - `failed`, or `pending-install` / `pending-upgrade` / `pending-rollback` / `uninstalling`
 *   whose last deployment is older than one attempt timeout (a crashed or killed helm left it):
 *   - if an earlier revision was deployed (`deployed` or `superseded` in the history):
 *     `helm rollback` to the newest such revision, then continue (Reconcile may then upgrade);
 *   - otherwise (never deployed): `helm uninstall`, then install.
 * - the same `pending-*` states younger than the attempt timeout: another helm may still be
 *   working on it; a `ReleaseBusyError`, retried with backoff until it finishes or goes stale.
 *
 * The states are those of `classifyRelease` ({@link classifyRelease}); whether a deployed release is
 * compared and upgraded is the strategy table's ({@link STRATEGY_TABLE}) and the comparison is
 * `needsUpgrade`, the rule the Pulumi provider's diff uses too.
 *
 * A failed install attempt uninstalls its partial release (ours only) before the next attempt or
 * before giving up, so a failed create leaves nothing installed.
 *
 * @module
 */

import { waitForApiServer } from "../cluster/readiness.js";
import {
  DeadlineExceededError,
  HelmError,
  HelmHandoffError,
  isRetryableFailure,
  ReleaseBusyError,
} from "../errors.js";
import { valuesFingerprint } from "../handoff/digests.js";
import type { HelmRunner, ReleaseInfo } from "../helm/index.js";
import { Duration } from "../spec/duration.js";
import type { ResolvedSpec } from "../spec/index.js";
import { retry } from "../util/retry.js";
import { claimOn } from "./claim.js";
import {
  describeOwnership,
  mayWrite,
  type Ownership,
  OwnershipError,
  ownerLabels,
  ownershipOf,
  type ReleaseOwner,
} from "./ownership.js";
import type { EnsureAction, ProgressEvent } from "./progress.js";
import { classifyRelease } from "./release-state.js";
import {
  type Attempt,
  type AttemptResult,
  cleanupPartialInstall,
  markOurs,
  recover,
  stillAsSeen,
} from "./repair.js";
import { type LifecycleStep, mayCall, STRATEGY_TABLE } from "./strategy.js";
import { desiredRelease } from "./upgrade.js";

/** Options of {@link ensureRelease}. */
export interface EnsureReleaseOptions {
  /**
   * Who writes: the marks every revision this call creates carries, and the only owner whose
   * releases it repairs or upgrades (see `ownershipOf`).
   */
  readonly owner: ReleaseOwner;
  /** Receives progress. @default nothing is reported */
  readonly onProgress?: (event: ProgressEvent) => void;
  /** Cancels waits between attempts (pass the same signal to the runner to kill helm). @default not cancellable */
  readonly signal?: AbortSignal;
  /** Skip the `/readyz` wait (e.g. the caller just checked). @default false */
  readonly skipReadiness?: boolean;
  /**
   * The release is expected to exist (an update): look at it first. Otherwise each attempt first
   * tries `helm install`, which helm refuses without side effects when the name is taken.
   * @default false
   */
  readonly expectExisting?: boolean;
}

/** The result of {@link ensureRelease}. */
export interface EnsureReleaseResult {
  /** The release as it is now. */
  readonly release: ReleaseInfo;
  /** Attempts the retry loop made (1 when the first one succeeded). */
  readonly attempts: number;
  /** True when the release was found deployed before any install and taken over. */
  readonly adopted: boolean;
  /** What was done. */
  readonly action: EnsureAction;
}

/**
 * Makes sure the release described by `spec` exists: waits for `/readyz`, then, under
 * `spec.retry`, installs it, adopts it (ApplyOnce, or Reconcile when nothing differs), upgrades it
 * (Reconcile, when chart, version or values differ) or recovers it from a stuck state first.
 * Transient failures are retried with backoff until the deadline; permanent ones fail at once.
 *
 * @throws DeadlineExceededError listing every attempt and the last cause
 * @throws HelmError (permanent) at once, e.g. values that fail the chart's schema
 */
export async function ensureRelease(
  runner: HelmRunner,
  spec: ResolvedSpec,
  options: EnsureReleaseOptions,
): Promise<EnsureReleaseResult> {
  const report = (e: ProgressEvent): void => options.onProgress?.(e);
  const started = Date.now();
  const where = `${spec.namespace}/${spec.releaseName}`;
  const kubeconfig = runner.kubeconfig;
  if (!options.skipReadiness && kubeconfig !== undefined) {
    report({
      phase: "waiting-for-api-server",
      attempt: 0,
      message: `waiting for the API server to answer /readyz`,
    });
    // Probes run every ~0.5 s; report the first, every change of reason, and then every 20th.
    let lastReason = "";
    await waitForApiServer(kubeconfig, {
      deadline: spec.retry.deadline,
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      onWait: (w) => {
        const reason = runner.redact(w.reason);
        if (reason === lastReason && w.attempt % 20 !== 0) return;
        lastReason = reason;
        report({
          phase: "waiting-for-api-server",
          attempt: w.attempt,
          message: `API server not ready after ${w.attempt} probe(s) (${reason}); still waiting`,
          lastError: reason,
        });
      },
    });
  }
  const remaining = Math.max(1, spec.retry.deadline.toMilliseconds() - (Date.now() - started));
  let attempts = 0;
  const installFirst = options.expectExisting !== true;
  const step: LifecycleStep = installFirst ? "create" : "update";
  const outcome = await retry(
    async (n) => {
      attempts = n;
      return attempt({ runner, spec, owner: options.owner, n, step, where, report }, installFirst);
    },
    {
      deadline: Duration.millis(remaining),
      minBackoff: spec.retry.minBackoff,
      maxBackoff: spec.retry.maxBackoff,
      isRetryable: isRetryableFailure,
      what: `install of release ${where}`,
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      onRetry: (info) => {
        const msg =
          info.error instanceof Error ? (info.error.message.split("\n")[0] ?? "") : String(info.error);
        report({
          phase: "retrying",
          attempt: info.attempt,
          message: `attempt ${info.attempt} failed (${msg}); retrying in ${info.delay} (${info.remaining} left)`,
          lastError: msg,
        });
      },
    },
  ).catch((e: unknown) => {
    if (e instanceof DeadlineExceededError) {
      throw new DeadlineExceededError(
        `install of release ${where}`,
        spec.retry.deadline.toString(),
        e.attempts,
        e.lastCause,
      );
    }
    throw e;
  });
  report({
    phase: "done",
    attempt: attempts,
    message: `${outcome.action} ${where} (revision ${outcome.release.revision}, ${outcome.release.status}) after ${attempts} attempt(s)`,
  });
  return {
    release: outcome.release,
    attempts,
    adopted: outcome.action === "adopted",
    action: outcome.action,
  };
}

async function attempt(a: Attempt, installFirst: boolean): Promise<AttemptResult> {
  const { runner, spec, owner, n, step, where, report } = a;
  // A missing release is the common case of a create (a new add-on, or a retry after a failed
  // install was cleaned up): install without looking first, one helm process less. helm refuses a
  // name that has any history ("cannot reuse a name") before it creates anything; then look.
  if (installFirst) {
    try {
      return await install(a);
    } catch (error) {
      if (!(error instanceof HelmError && error.kind === "state")) throw error;
      report({ phase: "adopting", attempt: n, message: `release ${where} already exists: looking at it` });
    }
  }
  // Observe, then act (classifyRelease); a recovery changes the state, so look again
  // (bounded, so a flapping release cannot spin here).
  const mayUpgrade = mayCall(spec.strategy, step, "upgrade");
  for (let look = 0; look < 3; look++) {
    const current = await runner.status(spec.releaseName, spec.namespace);
    let owned = current !== undefined ? ownershipOf(current, owner) : undefined;
    // Ours by its marks: does another controller manage it now (Argo CD writes no Helm revision)?
    if (current !== undefined && owned !== undefined && mayWrite(owned, "converge")) {
      owned = ownershipOf(current, owner, await claimOn(runner, spec.releaseName, spec.namespace));
    }
    const ours = owned !== undefined && mayWrite(owned, "converge");
    const compare =
      mayUpgrade && ours && current?.status === "deployed"
        ? {
            desired: desiredRelease(spec),
            liveValuesDigest: valuesFingerprint(await runner.getValues(spec.releaseName, spec.namespace)),
          }
        : undefined;
    const state = classifyRelease(current, {
      now: Date.now(),
      staleAfter: spec.install.timeout,
      ...(compare !== undefined ? { compare } : {}),
    });
    if (state.kind === "absent") return install(a);
    if (state.kind === "uninstalled") throw keptHistoryError(spec, state.release);
    const whose = owned ?? { kind: "foreign" }; // a release exists here, so `owned` is set
    if (!ours) {
      // Reconcile with `adopt`: the user asked to take it over. Mark it as ours, then look again.
      // (A controller's claim is not ours to take: relabelling would not end it.)
      if (spec.adopt && whose.kind !== "claimed" && mayCall(spec.strategy, step, "relabel")) {
        // Never relabel a revision another helm is still writing: wait until it ends or goes stale.
        if (state.kind === "pending" && !state.stale) throw busyError(spec, state.release);
        report({
          phase: "adopting",
          attempt: n,
          message: `release ${where}: ${describeOwnership(whose, state.release.revision)}; taking it over as asked (adopt): marking revision ${state.release.revision} as this resource's`,
        });
        await markOurs(a, state.release, "any");
        continue;
      }
      return notOurs(a, state.release, whose);
    }
    switch (state.kind) {
      case "deployed":
        // A release this resource's predecessor wrote (a replacement): mark it with this instance,
        // so that the predecessor's delete leaves it (Reconcile; ApplyOnce never deletes).
        if (whose.kind === "replaced" && mayUpgrade) await markOurs(a, state.release);
        report({
          phase: "adopting",
          attempt: n,
          message: mayUpgrade
            ? `release ${where} is up to date (revision ${state.release.revision})`
            : `release ${where} is deployed (revision ${state.release.revision}): adopting it, no upgrade`,
        });
        return { release: state.release, action: look === 0 ? "adopted" : "unchanged" };
      case "out-of-sync": {
        await stillAsSeen(a, state.release);
        report({
          phase: "upgrading",
          attempt: n,
          message: `upgrading ${where}: ${state.reasons.join(", ")} differ`,
        });
        const labels = ownerLabels(owner, state.release.revision + 1, state.release);
        return { release: await runner.upgrade(spec, { labels }), action: "upgraded" };
      }
      case "pending":
        if (!state.stale) throw busyError(spec, state.release);
        await recover(a, state.release);
        continue;
      case "failed":
        await recover(a, state.release);
        continue;
      case "unsupported":
        throw new HelmHandoffError(
          "RELEASE_STATE_UNSUPPORTED",
          `release ${where} is in state "${state.release.status}" (revision ${state.release.revision}), which helm-handoff does not recover automatically: inspect it with "helm history ${spec.releaseName} -n ${spec.namespace}"`,
        );
    }
  }
  throw new ReleaseBusyError(where, "the release kept changing state during recovery");
}

/** A release this resource did not write: adopted as it is (ApplyOnce) or refused (Reconcile). */
function notOurs(a: Attempt, release: ReleaseInfo, owned: Ownership): AttemptResult {
  const { spec, where } = a;
  if (STRATEGY_TABLE[spec.strategy].notOurs === "adopt") {
    a.report({
      phase: "adopting",
      attempt: a.n,
      message: `release ${where} is ${release.status} at revision ${release.revision} and ${describeOwnership(owned, release.revision)}: adopting it as it is, no helm write`,
    });
    return { release, action: "adopted" };
  }
  throw new OwnershipError(where, release.revision, owned, notOursFix(owned));
}

/** What the user can do about a release Reconcile refuses to write. */
function notOursFix(owned: Ownership): string {
  return owned.kind === "claimed"
    ? `helm-handoff never writes to a release another controller manages. To leave it to that controller, use strategy "ApplyOnce" (which adopts it as it is) or remove this add-on from the program; to manage it here again, first remove the controller's claim (its HelmRelease or Application, or its tracking of the objects).`
    : `Reconcile writes only to releases it wrote, so it neither upgrades nor removes this one. To leave it to its owner, use strategy "ApplyOnce" (which adopts it as it is) or another releaseName; to have this resource take it over, set adopt: true.`;
}

/** A release another operation may still be writing (pending, not stale): retried until it ends or goes stale. */
function busyError(spec: ResolvedSpec, release: ReleaseInfo): ReleaseBusyError {
  return new ReleaseBusyError(
    `${spec.namespace}/${spec.releaseName}`,
    `release is ${release.status} since ${release.lastDeployed}; waiting for the other operation to finish or to go stale (after ${spec.install.timeout})`,
  );
}

/** The error for a release uninstalled with `--keep-history`, whose name helm will not reuse. */
function keptHistoryError(spec: ResolvedSpec, release: ReleaseInfo): HelmHandoffError {
  return new HelmHandoffError(
    "RELEASE_STATE_UNSUPPORTED",
    `release ${spec.namespace}/${spec.releaseName} was uninstalled with --keep-history (revision ${release.revision}), and helm will not install under that name while its history remains: remove the history with "helm uninstall ${spec.releaseName} -n ${spec.namespace}" (on an uninstalled release it deletes the kept history), or choose another releaseName`,
  );
}

async function install(a: Attempt): Promise<AttemptResult> {
  const { runner, spec, owner, n, where, report } = a;
  // No Helm release, but a controller may manage the objects (Helm's storage retired after an
  // Argo CD takeover): installing would write over them.
  const claim = await claimOn(runner, spec.releaseName, spec.namespace);
  if (claim !== undefined) {
    const claimed: Ownership = { kind: "claimed", by: claim };
    throw new OwnershipError(where, 0, claimed, notOursFix(claimed));
  }
  report({
    phase: "installing",
    attempt: n,
    message: `installing ${where} (attempt ${n}, timeout ${spec.install.timeout})`,
  });
  try {
    const named = { name: spec.releaseName, namespace: spec.namespace };
    const release = await runner.install(spec, { labels: ownerLabels(owner, 1, named) });
    return { release, action: "installed" };
  } catch (error) {
    // "cannot re-use a name": someone else installed it meanwhile; the next attempt looks again.
    if (!(error instanceof HelmError && error.kind === "state")) {
      await cleanupPartialInstall(a, error);
    }
    throw error;
  }
}
