/**
 * The add-on spec shared by the Pulumi and cdk8s front ends, and its validation.
 *
 * `validateSpec` checks everything that can be checked without a cluster and returns a
 * {@link ResolvedSpec} with every default filled in and every duration converted to a
 * {@link Duration}. Durations may be given as `Duration`, as strings (`"5m"`) or as numbers of
 * seconds, since Pulumi inputs are plain JSON.
 *
 * @module
 */
import { accessSync, constants, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { Duration } from "./duration.js";
import { SpecError } from "./errors.js";

/** A chart in an HTTP(S) chart repository or an OCI registry. */
export interface RepoChartSource {
  /** Repository URL: `https://…` (or `http://…`) for a chart repository, `oci://…` for a registry. */
  readonly repo: string;
  /** The chart's name, without repository, tag or digest, e.g. `"cilium"`. */
  readonly name: string;
  /**
   * An exact version (`"1.2.3"`) or a semver range helm understands (`"^1.2"`, `"~1.2.3"`,
   * `">=1.0.0 <2.0.0"`, `"1.2.x"`).
   * @default - the latest version the repository offers
   */
  readonly version?: string;
  /** User name for the repository's basic auth (needs `password`). @default - no authentication */
  readonly username?: string;
  /** Password for the repository's basic auth (needs `username`). Never put in argv. @default - no authentication */
  readonly password?: string;
  /** Path of a CA bundle to verify the repository's TLS certificate. @default - the system's CAs */
  readonly caFile?: string;
  /** Skip TLS verification of the repository. @default - false */
  readonly insecureSkipTlsVerify?: boolean;
  /** Use plain HTTP for an `oci://` registry. @default - false */
  readonly plainHttp?: boolean;
}

/** A chart on the local file system: a chart directory or a packaged `.tgz`. */
export interface PathChartSource {
  /** Path of the chart directory (with `Chart.yaml`) or packaged chart; relative to the working directory. */
  readonly path: string;
}

/** Where the chart comes from: a repository (`repo` + `name`) or a local `path`. */
export type ChartSource = RepoChartSource | PathChartSource;

/** A duration as accepted in input: a {@link Duration}, a string such as `"5m"`, or a number of seconds. */
export type DurationInput = Duration | string | number;

/** Options of each install or upgrade attempt. */
export interface InstallOptions {
  /** Wait until the release's resources are ready (helm `--wait`, watcher strategy). @default - true */
  readonly wait?: boolean;
  /** Also wait for the release's Jobs to complete (needs `wait`). @default - false */
  readonly waitForJobs?: boolean;
  /** Timeout of one attempt (helm `--timeout`, also enforced on the process). @default - 5 minutes */
  readonly timeout?: DurationInput;
  /** Do not install the chart's CRDs. @default - false */
  readonly skipCrds?: boolean;
  /** Do not run the chart's hooks. @default - false */
  readonly disableHooks?: boolean;
  /** Description recorded in the release. @default - helm's own ("Install complete") */
  readonly description?: string;
}

/** How long and how often to retry transient failures. */
export interface RetryPolicy {
  /** Overall deadline of the operation, all attempts and waits included. @default - 15 minutes */
  readonly deadline?: DurationInput;
  /** Smallest backoff between attempts. @default - 2 seconds */
  readonly minBackoff?: DurationInput;
  /** Largest backoff between attempts. @default - 30 seconds */
  readonly maxBackoff?: DurationInput;
}

/** The lifecycle strategies, see {@link Strategy}. */
export const STRATEGIES = ["ApplyOnce", "Reconcile"] as const;

/**
 * - `ApplyOnce`: install once (or adopt), then hand off; later changes and deletes do nothing.
 * - `Reconcile`: keep the release in line with the spec; delete uninstalls it.
 */
export type Strategy = (typeof STRATEGIES)[number];

/** A Helm add-on to bootstrap into a cluster. */
export interface AddonSpec {
  /** Where the chart comes from. */
  readonly chart: ChartSource;
  /** Release name: a lowercase DNS-1123 name of at most 53 characters. */
  readonly releaseName: string;
  /** Namespace of the release (and of its release Secret). @default - "default" */
  readonly namespace?: string;
  /** Create the namespace if it does not exist. @default - false */
  readonly createNamespace?: boolean;
  /** Chart values (a plain, JSON-serializable object). Treated as secret. @default - {} */
  readonly values?: Record<string, unknown>;
  /** Paths of YAML values files, applied before `values`. @default - none */
  readonly valueFiles?: readonly string[];
  /** Options of each attempt. @default - see {@link InstallOptions} */
  readonly install?: InstallOptions;
  /** Lifecycle strategy. @default - "ApplyOnce" */
  readonly strategy?: Strategy;
  /** Retry policy. @default - see {@link RetryPolicy} */
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

/** helm's limit on release names. */
export const MAX_RELEASE_NAME_LENGTH = 53;

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const CHART_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

const SEMVER_PART = String.raw`(?:0|[1-9]\d*|[xX*])`;
const SEMVER = String.raw`v?${SEMVER_PART}(?:\.${SEMVER_PART}){0,2}(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?`;
const COMPARATOR = String.raw`(?:(?:!=|>=|=>|<=|=<|~>|[=><~^])\s*)?${SEMVER}`;
const TERM = String.raw`(?:${SEMVER}\s+-\s+${SEMVER}|${COMPARATOR})`;
const GROUP = String.raw`${TERM}(?:(?:\s*,\s*|\s+)${TERM})*`;
const CONSTRAINT = new RegExp(String.raw`^\s*${GROUP}(?:\s*\|\|\s*${GROUP})*\s*$`);

/**
 * Whether `text` is a version helm accepts in `--version`: an exact semantic version or a
 * Masterminds/semver constraint (`^1.2`, `~1.2.3`, `>=1.0.0 <2.0.0`, `1.2.x`, `1.2 - 1.4`, `a || b`).
 */
export function isVersionConstraint(text: string): boolean {
  return CONSTRAINT.test(text);
}

const REPO_KEYS = new Set([
  "repo",
  "name",
  "version",
  "username",
  "password",
  "caFile",
  "insecureSkipTlsVerify",
  "plainHttp",
]);
const INSTALL_KEYS = new Set(["wait", "waitForJobs", "timeout", "skipCrds", "disableHooks", "description"]);
const RETRY_KEYS = new Set(["deadline", "minBackoff", "maxBackoff"]);

/**
 * Validates an add-on spec without touching a cluster and fills in every default.
 *
 * Top-level keys that are not part of {@link AddonSpec} are ignored (front ends pass their
 * inputs through); unknown keys inside `chart`, `install` and `retry` are rejected as typos.
 * Files named by `valueFiles`, `chart.path` and `chart.caFile` must exist and be readable.
 *
 * @param input - the spec, typically an {@link AddonSpec} or plain JSON from Pulumi inputs
 * @throws SpecError naming the field path and the fix
 */
export function validateSpec(input: unknown): ResolvedSpec {
  if (!isPlainObject(input)) {
    throw new SpecError(
      "spec",
      `spec is invalid: must be an object with at least chart and releaseName, got ${describe(input)}`,
    );
  }
  const releaseName = validateReleaseName(input.releaseName);
  const namespace = validateNamespace(input.namespace);
  const createNamespace = optionalBoolean(input.createNamespace, "createNamespace", false);
  const strategy = validateStrategy(input.strategy);
  const chart = validateChart(input.chart);
  const values = validateValues(input.values);
  const valueFiles = validateValueFiles(input.valueFiles);
  const install = validateInstall(input.install);
  const retry = validateRetry(input.retry, install.timeout);
  return { chart, releaseName, namespace, createNamespace, values, valueFiles, install, strategy, retry };
}

/**
 * Validates only the fields present in `input`, for front ends that know some fields before
 * others (a Pulumi program: plain args at construction, Outputs later). Absent fields are not
 * checked; {@link validateSpec} still runs on the whole spec later.
 * @throws SpecError naming the field path and the fix
 */
export function validateKnownFields(input: Readonly<Record<string, unknown>>): void {
  if ("releaseName" in input) validateReleaseName(input.releaseName);
  if ("namespace" in input) validateNamespace(input.namespace);
  if ("createNamespace" in input) optionalBoolean(input.createNamespace, "createNamespace", false);
  if ("strategy" in input) validateStrategy(input.strategy);
  if ("chart" in input) validateChart(input.chart);
  if ("values" in input) validateValues(input.values);
  if ("valueFiles" in input) validateValueFiles(input.valueFiles);
  const install = validateInstall(input.install);
  if ("retry" in input) validateRetry(input.retry, install.timeout);
}

/**
 * Validates a release name alone (helm: lowercase DNS-1123, at most 53 characters).
 * @throws SpecError on `releaseName`
 */
export function validateReleaseName(value: unknown): string {
  if (typeof value !== "string") {
    throw new SpecError(
      "releaseName",
      `releaseName is required: give a lowercase DNS-1123 name of at most ${MAX_RELEASE_NAME_LENGTH} characters (helm's limit), e.g. "my-addon", got ${describe(value)}`,
    );
  }
  if (value.length > MAX_RELEASE_NAME_LENGTH || !DNS1123_SUBDOMAIN.test(value)) {
    throw new SpecError(
      "releaseName",
      `releaseName ${JSON.stringify(value)} is invalid: must be a lowercase DNS-1123 name of at most ${MAX_RELEASE_NAME_LENGTH} characters (helm's limit), e.g. ${JSON.stringify(suggestName(value, MAX_RELEASE_NAME_LENGTH))}`,
    );
  }
  return value;
}

function validateNamespace(value: unknown): string {
  if (value === undefined) return "default";
  if (typeof value !== "string" || value.length > 63 || !DNS1123_LABEL.test(value)) {
    const shown = typeof value === "string" ? JSON.stringify(value) : describe(value);
    const example = typeof value === "string" ? suggestName(value.replace(/\./g, "-"), 63) : "kube-system";
    throw new SpecError(
      "namespace",
      `namespace ${shown} is invalid: must be a lowercase DNS-1123 label of at most 63 characters, e.g. ${JSON.stringify(example)}`,
    );
  }
  return value;
}

function validateStrategy(value: unknown): Strategy {
  if (value === undefined) return "ApplyOnce";
  if (typeof value === "string" && (STRATEGIES as readonly string[]).includes(value))
    return value as Strategy;
  throw new SpecError(
    "strategy",
    `strategy ${typeof value === "string" ? JSON.stringify(value) : describe(value)} is invalid: must be one of ${STRATEGIES.map((s) => JSON.stringify(s)).join(", ")}`,
  );
}

const CHART_SHAPE =
  'give either { repo, name, version? } for a repository chart (repo "https://…" or "oci://…") or { path } for a local chart';

function validateChart(value: unknown): ResolvedChartSource {
  if (!isPlainObject(value)) {
    throw new SpecError("chart", `chart is required: ${CHART_SHAPE}, got ${describe(value)}`);
  }
  const hasRepo = value.repo !== undefined;
  const hasPath = value.path !== undefined;
  if (hasRepo && hasPath) {
    throw new SpecError("chart", `chart has both repo and path: ${CHART_SHAPE}`);
  }
  if (!hasRepo && !hasPath) {
    throw new SpecError("chart", `chart has neither repo nor path: ${CHART_SHAPE}`);
  }
  if (hasPath) return validatePathChart(value);
  return validateRepoChart(value);
}

function validatePathChart(value: Record<string, unknown>): ResolvedPathChart {
  for (const key of Object.keys(value)) {
    if (key === "path" || value[key] === undefined) continue;
    throw new SpecError(
      `chart.${key}`,
      `chart.${key} is not allowed with chart.path: a local chart is used as it is (its version comes from its Chart.yaml)`,
    );
  }
  const p = value.path;
  if (typeof p !== "string" || p.trim() === "") {
    throw new SpecError(
      "chart.path",
      `chart.path is invalid: must be a non-empty path of a chart directory or .tgz, got ${describe(p)}`,
    );
  }
  const abs = resolve(p);
  let ok = false;
  try {
    const st = statSync(abs);
    if (st.isDirectory()) {
      accessSync(join(abs, "Chart.yaml"), constants.R_OK);
      ok = true;
    } else if (st.isFile()) {
      accessSync(abs, constants.R_OK);
      ok = true;
    }
  } catch {
    ok = false;
  }
  if (!ok) {
    throw new SpecError(
      "chart.path",
      `chart.path ${JSON.stringify(p)} is invalid: no readable chart there (need a directory with Chart.yaml or a packaged .tgz)`,
    );
  }
  return { kind: "path", path: abs };
}

function validateRepoChart(value: Record<string, unknown>): ResolvedRepoChart {
  for (const key of Object.keys(value)) {
    if (!REPO_KEYS.has(key)) {
      throw new SpecError(
        `chart.${key}`,
        `chart.${key} is not a known field: a repository chart takes ${[...REPO_KEYS].join(", ")}`,
      );
    }
  }
  const repoRaw = value.repo;
  const repoExample = 'e.g. "https://charts.example.org" or "oci://registry.example.org/charts"';
  if (typeof repoRaw !== "string") {
    throw new SpecError(
      "chart.repo",
      `chart.repo is invalid: must be a URL string, ${repoExample}, got ${describe(repoRaw)}`,
    );
  }
  const kind = /^oci:\/\//i.test(repoRaw) ? "oci" : /^https?:\/\//i.test(repoRaw) ? "repo" : undefined;
  let urlOk = false;
  try {
    const u = new URL(repoRaw);
    urlOk = u.hostname !== "" && u.search === "" && u.hash === "";
    if (u.username !== "" || u.password !== "") {
      // A password in the URL would reach helm's argv, the state and the handoff record in clear.
      throw new SpecError(
        "chart.repo",
        "chart.repo must not carry credentials (user:password@): give them as chart.username and chart.password, which are kept secret",
      );
    }
  } catch (e) {
    if (e instanceof SpecError) throw e;
    urlOk = false;
  }
  if (kind === undefined || !urlOk) {
    throw new SpecError(
      "chart.repo",
      `chart.repo ${JSON.stringify(repoRaw)} is invalid: must be an https://, http:// or oci:// URL, ${repoExample}`,
    );
  }
  const repo = repoRaw.replace(/\/+$/, "");
  const name = value.name;
  if (typeof name !== "string" || name === "") {
    throw new SpecError(
      "chart.name",
      `chart.name is required with chart.repo: give the chart's name, e.g. "cilium", got ${describe(name)}`,
    );
  }
  if (kind === "oci" && /[:@]/.test(name)) {
    const base = name.split(/[:@]/, 1)[0] ?? name;
    const tag = name.slice(base.length + 1);
    throw new SpecError(
      "chart.name",
      `chart.name ${JSON.stringify(name)} is invalid: an oci:// chart name must not carry a tag or digest; put the version in chart.version, e.g. name ${JSON.stringify(base)}, version ${JSON.stringify(/^sha256:/.test(tag) ? "1.2.3" : tag)}`,
    );
  }
  if (!CHART_NAME.test(name)) {
    const hint = name.includes("/")
      ? `the repository goes in chart.repo, e.g. ${JSON.stringify(name.split("/").pop())}`
      : 'e.g. "cilium"';
    throw new SpecError(
      "chart.name",
      `chart.name ${JSON.stringify(name)} is invalid: must be the chart's name alone (letters, digits, ".", "_", "-"); ${hint}`,
    );
  }
  const version = value.version;
  if (version !== undefined && (typeof version !== "string" || !isVersionConstraint(version))) {
    throw new SpecError(
      "chart.version",
      `chart.version ${typeof version === "string" ? JSON.stringify(version) : describe(version)} is invalid: must be an exact version (e.g. "1.2.3") or a semver range helm understands (e.g. "^1.2", "~1.2.3", ">=1.0.0 <2.0.0", "1.2.x"); omit it for the latest version`,
    );
  }
  const username = optionalString(value.username, "chart.username");
  const password = optionalString(value.password, "chart.password", true);
  if (username !== undefined && password === undefined) {
    throw new SpecError(
      "chart.password",
      "chart.username is set but chart.password is not: give both for basic auth, or neither",
    );
  }
  if (password !== undefined && username === undefined) {
    throw new SpecError(
      "chart.username",
      "chart.password is set but chart.username is not: give both for basic auth, or neither",
    );
  }
  const caFileRaw = optionalString(value.caFile, "chart.caFile");
  const caFile =
    caFileRaw === undefined ? undefined : readableFile(caFileRaw, "chart.caFile", "a PEM CA bundle");
  const insecureSkipTlsVerify = optionalBoolean(
    value.insecureSkipTlsVerify,
    "chart.insecureSkipTlsVerify",
    false,
  );
  const plainHttp = optionalBoolean(value.plainHttp, "chart.plainHttp", false);
  if (plainHttp && kind !== "oci") {
    throw new SpecError(
      "chart.plainHttp",
      `chart.plainHttp only applies to oci:// repositories: for plain HTTP chart repositories use an http:// repo URL`,
    );
  }
  return {
    kind,
    repo,
    name,
    version: typeof version === "string" ? version.trim() : undefined,
    username,
    password,
    caFile,
    insecureSkipTlsVerify,
    plainHttp,
  };
}

function validateValues(value: unknown): Readonly<Record<string, unknown>> {
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value)) {
    throw new SpecError(
      "values",
      `values is invalid: must be a plain object of chart values, e.g. { replicaCount: 2 }, got ${describeSecret(value)}`,
    );
  }
  checkJson(value, "values");
  return value;
}

