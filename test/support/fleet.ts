/**
 * The fleet shared by test/e2e/faults/load.test.ts and bench/fleet.ts: the add-on declarations
 * (the same release names on every cluster, so only cluster identity tells them apart), a
 * monitor of the dynamic provider process (peak RSS, peak number of helm children) and one
 * measured `up`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import { performance } from "node:perf_hooks";
import type * as automation from "@pulumi/pulumi/automation/index.js";
import { type LocalCluster, startLocalCluster } from "../../local-cluster/index.js";
import type { AddonDecl, AddonStack } from "./addon.js";
import { localChart } from "./charts.js";
import { faultStack, type Sandbox } from "./faults.js";
import type { HelmSpy } from "./helm-spy.js";

/** Release names of the add-ons on every cluster: the same on each cluster, on purpose. */
export const FLEET_RELEASES = ["addon-a", "addon-b", "addon-c"] as const;

/** The values of add-on `j` of cluster `i`: unique in the fleet, valid for the `schema` chart. */
export function fleetValues(i: number, j: number): Record<string, unknown> {
  return { replicas: i * FLEET_RELEASES.length + j + 1, mode: j % 2 === 0 ? "a" : "b" };
}

/**
 * One add-on per release name per cluster, named `c<i>-<release>`, with the small `schema` chart
 * (one ConfigMap), no wait, and values unique in the fleet (see {@link fleetValues}). A `suffix`
 * is appended to the release names (so that repeated runs on the same clusters install anew).
 */
export function fleetAddons(clusters: readonly LocalCluster[], suffix = ""): AddonDecl[] {
  return clusters.flatMap((cluster, i) =>
    FLEET_RELEASES.map((releaseName, j) => ({
      name: `c${i}-${releaseName}${suffix}`,
      args: {
        kubeconfig: cluster.kubeconfig,
        releaseName: `${releaseName}${suffix}`,
        chart: { path: localChart("schema") },
        values: fleetValues(i, j),
        install: { wait: false, timeout: "2m" },
        retry: { deadline: "5m", minBackoff: "1s", maxBackoff: "5s" },
      },
    })),
  );
}

/** What {@link monitorProvider} saw of the dynamic provider process(es) of a sandbox. */
export interface ProviderReport {
  /** Pids of the dynamic provider processes seen. */
  readonly pids: readonly number[];
  /** Peak resident set size (`VmHWM`, KiB) of the largest of them, last read before it exited; 0 when none was seen. */
  readonly peakRssKiB: number;
  /** The most helm processes seen running at once as children of a provider (a sampled lower bound). */
  readonly peakHelmProcesses: number;
  /** How many samples were taken. */
  readonly samples: number;
}

/** A running monitor: stop it to get its report. */
export interface ProviderMonitor {
  /** Takes a last sample and stops. */
  stop(): ProviderReport;
}

/** Reads `/proc/PID/<file>`, or undefined when the process is gone. */
function procText(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return undefined;
  }
}

/** The children of `pid` (every thread's), from `/proc/PID/task/TID/children`. */
function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((tid) =>
    (procText(pid, `task/${tid}/children`) ?? "")
      .split(" ")
      .filter((p) => p !== "")
      .map(Number),
  );
}

/** Whether the process runs helm (the real binary, or the spy's wrapper before its `exec`). */
function isHelm(pid: number): boolean {
  const argv = (procText(pid, "cmdline") ?? "").split("\0");
  return argv.slice(0, 2).some((a) => basename(a) === "helm");
}

/**
 * A provider's command line: Pulumi's dynamic provider host, `node …/@pulumi/pulumi/cmd/dynamic-provider
 * ARGS` (not the plugin's shell wrapper, nor the `node -e "require.resolve(…)"` it runs first), or
 * the package's provider as the plugin cache's launcher starts it, `node …/provider/plugin/main.cjs`.
 */
const PROVIDER = /^\S*\bnode\s+\S*(\/cmd\/dynamic-provider(\/\S*)?|\/provider\/plugin\/main\.cjs)(\s|$)/;

