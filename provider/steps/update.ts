/**
 * Update: ApplyOnce records the new inputs (the handoff, after a move from Reconcile) with no helm
 * call; Reconcile upgrades the release to the spec by the rule a create follows (`ensureRelease`),
 * writing only to a revision this resource wrote.
 *
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import { mayCallHelm } from "../../core/lifecycle/strategy.js";
import { validateSpec } from "../../core/spec/index.js";
import { progressLine } from "../process/progress.js";
import { outputsOf, ownerOf, statusOf, toSpec } from "../state/decode.js";
import type { ReleaseInputs, ReleaseOutputs } from "../state/shape.js";

/** Moves the release from the stored outputs `olds` to the inputs `news`. */
export async function update(
  _id: string,
  olds: ReleaseOutputs,
  news: ReleaseInputs,
): Promise<pulumi.dynamic.UpdateResult> {
  if (!mayCallHelm(news.strategy, "update")) {
    progressLine(news.releaseName, "ApplyOnce: handed off; no helm call");
    return { outs: outputsOf(news, { ...olds.status }, news.values, olds.digestKey, olds.ownerInstance) };
  }
  const helm = await import("./helm.js");
  const spec = validateSpec(toSpec(news));
  const result = await helm.ensureRelease(helm.runnerFor(news, "update"), spec, {
    owner: ownerOf(news, olds.ownerInstance),
    expectExisting: true,
    onProgress: (p) => progressLine(news.releaseName, p.message),
  });
  const status = statusOf(result.release, olds.status.attempts, olds.status.adopted);
  return { outs: outputsOf(news, status, news.values, olds.digestKey, olds.ownerInstance) };
}
