/**
 * The faults of the campaign's Cluster API world, one per operation, drawn from the run's
 * generator and injected at a drawn moment (0–1 s) after the operation applied its objects, while CAAPH
 * installs: a workload cluster's API server killed and started again after 0.5–15 s, or killed
 * until the operation's other clusters are done (at most 60 s); the management cluster's API
 * server killed and started again after 0.5–10 s (the managers and CAAPH lose it, and so do the
 * campaign's own reads, which retry); a Cluster relabelled: its selector label taken away and put
 * back 0.5–8 s later (it stops matching the proxy, then matches again). Every fault heals before
 * `injectCapiFault` resolves.
 *
 * Test-only code.
 *
 * @module
 */
import { setTimeout as sleep } from "node:timers/promises";
import { clusterPath } from "../../local-cluster/controllers/capi/objects.js";
import type { CapiWorkloadCluster } from "../../local-cluster/index.js";
import type { Json } from "../support/gitops.js";
import { CAPI_NS, type CapiWorld } from "./capi-world.js";
import type { Rng } from "./rng.js";

/** Every kind of fault of the capi world, in the order the figures list them. */
export const CAPI_FAULT_KINDS = ["workload-restart", "workload-dead", "mgmt-restart", "relabel"] as const;

/** One kind of capi fault. */
export type CapiFaultKind = (typeof CAPI_FAULT_KINDS)[number];

/** The longest a workload API server stays dead waiting for the operation's other clusters. */
export const DEAD_MAX_MS = 60_000;

/** A capi fault drawn for one operation. */
export interface CapiFaultPlan {
  readonly kind: CapiFaultKind;
  /** Milliseconds after the operation applied its objects. */
  readonly atMs: number;
  /** How long the outage or the relabelling lasts (for `workload-dead`: until the others are done). */
  readonly size: number;
  /** The workload cluster it hits (an index into the world's workloads; not for `mgmt-restart`). */
  readonly target: number;
}

/** What an injection did. */
export interface CapiInjection {
  readonly plan: CapiFaultPlan;
  /** Whether it hit: it happened before the operation converged. */
  readonly hit: boolean;
  readonly note: string;
}

/** Draws one fault; `targets` are the workload clusters worth hitting (those the operation installs). */
export function drawCapiFault(rng: Rng, targets: readonly number[]): CapiFaultPlan {
  const kind = rng.pick(CAPI_FAULT_KINDS);
  const atMs = rng.int(0, 1000);
  const size =
    kind === "workload-restart"
      ? rng.int(500, 15_000)
      : kind === "mgmt-restart"
        ? rng.int(500, 10_000)
        : kind === "relabel"
          ? rng.int(500, 8000)
          : 0;
  const target = rng.pick(targets.length > 0 ? targets : [0]);
  return { kind, atMs, size, target };
}

/** Sets (`value` given) or removes one label of a Cluster, reading it again on a conflict. */
export async function setClusterLabel(
  world: CapiWorld,
  cluster: CapiWorkloadCluster,
  key: string,
  value: string | undefined,
): Promise<void> {
  const path = clusterPath(CAPI_NS, cluster.name);
  for (let attempt = 1; ; attempt++) {
    const res = await world.mgmt.request("GET", path).catch(() => undefined);
    if (res?.ok) {
      const live = res.json<Json>();
      const labels = { ...((live.metadata as { labels?: Record<string, string> }).labels ?? {}) };
      if (value === undefined) delete labels[key];
      else labels[key] = value;
      const put = await world.mgmt
        .request("PUT", path, { ...live, metadata: { ...live.metadata, labels } })
        .catch(() => undefined);
      if (put?.ok) return;
      if (put !== undefined && put.status !== 409 && put.status < 500)
        throw new Error(`PUT ${path}: HTTP ${put.status} ${put.text}`);
    }
    // The management API server may be restarting (a fault of this run): try again.
    if (attempt >= 120) throw new Error(`could not relabel Cluster ${cluster.name}`);
    await sleep(500);
  }
}

/**
 * Injects `plan` at its moment; it hit when `converged`, asked right then, says the operation is
 * not done yet. `othersDone` says whether every cluster of the operation but the target is done
 * (what `workload-dead` waits for).
 */
export async function injectCapiFault(
  world: CapiWorld,
  plan: CapiFaultPlan,
  selectorKey: string,
  converged: () => Promise<boolean>,
  othersDone: () => Promise<boolean>,
): Promise<CapiInjection> {
  await sleep(plan.atMs);
  const hit = !(await converged().catch(() => false));
  const target = world.workloads[plan.target] ?? world.workloads[0];
  if (target === undefined) throw new Error("the capi world has no workload cluster");
  const done = (note: string): CapiInjection => ({
    plan,
    hit,
    note: hit ? note : `${note} (after the operation had converged)`,
  });
  switch (plan.kind) {
    case "workload-restart": {
      await target.local.killApiServer();
      await sleep(plan.size);
      await target.local.startApiServer();
      return done(`API server of ${target.name} down for ${plan.size} ms`);
    }
    case "workload-dead": {
      await target.local.killApiServer();
      const started = Date.now();
      while (Date.now() - started < DEAD_MAX_MS && !(await othersDone().catch(() => false))) await sleep(500);
      await target.local.startApiServer();
      return done(
        `API server of ${target.name} down until the other clusters were done (${Date.now() - started} ms)`,
      );
    }
    case "mgmt-restart": {
      await world.mgmt.killApiServer();
      await sleep(plan.size);
      await world.mgmt.startApiServer();
      return done(`management API server down for ${plan.size} ms`);
    }
    case "relabel": {
      const had = await hasLabel(world, target, selectorKey);
      if (!had) return { plan, hit: false, note: `${target.name} is not selected: nothing to relabel` };
      await setClusterLabel(world, target, selectorKey, undefined);
      await sleep(plan.size);
      await setClusterLabel(world, target, selectorKey, "on");
      return done(`Cluster ${target.name} unselected for ${plan.size} ms, then selected again`);
    }
  }
}

async function hasLabel(world: CapiWorld, c: CapiWorkloadCluster, key: string): Promise<boolean> {
  for (let attempt = 1; attempt <= 60; attempt++) {
    const res = await world.mgmt.request("GET", clusterPath(CAPI_NS, c.name)).catch(() => undefined);
    if (res?.ok) {
      const labels = (res.json<Json>().metadata as { labels?: Record<string, string> }).labels ?? {};
      return labels[key] === "on";
    }
    await sleep(500);
  }
  return false;
}

/** What one operation of a capi run did. */
export interface CapiOpReport {
  readonly op: string;
  readonly injection: CapiInjection;
  /** Whether every selected cluster had its release (and the proxy its state) within the bound. */
  readonly converged: boolean;
  /** From the fault's healing to convergence. */
  readonly msAfterFaults: number;
  /** From the operation's start to convergence. */
  readonly ms: number;
}
