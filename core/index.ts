/**
 * `helm-handoff` (this folder, `core/`; `helm-handoff/gitops` is its `handoff/gitops` module): what a
 * program needs beside the front ends: the add-on spec and its validation, the typed errors, the
 * handoff record, the helm runner and the install lifecycle (`ensureRelease`, `removeRelease`),
 * and cluster identity. Only what a user calls or names is exported here (the list is fixed by the
 * package-contents unit test); the package's own code imports the core's modules directly.
 *
 * @module
 */

export { type ClusterIdentity, clusterIdentityFromKubeconfig } from "./cluster/identity.js";
export { waitForApiServer } from "./cluster/readiness.js";
export {
  CredentialsRejectedError,
  DeadlineExceededError,
  type ErrorCode,
  HelmError,
  HelmHandoffError,
  HelmNotFoundError,
  HelmVersionError,
  PermanentHelmError,
  ReleaseBusyError,
  ReleaseStateError,
  SpecError,
  TransientHelmError,
} from "./errors.js";
export { newDigestKey } from "./handoff/keyed-digest.js";
export { type HandoffRecord, type HandoffRecordInput, makeHandoffRecord } from "./handoff/record.js";
export { HelmRunner, type HelmRunnerOptions } from "./helm/index.js";
export { type EnsureReleaseOptions, type EnsureReleaseResult, ensureRelease } from "./lifecycle/ensure.js";
export { OwnershipError, type ReleaseOwner } from "./lifecycle/ownership.js";
export type { EnsureAction, InstallPhase, ProgressEvent } from "./lifecycle/progress.js";
export { type RemoveOutcome, type RemoveReleaseOptions, removeRelease } from "./lifecycle/remove.js";
export { Duration } from "./spec/duration.js";
export {
  type AddonSpec,
  type ChartSource,
  type DurationInput,
  type InstallOptions,
  type PathChartSource,
  type RepoChartSource,
  type RetryPolicy,
  type Strategy,
  validateSpec,
} from "./spec/index.js";
