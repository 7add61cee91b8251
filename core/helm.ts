/**
 * `HelmRunner`: runs helm v4 through execa with argv arrays only.
 *
 * Every call gets a private temp dir (0700) holding the kubeconfig, the values and any repository
 * credentials as 0600 files; it is removed after the call, also when helm fails or is killed. A dir
 * left by a process that was itself killed mid-call is removed by the next call of any process: each
 * dir records its owner's pid, and dirs of dead owners are swept once per process.
 * Secrets never reach argv:
 * - HTTP(S) repositories with credentials: `helm repo add NAME URL --username U --password-stdin`
 *   into a `--repository-config`/`--repository-cache` inside the temp dir, then the chart is
 *   referenced as `NAME/chart` (verified on helm v4.3.1: helm writes the file 0600 and sends basic
 *   auth when fetching the index and the chart);
 * - `oci://` registries with credentials: `helm registry login HOST --username U --password-stdin`
 *   with `--registry-config` inside the temp dir, used by the install that follows;
 * - without credentials, `--repo URL` (HTTP) or the `oci://…/name` reference is used directly.
 *
 * helm's own homes (`HELM_CACHE_HOME`, `HELM_CONFIG_HOME`, `HELM_DATA_HOME`) point into the
 * runner's `helmHome`, so the user's `~/.config/helm` is never read or written.
 *
 * @module
 */
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { ExecaError, execa } from "execa";
import { Duration } from "./duration.js";
import {
  classifyHelmFailure,
  type HelmError,
  HelmNotFoundError,
  HelmVersionError,
  makeHelmError,
  SpecError,
} from "./errors.js";
import { cacheHome, isExecutable, toolchainBinDir } from "./paths.js";
import { Redactor } from "./redact.js";
import type { Semaphore } from "./semaphore.js";
import type { ResolvedRepoChart, ResolvedSpec } from "./spec.js";

/** Options of a {@link HelmRunner}. */
export interface HelmRunnerOptions {
  /** Kubeconfig content (not a path) for commands that talk to a cluster. @default - none: cluster commands fail */
  readonly kubeconfig?: string;
  /**
   * The helm binary (name on PATH or path).
   * @default - `$HELM_HANDOFF_HELM` when set, else "helm" on PATH, then
   * `${XDG_CACHE_HOME:-~/.cache}/helm-handoff/toolchain/bin/helm`
   */
  readonly helmBinary?: string;
  /** Extra environment variables for helm. @default - none (the process environment minus KUBECONFIG, HELM_KUBECONTEXT, HELM_NAMESPACE) */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Bounds how many helm processes run at once, across every runner sharing it (a slot is held only
   * while a helm process runs, so waiting for one does not eat into the attempt's timeout).
   * @default - unbounded
   */
  readonly slots?: Semaphore;
  /** Receives helm's stderr lines (and stdout lines of install/upgrade/uninstall/rollback), redacted. @default - output is dropped */
  readonly onOutput?: (line: string) => void;
  /** Cancels running helm processes (SIGTERM, then SIGKILL after `forceKillAfter`). @default - not cancellable */
  readonly signal?: AbortSignal;
  /** Directory for helm's cache/config/data homes. @default - `${XDG_CACHE_HOME:-~/.cache}/helm-handoff/helm` */
  readonly helmHome?: string;
  /** Where per-call temp dirs are created. @default - `os.tmpdir()` */
  readonly tempDir?: string;
  /** Extra secrets to redact from messages and output. @default - none */
  readonly secrets?: Iterable<string>;
  /** Timeout of commands that have no spec timeout (status, list, history, get values, version). @default - 2 minutes */
  readonly commandTimeout?: Duration;
  /** Delay between SIGTERM and SIGKILL when helm is timed out or cancelled. @default - 5 seconds */
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
  readonly chartName: string;
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
  /** Simulate: `true` or `"server"` = `--dry-run=server`, `"client"` = `--dry-run=client` (no cluster needed). @default - false */
  readonly dryRun?: boolean | "client" | "server";
}

/** Options of {@link HelmRunner.template}. */
export interface TemplateOptions {
  /** Kubernetes version for `.Capabilities.KubeVersion`. @default - helm's built-in default */
  readonly kubeVersion?: string;
  /** Extra API versions for `.Capabilities.APIVersions`. @default - none */
  readonly apiVersions?: readonly string[];
  /** Include the chart's CRDs in the output (ignored when `spec.install.skipCrds`). @default - true */
  readonly includeCrds?: boolean;
  /** Leave out test hooks. @default - true */
  readonly skipTests?: boolean;
}

/** Options of {@link HelmRunner.uninstall}. */
export interface UninstallOptions {
  /** Wait until the resources are deleted. @default - false */
  readonly wait?: boolean;
  /** Timeout of the command. @default - the runner's commandTimeout */
  readonly timeout?: Duration;
}

/** Options of {@link HelmRunner.rollback}. */
export interface RollbackOptions {
  /** Wait until the resources are ready. @default - true */
  readonly wait?: boolean;
  /** Timeout of the command. @default - the runner's commandTimeout */
  readonly timeout?: Duration;
}

/** Extra time given to the helm process beyond helm's own `--timeout`, so helm reports its own error first. */
const PROCESS_GRACE = Duration.seconds(15);
const ENV_DROPPED = new Set([
  "KUBECONFIG",
  "HELM_KUBECONTEXT",
  "HELM_NAMESPACE",
  "HELM_DRIVER_SQL_CONNECTION_STRING",
]);

interface CallOptions {
  readonly timeout: Duration;
  /** helm `--timeout` to pass (install, upgrade, uninstall, rollback). */
  readonly helmTimeout?: Duration;
  readonly input?: string;
  readonly needsCluster: boolean;
  readonly streamStdout: boolean;
}

interface CallContext {
  readonly dir: string;
  readonly redactor: Redactor;
  /** The kubeconfig file, once written (a call may run helm more than once). */
  kubeconfigFile?: string;
}

/** helm versions already checked in this process, by binary path. */
const checkedVersions = new Map<string, Promise<string>>();

/**
 * Runs helm v4. One runner per cluster (its kubeconfig); safe to use concurrently.
 *
 * Failures throw a {@link HelmError} subclass classified by {@link classifyHelmFailure}, with the
 * redacted argv, exit code and stderr, and the execa error as `cause`.
 */
export class HelmRunner {
  private readonly opts: HelmRunnerOptions;
  private readonly redactor: Redactor;
  private binaryPromise: Promise<string> | undefined;
  private versionPromise: Promise<string> | undefined;

