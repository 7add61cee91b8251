/**
 * `helm-handoff`: the shared core a program needs beside the front ends: the add-on spec and its
 * validation, the typed errors, the handoff record, the helm runner, the install lifecycle
 * (`ensureRelease`, `removeRelease`) and its strategy table, readiness and cluster identity.
 * Only what a user calls or names is exported here; the code of the package imports the core's
 * modules directly, so nothing internal has to be exported to be shared.
 *
 * @module
 */
export { Duration, MAX_TIMER_MS } from "./duration.js";
export {
  type AttemptRecord,
  CredentialsRejectedError,
  classifyHelmFailure,
  DeadlineExceededError,
  type ErrorCode,
  HelmCallNotAllowedError,
  HelmError,
  type HelmErrorDetails,
  type HelmFailureClass,
  type HelmFailureKind,
  HelmHandoffError,
  HelmNotFoundError,
  HelmVersionError,
  PermanentHelmError,
  ReleaseBusyError,
  ReleaseStateError,
  SpecError,
  TransientHelmError,
} from "./errors.js";
export {
  type HandoffChartSource,
  type HandoffRecord,
  type HandoffRecordInput,
  makeHandoffRecord,
  valuesDigest,
} from "./handoff.js";
export {
  type HelmCallName,
  type HelmCallPolicy,
  HelmRunner,
  type HelmRunnerOptions,
  type InstallCallOptions,
  type ReleaseInfo,
  type ReleaseListItem,
  type ReleaseRevision,
  type RollbackOptions,
  type TemplateOptions,
  type UninstallOptions,
  type UpgradeCallOptions,
} from "./helm/index.js";
export {
  type ClusterIdentity,
  type ClusterIdentityOptions,
  clusterIdentityFromKubeconfig,
} from "./identity.js";
export {
  type EnsureAction,
  type EnsureReleaseOptions,
  type EnsureReleaseResult,
  ensureRelease,
  type InstallPhase,
  isRetryableFailure,
  type ProgressEvent,
} from "./install.js";
export { isKeyedDigest, KEYED_DIGEST_PREFIX, keyedValuesDigest, newDigestKey } from "./keyed-digest.js";
export { type Ownership, OwnershipError, type ReleaseOwner } from "./lifecycle/ownership.js";
export {
  type ClassifyOptions,
  classifyRelease,
  type ObservedRelease,
  type ReleaseComparison,
  type ReleaseState,
} from "./lifecycle/state.js";
export {
  allowedHelmCalls,
  type LifecycleStep,
  STRATEGY_TABLE,
  type StepCalls,
  type StrategyRules,
} from "./lifecycle/strategy.js";
export type { DesiredRelease, UpgradeReason } from "./lifecycle/upgrade.js";
export {
  type ApiServerReady,
  type ApiServerWaitInfo,
  type WaitForApiServerOptions,
  waitForApiServer,
} from "./readiness.js";
export { type RemoveOutcome, type RemoveReleaseOptions, removeRelease } from "./remove.js";
export { Semaphore } from "./semaphore.js";
export {
  type AddonSpec,
  type ChartSource,
  type DurationInput,
  type InstallOptions,
  MAX_DURATION,
  type PathChartSource,
  type RepoChartSource,
  type ResolvedChartSource,
  type ResolvedInstallOptions,
  type ResolvedPathChart,
  type ResolvedRepoChart,
  type ResolvedRetryPolicy,
  type ResolvedSpec,
  type RetryPolicy,
  STRATEGIES,
  type Strategy,
  validateSpec,
} from "./spec.js";
