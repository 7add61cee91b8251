/**
 * The release lifecycle shared by the front ends (Pulumi-free): install with retries, adopt,
 * reconcile, recover stuck releases, remove.
 *
 * Recovery of a release found in a bad state:
 * - `failed`, or `pending-install` / `pending-upgrade` / `pending-rollback` / `uninstalling`
 *   whose last deployment is older than one attempt timeout (a crashed or killed helm left it):
 *   - if an earlier revision was deployed (`deployed` or `superseded` in the history):
 *     `helm rollback` to the newest such revision, then continue (Reconcile may then upgrade);
 *   - otherwise (never deployed): `helm uninstall`, then install.
 * - the same `pending-*` states younger than the attempt timeout: another helm may still be
 *   working on it; a `ReleaseBusyError`, retried with backoff until it finishes or goes stale.
 *
 * The states are those of `classifyRelease` (`lifecycle/state.ts`); whether a deployed release is
 * compared and upgraded is the strategy table's (`lifecycle/strategy.ts`) and the comparison is
 * `needsUpgrade` (`lifecycle/upgrade.ts`), the rule the Pulumi provider's diff uses too.
 *
 * A failed install attempt uninstalls its partial release before the next attempt or before giving
 * up, so a failed create leaves nothing installed.
 *
 * @module
 */
import { Duration } from "./duration.js";
import { DeadlineExceededError, HelmError, HelmHandoffError, ReleaseBusyError } from "./errors.js";
import { valuesDigest } from "./handoff.js";
import type { HelmRunner, ReleaseInfo, ReleaseRevision } from "./helm/index.js";
import { isOwnRevision, ownRevisionLabels } from "./lifecycle/ownership.js";
import { classifyRelease } from "./lifecycle/state.js";
import { type LifecycleStep, mayCall, STRATEGY_TABLE } from "./lifecycle/strategy.js";
import { desiredRelease } from "./lifecycle/upgrade.js";
import { waitForApiServer } from "./readiness.js";
import { retry } from "./retry.js";
import type { ResolvedSpec } from "./spec.js";

/** Phases reported by {@link ensureRelease} and {@link removeRelease}. */
export type InstallPhase =
  | "waiting-for-api-server"
  | "installing"
  | "upgrading"
  | "adopting"
  | "recovering"
  | "retrying"
  | "uninstalling"
  | "done";

/** A progress report. */
export interface ProgressEvent {
  /** The phase. */
  readonly phase: InstallPhase;
  /** The attempt number (1-based; 0 while waiting for the API server). */
  readonly attempt: number;
  /** A one-line, human-readable, redacted message. */
  readonly message: string;
  /** The last error's message (redacted), when retrying or recovering. */
  readonly lastError?: string;
}

/** Options of {@link ensureRelease}. */
export interface EnsureReleaseOptions {
  /** Receives progress. @default - nothing is reported */
  readonly onProgress?: (event: ProgressEvent) => void;
  /** Cancels waits between attempts (pass the same signal to the runner to kill helm). @default - not cancellable */
  readonly signal?: AbortSignal;
  /** Skip the `/readyz` wait (e.g. the caller just checked). @default - false */
  readonly skipReadiness?: boolean;
  /**
   * The release is expected to exist (an update): look at it first. Otherwise each attempt first
   * tries `helm install`, which helm refuses without side effects when the name is taken.
   * @default false
   */
  readonly expectExisting?: boolean;
}

/** What {@link ensureRelease} did. */
export type EnsureAction = "installed" | "upgraded" | "adopted" | "unchanged";

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
 * Whether the lifecycle retries `error`: transient helm failures, release-state conflicts and a
 * busy release (all re-evaluated at the next attempt). Anything else fails at once.
 */