  /** @param options - see {@link HelmRunnerOptions} */
  public constructor(options: HelmRunnerOptions = {}) {
    this.opts = options;
    this.redactor = new Redactor(options.secrets ?? []).addKubeconfig(options.kubeconfig);
  }

  /** The kubeconfig content the runner was given (a secret: never log it). */
  public get kubeconfig(): string | undefined {
    return this.opts.kubeconfig;
  }

  /** Redacts the runner's secrets (kubeconfig and credentials, registered secrets) from `text`. */
  public redact(text: string): string {
    return this.redactor.redact(text);
  }

  /** The helm version (e.g. `"v4.3.1"`); throws {@link HelmVersionError} if it is not v4 or later. */
  public version(): Promise<string> {
    this.versionPromise ??= this.binary().then((bin) => {
      // One check per binary per process: a provider process creates many runners.
      let checked = checkedVersions.get(bin);
      if (checked === undefined) {
        checked = this.checkVersion();
        checkedVersions.set(bin, checked);
        checked.catch(() => checkedVersions.delete(bin));
      }
      return checked;
    });
    // a failed check is not cached, so a later call can find a fixed binary
    this.versionPromise.catch(() => {
      this.versionPromise = undefined;
    });
    return this.versionPromise;
  }

  /** Installs the release (`helm install … -o json`), never upgrading an existing one. */
  public async install(spec: ResolvedSpec, options: InstallCallOptions = {}): Promise<ReleaseInfo> {
    const dryRun = options.dryRun === true ? "server" : options.dryRun === false ? undefined : options.dryRun;
    return this.withCall(async (ctx) => {
      const chartArgs = await this.prepareChart(ctx, spec);
      const args = ["install", spec.releaseName, ...chartArgs, "--namespace", spec.namespace];
      if (spec.createNamespace) args.push("--create-namespace");
      args.push(...this.installFlags(spec), ...(await this.valuesArgs(ctx, spec)), "-o", "json");
      args.push(NO_CLIENT_OPENAPI);
      if (dryRun !== undefined) args.push(`--dry-run=${dryRun}`);
      const { stdout } = await this.exec(ctx, args, {
        timeout: spec.install.timeout,
        helmTimeout: spec.install.timeout,
        needsCluster: dryRun !== "client",
        streamStdout: false,
      });
      return parseRelease(stdout, args, this.redactor);
    });
  }

