/**
 * `HelmRunner`: runs helm v4 asynchronously (argv arrays only). Everything but the spawn
 * (`spawn.ts`) is shared with the synchronous runner of the cdk8s construct (`sync.ts`): binary lookup
 * and version check (`binary.ts`), environment (`env.ts`), the private call dir and its sweep
 * (`call-dir.ts`, `call.ts`), argv (`args.ts`), JSON parsing (`parse.ts`) and error mapping
 * (`failure.ts`). Secrets never reach argv: the kubeconfig and values go into 0600 files of the
 * call dir, a repository password goes to `helm repo add` on stdin and a registry password into
 * the call's registry config (`registry-config.ts`), all inside the call dir.
 *
 * @module
 */

import { HelmCallNotAllowedError, type HelmError, HelmHandoffError } from "../errors.js";
import { Duration } from "../spec/duration.js";
import type { ResolvedSpec } from "../spec/index.js";
import { installArgs, templateArgs, upgradeArgs, VERSION_ARGS } from "./args.js";
import { checkHelmVersion, rememberedHelmVersion, rememberHelmVersion, resolveHelmBinary } from "./binary.js";
import { HelmCall } from "./call.js";
import { helmEnv } from "./env.js";
import { helmFailure, unrecordedRelease } from "./failure.js";
import {
  isReleaseNotFound,
  parseHistory,
  parseJson,
  parseList,
  parseRelease,
  parseValues,
  withMetadata,
} from "./parse.js";
import { Redactor } from "./redact.js";
import { spawnHelm } from "./spawn.js";
import type {
  HelmCallName,
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

/** Extra time given to the helm process beyond helm's own `--timeout`, so helm reports its own error first. */
const PROCESS_GRACE = Duration.seconds(15);

interface ExecOptions {
  readonly timeout: Duration;
  /** Whether helm gets a `--timeout` of its own (install, upgrade): the process then gets a grace period. */
  readonly helmTimeout?: boolean;
  readonly input?: string;
  readonly needsCluster: boolean;
  readonly streamStdout: boolean;
}

/** helm versions already checked in this process, by binary path. */
const checkedVersions = new Map<string, Promise<string>>();

/**
 * Runs helm v4. One runner per cluster (its kubeconfig); safe to use concurrently.
 *
 * Failures throw a {@link HelmError} subclass classified by `classifyHelmFailure`, with the
 * redacted argv, exit code and stderr, and the spawn's own error as `cause`.
 */
export class HelmRunner {
  private readonly opts: HelmRunnerOptions;
  private readonly redactor: Redactor;
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

  /**
   * Redacts the runner's secrets (kubeconfig and credentials, registered secrets) from `text`.
   * @internal the package's own lifecycle code calls it; users pass the runner to `ensureRelease` / `removeRelease`.
   */
  public redact(text: string): string {
    return this.redactor.redact(text);
  }

  /**
   * The helm version (e.g. `"v4.3.1"`); throws {@link HelmVersionError} if it is not v4 or later.
   * @internal the package's own lifecycle code calls it; users pass the runner to `ensureRelease` / `removeRelease`.
   */
  public version(): Promise<string> {
    try {
      this.guard("version");
    } catch (e) {
      return Promise.reject(e);
    }
    this.versionPromise ??= (async () => {
      const bin = resolveHelmBinary(this.opts.helmBinary);
      // One check per binary per process: a provider process creates many runners.
      let checked = checkedVersions.get(bin);
      if (checked === undefined) {
        const remembered = rememberedHelmVersion(bin);
        checked =
          remembered !== undefined
            ? Promise.resolve(remembered)
            : this.withCall(async (call) => {
                const version = checkHelmVersion(
                  bin,
                  (await this.exec(call, VERSION_ARGS, this.query(false), true)).stdout,
                );
                rememberHelmVersion(bin, version);
                return version;
              });
        checkedVersions.set(bin, checked);
        checked.catch(() => checkedVersions.delete(bin));
      }
      return checked;
    })();
    // a failed check is not cached, so a later call can find a fixed binary
    this.versionPromise.catch(() => {
      this.versionPromise = undefined;
    });
    return this.versionPromise;
  }

  /**
   * Installs the release (`helm install … -o json`), never upgrading an existing one.
   * @internal the package's own lifecycle code calls it; users pass the runner to `ensureRelease` / `removeRelease`.
   */
  public async install(spec: ResolvedSpec, options: InstallCallOptions = {}): Promise<ReleaseInfo> {
    this.guard("install");
    const dryRun = options.dryRun === true ? "server" : options.dryRun === false ? undefined : options.dryRun;
    return this.withCall(async (call) => {
      const args = installArgs(
        spec,
        await this.prepareChart(call, spec),
        call.valuesArgs(spec),
        dryRun,
        options.labels,
      );
      const { stdout } = await this.exec(call, args, {
        timeout: spec.install.timeout,
        helmTimeout: true,
        needsCluster: dryRun !== "client",
        streamStdout: false,
      });
      return parseRelease(stdout, args, call.redactor);
    });
  }

  /**
   * Upgrades the release to the spec (`helm upgrade --reset-values … -o json`); no `--install`, no rollback on failure.
   * @internal the package's own lifecycle code calls it; users pass the runner to `ensureRelease` / `removeRelease`.
   */
  public async upgrade(spec: ResolvedSpec, options: UpgradeCallOptions = {}): Promise<ReleaseInfo> {
    this.guard("upgrade");
    return this.withCall(async (call) => {
      const args = upgradeArgs(
        spec,
        await this.prepareChart(call, spec),
        call.valuesArgs(spec),
        options.labels,
      );
      const { stdout } = await this.exec(call, args, {
        timeout: spec.install.timeout,
        helmTimeout: true,
        needsCluster: true,
        streamStdout: false,
      });
      return parseRelease(stdout, args, call.redactor);
    });
  }

  /**
   * Rolls the release back to `revision`.
   * @internal the package's own lifecycle code calls it; users pass the runner to `ensureRelease` / `removeRelease`.
   */
  public async rollback(
    releaseName: string,
    namespace: string,
    revision: number,
    options: RollbackOptions = {},
  ): Promise<void> {
    this.guard("rollback");
    const timeout = options.timeout ?? this.commandTimeout();
    const args = ["rollback", releaseName, String(revision), "--namespace", namespace];
    args.push("--timeout", timeout.toHelmFlag());
    if (options.wait ?? true) args.push("--wait");
    if (options.description !== undefined) args.push("--description", options.description);
    await this.withCall((call) => this.exec(call, args, { timeout, needsCluster: true, streamStdout: true }));
  }

  /**
   * Uninstalls the release. A release that does not exist counts as success.
   * @returns whether the release existed
   * @internal the package's own lifecycle code calls it; users pass the runner to `ensureRelease` / `removeRelease`.
   */
  public async uninstall(
    releaseName: string,
    namespace: string,
    options: UninstallOptions = {},
  ): Promise<boolean> {
    this.guard("uninstall");
    const timeout = options.timeout ?? this.commandTimeout();
    const args = ["uninstall", releaseName, "--namespace", namespace, "--timeout", timeout.toHelmFlag()];
    if (options.wait) args.push("--wait");
    return this.withCall(async (call) => {
      try {
        await this.exec(call, args, { timeout, needsCluster: true, streamStdout: true });
        return true;
      } catch (e) {
        if (isReleaseNotFound(e)) return false;
        throw e;
      }
    });
  }

  /**
   * The release's status, or `undefined` when there is no such release. helm v4's `status -o json`
   * has neither the chart nor the release labels: `helm get metadata` adds both.
   * @internal the package's own lifecycle code calls it; users pass the runner to `ensureRelease` / `removeRelease`.
   */
  public async status(releaseName: string, namespace: string): Promise<ReleaseInfo | undefined> {
    this.guard("status");
    return this.withCall(async (call) => {
      const args = ["status", releaseName, "--namespace", namespace, "-o", "json"];
      try {
        const { stdout } = await this.exec(call, args, this.query());
        const release = parseRelease(stdout, args, call.redactor);
        if (release.chart !== "") return release;
        // helm v4's `status -o json` carries no chart metadata; `get metadata` has it.
        const metaArgs = ["get", "metadata", releaseName, "--namespace", namespace, "-o", "json"];
        const meta = await this.exec(call, metaArgs, this.query());
        return withMetadata(release, parseJson(meta.stdout, metaArgs, call.redactor));
      } catch (e) {
        if (isReleaseNotFound(e)) return undefined;
        throw e;
      }
    });
  }

  /**
   * Sets release labels on one revision. Not a helm call (helm has no command for it) but a JSON
   * patch of the revision's storage Secret ({@link patchReleaseLabels}); it is a write to a
   * release, so it is on the runner, where the strategy table guards every write.
   * @throws ReleaseBusyError when the revision changed or is gone (retried by the lifecycle)
   * @internal the package's own lifecycle code calls it; users pass the runner to `ensureRelease` / `removeRelease`.
   */
  public async patchReleaseLabels(
    releaseName: string,
    namespace: string,
    revision: number,
    labels: Readonly<Record<string, string>>,
    expectStatus: string,
  ): Promise<void> {
    this.guard("relabel");
    const kubeconfig = this.opts.kubeconfig;
    if (kubeconfig === undefined) {
      throw new HelmHandoffError(
        "HELM_PERMANENT",
        `cannot mark release ${namespace}/${releaseName}: the runner has no kubeconfig`,
      );
    }
    const { patchReleaseLabels } = await import("../cluster/release-labels.js");
    await patchReleaseLabels(kubeconfig, {
      releaseName,
      namespace,
      revision,
      labels,
      expectStatus,
      timeout: this.commandTimeout(),
      ...(this.opts.signal !== undefined ? { signal: this.opts.signal } : {}),
      redact: (text) => this.redact(text),
    });
  }

  /**
   * The release's revisions, oldest first; empty when there is no such release.
   * @internal the package's own lifecycle code calls it; users pass the runner to `ensureRelease` / `removeRelease`.
   */
  public async history(releaseName: string, namespace: string): Promise<ReleaseRevision[]> {
    this.guard("history");
    return this.withCall(async (call) => {
      const args = ["history", releaseName, "--namespace", namespace, "--max", "256", "-o", "json"];
      try {
        const { stdout } = await this.exec(call, args, this.query());
        return parseHistory(parseJson(stdout, args, call.redactor));
      } catch (e) {
        if (isReleaseNotFound(e)) return [];
        throw e;
      }
    });
  }

  /**
   * The user-supplied values of the release (`helm get values -o json`); `{}` when none.
   * @internal the package's own lifecycle code calls it; users pass the runner to `ensureRelease` / `removeRelease`.
   */
  public async getValues(releaseName: string, namespace: string): Promise<Record<string, unknown>> {
    this.guard("getValues");
    return this.withCall(async (call) => {
      const args = ["get", "values", releaseName, "--namespace", namespace, "-o", "json"];
      const { stdout } = await this.exec(call, args, this.query());
      return parseValues(parseJson(stdout, args, call.redactor));
    });
  }

  /**
   * Renders the chart locally (`helm template`, no cluster) and returns the manifest YAML.
   * @internal the package's own lifecycle code calls it; users pass the runner to `ensureRelease` / `removeRelease`.
   */
  public async template(spec: ResolvedSpec, options: TemplateOptions = {}): Promise<string> {
    this.guard("template");
    return this.withCall(async (call) => {
      const args = templateArgs(spec, await this.prepareChart(call, spec), call.valuesArgs(spec), options);
      const { stdout } = await this.exec(call, args, {
        timeout: spec.install.timeout,
        needsCluster: false,
        streamStdout: false,
      });
      return stdout;
    });
  }

  /**
   * Releases in `namespace` (all statuses), or in all namespaces when omitted.
   * @internal the package's own lifecycle code calls it; users pass the runner to `ensureRelease` / `removeRelease`.
   */
  public async list(namespace?: string): Promise<ReleaseListItem[]> {
    this.guard("list");
    return this.withCall(async (call) => {
      // helm v4 lists every status by default and has no --all flag (it fails with "unknown flag").
      const args = ["list", "--max", "0", "-o", "json"];
      if (namespace === undefined) args.push("--all-namespaces");
      else args.push("--namespace", namespace);
      const { stdout } = await this.exec(call, args, this.query());
      return parseList(parseJson(stdout, args, call.redactor));
    });
  }

  // ---------------------------------------------------------------------------------------------

  /** Throws when the runner's policy does not allow `call` (before any helm process starts). */
  private guard(call: HelmCallName): void {
    const policy = this.opts.policy;
    if (policy === undefined) return;
    const allowed = call === "version" ? policy.allowed.size > 0 : policy.allowed.has(call);
    if (!allowed) throw new HelmCallNotAllowedError(call, policy.context);
  }

  private commandTimeout(): Duration {
    return this.opts.commandTimeout ?? Duration.minutes(2);
  }

  private query(needsCluster = true): ExecOptions {
    return { timeout: this.commandTimeout(), needsCluster, streamStdout: false };
  }

  /** Runs the chart plan's setup steps (login, repo add) and returns the chart arguments. */
  private async prepareChart(call: HelmCall, spec: ResolvedSpec): Promise<readonly string[]> {
    const plan = call.chart(spec);
    for (const step of plan.setup) {
      await this.exec(call, step.args, { ...this.query(false), input: step.input });
    }
    return plan.chartArgs;
  }

  private async withCall<T>(fn: (call: HelmCall) => Promise<T>): Promise<T> {
    const call = new HelmCall(this.opts.kubeconfig, this.redactor, this.opts.tempDir);
    try {
      return await fn(call);
    } finally {
      call.close();
    }
  }

  /** The async spawn: the only part of this file the synchronous runner does differently. */
  private async exec(
    call: HelmCall,
    args: readonly string[],
    options: ExecOptions,
    skipVersionCheck = false,
  ): Promise<{ stdout: string; stderr: string }> {
    if (!skipVersionCheck) await this.version();
    const bin = resolveHelmBinary(this.opts.helmBinary);
    const full = call.argv(args, options.needsCluster);
    const onOutput = this.opts.onOutput;
    const redactor = call.redactor;
    const timeout =
      options.timeout.toMilliseconds() + (options.helmTimeout ? PROCESS_GRACE.toMilliseconds() : 0);
    const run = () =>
      spawnHelm(bin, full, {
        env: helmEnv({
          helmHome: this.opts.helmHome,
          env: this.opts.env,
          dockerConfig: call.dockerConfigDir,
        }),
        input: options.input ?? "",
        timeoutMs: timeout,
        ...(this.opts.signal !== undefined ? { signal: this.opts.signal } : {}),
        forceKillAfterMs: (this.opts.forceKillAfter ?? Duration.seconds(5)).toMilliseconds(),
        ...(onOutput !== undefined
          ? {
              onLine: (line: string) => {
                if (line.trim() !== "") onOutput(redactor.redact(line));
              },
            }
          : {}),
        streamStdout: options.streamStdout,
      });
    const slots = this.opts.slots;
    const result = await (slots !== undefined ? slots.run(run) : run());
    if (result.failure !== undefined) throw helmFailure(result.failure, redactor);
    const unrecorded = unrecordedRelease([bin, ...full], result.stderr, redactor);
    if (unrecorded !== undefined) throw unrecorded;
    return { stdout: result.stdout, stderr: result.stderr };
  }
}
