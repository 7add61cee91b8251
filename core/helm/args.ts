/**
 * The argv of every helm command helm-handoff runs, built by pure functions (argv arrays only,
 * never a shell string, never a secret): the chart reference and what prepares it (`helm repo add`
 * with the password on stdin; an OCI registry's credentials for the call's registry config), TLS
 * flags, the flags of install, upgrade and template, and the version check. Both runners, the async one and the
 * synchronous one of the cdk8s construct, build their commands here and only here.
 *
 * @module
 */
import type { ResolvedRepoChart, ResolvedSpec } from "../spec/index.js";
import type { RegistryCredential } from "./registry-config.js";
import type { TemplateOptions } from "./types.js";

/** One helm run that prepares a chart source: its argv (without binary) and its stdin. */
export interface HelmStep {
  /** The helm arguments, without the binary and without the isolation flags. */
  readonly args: readonly string[];
  /** What helm reads on stdin (a password with `--password-stdin`). */
  readonly input: string;
}

/** How a chart is referenced, and what must run first to make the reference work. */
export interface ChartPlan {
  /** Commands to run, in order, before the command that uses the chart (repo add). */
  readonly setup: readonly HelmStep[];
  /** The OCI registry's credentials, for the call's registry config (never a `helm registry login`). */
  readonly registryCredential: RegistryCredential | undefined;
  /** The chart reference and its source flags (`--repo`, `--version`, TLS), placed after the release name. */
  readonly chartArgs: readonly string[];
  /** Secrets the plan handles (the repository password, `user:password`), to register with the call's redactor. */
  readonly secrets: readonly string[];
  /** The repository entry to write to the call's repository config (a secret repository URL), if any. */
  readonly repository?: RepositoryEntry;
}

/** One entry of helm's repository config (`repositories.yaml`), as `helm repo add` writes it. */
export interface RepositoryEntry {
  readonly name: string;
  readonly url: string;
  readonly username?: string;
  readonly password?: string;
  readonly caFile?: string;
  readonly insecure_skip_tls_verify: boolean;
  readonly pass_credentials_all: false;
}

/** The repository name used for a repository with credentials (lives only in the call's temp dir). */
const REPO_NAME = "helm-handoff";

/**
 * The chart reference of `spec` and the steps that make it usable:
 * - a path: the path, nothing to prepare;
 * - `oci://` with credentials: the reference, and the credentials for the call's registry config;
 * - HTTPS with a secret URL (`secretRepo`): the URL (and credentials) in the call's repository
 *   config, `helm repo update helm-handoff` first, then `helm-handoff/NAME`: the URL is never in argv;
 * - HTTP(S) with credentials: `helm repo add helm-handoff URL --password-stdin` first, then `helm-handoff/NAME`;
 * - without credentials: `--repo URL` (HTTP) or the `oci://…/name` reference directly.
 */
export function chartPlan(spec: ResolvedSpec): ChartPlan {
  const c = spec.chart;
  if (c.kind === "path")
    return { setup: [], chartArgs: [c.path], registryCredential: undefined, secrets: [] };
  const tls = tlsFlags(c);
  const version = c.version !== undefined ? ["--version", c.version] : [];
  const credentials =
    c.username !== undefined && c.password !== undefined
      ? { username: c.username, password: c.password }
      : undefined;
  const secrets =
    credentials !== undefined
      ? [credentials.password, `${credentials.username}:${credentials.password}`]
      : c.password !== undefined
        ? [c.password]
        : [];
  if (c.kind === "oci") {
    const plain = c.plainHttp ? ["--plain-http"] : [];
    return {
      setup: [],
      chartArgs: [`${c.repo}/${c.name}`, ...version, ...plain, ...tls],
      registryCredential:
        credentials !== undefined ? { host: new URL(c.repo).host, ...credentials } : undefined,
      secrets,
    };
  }
  if (c.secretRepo) {
    const repository: RepositoryEntry = {
      name: REPO_NAME,
      url: c.repo,
      ...(credentials ?? {}),
      ...(c.caFile !== undefined ? { caFile: c.caFile } : {}),
      insecure_skip_tls_verify: c.insecureSkipTlsVerify,
      pass_credentials_all: false,
    };
    return {
      setup: [{ args: ["repo", "update", REPO_NAME], input: "" }],
      chartArgs: [`${REPO_NAME}/${c.name}`, ...version, ...tls],
      registryCredential: undefined,
      secrets: [...secrets, c.repo],
      repository,
    };
  }
  if (credentials !== undefined) {
    const add: HelmStep = {
      args: [
        "repo",
        "add",
        REPO_NAME,
        c.repo,
        "--username",
        credentials.username,
        "--password-stdin",
        "--force-update",
        ...tls,
      ],
      input: credentials.password,
    };
    return {
      setup: [add],
      chartArgs: [`${REPO_NAME}/${c.name}`, ...version, ...tls],
      registryCredential: undefined,
      secrets,
    };
  }
  return {
    setup: [],
    chartArgs: [c.name, "--repo", c.repo, ...version, ...tls],
    registryCredential: undefined,
    secrets,
  };
}