function checkJson(value: unknown, path: string): void {
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (Number.isFinite(value)) return;
    throw new SpecError(path, `${path} is invalid: chart values must be JSON, got ${value}`);
  }
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) checkJson(v, `${path}[${i}]`);
    return;
  }
  if (isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      checkJson(v, /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`);
    }
    return;
  }
  throw new SpecError(
    path,
    `${path} is invalid: chart values must be JSON (objects, arrays, strings, numbers, booleans, null), got ${describe(value)}`,
  );
}

function validateValueFiles(value: unknown): readonly string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new SpecError(
      "valueFiles",
      `valueFiles is invalid: must be an array of file paths, got ${describe(value)}`,
    );
  }
  return value.map((f, i) => {
    const field = `valueFiles[${i}]`;
    if (typeof f !== "string" || f === "") {
      throw new SpecError(field, `${field} is invalid: must be a file path, got ${describe(f)}`);
    }
    return readableFile(f, field, "a YAML values file");
  });
}

function readableFile(p: string, field: string, what: string): string {
  const abs = resolve(p);
  let problem: string | undefined;
  try {
    if (!statSync(abs).isFile()) problem = "is not a file";
    else accessSync(abs, constants.R_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    problem = code === "ENOENT" ? "does not exist" : `cannot be read (${code ?? "error"})`;
  }
  if (problem !== undefined) {
    throw new SpecError(
      field,
      `${field} ${JSON.stringify(p)} ${problem}: give the path of ${what} readable by this process`,
    );
  }
  return abs;
}

function validateInstall(value: unknown): ResolvedInstallOptions {
  if (value === undefined) value = {};
  if (!isPlainObject(value)) {
    throw new SpecError(
      "install",
      `install is invalid: must be an object of install options, got ${describe(value)}`,
    );
  }
  rejectUnknown(value, INSTALL_KEYS, "install");
  const wait = optionalBoolean(value.wait, "install.wait", true);
  const waitForJobs = optionalBoolean(value.waitForJobs, "install.waitForJobs", false);
  if (waitForJobs && !wait) {
    throw new SpecError(
      "install.waitForJobs",
      "install.waitForJobs is true but install.wait is false: waiting for Jobs needs install.wait",
    );
  }
  return {
    wait,
    waitForJobs,
    timeout: toDuration(value.timeout, "install.timeout", DEFAULT_TIMEOUT),
    skipCrds: optionalBoolean(value.skipCrds, "install.skipCrds", false),
    disableHooks: optionalBoolean(value.disableHooks, "install.disableHooks", false),
    description: optionalString(value.description, "install.description"),
  };
}

function validateRetry(value: unknown, timeout: Duration): ResolvedRetryPolicy {
  if (value === undefined) value = {};
  if (!isPlainObject(value)) {
    throw new SpecError(
      "retry",
      `retry is invalid: must be an object { deadline?, minBackoff?, maxBackoff? }, got ${describe(value)}`,
    );
  }
  rejectUnknown(value, RETRY_KEYS, "retry");
  const deadline = toDuration(value.deadline, "retry.deadline", DEFAULT_DEADLINE);
  const minBackoff = toDuration(value.minBackoff, "retry.minBackoff", DEFAULT_MIN_BACKOFF);
  const maxBackoff = toDuration(value.maxBackoff, "retry.maxBackoff", DEFAULT_MAX_BACKOFF);
  if (maxBackoff.toMilliseconds() < minBackoff.toMilliseconds()) {
    throw new SpecError(
      "retry.maxBackoff",
      `retry.maxBackoff "${maxBackoff}" is shorter than retry.minBackoff "${minBackoff}": raise retry.maxBackoff or lower retry.minBackoff`,
    );
  }
  if (deadline.toMilliseconds() < timeout.toMilliseconds()) {
    throw new SpecError(
      "retry.deadline",
      `retry.deadline "${deadline}" is shorter than install.timeout "${timeout}": the overall deadline must allow at least one full attempt; raise retry.deadline or lower install.timeout`,
    );
  }
  return { deadline, minBackoff, maxBackoff };
}

/**
 * Converts a duration input (a {@link Duration}, a string such as `"5m"`, or a number of
 * seconds) into a positive {@link Duration}.
 *
 * @param value - the input
 * @param field - the prop, for the error message
 * @param fallback - returned when `value` is undefined; @default - none: undefined is an error
 * @throws SpecError naming `field` when the value is not a positive duration
 */
function toDuration(value: unknown, field: string, fallback?: Duration): Duration {
  if (value === undefined && fallback !== undefined) return fallback;
  let d: Duration | undefined;
  if (Duration.isDuration(value)) d = value;
  else if (typeof value === "number" && Number.isFinite(value) && value >= 0) d = Duration.seconds(value);
  else if (typeof value === "string") {
    try {
      d = Duration.parse(value, field);
    } catch {
      d = undefined;
    }
  }
  if (d === undefined || d.isZero()) {
    const shown = Duration.isDuration(value)
      ? JSON.stringify(value.toString())
      : typeof value === "string"
        ? JSON.stringify(value)
        : typeof value === "number"
          ? String(value)
          : describe(value);
    throw new SpecError(
      field,
      `${field} ${shown} is invalid: must be a positive duration such as "5m", "300s" or "1h30m", or a number of seconds`,
    );
  }
  return d;
}

function rejectUnknown(obj: Record<string, unknown>, known: ReadonlySet<string>, prefix: string): void {
  for (const key of Object.keys(obj)) {
    if (!known.has(key)) {
      throw new SpecError(
        `${prefix}.${key}`,
        `${prefix}.${key} is not a known field: ${prefix} takes ${[...known].join(", ")}`,
      );
    }
  }
}

function optionalBoolean(value: unknown, field: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") {
    throw new SpecError(field, `${field} is invalid: must be true or false, got ${describe(value)}`);
  }
  return value;
}

function optionalString(value: unknown, field: string, secret = false): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "") {
    const got = secret ? describeSecret(value) : describe(value);
    throw new SpecError(field, `${field} is invalid: must be a non-empty string, got ${got}`);
  }
  return value;
}

/** Whether `value` is a plain object (`{}` literal or `Object.create(null)`), not an array, class instance or null. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Like {@link describe}, without the content: for fields that hold secrets (values, passwords). */
function describeSecret(value: unknown): string {
  if (value === undefined || value === null || Array.isArray(value) || typeof value === "object") {
    return describe(value);
  }
  return `a ${typeof value} (a secret field: its content is never shown)`;
}

function describe(value: unknown): string {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string")
    return `a string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === "object")
    return `an instance of ${(value as object).constructor?.name ?? "an unknown class"}`;
  return `${typeof value} ${String(value)}`;
}

function suggestName(value: string, max: number): string {
  const s = value
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, "-")
    .slice(0, max)
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, "");
  return s === "" ? "my-addon" : s;
}
