/**
 * The repairs of the release lifecycle (`ensureRelease`), each a write that re-reads the release
 * right before it ({@link stillAsSeen}) and touches only a release whose current revision the
 * owner wrote (`ownershipOf`): the cleanup of a failed install, and the recovery of a
 * failed or stale release (rollback to its last good revision, whose new revision is marked as
 * ours again since helm copies the target's labels; or uninstall of a never-deployed one).
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import { ReleaseBusyError } from "../errors.js";
import type { HelmRunner, ReleaseInfo, ReleaseRevision } from "../helm/index.js";
import type { ResolvedSpec } from "../spec/index.js";
import {
  describeOwnership,
  mayWrite,
  ownerLabels,
  ownershipOf,
  type ReleaseOwner,
  type WriteIntent,
} from "./ownership.js";
import type { EnsureAction, ProgressEvent } from "./progress.js";
import type { LifecycleStep } from "./strategy.js";

/** What one attempt did. */
export interface AttemptResult {
  readonly release: ReleaseInfo;
  readonly action: EnsureAction;
}

/** One attempt's context. */
export interface Attempt {
  readonly runner: HelmRunner;
  readonly spec: ResolvedSpec;
  readonly owner: ReleaseOwner;
  readonly n: number;
  readonly step: LifecycleStep;
  readonly where: string;
  readonly report: (e: ProgressEvent) => void;
}

/**
 * Re-reads the release right before a write: the write goes ahead only if the release is still at
 * the revision and status it was seen at and, unless `intent` is `"any"` (an adoption the user
 * asked for), still ours (a GitOps controller's write in between makes the attempt look again instead).
 */
export async function stillAsSeen(
  a: Attempt,
  seen: ReleaseInfo,
  intent: WriteIntent | "any" = "converge",
): Promise<void> {
  const now = await a.runner.status(a.spec.releaseName, a.spec.namespace);
  if (
    now !== undefined &&
    now.revision === seen.revision &&
    now.status === seen.status &&
    (intent === "any" || mayWrite(ownershipOf(now, a.owner), intent))
  ) {
    return;
  }
  const was = `revision ${seen.revision} ${seen.status}`;
  const is = now === undefined ? "gone" : `revision ${now.revision} ${now.status}`;
  throw new ReleaseBusyError(
    a.where,
    `the release changed while helm-handoff looked at it (${was}, now ${is}); looking again`,
  );
}

/**
 * Marks the current revision `seen` as this owner's (after re-reading it, see {@link stillAsSeen}):
 * a replacement taking over its predecessor's release, or an adoption the user asked for.
 */
export async function markOurs(
  a: Attempt,
  seen: ReleaseInfo,
  intent: WriteIntent | "any" = "converge",
): Promise<void> {
  await stillAsSeen(a, seen, intent);
  await mark(a, seen);
}

/** Labels `release`'s current revision as written by this owner (no re-read). */
async function mark(a: Attempt, release: ReleaseInfo): Promise<void> {
  await a.runner.patchReleaseLabels(
    a.spec.releaseName,
    a.spec.namespace,
    release.revision,
    ownerLabels(a.owner, release.revision, release),
    release.status,
  );
}

/**
 * Uninstalls what a failed install of ours left (a release that never reached `deployed`). A
 * release of that name that this resource did not write (helm fetches the chart before it checks
 * the name, so a download failure gets here while someone else's release holds it) is left as it
 * is. Best effort.
 */
export async function cleanupPartialInstall(a: Attempt, cause: unknown): Promise<void> {
  const { runner, spec, owner, n, where, report } = a;
  try {
    const left = await runner.status(spec.releaseName, spec.namespace);
    if (left === undefined || left.status === "deployed") return;
    const owned = ownershipOf(left, owner);
    if (!mayWrite(owned, "converge")) {
      report({
        phase: "recovering",
        attempt: n,
        message: `install of ${where} failed; the release of that name is ${left.status} and ${describeOwnership(owned, left.revision)}: leaving it as it is`,
      });
      return;
    }
    const history = await runner.history(spec.releaseName, spec.namespace);
    if (history.some((r) => r.status === "deployed" || r.status === "superseded")) return;
    report({
      phase: "recovering",
      attempt: n,
      message: `install of ${where} failed; uninstalling the partial release (${left.status})`,
      lastError: cause instanceof Error ? cause.message.split("\n")[0] : String(cause),
    });
    await stillAsSeen(a, left);
    await runner.uninstall(spec.releaseName, spec.namespace, { wait: true, timeout: spec.install.timeout });
  } catch (e) {
    report({
      phase: "recovering",
      attempt: n,
      message: `could not clean up the partial release ${where}: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`,
    });
  }
}

/** Repairs a failed or stale release of ours: rollback to its last good revision, or uninstall a never-deployed one. */
export async function recover(a: Attempt, current: ReleaseInfo): Promise<void> {
  const { runner, spec, n, where, report } = a;
  const history = await runner.history(spec.releaseName, spec.namespace);
  const good = lastGood(history, current.revision);
  await stillAsSeen(a, current);
  if (good !== undefined) {
    report({
      phase: "recovering",
      attempt: n,
      message: `release ${where} is ${current.status} (revision ${current.revision}); rolling back to revision ${good.revision}`,
    });
    // A description no other rollback writes: only the revision carrying it is ours to mark (a
    // concurrent rollback by someone else to the same revision reads "Rollback to N").
    const description = `Rollback to ${good.revision} by helm-handoff ${randomBytes(6).toString("hex")}`;
    try {
      await runner.rollback(spec.releaseName, spec.namespace, good.revision, {
        wait: spec.install.wait,
        timeout: spec.install.timeout,
        description,
      });
    } finally {
      // helm copies the target revision's labels onto the rollback's revision: mark it as ours,
      // whether or not the rollback succeeded (a failed rollback is ours to recover too).
      const after = await runner.status(spec.releaseName, spec.namespace);
      if (after !== undefined && after.revision > current.revision && after.description === description) {
        await mark(a, after);
      }
    }
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
