/**
 * The helm runners: the async {@link HelmRunner} (Pulumi, the lifecycle) and the synchronous
 * `helm template` of the cdk8s construct, built from the same modules. This index is what the
 * rest of the code imports; the modules behind it are internal.
 *
 * @module
 */
export { templateFlags } from "./args.js";
export { resolveHelmBinary } from "./binary.js";
export { HelmRunner } from "./runner.js";
export { helmTemplateSync, helmVersionSync } from "./sync.js";
export type {
  HelmCallName,
  HelmCallPolicy,
  HelmRunnerOptions,
  InstallCallOptions,
  ReleaseInfo,
  ReleaseListItem,
  ReleaseRevision,
  RollbackOptions,
  TemplateOptions,
  UninstallOptions,
  UpgradeCallOptions,
} from "./types.js";