export function isRetryableFailure(error: unknown): boolean {
  if (error instanceof ReleaseBusyError) return true;
  return (
    error instanceof HelmError && !error.canceled && (error.kind === "transient" || error.kind === "state")
  );
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
  options: EnsureReleaseOptions = {},
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
  const outcome = await retry(
    async (n) => {
      attempts = n;
      return attempt(runner, spec, n, installFirst, report);
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

interface AttemptResult {
  readonly release: ReleaseInfo;
  readonly action: EnsureAction;
}

async function attempt(
  runner: HelmRunner,
  spec: ResolvedSpec,
  n: number,
  installFirst: boolean,
  report: (e: ProgressEvent) => void,
): Promise<AttemptResult> {
  const where = `${spec.namespace}/${spec.releaseName}`;
  // A missing release is the common case of a create (a new add-on, or a retry after a failed
  // install was cleaned up): install without looking first, one helm process less. helm refuses a
  // name that has any history ("cannot reuse a name") before it creates anything; then look.
  if (installFirst) {
    try {
      return await install(runner, spec, n, report);
    } catch (error) {
      if (!(error instanceof HelmError && error.kind === "state")) throw error;
      report({ phase: "adopting", attempt: n, message: `release ${where} already exists: looking at it` });
    }
  }
  // Observe, then act (core/lifecycle/state.ts); a recovery changes the state, so look again
  // (bounded, so a flapping release cannot spin here).
  const step: LifecycleStep = installFirst ? "create" : "update";
  const mayUpgrade = mayCall(spec.strategy, step, "upgrade");
  for (let look = 0; look < 3; look++) {
    const current = await runner.status(spec.releaseName, spec.namespace);
    const compare =
      mayUpgrade && current?.status === "deployed"
        ? {
            desired: desiredRelease(spec),
            liveValuesDigest: valuesDigest(await runner.getValues(spec.releaseName, spec.namespace)),
          }
        : undefined;
    const state = classifyRelease(current, {
      now: Date.now(),
      staleAfter: spec.install.timeout,
      ...(compare !== undefined ? { compare } : {}),
    });
    // A release in a bad state that someone else wrote: a strategy that repairs only its own
    // revisions adopts it as it is (no rollback, no uninstall, no waiting for it).
    if (
      (state.kind === "failed" || state.kind === "pending" || state.kind === "unsupported") &&
      STRATEGY_TABLE[spec.strategy].repairs === "own" &&
      !isOwnRevision(state.release)
    ) {
      report({
        phase: "adopting",
        attempt: n,
        message: `release ${where} is ${state.release.status} at revision ${state.release.revision}, written by someone else: adopting it as it is, no repair`,
      });
      return { release: state.release, action: "adopted" };
    }
    switch (state.kind) {
      case "absent":
        return install(runner, spec, n, report);
      case "deployed":
        report({
          phase: "adopting",
          attempt: n,
          message: mayUpgrade
            ? `release ${where} is up to date (revision ${state.release.revision})`
            : `release ${where} is deployed (revision ${state.release.revision}): adopting it, no upgrade`,
        });
        return { release: state.release, action: look === 0 ? "adopted" : "unchanged" };
      case "out-of-sync": {
        report({
          phase: "upgrading",
          attempt: n,
          message: `upgrading ${where}: ${state.reasons.join(", ")} differ`,
        });
        const labels = ownRevisionLabels(state.release.revision + 1);
        return { release: await runner.upgrade(spec, { labels }), action: "upgraded" };
      }
      case "pending":
        if (!state.stale) {
          throw new ReleaseBusyError(
            where,
            `release is ${state.release.status} since ${state.release.lastDeployed}; waiting for the other operation to finish or to go stale (after ${spec.install.timeout})`,
          );
        }
        await recover(runner, spec, state.release, n, report);
        continue;
      case "failed":
        await recover(runner, spec, state.release, n, report);
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

async function install(
  runner: HelmRunner,
  spec: ResolvedSpec,
  n: number,
  report: (e: ProgressEvent) => void,
): Promise<AttemptResult> {
  const where = `${spec.namespace}/${spec.releaseName}`;
  report({
    phase: "installing",
    attempt: n,
    message: `installing ${where} (attempt ${n}, timeout ${spec.install.timeout})`,
  });
  try {
    const release = await runner.install(spec, { labels: ownRevisionLabels(1) });
    return { release, action: "installed" };
  } catch (error) {
    // "cannot re-use a name": someone else installed it meanwhile; the next attempt looks again.
    if (!(error instanceof HelmError && error.kind === "state")) {
      await cleanupPartialInstall(runner, spec, n, report, error);
    }
    throw error;
  }
}

/** Uninstalls what a failed install left (a release that never reached `deployed`). Best effort. */
async function cleanupPartialInstall(
  runner: HelmRunner,
  spec: ResolvedSpec,
  n: number,
  report: (e: ProgressEvent) => void,
  cause: unknown,
): Promise<void> {
  const where = `${spec.namespace}/${spec.releaseName}`;
  try {
    const left = await runner.status(spec.releaseName, spec.namespace);
    if (left === undefined || left.status === "deployed") return;
    const history = await runner.history(spec.releaseName, spec.namespace);
    if (history.some((r) => r.status === "deployed" || r.status === "superseded")) return;
    report({
      phase: "recovering",
      attempt: n,
      message: `install of ${where} failed; uninstalling the partial release (${left.status})`,
      lastError: cause instanceof Error ? cause.message.split("\n")[0] : String(cause),
    });
    await runner.uninstall(spec.releaseName, spec.namespace, { wait: true, timeout: spec.install.timeout });
  } catch (e) {
    report({
      phase: "recovering",
      attempt: n,
      message: `could not clean up the partial release ${where}: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`,
    });
  }
}

async function recover(
  runner: HelmRunner,
  spec: ResolvedSpec,
  current: ReleaseInfo,
  n: number,
  report: (e: ProgressEvent) => void,
): Promise<void> {
  const where = `${spec.namespace}/${spec.releaseName}`;
  const history = await runner.history(spec.releaseName, spec.namespace);
  const good = lastGood(history, current.revision);
  if (good !== undefined) {
    report({
      phase: "recovering",
      attempt: n,
      message: `release ${where} is ${current.status} (revision ${current.revision}); rolling back to revision ${good.revision}`,
    });
    await runner.rollback(spec.releaseName, spec.namespace, good.revision, {
      wait: spec.install.wait,
      timeout: spec.install.timeout,
    });
    return;
  }
  report({
    phase: "recovering",
    attempt: n,
    message: `release ${where} is ${current.status} and was never deployed; uninstalling it before installing again`,
  });
  await runner.uninstall(spec.releaseName, spec.namespace, { wait: true, timeout: spec.install.timeout });
}

function lastGood(history: readonly ReleaseRevision[], current: number): ReleaseRevision | undefined {
  return [...history]
    .filter((r) => r.revision !== current && (r.status === "deployed" || r.status === "superseded"))
    .sort((a, b) => b.revision - a.revision)[0];
}

/** Options of {@link removeRelease}. */
export interface RemoveReleaseOptions {
  /** Receives progress. @default - nothing is reported */
  readonly onProgress?: (event: ProgressEvent) => void;
  /** Wait until the resources are gone. @default - true */
  readonly wait?: boolean;
  /** Timeout of one uninstall. @default - 5 minutes */
  readonly timeout?: Duration;
  /** Overall deadline for transient failures. @default - 5 minutes */
  readonly deadline?: Duration;
  /** Cancels waits between attempts. @default - not cancellable */
  readonly signal?: AbortSignal;
}

/**
 * Uninstalls a release (Reconcile delete). A release that does not exist counts as done.
 * Transient failures are retried until the deadline.
 * @returns whether the release existed
 */
export async function removeRelease(
  runner: HelmRunner,
  releaseName: string,
  namespace: string,
  options: RemoveReleaseOptions = {},
): Promise<boolean> {
  const where = `${namespace}/${releaseName}`;
  const timeout = options.timeout ?? Duration.minutes(5);
  const existed = await retry(
    async (n) => {
      options.onProgress?.({ phase: "uninstalling", attempt: n, message: `uninstalling ${where}` });
      return runner.uninstall(releaseName, namespace, { wait: options.wait ?? true, timeout });
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
  options.onProgress?.({
    phase: "done",
    attempt: 0,
    message: existed ? `uninstalled ${where}` : `release ${where} was not installed; nothing to do`,
  });
  return existed;
}
