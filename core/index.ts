/**
 * `helm-handoff` (this folder, `core/`; `helm-handoff/gitops` is its `handoff/gitops` module): what a
 * program needs beside the front ends: the add-on spec's types, the typed errors, the handoff
 * record, the helm runner and cluster identity. The install lifecycle (`ensureRelease`,
 * `removeRelease`) and the spec's validation (`validateSpec`) stay internal. Only what a user
 * calls or names is exported here, every type those signatures use with them (the names are fixed
 * by the package-contents unit test, the signatures by docs/api/helm-handoff.api.md); the
 * package's own code imports the core's modules directly.
 *
 * @module
 */

export {
  type ClusterIdentity,
  type ClusterIdentityOptions,
  clusterIdentityFromKubeconfig,
} from "./cluster/identity.js";
export {
  type AttemptRecord,
  CredentialsRejectedError,
  DeadlineExceededError,
  type ErrorCode,
  HelmError,
  type HelmErrorDetails,
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
} from "./handoff/record.js";
export { HelmRunner, type HelmRunnerOptions, type ReleaseInfo } from "./helm/index.js";
export { type Ownership, OwnershipError } from "./lifecycle/ownership.js";
export { Duration } from "./spec/duration.js";
export type {
  AddonSpec,
  ChartSource,
  DurationInput,
  InstallOptions,
  PathChartSource,
  RepoChartSource,
  RetryPolicy,
  Strategy,
} from "./spec/index.js";
