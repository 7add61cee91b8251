/**
 * The add-on spec's types, shared by the Pulumi and cdk8s front ends: what a user writes
 * ({@link AddonSpec}: durations as `Duration`, `"5m"` or seconds, since Pulumi inputs are plain
 * JSON) and what `validateSpec` returns ({@link ResolvedSpec}: every default filled in), plus the
 * defaults. Types and constants only.
 *
 * @module
 */
import { Duration } from "./duration.js";

/** A chart in an HTTP(S) chart repository or an OCI registry. */
export interface RepoChartSource {
  /** Repository URL: `https://…` (or `http://…`) for a chart repository, `oci://…` for a registry. */
  readonly repo: string;
  /** The chart's name, without repository, tag or digest, e.g. `"cilium"`. */
  readonly name: string;
  /**
   * An exact version (`"1.2.3"`) or a semver range helm understands (`"^1.2"`, `"~1.2.3"`,
   * `">=1.0.0 <2.0.0"`, `"1.2.x"`).
   * @default the latest version the repository offers
   */
  readonly version?: string;
  /** User name for the repository's basic auth (needs `password`). @default no authentication */
  readonly username?: string;
  /** Password for the repository's basic auth (needs `username`). Never put in argv. @default no authentication */
  readonly password?: string;
  /** Path of a CA bundle to verify the repository's TLS certificate. @default the system's CAs */
  readonly caFile?: string;
  /** Skip TLS verification of the repository. @default false */
  readonly insecureSkipTlsVerify?: boolean;
  /** Use plain HTTP for an `oci://` registry. @default false */
  readonly plainHttp?: boolean;
  /**
   * The repository URL is a secret (a token in its path, as some hosted registries issue them):
   * helm reads it from the call's private repository config, never from argv; the state keeps it
   * as a secret; handoff records leave it out. For `https://` chart repositories.
   * @default false
   */
  readonly secretRepo?: boolean;
}

/** A chart on the local file system: a chart directory or a packaged `.tgz`. */
export interface PathChartSource {
  /** Path of the chart directory (with `Chart.yaml`) or packaged chart; relative to the working directory. */
  readonly path: string;
}

/** Where the chart comes from: a repository (`repo` + `name`) or a local `path`. */
export type ChartSource = RepoChartSource | PathChartSource;

/**
 * A duration as accepted in input: a {@link Duration}, a string such as `"5m"`, or a number of
 * seconds; more than zero and at most 24 hours (`MAX_DURATION`).
 */
export type DurationInput = Duration | string | number;

/** Options of each install or upgrade attempt. */
export interface InstallOptions {
  /** Wait until the release's resources are ready (helm `--wait`, watcher strategy). @default true */
  readonly wait?: boolean;
  /** Also wait for the release's Jobs to complete (needs `wait`). @default false */
  readonly waitForJobs?: boolean;
  /** Timeout of one attempt (helm `--timeout`, also enforced on the process). @default 5 minutes */
  readonly timeout?: DurationInput;
  /** Do not install the chart's CRDs. @default false */
  readonly skipCrds?: boolean;
  /** Do not run the chart's hooks. @default false */
  readonly disableHooks?: boolean;
  /** Description recorded in the release. @default helm's own ("Install complete") */
  readonly description?: string;
}

/** How long and how often to retry transient failures. */
export interface RetryPolicy {
  /** Overall deadline of the operation, all attempts and waits included. @default 15 minutes */
  readonly deadline?: DurationInput;
  /** Smallest backoff between attempts. @default 2 seconds */
  readonly minBackoff?: DurationInput;
  /** Largest backoff between attempts. @default 30 seconds */
  readonly maxBackoff?: DurationInput;
}

/**
 * - `ApplyOnce`: install once (or adopt), then hand off; later changes and deletes do nothing.
 * - `Reconcile`: upgrade on change, uninstall on delete; a revision someone else wrote (a person's
 *   `helm upgrade`, a controller) is refused with `OwnershipError` unless `adopt: true`, which
 *   takes it back.
 */
export type Strategy = "ApplyOnce" | "Reconcile";

/** Every {@link Strategy}: a key per strategy, which the compiler requires. */
const EVERY_STRATEGY: { readonly [S in Strategy]: true } = { ApplyOnce: true, Reconcile: true };

/** The lifecycle strategies, see {@link Strategy}. */
export const STRATEGIES = Object.keys(EVERY_STRATEGY) as readonly Strategy[];