  /** Upgrades the release to the spec (`helm upgrade --reset-values … -o json`); no `--install`, no rollback on failure. */
  public async upgrade(spec: ResolvedSpec): Promise<ReleaseInfo> {
    return this.withCall(async (ctx) => {
      const chartArgs = await this.prepareChart(ctx, spec);
      const args = [
        "upgrade",
        spec.releaseName,
        ...chartArgs,
        "--namespace",
        spec.namespace,
        "--reset-values",
      ];
      args.push(...this.installFlags(spec), ...(await this.valuesArgs(ctx, spec)), "-o", "json");
      args.push(NO_CLIENT_OPENAPI);
      const { stdout } = await this.exec(ctx, args, {
        timeout: spec.install.timeout,
        helmTimeout: spec.install.timeout,
        needsCluster: true,
        streamStdout: false,
      });
      return parseRelease(stdout, args, this.redactor);
    });
  }

  /** Rolls the release back to `revision`. */
  public async rollback(
    releaseName: string,
    namespace: string,
    revision: number,
    options: RollbackOptions = {},
  ): Promise<void> {
    const timeout = options.timeout ?? this.commandTimeout();
    await this.withCall(async (ctx) => {
      const args = [
        "rollback",
        releaseName,
        String(revision),
        "--namespace",
        namespace,
        "--timeout",
        timeout.toHelmFlag(),
      ];
      if (options.wait ?? true) args.push("--wait");
      await this.exec(ctx, args, { timeout, needsCluster: true, streamStdout: true });
    });
  }

  /**
   * Uninstalls the release. A release that does not exist counts as success.
   * @returns whether the release existed
   */
  public async uninstall(
    releaseName: string,
    namespace: string,
    options: UninstallOptions = {},
  ): Promise<boolean> {
    const timeout = options.timeout ?? this.commandTimeout();
    return this.withCall(async (ctx) => {
      const args = ["uninstall", releaseName, "--namespace", namespace, "--timeout", timeout.toHelmFlag()];
      if (options.wait) args.push("--wait");
      try {
        await this.exec(ctx, args, { timeout, needsCluster: true, streamStdout: true });
        return true;
      } catch (e) {
        if (isReleaseNotFound(e)) return false;
        throw e;
      }
    });
  }

  /** The release's status, or `undefined` when there is no such release. */
  public async status(releaseName: string, namespace: string): Promise<ReleaseInfo | undefined> {
    return this.withCall(async (ctx) => {
      const args = ["status", releaseName, "--namespace", namespace, "-o", "json"];
      try {
        const { stdout } = await this.exec(ctx, args, this.queryOptions());
        const release = parseRelease(stdout, args, this.redactor);
        if (release.chartName !== "") return release;
        // helm v4's `status -o json` carries no chart metadata; `get metadata` has it.
        const metaArgs = ["get", "metadata", releaseName, "--namespace", namespace, "-o", "json"];
        const meta = await this.exec(ctx, metaArgs, this.queryOptions());
        const m = parseJson(meta.stdout, metaArgs, this.redactor) as Record<string, unknown>;
        return {
          ...release,
          chartName: str(m.chart),
          chartVersion: str(m.version),
          appVersion: str(m.appVersion),
        };
      } catch (e) {
        if (isReleaseNotFound(e)) return undefined;
        throw e;
      }
    });
  }

  /** The release's revisions, oldest first; empty when there is no such release. */
  public async history(releaseName: string, namespace: string): Promise<ReleaseRevision[]> {
    return this.withCall(async (ctx) => {
      const args = ["history", releaseName, "--namespace", namespace, "--max", "256", "-o", "json"];
      try {
        const { stdout } = await this.exec(ctx, args, this.queryOptions());
        const rows = parseJson(stdout, args, this.redactor);
        if (!Array.isArray(rows)) return [];
        return rows.map((r: Record<string, unknown>) => ({
          revision: num(r.revision),
          updated: str(r.updated),
          status: str(r.status),
          chart: str(r.chart),
          appVersion: str(r.app_version),
          description: str(r.description),
        }));
      } catch (e) {
        if (isReleaseNotFound(e)) return [];
        throw e;
      }
    });
  }

