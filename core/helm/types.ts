/**
 * The public shapes of the helm runners: the options of a {@link HelmRunner}, the options of each
 * call, and what helm reports about a release (parsed by `parse.ts`). Types only, no code: the
 * async runner (`runner.ts`), the synchronous one (`sync.ts`) and the lifecycle all read them.
 *
 * @module
 */
import type { Duration } from "../spec/duration.js";
import type { Semaphore } from "../util/semaphore.js";

/** The {@link HelmRunner} methods that run helm, as the strategy table names them. */
export type HelmCallName =
  | "version"
  | "install"
  | "upgrade"
  | "rollback"
  | "uninstall"
  | "status"
  | "history"
  | "getValues"
  | "template"
  | "list"
  | "relabel";

/** Which helm calls a runner may make, and in what context (for the error message). */
export interface HelmCallPolicy {
  /** The calls allowed; `version` runs only when another call is allowed. */
  readonly allowed: ReadonlySet<HelmCallName>;
  /** The strategy and step, e.g. `"ApplyOnce update"`. */
  readonly context: string;
}

/** Options of a {@link HelmRunner}. */
export interface HelmRunnerOptions {
  /** Kubeconfig content (not a path) for commands that talk to a cluster. @default none: cluster commands fail */
  readonly kubeconfig?: string;
  /**
   * The helm binary (name on PATH or path).
   * @default `$HELM_HANDOFF_HELM` when set, else "helm" on PATH
   */
  readonly helmBinary?: string;
  /**
   * Extra environment variables for helm, set over the variables it inherits (only an allowlist of
   * the process environment: PATH, HOME, locale, proxy and TLS trust, Go runtime tuning).
   * @default none
   */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Bounds how many helm processes run at once, across every runner sharing it (a slot is held only
   * while a helm process runs, so waiting for one does not eat into the attempt's timeout).
   * @default unbounded
   * @internal the Pulumi provider shares one among its runners.
   */
  readonly slots?: Semaphore;
  /** Receives helm's stderr lines (and stdout lines of install/upgrade/uninstall/rollback), redacted. @default output is dropped */
  readonly onOutput?: (line: string) => void;
  /** Cancels running helm processes (SIGTERM, then SIGKILL after `forceKillAfter`). @default not cancellable */
  readonly signal?: AbortSignal;
  /** Directory for helm's cache/config/data homes. @default `${XDG_CACHE_HOME:-~/.cache}/helm-handoff/helm` */
  readonly helmHome?: string;
  /** Where per-call temp dirs are created. @default `os.tmpdir()` */
  readonly tempDir?: string;
  /** Extra secrets to redact from messages and output. @default none */
  readonly secrets?: Iterable<string>;
  /**
   * Which calls this runner may make; any other throws `HelmCallNotAllowedError` before helm starts.
   * @default every call
   * @internal the front ends pass the strategy table's policy of the step they run.
   */
  readonly policy?: HelmCallPolicy;
  /** Timeout of commands that have no spec timeout (status, list, history, get values, version). @default 2 minutes */
  readonly commandTimeout?: Duration;
  /** Delay between SIGTERM and SIGKILL when helm is timed out or cancelled. @default 5 seconds */
  readonly forceKillAfter?: Duration;
}

/** A release as reported by `helm status -o json` (or install/upgrade `-o json`). */
export interface ReleaseInfo {
  /** Release name. */
  readonly name: string;
  /** Release namespace. */
  readonly namespace: string;
  /** Revision number. */
  readonly revision: number;
  /** Status, e.g. `"deployed"`, `"failed"`, `"pending-install"`. */
  readonly status: string;
  /** Chart name. */
  readonly chart: string;
  /** Chart version. */
  readonly chartVersion: string;
  /** The chart's appVersion (empty when the chart has none). */
  readonly appVersion: string;
  /** First deployment time (ISO 8601). */
  readonly firstDeployed: string;
  /** Last deployment time (ISO 8601). */
  readonly lastDeployed: string;
  /** Description of the last operation. */
  readonly description: string;
  /** The release's labels (helm v4 release metadata; a label set by an upgrade is kept by later ones). */
  readonly labels: Readonly<Record<string, string>>;
}

/** One revision from `helm history -o json`. */
export interface ReleaseRevision {
  /** Revision number. */
  readonly revision: number;
  /** When it was written (ISO 8601). */
  readonly updated: string;
  /** Status of this revision. */
  readonly status: string;
  /** `name-version` of the chart. */
  readonly chart: string;
  /** The chart's appVersion. */
  readonly appVersion: string;
  /** Description. */
  readonly description: string;
}

/** One release from `helm list -o json`. */
export interface ReleaseListItem {
  /** Release name. */
  readonly name: string;
  /** Release namespace. */
  readonly namespace: string;
  /** Revision number. */
  readonly revision: number;
  /** Status. */
  readonly status: string;
  /** `name-version` of the chart. */
  readonly chart: string;
  /** The chart's appVersion. */
  readonly appVersion: string;
  /** Last update, as helm prints it. */
  readonly updated: string;
}

/** Options of {@link HelmRunner.install}. */
export interface InstallCallOptions {
  /** Simulate: `true` or `"server"` = `--dry-run=server`, `"client"` = `--dry-run=client` (no cluster needed). @default false */
  readonly dryRun?: boolean | "client" | "server";
  /** Release labels to set (`--labels`). @default none */
  readonly labels?: Readonly<Record<string, string>>;
}

/** Options of {@link HelmRunner.upgrade}. */
export interface UpgradeCallOptions {
  /** Release labels to set (`--labels`; helm merges them into the previous revision's). @default none */
  readonly labels?: Readonly<Record<string, string>>;
}

/** Options of {@link HelmRunner.template}. */
export interface TemplateOptions {
  /** Kubernetes version for `.Capabilities.KubeVersion`. @default helm's built-in default */
  readonly kubeVersion?: string;
  /** Extra API versions for `.Capabilities.APIVersions`. @default none */
  readonly apiVersions?: readonly string[];
  /** Include the chart's CRDs in the output (ignored when `spec.install.skipCrds`). @default true */
  readonly includeCrds?: boolean;
  /** Leave out test hooks. @default true */
  readonly skipTests?: boolean;
}

/** Options of {@link HelmRunner.uninstall}. */
export interface UninstallOptions {
  /** Wait until the resources are deleted. @default false */
  readonly wait?: boolean;
  /** Timeout of the command. @default the runner's commandTimeout */
  readonly timeout?: Duration;
}

/** Options of {@link HelmRunner.rollback}. */
export interface RollbackOptions {
  /** Wait until the resources are ready. @default true */
  readonly wait?: boolean;
  /** Timeout of the command. @default the runner's commandTimeout */
  readonly timeout?: Duration;
  /** Description recorded in the new revision (at most 256 characters). @default helm's own ("Rollback to N") */
  readonly description?: string;
}
