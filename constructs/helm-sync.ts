/**
 * A synchronous `helm template` for cdk8s (constructs are built synchronously).
 *
 * helm runs through `spawnSync` with argv arrays only (never a shell). Values and repository
 * passwords go into 0600 files in a private 0700 temp dir (passwords on stdin), removed after the
 * call. helm's homes point into `${XDG_CACHE_HOME:-~/.cache}/helm-handoff/helm` like the async
 * runner's, so the user's helm config is never read. Every helm process started here is counted
 * ({@link helmInvocationCount}), so tests can prove that a cached synth runs no helm.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { classifyHelmFailure, HelmNotFoundError, HelmVersionError, makeHelmError } from "../core/errors.js";
import { type TemplateOptions, templateFlags } from "../core/helm.js";
import { cacheHome, isExecutable, toolchainBinDir } from "../core/paths.js";
import { Redactor } from "../core/redact.js";
import type { ResolvedRepoChart, ResolvedSpec } from "../core/spec.js";

/** helm's output can be large (a big operator renders several MB). */
const MAX_BUFFER = 256 * 1024 * 1024;
const ENV_DROPPED = new Set(["KUBECONFIG", "HELM_KUBECONTEXT", "HELM_NAMESPACE"]);

let invocations = 0;

/** How many helm processes this module has started in this process (version checks included). */
export function helmInvocationCount(): number {
  return invocations;
}

/**
 * Finds helm: `explicit`, else `$HELM_HANDOFF_HELM`, else `helm` on PATH, else the project's
 * toolchain bin dir.
 * @throws HelmNotFoundError listing what was tried
 */
export function resolveHelmBinary(explicit?: string): string {
  if (explicit !== undefined) {
    if (explicit.includes("/") && !isExecutable(explicit)) throw new HelmNotFoundError([explicit]);
    if (!explicit.includes("/")) return findOnPath(explicit) ?? notFound([`"${explicit}" on PATH`]);
    return explicit;
  }
  const fromEnv = process.env.HELM_HANDOFF_HELM;
  if (fromEnv !== undefined && fromEnv !== "") return resolveHelmBinary(fromEnv);
  const onPath = findOnPath("helm");
  if (onPath !== undefined) return onPath;
  const fallback = join(toolchainBinDir(), "helm");
  if (isExecutable(fallback)) return fallback;
  return notFound(['"helm" on PATH', fallback]);
}

function notFound(searched: string[]): never {
  throw new HelmNotFoundError(searched);
}

function findOnPath(name: string): string | undefined {
  for (const d of (process.env.PATH ?? "").split(delimiter)) {
    if (d === "") continue;
    const candidate = join(d, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function helmEnv(): Record<string, string> {
  const home = join(cacheHome(), "helm-handoff", "helm");
  const dirs = {
    HELM_CACHE_HOME: join(home, "cache"),
    HELM_CONFIG_HOME: join(home, "config"),
    HELM_DATA_HOME: join(home, "data"),
  };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true, mode: 0o700 });
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !ENV_DROPPED.has(k)) env[k] = v;
  }
  return { ...env, ...dirs };
}

interface RunResult {
  readonly stdout: string;
  readonly stderr: string;
}

function run(bin: string, args: readonly string[], redactor: Redactor, input?: string): RunResult {
  invocations++;
  const r = spawnSync(bin, args, {
    env: helmEnv(),
    input: input ?? "",
    maxBuffer: MAX_BUFFER,
    encoding: "utf8",
    timeout: 10 * 60 * 1000,
  });
  if (r.error !== undefined) {
    const code = (r.error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "EACCES") throw new HelmNotFoundError([bin], { cause: r.error });
  }
  if (r.status === 0 && r.error === undefined) return { stdout: r.stdout, stderr: r.stderr };
  const stderr = redactor.redact(r.stderr ?? "").trim();
  const cls = classifyHelmFailure(stderr);
  throw makeHelmError(
    {
      kind: r.signal === "SIGTERM" ? "transient" : cls.kind,
      reason: r.signal === "SIGTERM" ? "timed out" : cls.reason,
      command: redactor.redactArgv([bin, ...args]),
      exitCode: r.status ?? undefined,
      stderr: stderr
        .split("\n")
        .filter((l) => !l.startsWith("level="))
        .join("\n"),
      timedOut: r.signal === "SIGTERM",
    },
    r.error !== undefined ? { cause: r.error } : undefined,
  );
}

