/**
 * The faults of the campaign: what each kind does, drawn from the run's generator, and injected at
 * its moment while one operation runs. Process kills find their target among the sandbox's
 * processes (every process the campaign's Pulumi CLI starts carries the sandbox `TMPDIR`); cluster
 * faults act on one of the world's local clusters; network faults on the TCP proxy in front of its API
 * server; repository faults on the HTTP chart repository. An injection reports whether it hit
 * something (a kill found its process, a repository fault saw a request, a cluster fault happened
 * while the operation still ran) and heals before it resolves, except `apiserver-dead`, which heals
 * only once the operation has ended (the API server is gone for the whole operation).
 *
 * Test-only code.
 *
 * @module
 */
import { basename } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { CutMode } from "../support/tcp-proxy.js";
import type { Rng } from "./rng.js";
import type { World } from "./world.js";

/** Every kind of fault, in the order the figures list them. */
export const FAULT_KINDS = [
  "kill-pulumi",
  "kill-provider",
  "kill-helm",
  "apiserver-restart",
  "apiserver-dead",
  "etcd-pause",
  "repo-5xx",
  "repo-stall",
  "net-cut",
] as const;

/** One kind of fault. */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** A fault drawn for one operation: its kind, its moment and how long it lasts. */
export interface FaultPlan {
  readonly kind: FaultKind;
  /** Milliseconds after the operation started. */
  readonly atMs: number;
  /** How long the fault lasts (outage, pause, stall), in milliseconds; 503s answered for `repo-5xx`. */
  readonly size: number;
  /** How a cut network behaves (`net-cut` only). */
  readonly cutMode: CutMode;
  /** Which cluster a cluster or network fault hits (an index into the world's targets). */
  readonly target: number;
}

/** What an injection did. */
export interface Injection {
  readonly plan: FaultPlan;
  /** Whether the fault hit: its target existed, or it happened while the operation ran. */
  readonly hit: boolean;
  /** What happened, for the run's log. */
  readonly note: string;
}

/** The kinds that act on one cluster (its API server, etcd, or the network to it). */
const CLUSTER_FAULTS: ReadonlySet<FaultKind> = new Set([
  "apiserver-restart",
  "apiserver-dead",
  "etcd-pause",
  "net-cut",
]);

/**
 * Draws one fault; with several `clusters`, a cluster fault also draws the one it hits (only then,
 * so a one-cluster run draws what it always drew).
 */
export function drawFault(rng: Rng, clusters = 1): FaultPlan {
  const kind = rng.pick(FAULT_KINDS);
  const atMs = rng.int(0, 2500);
  const size =
    kind === "repo-5xx"
      ? rng.int(1, 8)
      : kind === "repo-stall"
        ? rng.int(2000, 10_000)
        : kind === "apiserver-dead"
          ? 0
          : rng.int(500, 8000);
  const cutMode: CutMode = rng.chance(0.5) ? "reset" : "blackhole";
  const target = clusters > 1 && CLUSTER_FAULTS.has(kind) ? rng.int(0, clusters - 1) : 0;
  return { kind, atMs, size, cutMode, target };
}

/** A process of the sandbox: pid, argv[0]'s base name and the whole command line. */
interface SandboxProcess {
  readonly pid: number;
  readonly command: string;
  readonly cmdline: string;
}

function sandboxProcesses(world: World): SandboxProcess[] {
  return world.sandbox.strayProcesses().map((p) => ({
    pid: p.pid,
    command: basename(p.cmdline.split(" ")[0] ?? ""),
    cmdline: p.cmdline,
  }));
}

/** Pulumi's Node.js dynamic provider host or the package's provider. */
const PROVIDER_PROCESS =
  /dynamic-provider|pulumi-resource-pulumi-nodejs|pulumi-resource-helm-handoff|plugin\/main\.cjs/;

function kill(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // gone meanwhile
  }
}

/** Polls until `find` returns a process or the operation ends. */
async function whileRunning<T>(running: () => boolean, find: () => T | undefined): Promise<T | undefined> {
  for (;;) {
    const found = find();
    if (found !== undefined || !running()) return found;
    await sleep(50);
  }
}

