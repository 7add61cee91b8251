/**
 * Observe, then act: `classifyRelease` maps what helm reports about a release into a closed set
 * of states, and the lifecycle (`ensureRelease`) takes exactly one action per state:
 * - `absent` (no release): install;
 * - `uninstalled` (uninstalled with `--keep-history`: helm refuses the name until that history is
 *   removed): fail at once, saying how to remove it;
 * - `deployed`: adopt it (nothing to do);
 * - `out-of-sync` (deployed, but chart, version or values differ; only when compared): upgrade;
 * - `failed`, or `pending` and `stale` (older than one attempt timeout): recover it (rollback to
 *   the last good revision, or uninstall a never-deployed one), then look again;
 * - `pending` and not stale: another operation may still run: wait (`ReleaseBusyError`, retried);
 * - `unsupported` (any other status, e.g. `unknown`): fail, the user inspects it.
 * Every action that writes first checks whose the release is (`ownershipOf`). Pure.
 *
 * @module
 */

import type { ReleaseInfo } from "../helm/types.js";
import type { Duration } from "../spec/duration.js";
import { type DesiredRelease, needsUpgrade, type UpgradeReason } from "./upgrade.js";

/** A release helm reported, with the state the lifecycle gives it. */
export interface ObservedRelease<K extends string> {
  /** The state. */
  readonly kind: K;
  /** The release as helm reported it. */
  readonly release: ReleaseInfo;
}

/** A release as the lifecycle sees it (see the module comment for the action each state gets). */
export type ReleaseState =
  | {
      /** No such release. */
      readonly kind: "absent";
    }
  | ObservedRelease<"uninstalled">
  | ObservedRelease<"deployed">
  | (ObservedRelease<"out-of-sync"> & {
      /** What differs from the spec. */
      readonly reasons: readonly UpgradeReason[];
    })
  | ObservedRelease<"failed">
  | (ObservedRelease<"pending"> & {
      /** Whether its last deployment is older than one attempt timeout (left by a killed helm). */
      readonly stale: boolean;
    })
  | ObservedRelease<"unsupported">;

/** helm statuses of a release some operation is (or was, when it was killed) working on. */
const PENDING = new Set(["pending-install", "pending-upgrade", "pending-rollback", "uninstalling"]);

/** What {@link classifyRelease} needs besides the release. */
export interface ClassifyOptions {
  /** The current time, in milliseconds since the epoch. */
  readonly now: number;
  /** A pending release whose last deployment is older than this is stale (one attempt timeout). */
  readonly staleAfter: Duration;
  /** Compare a deployed release with the spec (Reconcile). @default not compared: a deployed release is `deployed` */
  readonly compare?: ReleaseComparison;
}

/** What a deployed release is compared with (see {@link ClassifyOptions.compare}). */
export interface ReleaseComparison {
  /** What the spec asks for. */
  readonly desired: DesiredRelease;
  /** Digest of the release's live user-supplied values (`helm get values`). */
  readonly liveValuesDigest: string;
}

/** The state of `release` (`undefined`: helm knows no such release). */
export function classifyRelease(release: ReleaseInfo | undefined, options: ClassifyOptions): ReleaseState {
  if (release === undefined) return { kind: "absent" };
  if (release.status === "uninstalled") return { kind: "uninstalled", release };
  if (release.status === "deployed") {
    if (options.compare === undefined) return { kind: "deployed", release };
    const reasons = needsUpgrade(options.compare.desired, {
      chart: release.chart,
      chartVersion: release.chartVersion,
      valuesDigest: options.compare.liveValuesDigest,
    });
    return reasons.length === 0 ? { kind: "deployed", release } : { kind: "out-of-sync", release, reasons };
  }
  if (release.status === "failed") return { kind: "failed", release };
  if (PENDING.has(release.status)) {
    const age = options.now - Date.parse(release.lastDeployed);
    // an unreadable date (NaN) counts as not stale: wait for the operation
    return { kind: "pending", release, stale: age > options.staleAfter.toMilliseconds() };
  }
  return { kind: "unsupported", release };
}
