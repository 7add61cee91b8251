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

import { keepCompileCache } from "../process/edge.js";

// Only provider processes load this module (Pulumi's dynamic provider host, the package's plugin):
// keep what they compile (the stored provider source turned the cache on before loading us).
keepCompileCache();

// The types the six functions name, and those they name in turn (types only).
export type {
  ChartSource,
  Duration,
  DurationInput,
  HandoffChartSource,
  HandoffRecord,
  InstallOptions,
  PathChartSource,
  RepoChartSource,
  RetryPolicy,
  Strategy,
} from "../../core/index.js";
export type {
  ReleaseInputs,
  ReleaseOutputs,
  ReleaseStatus,
  StoredChartSource,
  StoredSpec,
} from "../state/shape.js";
export { check } from "./check.js";
export { create } from "./create.js";
export { remove } from "./delete.js";
export { diff } from "./diff.js";
export { read } from "./read.js";
export { update } from "./update.js";
