#!/usr/bin/env node
/**
 * `helm-handoff-local`: start or stop a local cluster from a shell.
 *
 *   helm-handoff-local up [--name N] [--workloads] [--gitops flux|argocd] [--capi [--workload-clusters N]] [--detach]
 *   helm-handoff-local down [--name N]
 *
 * `up` prints the kubeconfig path on stdout and stays in the foreground until Ctrl-C (or SIGTERM);
 * `up --detach` runs that same foreground process in the background and returns once the cluster is ready.
 * Either way a state file `${XDG_CACHE_HOME:-~/.cache}/helm-handoff/local-clusters/NAME.json` records it
 * (with the pid, start time and command line of the `up` process), and `down` stops it, signalling the
 * recorded pid only while it is still that process. A command line it does not understand prints the
 * usage on stderr and exits with 2.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { processExists } from "../core/util/process.js";
import { startLocalCluster } from "./cluster.js";
import { cacheDir } from "./control-plane/binaries.js";
import type { GitopsControllers, GitopsKind } from "./controllers/host.js";
import { isSameProcess, type ProcessIdentity, processIdentity } from "./process/identity.js";
import type { CapiManagement } from "./types.js";

const USAGE = `usage: helm-handoff-local up [--name N] [--workloads] [--gitops flux|argocd] [--capi [--workload-clusters N]] [--detach]
       helm-handoff-local down [--name N]`;

/** The names `startLocalCluster` accepts (they also name the state file). */
const NAME_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** What a running `up` records about its cluster. */
interface State {
  readonly name: string;
  readonly pid: number;
  readonly kubeconfigPath: string;
  readonly server: string;
  readonly dir: string;
  /** Start time and command line of `pid` (absent in files of older versions: such a pid is never signalled). */
  readonly process?: ProcessIdentity;
}

const stateDir = join(cacheDir(), "local-clusters");
const statePath = (name: string) => join(stateDir, `${name}.json`);

function readState(name: string): State | undefined {
  try {
    return JSON.parse(readFileSync(statePath(name), "utf8")) as State;
  } catch {
    return undefined;
  }
}

/** Whether the recorded `up` process still runs: its pid is alive and still the same process. */
function running(state: State): boolean {
  return isSameProcess(state.pid, state.process);
}

/** Fails when a cluster of that name is running; forgets a stale state file. */
function assertNotRunning(name: string): void {
  const state = readState(name);
  if (state && running(state)) {
    throw new Error(
      `local cluster "${name}" is already running (pid ${state.pid}); stop it with: helm-handoff-local down --name ${name}`,
    );
  }
  rmSync(statePath(name), { force: true });
}

/** What `up` starts. */
interface UpOptions {
  readonly workloads: boolean;
  readonly gitops: GitopsKind | undefined;
  /** With `--capi`: how many workload clusters. */
  readonly workloadClusters: number | undefined;
}

async function up(name: string, options: UpOptions): Promise<void> {
  assertNotRunning(name);
  const { workloadClusters, ...rest } = options;
  const capi = workloadClusters === undefined ? {} : { capi: { workloadClusters } };
  const cluster = await startLocalCluster({ name, ...rest, ...capi });
  const self = processIdentity(process.pid);
  mkdirSync(stateDir, { recursive: true });
  const state: State = {
    name,
    pid: process.pid,
    kubeconfigPath: cluster.kubeconfigPath,
    server: cluster.server,
    dir: cluster.dir,
    ...(self !== undefined ? { process: self } : {}),
  };
  writeFileSync(statePath(name), `${JSON.stringify(state, null, 2)}\n`);
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`stopping local cluster "${name}"...\n`);
    await cluster.stop();
    rmSync(statePath(name), { force: true });
    process.exit(0);
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => void shutdown());
  setInterval(() => {}, 1 << 30);
  process.stdout.write(`${cluster.kubeconfigPath}\n`);
  process.stderr.write(
    `local cluster "${name}" is up at ${cluster.server} (kube-system uid ${cluster.identity.uid})\n` +
      gitopsLine(cluster.gitops) +
      capiLines(cluster.capi) +
      `  export KUBECONFIG=${cluster.kubeconfigPath}\n  logs: ${cluster.logDir}\n  Ctrl-C stops it\n`,
  );
}

function gitopsLine(gitops: GitopsControllers | undefined): string {
  if (gitops === undefined) return "";
  const what =
    gitops.kind === "flux"
      ? "Flux (source-controller, helm-controller)"
      : "Argo CD (application-controller, repo-server)";
  const dest = gitops.destinationServer
    ? `; Applications deploy here with destination.server ${gitops.destinationServer}`
    : "";
  return `  ${what} running in namespace ${gitops.namespace}${dest}\n`;
}