/**
 * Injects `plan` into the operation whose progress `running` reports (true until it settles), then
 * heals. Resolves once the fault is healed (for `apiserver-dead`, after the operation ended).
 */
export async function inject(world: World, plan: FaultPlan, running: () => boolean): Promise<Injection> {
  const until = Date.now() + plan.atMs;
  while (Date.now() < until && running()) await sleep(Math.min(50, until - Date.now()));
  const missed = (what: string): Injection => ({ plan, hit: false, note: what });
  const { cluster, proxy } = world.targets[plan.target] ?? world.targets[0];
  const on = world.targets.length > 1 ? ` (cluster ${plan.target})` : "";
  if (!running()) return missed("the operation ended before the fault's moment");
  switch (plan.kind) {
    case "kill-pulumi": {
      const cli = sandboxProcesses(world).find((p) => p.command === "pulumi");
      if (cli === undefined) return missed("no pulumi process");
      // The whole tree: a child forked while the list was read is caught by a later round.
      for (let round = 0; round < 20; round++) {
        const left = sandboxProcesses(world);
        if (left.length === 0) break;
        for (const p of left) kill(p.pid);
        await sleep(50);
      }
      return { plan, hit: true, note: `killed pulumi ${cli.pid} and its process tree` };
    }
    case "kill-provider": {
      const provider = await whileRunning(running, () =>
        sandboxProcesses(world).find((p) => PROVIDER_PROCESS.test(p.cmdline)),
      );
      if (provider === undefined) return missed("no provider process while the operation ran");
      kill(provider.pid);
      return { plan, hit: true, note: `killed the provider ${provider.pid}` };
    }
    case "kill-helm": {
      const helm = await whileRunning(running, () =>
        sandboxProcesses(world).find((p) => p.command === "helm"),
      );
      if (helm === undefined) return missed("no helm process while the operation ran");
      kill(helm.pid);
      return {
        plan,
        hit: true,
        note: `killed ${helm.cmdline.split(" ").slice(0, 3).join(" ")} (${helm.pid})`,
      };
    }
    case "apiserver-restart": {
      await cluster.killApiServer();
      await sleep(plan.size);
      await cluster.startApiServer();
      return { plan, hit: true, note: `API server down for ${plan.size} ms${on}` };
    }
    case "apiserver-dead": {
      await cluster.killApiServer();
      while (running()) await sleep(100);
      await cluster.startApiServer();
      return { plan, hit: true, note: `API server down until the operation ended${on}` };
    }
    case "etcd-pause": {
      const etcd = cluster.processes().find((p) => p.name === "etcd");
      if (etcd === undefined) return missed("no etcd process");
      process.kill(etcd.pid, "SIGSTOP");
      try {
        await sleep(plan.size);
      } finally {
        process.kill(etcd.pid, "SIGCONT");
      }
      return { plan, hit: true, note: `etcd paused for ${plan.size} ms${on}` };
    }
    case "repo-5xx": {
      const before = world.repo.log().length;
      world.repo.failNext(plan.size);
      while (running() && world.repo.log().length - before < plan.size) await sleep(50);
      world.repo.heal();
      const answered = world.repo
        .log()
        .slice(before)
        .filter((r) => r.status === 503).length;
      return answered > 0
        ? { plan, hit: true, note: `the repository answered 503 ${answered} time(s)` }
        : missed("no request reached the repository");
    }
    case "repo-stall": {
      const before = world.repo.requests();
      world.repo.stallFor(plan.size);
      const end = Date.now() + plan.size;
      while (running() && Date.now() < end) await sleep(50);
      world.repo.heal();
      const seen = world.repo.requests() - before;
      return seen > 0
        ? { plan, hit: true, note: `the repository stalled ${seen} request(s) for up to ${plan.size} ms` }
        : missed("no request reached the stalled repository");
    }
    case "net-cut": {
      proxy.cut(plan.cutMode);
      await sleep(plan.size);
      proxy.restore();
      return {
        plan,
        hit: true,
        note: `network to the API server cut (${plan.cutMode}) for ${plan.size} ms${on}`,
      };
    }
  }
}