/** A Helm add-on to bootstrap into a cluster. */
export interface AddonSpec {
  /** Where the chart comes from. */
  readonly chart: ChartSource;
  /** Release name: a lowercase DNS-1123 name of at most 53 characters. */
  readonly releaseName: string;
  /** Namespace of the release (and of its release Secret). @default "default" */
  readonly namespace?: string;
  /** Create the namespace if it does not exist. @default false */
  readonly createNamespace?: boolean;
  /** Chart values (a plain, JSON-serializable object). Treated as secret. @default {} */
  readonly values?: Record<string, unknown>;
  /** Paths of YAML values files, applied before `values`. @default none */
  readonly valueFiles?: readonly string[];
  /** Options of each attempt. @default see {@link InstallOptions} */
  readonly install?: InstallOptions;
  /** Lifecycle strategy. @default "ApplyOnce" */
  readonly strategy?: Strategy;
  /**
   * Reconcile only: take over a release of this name that this resource did not write (installed
   * by hand or another tool, upgraded by someone else since, or another stack's), marking it as
   * this resource's, instead of failing with an `OwnershipError`. ApplyOnce always adopts such a
   * release as it is and never writes to it.
   * @default false
   */
  readonly adopt?: boolean;
  /** Retry policy. @default see {@link RetryPolicy} */
  readonly retry?: RetryPolicy;
}

/** A repository chart after validation. */
export interface ResolvedRepoChart {
  /** `"repo"` for an HTTP(S) chart repository, `"oci"` for an OCI registry. */
  readonly kind: "repo" | "oci";
  /** Repository URL, without a trailing slash. */
  readonly repo: string;
  /** Chart name. */
  readonly name: string;
  /** Version or range, if given. */
  readonly version: string | undefined;
  /** Basic-auth user name, if given. */
  readonly username: string | undefined;
  /** Basic-auth password, if given. */
  readonly password: string | undefined;
  /** Absolute path of the CA bundle, if given. */
  readonly caFile: string | undefined;
  /** Skip TLS verification. */
  readonly insecureSkipTlsVerify: boolean;
  /** Plain HTTP for OCI. */
  readonly plainHttp: boolean;
  /** The repository URL is a secret (see {@link RepoChartSource.secretRepo}). */
  readonly secretRepo: boolean;
}

/** A local chart after validation. */
export interface ResolvedPathChart {
  /** Always `"path"`. */
  readonly kind: "path";
  /** Absolute path of the chart. */
  readonly path: string;
}

/** A chart source after validation. */
export type ResolvedChartSource = ResolvedRepoChart | ResolvedPathChart;

/** Install options with defaults filled in. */
export interface ResolvedInstallOptions {
  /** See {@link InstallOptions.wait}. */
  readonly wait: boolean;
  /** See {@link InstallOptions.waitForJobs}. */
  readonly waitForJobs: boolean;
  /** See {@link InstallOptions.timeout}. */
  readonly timeout: Duration;
  /** See {@link InstallOptions.skipCrds}. */
  readonly skipCrds: boolean;
  /** See {@link InstallOptions.disableHooks}. */
  readonly disableHooks: boolean;
  /** See {@link InstallOptions.description}. */
  readonly description: string | undefined;
}

/** Retry policy with defaults filled in. */
export interface ResolvedRetryPolicy {
  /** See {@link RetryPolicy.deadline}. */
  readonly deadline: Duration;
  /** See {@link RetryPolicy.minBackoff}. */
  readonly minBackoff: Duration;
  /** See {@link RetryPolicy.maxBackoff}. */
  readonly maxBackoff: Duration;
}

/** An {@link AddonSpec} after {@link validateSpec}: every default filled in, paths absolute. */
export interface ResolvedSpec {
  /** The chart source. */
  readonly chart: ResolvedChartSource;
  /** Release name. */
  readonly releaseName: string;
  /** Release namespace. */
  readonly namespace: string;
  /** Whether to create the namespace. */
  readonly createNamespace: boolean;
  /** Chart values (a plain object, possibly empty). */
  readonly values: Readonly<Record<string, unknown>>;
  /** Absolute paths of values files. */
  readonly valueFiles: readonly string[];
  /** Options of each attempt. */
  readonly install: ResolvedInstallOptions;
  /** Lifecycle strategy. */
  readonly strategy: Strategy;
  /** See {@link AddonSpec.adopt}. */
  readonly adopt: boolean;
  /** Retry policy. */
  readonly retry: ResolvedRetryPolicy;
}

/** Default per-attempt timeout. */
export const DEFAULT_TIMEOUT = Duration.minutes(5);
/** Default overall deadline. */
export const DEFAULT_DEADLINE = Duration.minutes(15);
/** Default smallest backoff. */
export const DEFAULT_MIN_BACKOFF = Duration.seconds(2);
/** Default largest backoff. */
export const DEFAULT_MAX_BACKOFF = Duration.seconds(30);
/**
 * The longest duration any field of a spec takes (`install.timeout`, `retry.*`): 24 hours, well
 * inside what a timer can wait even with the grace helm's process gets after its own timeout.
 */
export const MAX_DURATION = Duration.hours(24);

/** helm's limit on release names. */
export const MAX_RELEASE_NAME_LENGTH = 53;