function capiLines(capi: CapiManagement | undefined): string {
  if (capi === undefined) return "";
  const clusters = capi.clusters.map(
    (c) => `    Cluster ${c.namespace}/${c.name} at ${c.local.server}: KUBECONFIG=${c.kubeconfigPath}\n`,
  );
  return `  Cluster API core manager and CAAPH running; workload clusters:\n${clusters.join("")}`;
}

async function upDetached(name: string, options: UpOptions): Promise<void> {
  assertNotRunning(name);
  mkdirSync(stateDir, { recursive: true });
  const logFile = join(stateDir, `${name}.log`);
  const fd = openSync(logFile, "w");
  const args = [
    fileURLToPath(import.meta.url),
    "up",
    "--name",
    name,
    ...(options.workloads ? ["--workloads"] : []),
    ...(options.gitops ? ["--gitops", options.gitops] : []),
    ...(options.workloadClusters !== undefined
      ? ["--capi", "--workload-clusters", String(options.workloadClusters)]
      : []),
  ];
  const child = spawn(process.execPath, args, { detached: true, stdio: ["ignore", fd, fd] });
  closeSync(fd);
  let exited = false;
  child.once("exit", () => {
    exited = true;
  });
  child.unref();
  for (const deadline = Date.now() + 300_000; Date.now() < deadline; await sleep(250)) {
    const state = readState(name);
    if (state && state.pid === child.pid) {
      process.stdout.write(`${state.kubeconfigPath}\n`);
      return;
    }
    if (exited) break;
  }
  if (!exited && child.pid !== undefined) process.kill(child.pid, "SIGTERM");
  throw new Error(
    `local cluster "${name}" did not start; see ${logFile}:\n${readFileSync(logFile, "utf8").trimEnd()}`,
  );
}

async function down(name: string): Promise<void> {
  const state = readState(name);
  if (!state || !running(state)) {
    rmSync(statePath(name), { force: true });
    const reused = state !== undefined && processExists(state.pid);
    const other = reused ? ` (pid ${state.pid} is another process now: left alone)` : "";
    process.stderr.write(`local cluster "${name}" is not running${other}\n`);
    return;
  }
  process.kill(state.pid, "SIGTERM");
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(200)) {
    if (!existsSync(statePath(name)) || !running(state)) break;
  }
  if (running(state) && existsSync(statePath(name))) process.kill(state.pid, "SIGKILL");
  rmSync(statePath(name), { force: true });
  process.stderr.write(`local cluster "${name}" stopped\n`);
}

/** A command line the CLI does not understand: reported with the usage and exit code 2. */
class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine(argv);
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const [command, ...extra] = positionals;
  if (command === undefined) throw new UsageError("");
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  if (command !== "up" && command !== "down") throw new UsageError(`unknown command "${command}"`);
  // The name becomes a file name: refuse "../x" and the like before touching any file.
  if (!NAME_PATTERN.test(values.name)) {
    throw new Error(`invalid cluster name "${values.name}": use lowercase letters, digits and "-"`);
  }
  const gitops = values.gitops;
  if (gitops !== undefined && gitops !== "flux" && gitops !== "argocd") {
    throw new UsageError(`--gitops must be "flux" or "argocd", not "${gitops}"`);
  }
  const workloadClusters = parseWorkloadClusters(values.capi, values["workload-clusters"]);
  if (command === "up")
    await (values.detach ? upDetached : up)(values.name, {
      workloads: values.workloads,
      gitops,
      workloadClusters,
    });
  else await down(values.name);
}

/** `--capi [--workload-clusters N]` → N (1 by default); undefined without `--capi`. */
function parseWorkloadClusters(capi: boolean, count: string | undefined): number | undefined {
  if (!capi) {
    if (count !== undefined) throw new UsageError("--workload-clusters needs --capi");
    return undefined;
  }
  if (count === undefined) return 1;
  if (!/^[0-9]+$/.test(count))
    throw new UsageError(`--workload-clusters must be a number >= 0, not "${count}"`);
  return Number(count);
}

function parseCommandLine(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        name: { type: "string", short: "n", default: "local" },
        workloads: { type: "boolean", default: false },
        gitops: { type: "string" },
        capi: { type: "boolean", default: false },
        "workload-clusters": { type: "string" },
        detach: { type: "boolean", short: "d", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    process.stderr.write(`${error.message ? `helm-handoff-local: ${error.message}\n` : ""}${USAGE}\n`);
    process.exit(2);
  }
  process.stderr.write(`helm-handoff-local: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
