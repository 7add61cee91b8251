/**
 * Runs inline Pulumi programs on the real engine (Automation API) with a local
 * `file://` backend, offline, with the toolchain's CLI and plugins.
 */
import { rmSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import * as automation from "@pulumi/pulumi/automation/index.js";
import { pulumiNodejsPluginDir, toolchainBinDir } from "../../local-cluster/control-plane/binaries.js";
import { withPackageProvider } from "../../provider/index.js";
import { onRoute } from "../../provider/package-provider.js";
import { repoRoot } from "./repo-root.js";

/** A stack of an inline program, with its backend and captured engine output. */
export interface TestStack {
  readonly stack: automation.Stack;
  readonly backendDir: string;
  /** Everything the engine printed (stdout and stderr of every operation so far). */
  output(): string;
  up(): Promise<automation.UpResult>;
  preview(): Promise<automation.PreviewResult>;
  refresh(): Promise<automation.RefreshResult>;
  destroy(): Promise<automation.DestroyResult>;
  /** The raw checkpoint file(s) of the backend, for secret scans. */
  stateText(): Promise<string>;
  /** Removes the stack's backend and work dirs (the cluster is untouched). */
  dispose(): Promise<void>;
}

/** Options of {@link testStack}. */
export interface TestStackOptions {
  /** Program run by every `up`/`preview`; replace with {@link TestStack.stack} `.workspace.program = ...`. */
  readonly program: automation.PulumiFn;
  /** @default a random name */
  readonly stackName?: string;
  /** @default "helm-handoff-test" */
  readonly projectName?: string;
  /** Extra environment for the CLI and its plugins (the dynamic provider). @default none */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * How the program's `ClusterAddon`s are served: the package's provider as a new user gets it
   * (from the plugin cache), set up by `withPackageProvider` as a runner may do, or Pulumi's dynamic
   * provider host (as `HELM_HANDOFF_PULUMI_PROVIDER=dynamic` gives it).
   * @default "default"
   */
  readonly route?: "default" | "withPackageProvider" | "dynamic";
}

/** Environment for an offline Pulumi CLI with the toolchain first on PATH. */
export function pulumiEnv(backendDir: string, pulumiHome: string): Record<string, string> {
  return {
    PATH: `${toolchainBinDir()}:${pulumiNodejsPluginDir()}:${process.env.PATH ?? ""}`,
    PULUMI_BACKEND_URL: `file://${backendDir}`,
    PULUMI_HOME: pulumiHome,
    PULUMI_CONFIG_PASSPHRASE: "helm-handoff-test-passphrase",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_SKIP_CONFIRMATIONS: "true",
  };
}

let processHome: Promise<string> | undefined;

/**
 * The PULUMI_HOME of every inline stack of this process, also this process's own `PULUMI_HOME`:
 * an inline program runs here, and its first `ClusterAddon` puts the package's provider in the
 * plugin cache of this process's home, as in a user's runner whose home is the default one.
 * Removed when the process exits.
 */
export function inlinePulumiHome(): Promise<string> {
  processHome ??= mkdtemp(join(tmpdir(), "hh-pulumi-home-")).then((home) => {
    process.env.PULUMI_HOME = home;
    process.once("exit", () => rmSync(home, { recursive: true, force: true }));
    return home;
  });
  return processHome;
}

/** Creates a fresh stack of an inline program. The work dir sits in the repo so node_modules resolve. */
export async function testStack(options: TestStackOptions): Promise<TestStack> {
  const backendDir = await mkdtemp(join(tmpdir(), "hh-backend-"));
  const pulumiHome = await inlinePulumiHome();
  await mkdir(join(repoRoot(), ".pulumi-test"), { recursive: true });
  const workDir = await mkdtemp(join(repoRoot(), ".pulumi-test", "work-"));
  const pulumiCommand = await automation.PulumiCommand.get({ root: dirname(toolchainBinDir()) });
  const stackName = options.stackName ?? `t${Math.random().toString(36).slice(2, 10)}`;
  const args = {
    stackName,
    projectName: options.projectName ?? "helm-handoff-test",
    program: options.route === "dynamic" ? onRoute("dynamic", options.program) : options.program,
  };
  const opts = { workDir, pulumiCommand, envVars: { ...pulumiEnv(backendDir, pulumiHome), ...options.env } };
  const [stackArgs, stackOpts] =
    options.route === "withPackageProvider" ? withPackageProvider(args, opts) : [args, opts];
  const stack = await automation.LocalWorkspace.createOrSelectStack(stackArgs, stackOpts);
  let log = "";
  const onOutput = (s: string): void => {
    log += s;
  };
  const onError = onOutput;
  return {
    stack,
    backendDir,
    output: () => log,
    up: () => stack.up({ onOutput, onError, color: "never" }),
    preview: () => stack.preview({ onOutput, onError, color: "never", diff: true }),
    refresh: () => stack.refresh({ onOutput, onError, color: "never" }),
    destroy: () => stack.destroy({ onOutput, onError, color: "never" }),
    stateText: () => readTree(backendDir),
    dispose: async () => {
      await rm(backendDir, { recursive: true, force: true });
      await rm(workDir, { recursive: true, force: true });
    },
  };
}

/** Every file under `dir`, read as text and concatenated (a backend's state, for secret scans). */
export async function readTree(dir: string): Promise<string> {
  let text = "";
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) text += await readFile(join(entry.parentPath, entry.name), "utf8");
  }
  return text;
}

/** Rejections collected by {@link collectProgramRejections}. */
export interface ProgramRejections {
  /** The rejection reasons collected so far. */
  readonly reasons: unknown[];
  /** Puts the test runner's own listeners back. */
  restore(): void;
}

/**
 * When an inline program throws, Pulumi's in-process runtime leaves the error in promises nobody
 * awaits, and Node reports each as an unhandled rejection (twice per failed program) after the test
 * that ran `up` has ended. The engine already reported the error (tests assert on its output), so
 * for suites that run failing programs on purpose this collects those rejections instead of letting
 * node:test fail the file; the suite then asserts that every one is an expected error.
 */
export function collectProgramRejections(): ProgramRejections {
  const saved = process.listeners("unhandledRejection");
  process.removeAllListeners("unhandledRejection");
  const reasons: unknown[] = [];
  process.on("unhandledRejection", (reason) => {
    reasons.push(reason);
  });
  return {
    reasons,
    restore: () => {
      process.removeAllListeners("unhandledRejection");
      for (const l of saved) process.on("unhandledRejection", l);
    },
  };
}
