/**
 * helm-handoff core: the add-on spec, the helm runner, retries, cluster identity, readiness and
 * the install lifecycle shared by the Pulumi and cdk8s front ends.
 *
 * @module
 */
export { Duration } from "./duration.js";
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
  canonicalJson,
  digestOf,
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
  type RemoveReleaseOptions,
  removeRelease,
} from "./install.js";
export {
  type ClassifyOptions,
  classifyRelease,
  type ReleaseState,
} from "./lifecycle/state.js";
export {
  allowedHelmCalls,
  helmPolicy,
  type LifecycleStep,
  mayCall,
  mayCallHelm,
  STRATEGY_TABLE,
  type StrategyRules,
} from "./lifecycle/strategy.js";
export {
  type DesiredRelease,
  desiredRelease,
  type LiveRelease,
  needsUpgrade,
  type UpgradeReason,
} from "./lifecycle/upgrade.js";
export {
  type ApiServerReady,
  type ApiServerWaitInfo,
  type WaitForApiServerOptions,
  waitForApiServer,
} from "./readiness.js";
export { REDACTED, Redactor } from "./redact.js";
export { backoffDelay, type RetryInfo, type RetryOptions, retry } from "./retry.js";
export { Semaphore } from "./semaphore.js";
/** An {@link AddonSpec} as plain input (durations as `"5m"` or seconds are accepted): same type. */
export type {
  AddonSpec as AddonSpecInput,
  InstallOptions as InstallOptionsInput,
  RetryPolicy as RetryPolicyInput,
} from "./spec.js";
export {
  type AddonSpec,
  type ChartSource,
  type DurationInput,
  type InstallOptions,
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
  validateKnownFields,
  validateSpec,
} from "./spec.js";
export { mergeValues, readValueFiles } from "./values.js";
