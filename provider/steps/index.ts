/**
 * `helm-handoff/pulumi/dynamic`: the release's check, diff, create, read, update and delete, the
 * one implementation both hosts run. The provider source stored in a Node.js program's state
 * (`PROVIDER_SOURCE`) loads this module at call time, and the package's provider
 * (`helmHandoffProvider`) imports it. Stored sources call exactly these six functions with the
 * engine's arguments: keep their names and signatures (docs/api/helm-handoff-pulumi-dynamic.api.md).
 *
 * The contract of each step (Pulumi's dynamic providers): a failed create leaves nothing
 * installed and throws; a failed delete throws, so the release is still recorded as existing;
 * every helm runner a step makes is limited to the calls the strategy table allows for its
 * strategy and step (`core/lifecycle/strategy.ts`), so ApplyOnce never calls helm after the first
 * success. One step per file; a step that may call helm loads the helm half (`helm.ts`) only when
 * it does, so a handed-off stack's `up` never loads helm, YAML or the Kubernetes client.
 *
 * @module
 */

import type * as pulumi from "@pulumi/pulumi";
import { keepCompileCache } from "../process/edge.js";
import { noteFailedStep, noting } from "../process/failed-steps.js";
import type { ReleaseInputs, ReleaseOutputs } from "../state/shape.js";
import { check as checkStep } from "./check.js";
import { create as createStep } from "./create.js";
import { remove as removeStep } from "./delete.js";
import { diff as diffStep } from "./diff.js";
import { read as readStep } from "./read.js";
import { update as updateStep } from "./update.js";

// Only provider processes load this module (Pulumi's dynamic provider host, the package's plugin):
// keep what they compile (the stored provider source turned the cache on before loading us).
keepCompileCache();

/**
 * What the engine hands a step: the stored inputs or outputs of one add-on (their shape is the
 * state's, `../state/shape.ts`, and private to the package: only the stored provider source and the
 * package's provider call these functions).
 */
export type StoredState = object;

// Each step that fails leaves the note the program's lost-registration guard reads
// (`../process/failed-steps.ts`), so the user reads the step's error alone.

/** Validates `news`; `olds` is empty for a resource about to be created. */
export async function check(olds: StoredState, news: StoredState): Promise<pulumi.dynamic.CheckResult> {
  const result = await noting(() => checkStep(olds as ReleaseInputs, news as ReleaseInputs));
  if ((result.failures?.length ?? 0) > 0) noteFailedStep();
  return result;
}

/** Installs or adopts the release of `inputs`. */
export function create(inputs: StoredState): Promise<pulumi.dynamic.CreateResult> {
  return noting(() => createStep(inputs as ReleaseInputs));
}

/** Decides what a change from `olds` to `news` means. */
export function diff(id: string, olds: StoredState, news: StoredState): Promise<pulumi.dynamic.DiffResult> {
  return noting(() => diffStep(id, olds as ReleaseOutputs, news as ReleaseInputs));
}

/** Refreshes the stored outputs `props` of release `id`. */
export function read(id: string, props?: StoredState): Promise<pulumi.dynamic.ReadResult> {
  return noting(() => readStep(id, props as ReleaseOutputs | undefined));
}

/** Moves the release from the stored outputs `olds` to the inputs `news`. */
export function update(
  id: string,
  olds: StoredState,
  news: StoredState,
): Promise<pulumi.dynamic.UpdateResult> {
  return noting(() => updateStep(id, olds as ReleaseOutputs, news as ReleaseInputs));
}

/** Deletes release `id`, whose stored outputs are `props`. */
export function remove(id: string, props: StoredState): Promise<void> {
  return noting(() => removeStep(id, props as ReleaseOutputs));
}