/**
 * Samples, every `intervalMs`, the provider processes (see `PROVIDER`) started with
 * the sandbox's `TMPDIR`: their peak RSS (`VmHWM` in /proc/PID/status) and how many helm processes
 * they run at once. Providers are looked up among the sandbox's processes until one is found, then
 * followed by pid (a full /proc scan per sample would cost the machine under test too much).
 */
export function monitorProvider(sandbox: Sandbox, intervalMs = 100): ProviderMonitor {
  const hwm = new Map<number, number>();
  let peakHelm = 0;
  let samples = 0;
  let lastScan = 0;
  const sample = (): void => {
    samples++;
    const now = Date.now();
    if (now - lastScan > 1_000 || hwm.size === 0) {
      lastScan = now;
      for (const p of sandbox.strayProcesses()) {
        if (PROVIDER.test(p.cmdline) && !hwm.has(p.pid)) hwm.set(p.pid, 0);
      }
    }
    for (const pid of hwm.keys()) {
      const status = procText(pid, "status");
      const kib = /^VmHWM:\s+(\d+) kB/m.exec(status ?? "")?.[1];
      if (kib !== undefined) hwm.set(pid, Math.max(hwm.get(pid) ?? 0, Number(kib)));
      peakHelm = Math.max(peakHelm, childrenOf(pid).filter(isHelm).length);
    }
  };
  const timer = setInterval(sample, intervalMs);
  return {
    stop(): ProviderReport {
      clearInterval(timer);
      sample();
      return {
        pids: [...hwm.keys()],
        peakRssKiB: Math.max(0, ...hwm.values()),
        peakHelmProcesses: peakHelm,
        samples,
      };
    },
  };
}

/** The outcome of {@link measuredUp}. */
export interface MeasuredUp {
  /** The engine's result. */
  readonly result: automation.UpResult;
  /** Wall time of the up, milliseconds. */
  readonly ms: number;
  /** What the monitor saw of the dynamic provider. */
  readonly provider: ProviderReport;
}

/** Options of {@link measuredUp}. */
export interface MeasuredUpOptions {
  /** `pulumi up --parallel`. @default the CLI's default (4 per CPU) */
  readonly parallel?: number;
}

/** Runs one `up` of the stack while monitoring its dynamic provider; output goes to the stack's log. */
export async function measuredUp(
  s: AddonStack,
  sandbox: Sandbox,
  options: MeasuredUpOptions = {},
): Promise<MeasuredUp> {
  let log = "";
  const monitor = monitorProvider(sandbox);
  const started = performance.now();
  try {
    const result = await s.stack.up({
      onOutput: (line) => {
        log += line;
      },
      color: "never",
      ...(options.parallel !== undefined ? { parallel: options.parallel } : {}),
    });
    return { result, ms: performance.now() - started, provider: monitor.stop() };
  } catch (error) {
    monitor.stop();
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${log.slice(-4_000)}`);
  }
}

/** Starts `n` local clusters (no workloads) in parallel and waits until every API server answers. */
export async function startFleet(prefix: string, n: number): Promise<LocalCluster[]> {
  const settled = await Promise.allSettled(
    Array.from({ length: n }, (_, i) => startLocalCluster({ name: `${prefix}-${i}` })),
  );
  const started = settled.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed !== undefined) {
    await Promise.allSettled(started.map((c) => c.stop()));
    throw failed.reason;
  }
  await Promise.all(started.map((c) => c.ready));
  return started;
}

/**
 * One measured `up` of the fleet's add-ons (release names with `suffix`) on `clusters`, in a fresh
 * stack; the stack is disposed afterwards (the releases stay).
 */
export async function benchUp(
  clusters: readonly LocalCluster[],
  spy: HelmSpy,
  sandbox: Sandbox,
  suffix = "",
): Promise<MeasuredUp> {
  const s = await faultStack(fleetAddons(clusters, suffix), spy, sandbox);
  try {
    return await measuredUp(s, sandbox);
  } finally {
    await s.dispose();
  }
}