  /** The user-supplied values of the release (`helm get values -o json`); `{}` when none. */
  public async getValues(releaseName: string, namespace: string): Promise<Record<string, unknown>> {
    return this.withCall(async (ctx) => {
      const args = ["get", "values", releaseName, "--namespace", namespace, "-o", "json"];
      const { stdout } = await this.exec(ctx, args, this.queryOptions());
      const v = parseJson(stdout, args, this.redactor);
      return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
    });
  }

  /** Renders the chart locally (`helm template`, no cluster) and returns the manifest YAML. */
  public async template(spec: ResolvedSpec, options: TemplateOptions = {}): Promise<string> {
    return this.withCall(async (ctx) => {
      const chartArgs = await this.prepareChart(ctx, spec);
      const args = ["template", spec.releaseName, ...chartArgs, ...templateFlags(spec, options)];
      args.push(...(await this.valuesArgs(ctx, spec)));
      const { stdout } = await this.exec(ctx, args, {
        timeout: spec.install.timeout,
        needsCluster: false,
        streamStdout: false,
      });
      return stdout;
    });
  }

  /** Releases in `namespace` (all statuses), or in all namespaces when omitted. */
  public async list(namespace?: string): Promise<ReleaseListItem[]> {
    return this.withCall(async (ctx) => {
      // helm v4 lists every status by default and has no --all flag (it fails with "unknown flag").
      const args = ["list", "--max", "0", "-o", "json"];
      if (namespace === undefined) args.push("--all-namespaces");
      else args.push("--namespace", namespace);
      const { stdout } = await this.exec(ctx, args, this.queryOptions());
      const rows = parseJson(stdout, args, this.redactor);
      if (!Array.isArray(rows)) return [];
      return rows.map((r: Record<string, unknown>) => ({
        name: str(r.name),
        namespace: str(r.namespace),
        revision: num(r.revision),
        status: str(r.status),
        chart: str(r.chart),
        appVersion: str(r.app_version),
        updated: str(r.updated),
      }));
    });
  }

  // ---------------------------------------------------------------------------------------------

  private commandTimeout(): Duration {
    return this.opts.commandTimeout ?? Duration.minutes(2);
  }

  private queryOptions(): CallOptions {
    return { timeout: this.commandTimeout(), needsCluster: true, streamStdout: false };
  }

  private installFlags(spec: ResolvedSpec): string[] {
    const i = spec.install;
    const args = ["--timeout", i.timeout.toHelmFlag()];
    if (i.wait) args.push("--wait"); // helm v4: "--wait" alone = watcher strategy
    if (i.waitForJobs) args.push("--wait-for-jobs");
    if (i.skipCrds) args.push("--skip-crds");
    if (i.disableHooks) args.push("--no-hooks");
    if (i.description !== undefined) args.push("--description", i.description);
    return args;
  }

  private async valuesArgs(ctx: CallContext, spec: ResolvedSpec): Promise<string[]> {
    const args: string[] = [];
    for (const f of spec.valueFiles) args.push("-f", f);
    ctx.redactor.addValues(spec.values);
    if (Object.keys(spec.values).length > 0) {
      const file = join(ctx.dir, "values.json");
      await writeFile(file, JSON.stringify(spec.values), { mode: 0o600, flag: "wx" });
      args.push("-f", file);
    }
    return args;
  }

  /** Chart reference and source flags; logs in / adds the repo first when credentials are given. */
  private async prepareChart(ctx: CallContext, spec: ResolvedSpec): Promise<string[]> {
    const c = spec.chart;
    if (c.kind === "path") return [c.path];
    ctx.redactor.add(c.password);
    const tls = tlsFlags(c);
    const version = c.version !== undefined ? ["--version", c.version] : [];
    if (c.kind === "oci") {
      const plain = c.plainHttp ? ["--plain-http"] : [];
      if (c.username !== undefined && c.password !== undefined) {
        const host = new URL(c.repo).host;
        await this.exec(
          ctx,
          [
            "registry",
            "login",
            host,
            "--username",
            c.username,
            "--password-stdin",
            ...plain,
            ...registryTls(c),
          ],
          { timeout: this.commandTimeout(), input: c.password, needsCluster: false, streamStdout: false },
        );
      }
      return [`${c.repo}/${c.name}`, ...version, ...plain, ...tls];
    }
    if (c.username !== undefined && c.password !== undefined) {
      const repoName = "helm-handoff";
      await this.exec(
        ctx,
        [
          "repo",
          "add",
          repoName,
          c.repo,
          "--username",
          c.username,
          "--password-stdin",
          "--force-update",
          ...tls,
        ],
        { timeout: this.commandTimeout(), input: c.password, needsCluster: false, streamStdout: false },
      );
      return [`${repoName}/${c.name}`, ...version, ...tls];
    }
    return [c.name, "--repo", c.repo, ...version, ...tls];
  }

