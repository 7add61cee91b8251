/**
 * Create: installs the release, retrying transient failures until the add-on's deadline, or adopts
 * it (`ensureRelease`). A failed create leaves nothing installed and throws, so nothing is recorded.
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import type * as pulumi from "@pulumi/pulumi";
import { newDigestKey } from "../../core/handoff/digests.js";
import { validateSpec } from "../../core/spec/index.js";
import { progressLine } from "../process/progress.js";
import { outputsOf, ownerOf, statusOf, toSpec } from "../state/decode.js";
import { type ReleaseInputs, releaseId } from "../state/shape.js";

/** Installs or adopts the release of `inputs`. */
export async function create(inputs: ReleaseInputs): Promise<pulumi.dynamic.CreateResult> {
  const helm = await import("./helm.js");
  const spec = validateSpec(toSpec(inputs));
  // A new instance: a replacement marks the release it takes over, so its predecessor's delete leaves it.
  const instance = randomBytes(8).toString("hex");
  const result = await helm.ensureRelease(helm.runnerFor(inputs, "create"), spec, {
    owner: ownerOf(inputs, instance),
    onProgress: (p) => progressLine(inputs.releaseName, p.message),
  });
  const status = statusOf(result.release, result.attempts, result.adopted);
  return { id: releaseId(inputs), outs: outputsOf(inputs, status, inputs.values, newDigestKey(), instance) };
}
