/**
 * Diff: what a change means, by strategy, decided from the stored state without a helm call.
 * Another cluster replaces the add-on; ApplyOnce plans nothing but a move to or from Reconcile;
 * Reconcile compares the desired spec with what the release runs (after a refresh, its live
 * values) by the rule `ensureRelease` upgrades by, and moves the release when its name or
 * namespace changes.
 *
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import { keyedValuesDigest } from "../../core/handoff/digests.js";
import { validateSpec } from "../../core/spec/index.js";
import { toSpec } from "../state/decode.js";
import type { ReleaseInputs, ReleaseOutputs } from "../state/shape.js";

/** Decides what a change from `olds` to `news` means. */
export async function diff(
  _id: string,
  olds: ReleaseOutputs,
  news: ReleaseInputs,
): Promise<pulumi.dynamic.DiffResult> {
  if (olds.clusterId !== news.clusterId) {
    return { changes: true, replaces: ["clusterId"], deleteBeforeReplace: false };
  }
  const strategyChanged = olds.strategy !== news.strategy;
  // Reconcile -> ApplyOnce records the handoff (no helm call); anything else is a no-op.
  if (news.strategy === "ApplyOnce")
    return strategyChanged ? { changes: true, replaces: [] } : { changes: false };
  const changed =
    strategyChanged ||
    olds.releaseName !== news.releaseName ||
    olds.namespace !== news.namespace ||
    olds.desiredDigest !== news.desiredDigest ||
    olds.chartPassword !== news.chartPassword ||
    olds.chartRepo !== news.chartRepo ||
    (await reconcileDrift(olds, news)).length > 0;
  // The engine is told the field that moved the release.
  const moved = (["releaseName", "namespace"] as const).filter((key) => olds[key] !== news[key]);
  return { changes: changed, replaces: moved, deleteBeforeReplace: false };
}

/** Why a Reconcile release differs from `news` (`needsUpgrade`); a spec not readable yet (a preview) counts as a change. */
async function reconcileDrift(olds: ReleaseOutputs, news: ReleaseInputs): Promise<string[]> {
  const { desiredRelease, needsUpgrade } = await import("../../core/lifecycle/upgrade.js");
  try {
    const desired = desiredRelease(validateSpec(toSpec(news)), (v) => keyedValuesDigest(v, olds.digestKey));
    return needsUpgrade(desired, {
      chart: olds.status.chart,
      chartVersion: olds.liveChartVersion,
      valuesDigest: olds.liveValuesDigest,
    });
  } catch {
    return ["spec"];
  }
}
