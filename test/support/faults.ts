/**
 * Helpers of the fault-injection suites (test/e2e/faults-*.test.ts): a private temp dir per suite, so
 * that the helm-handoff temp dirs and the processes of one suite can be told apart from those of
 * suites running at the same time; stacks of ClusterAddons whose engine, dynamic provider and helm
 * all run with that temp dir; and small polling and process utilities.
 *
 * Test-only code.
 *
 * @module
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { LocalCluster } from "../../local-cluster/index.js";
import { type AddonDecl, type AddonStack, addonStack } from "./addon.js";
import type { HelmSpy } from "./helm-spy.js";

/** A private `TMPDIR` for the processes a suite starts (Pulumi CLI, dynamic provider, helm). */
export interface Sandbox {
  /** The directory, given to the stacks as `TMPDIR`. */
  readonly dir: string;
  /** Names of the helm-handoff per-call temp dirs (`helm-handoff-XXXXXX`) present in {@link dir} now. */
  leftoverTempDirs(): Promise<string[]>;
  /** Processes still running with this sandbox as their `TMPDIR`: pid and command line. */
  strayProcesses(): Array<{ readonly pid: number; readonly cmdline: string }>;
  /**
   * Waits up to `timeoutMs` for every process of the sandbox to exit, then returns what is left
   * over: temp dirs and processes (both empty when the scenario cleaned up after itself).
   */
  leftovers(timeoutMs?: number): Promise<{ readonly dirs: string[]; readonly processes: string[] }>;
  /** Removes the directory. */
  remove(): Promise<void>;
}

/** The name `HelmRunner` gives its per-call temp dirs (`mkdtemp("helm-handoff-")`). */
const RUNNER_TEMP_DIR = /^helm-handoff-[A-Za-z0-9]{6}$/;

/** Creates a {@link Sandbox} in the test process's temp dir. */
export async function createSandbox(): Promise<Sandbox> {
  const dir = await mkdtemp(join(tmpdir(), "hh-faults-tmp-"));
  const marker = `TMPDIR=${dir}`;
  const strayProcesses = (): Array<{ pid: number; cmdline: string }> => {
    const found: Array<{ pid: number; cmdline: string }> = [];
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      const pid = Number(entry);
      if (pid === process.pid) continue;
      try {
        const environ = readFileSync(`/proc/${entry}/environ`, "utf8").split("\0");
        if (!environ.includes(marker)) continue;
        const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ").trim();
        // A zombie has an empty command line: it is gone, only its parent has not reaped it yet.
        if (cmdline !== "") found.push({ pid, cmdline });
      } catch {
        // gone meanwhile, or not ours
      }
    }
    return found;
  };
  const leftoverTempDirs = async (): Promise<string[]> =>
    (await readdir(dir)).filter((name) => RUNNER_TEMP_DIR.test(name)).sort();
  return {
    dir,
    leftoverTempDirs,
    strayProcesses,
    async leftovers(timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      while (strayProcesses().length > 0 && Date.now() < until) await sleep(250);
      return {
        dirs: await leftoverTempDirs(),
        processes: strayProcesses().map((p) => `${p.pid} ${p.cmdline}`),
      };
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Asserts that the scenario left no helm-handoff temp dir and no process in the sandbox (waits for exits first). */
export async function assertNoLeftovers(sandbox: Sandbox): Promise<void> {
  assert.deepEqual(await sandbox.leftovers(), { dirs: [], processes: [] }, "no temp dir and no process left");
}

/**
 * Like `addonStack` (test/support/addon.ts), with the sandbox's `TMPDIR` given to the Pulumi CLI
 * and through it to the dynamic provider and every helm run.
 */
export function faultStack(initial: AddonDecl[], spy: HelmSpy, sandbox: Sandbox): Promise<AddonStack> {
  return addonStack(initial, spy, { TMPDIR: sandbox.dir });
}

/** Polls `probe` every `intervalMs` until it returns a value other than undefined. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  options: { readonly timeoutMs?: number; readonly intervalMs?: number } = {},
): Promise<T> {
  const until = Date.now() + (options.timeoutMs ?? 120_000);
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(options.intervalMs ?? 200);
  }
}

/** The parent pid of `pid` (from /proc), or undefined when the process is gone. */
export function parentPid(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid ...": comm may contain spaces and parentheses, so split after the last ")".
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ppid = Number(rest[1]);
    return Number.isFinite(ppid) ? ppid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid exists (zombies count as gone). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** One Helm release revision as stored in the cluster (helm's storage Secret), read without helm. */
export interface StoredRevision {
  readonly name: string;
  readonly version: number;
  readonly status: string;
}

/** Helm's release Secrets for `release` in `namespace`, read with the cluster's admin credentials. */
export async function storedRevisions(
  cluster: LocalCluster,
  release: string,
  namespace = "default",
): Promise<StoredRevision[]> {
  const selector = encodeURIComponent(`owner=helm,name=${release}`);
  const res = await cluster.request(
    "GET",
    `/api/v1/namespaces/${namespace}/secrets?labelSelector=${selector}`,
  );
  if (!res.ok) throw new Error(`listing release secrets: HTTP ${res.status} ${res.text}`);
  const list = res.json<{ items: Array<{ metadata: { labels?: Record<string, string> } }> }>();
  return list.items
    .map((s) => ({
      name: s.metadata.labels?.name ?? "",
      version: Number(s.metadata.labels?.version ?? 0),
      status: s.metadata.labels?.status ?? "",
    }))
    .sort((a, b) => a.version - b.version);
}

/** Names of the objects of `kind` (a plural API path, e.g. `apps/v1/deployments`) labelled with the release. */
export async function objectsOf(
  cluster: LocalCluster,
  apiPath: string,
  release: string,
  namespace = "default",
): Promise<string[]> {
  const base = apiPath.startsWith("v1/") ? `/api/${apiPath}` : `/apis/${apiPath}`;
  const [group, resource] = [base.slice(0, base.lastIndexOf("/")), base.slice(base.lastIndexOf("/") + 1)];
  const selector = encodeURIComponent(`app.kubernetes.io/instance=${release}`);
  const res = await cluster.request(
    "GET",
    `${group}/namespaces/${namespace}/${resource}?labelSelector=${selector}`,
  );
  if (!res.ok) throw new Error(`listing ${apiPath}: HTTP ${res.status} ${res.text}`);
  return res
    .json<{ items: Array<{ metadata: { name: string } }> }>()
    .items.map((o) => o.metadata.name)
    .sort();
}

/** Reads the node, applies `change` to it and writes it back (GET + PUT, retried on a conflict). */
export async function updateNode(
  cluster: LocalCluster,
  nodeName: string,
  change: (node: {
    metadata: { labels?: Record<string, string> };
    spec: { unschedulable?: boolean };
  }) => void,
): Promise<void> {
  for (let i = 0; ; i++) {
    const got = await cluster.request("GET", `/api/v1/nodes/${nodeName}`);
    if (!got.ok) throw new Error(`GET node ${nodeName}: HTTP ${got.status} ${got.text}`);
    const node = got.json<{
      metadata: { labels?: Record<string, string> };
      spec: { unschedulable?: boolean };
    }>();
    change(node);
    const put = await cluster.request("PUT", `/api/v1/nodes/${nodeName}`, node);
    if (put.ok) return;
    if (put.status !== 409 || i >= 5) throw new Error(`PUT node ${nodeName}: HTTP ${put.status} ${put.text}`);
  }
}