/** TLS flags of chart downloads (`helm install/upgrade/template/repo add`). */
function tlsFlags(c: ResolvedRepoChart): string[] {
  const args: string[] = [];
  if (c.caFile !== undefined) args.push("--ca-file", c.caFile);
  if (c.insecureSkipTlsVerify) args.push("--insecure-skip-tls-verify");
  return args;
}

/**
 * Skips helm's client-side check of the rendered objects against the cluster's OpenAPI document
 * (install and upgrade). helm v4 applies server-side with Strict field validation, so the API server
 * rejects the same mistakes with the same message ("field not declared in schema"); the client-side
 * check only downloads and parses the OpenAPI document once more per helm run, a large part of the
 * CPU of a small install.
 */
export const NO_CLIENT_OPENAPI = "--disable-openapi-validation";

/** The flags of install and upgrade taken from `spec.install`. */
export function installFlags(spec: ResolvedSpec): string[] {
  const i = spec.install;
  const args = ["--timeout", i.timeout.toHelmFlag()];
  if (i.wait) args.push("--wait"); // helm v4: "--wait" alone = watcher strategy
  if (i.waitForJobs) args.push("--wait-for-jobs");
  if (i.skipCrds) args.push("--skip-crds");
  if (i.disableHooks) args.push("--no-hooks");
  if (i.description !== undefined) args.push("--description", i.description);
  return args;
}

/** `--labels k=v,…` for release labels (none when empty). */
export function labelArgs(labels: Readonly<Record<string, string>> = {}): string[] {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}=${v}`);
  return pairs.length === 0 ? [] : ["--labels", pairs.join(",")];
}

/** `helm install NAME CHART …`; `valuesArgs` are the `-f` flags (see `valuesFileArgs`). */
export function installArgs(
  spec: ResolvedSpec,
  chartArgs: readonly string[],
  valuesArgs: readonly string[],
  dryRun: "client" | "server" | undefined,
  labels: Readonly<Record<string, string>> = {},
): string[] {
  const args = ["install", spec.releaseName, ...chartArgs, "--namespace", spec.namespace];
  if (spec.createNamespace) args.push("--create-namespace");
  args.push(...installFlags(spec), ...labelArgs(labels), ...valuesArgs, "-o", "json", NO_CLIENT_OPENAPI);
  if (dryRun !== undefined) args.push(`--dry-run=${dryRun}`);
  return args;
}

/** `helm upgrade NAME CHART --reset-values …`: no `--install`, no rollback on failure. */
export function upgradeArgs(
  spec: ResolvedSpec,
  chartArgs: readonly string[],
  valuesArgs: readonly string[],
  labels: Readonly<Record<string, string>> = {},
): string[] {
  return [
    "upgrade",
    spec.releaseName,
    ...chartArgs,
    "--namespace",
    spec.namespace,
    "--reset-values",
    ...installFlags(spec),
    ...labelArgs(labels),
    ...valuesArgs,
    "-o",
    "json",
    NO_CLIENT_OPENAPI,
  ];
}

/**
 * The flags of `helm template` that follow the chart reference: namespace, CRDs, tests, hooks and
 * capabilities (values files and chart source flags are not included). Pure.
 */
export function templateFlags(spec: ResolvedSpec, options: TemplateOptions = {}): string[] {
  const args = ["--namespace", spec.namespace];
  if (spec.install.skipCrds) args.push("--skip-crds");
  else if (options.includeCrds ?? true) args.push("--include-crds");
  if (options.skipTests ?? true) args.push("--skip-tests");
  if (spec.install.disableHooks) args.push("--no-hooks");
  if (options.kubeVersion !== undefined) args.push("--kube-version", options.kubeVersion);
  for (const v of options.apiVersions ?? []) args.push("--api-versions", v);
  return args;
}

/** `helm template NAME CHART …`, values last. */
export function templateArgs(
  spec: ResolvedSpec,
  chartArgs: readonly string[],
  valuesArgs: readonly string[],
  options: TemplateOptions = {},
): string[] {
  return ["template", spec.releaseName, ...chartArgs, ...templateFlags(spec, options), ...valuesArgs];
}

/** The version query both runners run once per binary. */
export const VERSION_ARGS: readonly string[] = ["version", "--template", "{{.Version}}"];