  private async withCall<T>(fn: (ctx: CallContext) => Promise<T>): Promise<T> {
    const root = this.opts.tempDir ?? tmpdir();
    await sweepStaleCallDirs(root);
    const dir = await mkdtemp(join(root, CALL_DIR_PREFIX));
    try {
      await chmod(dir, 0o700);
      await writeFile(join(dir, OWNER_FILE), String(process.pid), { mode: 0o600 });
      return await fn({ dir, redactor: new Redactor().addAll(this.redactor) });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async resolveBinary(): Promise<string> {
    if (this.opts.helmBinary !== undefined) return this.opts.helmBinary;
    const fromEnv = process.env.HELM_HANDOFF_HELM;
    if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
    for (const d of (process.env.PATH ?? "").split(delimiter)) {
      if (d === "") continue;
      const candidate = join(d, "helm");
      if (isExecutable(candidate)) return candidate;
    }
    const fallback = join(toolchainBinDir(), "helm");
    if (isExecutable(fallback)) return fallback;
    throw new HelmNotFoundError(['"helm" on PATH', fallback]);
  }

  private binary(): Promise<string> {
    this.binaryPromise ??= this.resolveBinary();
    this.binaryPromise.catch(() => {
      this.binaryPromise = undefined;
    });
    return this.binaryPromise;
  }

  private async checkVersion(): Promise<string> {
    const bin = await this.binary();
    const out = await this.withCall((ctx) =>
      this.exec(
        ctx,
        ["version", "--template", "{{.Version}}"],
        {
          timeout: this.commandTimeout(),
          needsCluster: false,
          streamStdout: false,
        },
        true,
      ),
    );
    const found = out.stdout.trim();
    const major = /^v?(\d+)\./.exec(found)?.[1];
    if (major === undefined || Number(major) < 4)
      throw new HelmVersionError(bin, found || "(unknown version)");
    return found;
  }

  private async helmEnv(): Promise<Record<string, string>> {
    const home = this.opts.helmHome ?? join(cacheHome(), "helm-handoff", "helm");
    const dirs = {
      HELM_CACHE_HOME: join(home, "cache"),
      HELM_CONFIG_HOME: join(home, "config"),
      HELM_DATA_HOME: join(home, "data"),
    };
    for (const d of Object.values(dirs)) await mkdir(d, { recursive: true, mode: 0o700 });
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) {
      if (v !== undefined && !ENV_DROPPED.has(k)) env[k] = v;
    }
    // helm waits on the network most of the time; one OS thread per process keeps many concurrent
    // runs from fighting over the cores (≈20% less CPU with 8 at once on 2 cores, measured).
    const threads: Record<string, string> = env.GOMAXPROCS === undefined ? { GOMAXPROCS: "1" } : {};
    return { ...env, ...threads, ...this.opts.env, ...dirs };
  }

  private async exec(
    ctx: CallContext,
    args: readonly string[],
    call: CallOptions,
    skipVersionCheck = false,
  ): Promise<{ stdout: string; stderr: string }> {
    if (!skipVersionCheck) await this.version();
    const bin = await this.binary();
    const full = [...args];
    if (call.needsCluster) {
      if (this.opts.kubeconfig === undefined) {
        throw new SpecError(
          "kubeconfig",
          `kubeconfig is required for "helm ${args[0] ?? ""}": pass the kubeconfig option to HelmRunner`,
        );
      }
      if (ctx.kubeconfigFile === undefined) {
        const kc = join(ctx.dir, "kubeconfig");
        await writeFile(kc, this.opts.kubeconfig, { mode: 0o600, flag: "wx" });
        ctx.kubeconfigFile = kc;
      }
      full.push("--kubeconfig", ctx.kubeconfigFile);
    }
    // isolate from the user's helm config: credentials, if any, live in the temp dir
    full.push(
      "--registry-config",
      join(ctx.dir, "registry.json"),
      "--repository-config",
      join(ctx.dir, "repositories.yaml"),
      "--repository-cache",
      join(ctx.dir, "repository-cache"),
    );
    const onOutput = this.opts.onOutput;
    const redactor = ctx.redactor;
    const emit = function* (line: unknown) {
      if (onOutput !== undefined && typeof line === "string" && line.trim() !== "")
        onOutput(redactor.redact(line));
      yield line;
    };
    const timeout =
      call.helmTimeout !== undefined
        ? call.timeout.toMilliseconds() + PROCESS_GRACE.toMilliseconds()
        : call.timeout.toMilliseconds();
    const command = [bin, ...full];
    const env = await this.helmEnv();
    try {
      const run = () =>
        execa(bin, full, {
          env,
          extendEnv: false,
          timeout,
          ...(this.opts.signal !== undefined ? { cancelSignal: this.opts.signal } : {}),
          forceKillAfterDelay: (this.opts.forceKillAfter ?? Duration.seconds(5)).toMilliseconds(),
          input: call.input ?? "",
          stdout: call.streamStdout ? [emit] : "pipe",
          stderr: [emit],
          stripFinalNewline: false,
        });
      const slots = this.opts.slots;
      const result = await (slots !== undefined ? slots.run(run) : run());
      return { stdout: String(result.stdout), stderr: String(result.stderr) };
    } catch (e) {
      throw this.toError(e, command, redactor);
    }
  }

  private toError(e: unknown, command: readonly string[], redactor: Redactor): Error {
    if (!(e instanceof ExecaError)) return e instanceof Error ? e : new Error(String(e));
    const code = (e as { code?: unknown }).code ?? (e.cause as { code?: unknown } | undefined)?.code;
    if (code === "ENOENT" && e.exitCode === undefined) {
      return new HelmNotFoundError([command[0] ?? "helm"], { cause: e });
    }
    const stderr = redactor.redact(typeof e.stderr === "string" ? e.stderr : "");
    const argv = redactor.redactArgv(command);
    if (e.isCanceled) {
      return makeHelmError(
        {
          kind: "permanent",
          reason: "cancelled",
          command: argv,
          exitCode: e.exitCode,
          stderr,
          canceled: true,
        },
        { cause: e },
      );
    }
    if (e.timedOut) {
      return makeHelmError(
        {
          kind: "transient",
          reason: `attempt timed out after ${Duration.millis(e.durationMs).toString()}`,
          command: argv,
          exitCode: e.exitCode,
          stderr,
          timedOut: true,
        },
        { cause: e },
      );
    }
    if (e.isTerminated && e.exitCode === undefined) {
      // Killed by a signal we did not send (OOM killer, a node or CI agent shutting down): the
      // attempt was cut short, not refused. The lifecycle removes the partial release and retries.
      return makeHelmError(
        {
          kind: "transient",
          reason: `helm was killed by ${e.signal ?? "a signal"}`,
          command: argv,
          exitCode: undefined,
          stderr: summarizeStderr(stderr),
        },
        { cause: e },
      );
    }
    const cls = classifyHelmFailure(stderr);
    return makeHelmError(
      {
        kind: cls.kind,
        reason: cls.reason,
        command: argv,
        exitCode: e.exitCode,
        stderr: summarizeStderr(stderr),
      },
      { cause: e },
    );
  }
}

/**
 * Skips helm's client-side check of the rendered objects against the cluster's OpenAPI document
 * (install and upgrade). helm v4 applies server-side with Strict field validation, so the API server
 * rejects the same mistakes with the same message ("field not declared in schema"); the client-side
 * check only downloads and parses the OpenAPI document once more per helm run (≈30% of the CPU of a
 * small install, measured).
 */
const NO_CLIENT_OPENAPI = "--disable-openapi-validation";

/** Prefix of the per-call temp dirs (`mkdtemp` appends six characters). */
const CALL_DIR_PREFIX = "helm-handoff-";
const CALL_DIR = /^helm-handoff-[A-Za-z0-9]{6}$/;
/** File in each per-call temp dir holding the pid of the process that made it. */
const OWNER_FILE = "owner.pid";
/** A call dir without an owner file (still being set up, or made by an older version) is left alone this long. */
const UNOWNED_GRACE_MS = 60 * 60 * 1000;
const sweeps = new Map<string, Promise<void>>();

/**
 * Removes the per-call temp dirs that a process killed mid-call (SIGKILL of the dynamic provider,
 * of `pulumi up`'s whole process tree) could not remove itself: dirs of this user whose owner
 * process is gone. Runs once per temp root and process; best effort, never throws.
 */
function sweepStaleCallDirs(root: string): Promise<void> {
  let sweep = sweeps.get(root);
  if (sweep === undefined) {
    sweep = (async () => {
      const uid = process.getuid?.();
      for (const name of await readdir(root).catch(() => [] as string[])) {
        if (!CALL_DIR.test(name)) continue;
        const dir = join(root, name);
        try {
          const st = await stat(dir);
          if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) continue;
          const owner = await readFile(join(dir, OWNER_FILE), "utf8").catch(() => undefined);
          const stale =
            owner === undefined ? Date.now() - st.mtimeMs > UNOWNED_GRACE_MS : !processExists(Number(owner));
          if (stale) await rm(dir, { recursive: true, force: true });
        } catch {
          // removed meanwhile, or not ours to touch
        }
      }
    })();
    sweeps.set(root, sweep);
  }
  return sweep;
}

function processExists(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * The flags of `helm template` that follow the chart reference: namespace, CRDs, tests, hooks and
 * capabilities (values files and chart source flags are not included). Pure; shared with the cdk8s
 * front end's synchronous renderer.
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

/**
 * helm v4 logs `level=ERROR msg=…` lines that repeat the final `Error: …` text; drop them when an
 * `Error:` line is present, keep everything else (schema errors list their fields on later lines).
 */
function summarizeStderr(stderr: string): string {
  const lines = stderr.trim().split("\n");
  if (!lines.some((l) => l.startsWith("Error: "))) return stderr.trim();
  return lines.filter((l) => !l.startsWith("level=")).join("\n");
}

/** Whether `e` is helm's "release: not found" (status, uninstall, history, get). */
export function isReleaseNotFound(e: unknown): boolean {
  return (
    typeof e === "object" &&
    e !== null &&
    typeof (e as HelmError).stderr === "string" &&
    /release: not found|release not found/i.test((e as HelmError).stderr)
  );
}

function tlsFlags(c: ResolvedRepoChart): string[] {
  const args: string[] = [];
  if (c.caFile !== undefined) args.push("--ca-file", c.caFile);
  if (c.insecureSkipTlsVerify) args.push("--insecure-skip-tls-verify");
  return args;
}

function registryTls(c: ResolvedRepoChart): string[] {
  const args: string[] = [];
  if (c.caFile !== undefined) args.push("--ca-file", c.caFile);
  if (c.insecureSkipTlsVerify) args.push("--insecure");
  return args;
}

function parseJson(stdout: string, args: readonly string[], redactor: Redactor): unknown {
  try {
    // helm prints "Pulled: …" / "Digest: …" lines before the JSON for oci:// charts.
    const start = stdout.search(/^[[{]/m);
    return JSON.parse(start > 0 ? stdout.slice(start) : stdout) as unknown;
  } catch (e) {
    throw makeHelmError(
      {
        kind: "permanent",
        reason: "unparsable helm output",
        command: redactor.redactArgv(["helm", ...args]),
        exitCode: 0,
        stderr: `expected JSON on stdout, got ${stdout.length} characters`,
      },
      { cause: e },
    );
  }
}

function parseRelease(stdout: string, args: readonly string[], redactor: Redactor): ReleaseInfo {
  const r = parseJson(stdout, args, redactor) as Record<string, unknown>;
  const info = (r.info ?? {}) as Record<string, unknown>;
  const meta = ((r.chart as Record<string, unknown> | undefined)?.metadata ?? {}) as Record<string, unknown>;
  return {
    name: str(r.name),
    namespace: str(r.namespace),
    revision: num(r.version),
    status: str(info.status),
    chartName: str(meta.name),
    chartVersion: str(meta.version),
    appVersion: str(meta.appVersion),
    firstDeployed: str(info.first_deployed),
    lastDeployed: str(info.last_deployed),
    description: str(info.description),
  };
}

function str(v: unknown): string {
  return typeof v === "string" ? v : v === undefined || v === null ? "" : String(v);
}

function num(v: unknown): number {
  return typeof v === "number" ? v : Number(v ?? 0) || 0;
}