/**
 * The version of the helm at `bin` (e.g. `"v4.3.1"`), by running `helm version`.
 * @throws HelmVersionError when it is older than v4
 */
export function helmVersionSync(bin: string): string {
  const out = run(bin, ["version", "--template", "{{.Version}}"], new Redactor()).stdout.trim();
  const major = /^v?(\d+)\./.exec(out)?.[1];
  if (major === undefined || Number(major) < 4) throw new HelmVersionError(bin, out || "(unknown version)");
  return out;
}

/**
 * Renders a chart with `helm template` synchronously: CRDs included, tests skipped (see
 * the core's `templateFlags`), values from `spec.valueFiles` then `spec.values`.
 *
 * @param bin - the helm binary (see {@link resolveHelmBinary})
 * @returns the manifest YAML helm printed
 * @throws HelmError (classified like the async runner's) when helm fails
 */
export function helmTemplateSync(bin: string, spec: ResolvedSpec, options: TemplateOptions = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "helm-handoff-synth-"));
  const redactor = new Redactor().addValues(spec.values);
  try {
    const isolation = [
      "--registry-config",
      join(dir, "registry.json"),
      "--repository-config",
      join(dir, "repositories.yaml"),
      "--repository-cache",
      join(dir, "repository-cache"),
    ];
    const chartArgs = prepareChart(bin, spec, dir, redactor, isolation);
    const args = ["template", spec.releaseName, ...chartArgs, ...templateFlags(spec, options)];
    for (const f of spec.valueFiles) args.push("-f", f);
    if (Object.keys(spec.values).length > 0) {
      const file = join(dir, "values.json");
      writeFileSync(file, JSON.stringify(spec.values), { mode: 0o600, flag: "wx" });
      args.push("-f", file);
    }
    return run(bin, [...args, ...isolation], redactor).stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function prepareChart(
  bin: string,
  spec: ResolvedSpec,
  _dir: string,
  redactor: Redactor,
  isolation: readonly string[],
): string[] {
  const c = spec.chart;
  if (c.kind === "path") return [c.path];
  redactor.add(c.password);
  const tls = tlsFlags(c);
  const version = c.version !== undefined ? ["--version", c.version] : [];
  if (c.kind === "oci") {
    const plain = c.plainHttp ? ["--plain-http"] : [];
    if (c.username !== undefined && c.password !== undefined) {
      const login = ["registry", "login", new URL(c.repo).host, "--username", c.username, "--password-stdin"];
      if (c.caFile !== undefined) login.push("--ca-file", c.caFile);
      if (c.insecureSkipTlsVerify) login.push("--insecure");
      run(bin, [...login, ...plain, ...isolation], redactor, c.password);
    }
    return [`${c.repo}/${c.name}`, ...version, ...plain, ...tls];
  }
  if (c.username !== undefined && c.password !== undefined) {
    const add = ["repo", "add", "helm-handoff", c.repo, "--username", c.username, "--password-stdin"];
    run(bin, [...add, "--force-update", ...tls, ...isolation], redactor, c.password);
    return [`helm-handoff/${c.name}`, ...version, ...tls];
  }
  return [c.name, "--repo", c.repo, ...version, ...tls];
}

function tlsFlags(c: ResolvedRepoChart): string[] {
  const args: string[] = [];
  if (c.caFile !== undefined) args.push("--ca-file", c.caFile);
  if (c.insecureSkipTlsVerify) args.push("--insecure-skip-tls-verify");
  return args;
}
