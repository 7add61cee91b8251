/**
 * One run of the campaign in the Cluster API world (`capi-world.ts`): a HelmChartProxy synthesized
 * by the cdk8s `ClusterAddon` (InstallOnce, a fresh secret in `workloadSecrets`, its name and a
 * note in the plain values) selecting two or three of the three workload clusters by a label of
 * the run's own, through a drawn sequence of operations: the first apply, then one or two of a
 * re-synthesis with new values (and sometimes a new secret) applied again, a cluster added to the
 * selector, a cluster taken out of it, and maybe a last deletion of the proxy. Each operation gets
 * one fault (`capi-faults.ts`) while CAAPH works; the run then waits, up to `CONVERGE_MS` after the
 * fault healed, until every cluster that was ever selected while the proxy existed has its
 * release deployed (and a deleted proxy is gone with its HelmReleaseProxies), and then `SETTLE_MS`
 * more, so that an upgrade or uninstall CAAPH should not do has time to show. The model: each
 * cluster's release keeps the values of its first install, the proxy's values at the moment the
 * cluster was first selected. Then the invariants (`capi-invariants.ts`), and the run removes its
 * proxy, resource set and carriers and its label from the Clusters (the releases stay, under the
 * run's own names). Every choice comes from the run's seed.
 *
 * Test-only code.
 *
 * @module
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { KubeObject } from "../../core/util/kube-object.js";
import { applyAll, CRS_API, proxyObserved, proxyPath, releaseProxies } from "../support/capi.js";
import { storedRevisions } from "../support/faults.js";
import {
  type CapiFaultPlan,
  type CapiInjection,
  type CapiOpReport,
  drawCapiFault,
  injectCapiFault,
  setClusterLabel,
} from "./capi-faults.js";
import { checkCapiInvariants } from "./capi-invariants.js";
import { CAPI_NS, type CapiModel, type CapiWorld, synthesizeProxy } from "./capi-world.js";
import { newToken } from "./model.js";
import { type Rng, seededRng } from "./rng.js";
import { type RunReport, saveTranscript } from "./run.js";

/** How long after a fault healed every selected cluster must have its release. */
export const CONVERGE_MS = 180_000;
/** How long a converged operation is watched before the next one (an upgrade would show). */
const SETTLE_MS = 5_000;

/** The operations of a capi run after its first apply. */
type CapiOp = "apply" | "values" | "select" | "deselect" | "delete";

function drawOps(rng: Rng): CapiOp[] {
  const ops: CapiOp[] = ["apply"];
  for (let i = rng.int(1, 2); i > 0; i--) ops.push(rng.pick(["values", "select", "deselect"] as const));
  if (rng.chance(0.3)) ops.push("delete");
  return ops;
}

/** Runs one seeded capi run on `world` and checks its invariants. Never throws for what it finds. */
export async function runCapiOnce(options: {
  readonly world: CapiWorld;
  readonly seed: number;
  readonly log: (line: string) => void;
}): Promise<RunReport> {
  const { world, seed } = options;
  const started = Date.now();
  const lines: string[] = [];
  const log = (line: string): void => {
    lines.push(line);
    options.log(line);
  };
  const rng = seededRng(seed);
  const id = `h${seed.toString(36)}`;
  const count = world.workloads.length;
  const unselected = rng.chance(0.3) ? -1 : rng.int(0, count - 1);
  const token = newToken(rng);
  const model: CapiModel = {
    program: {
      name: id,
      namespace: `ns-${id}`,
      selectorKey: `chaos-${id}`,
      values: { existingSecret: `${id}-token`, note: `run ${seed}, values 0`, run: seed, gen: 0 },
      token,
    },
    tokens: [token],
    selected: new Set([...Array(count).keys()].filter((i) => i !== unselected)),
    expected: new Map(),
    proxy: false,
  };
  const ops = drawOps(rng);
  const names = (set: Iterable<number>): string => [...set].map((i) => world.workloads[i]?.name).join(", ");
  log(`run ${seed}: capi, proxy ${id}, selects ${names(model.selected)}, ops ${ops.join(" ")}`);
  const violations: string[] = [];
  const reports: CapiOpReport[] = [];
  let objects: KubeObject[] = [];
  try {
    for (const i of model.selected) await label(i, "on");
    for (const op of ops) {
      const report = await perform(op);
      reports.push(report);
      if (!report.converged) {
        violations.push(`${op} did not converge within ${CONVERGE_MS / 1000} s after its fault healed`);
        break;
      }
    }
    if (violations.length === 0) violations.push(...(await checkCapiInvariants(world, model, log)));
  } catch (error) {
    violations.push(
      `the run itself failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
  } finally {
    await cleanUp().catch((e: unknown) => log(`  clean-up failed: ${String(e)}`));
  }
  if (violations.length > 0) saveTranscript(seed, violations, `${lines.join("\n")}\n`, log);
  return {
    seed,
    driver: "capi",
    load: "none",
    ops: [],
    capi: reports,
    converged: reports.length === ops.length && reports.every((r) => r.converged),
    errors: [],
    violations,
    swept: 0,
    leftByDestroy: 0,
    staleHistory: 0,
    ms: Date.now() - started,
  };

  async function label(i: number, value: string | undefined): Promise<void> {
    const c = world.workloads[i];
    if (c !== undefined) await setClusterLabel(world, c, model.program.selectorKey, value);
  }

  /** Changes the model and the management cluster for `op`, then waits for it under its fault. */
  async function perform(op: CapiOp): Promise<CapiOpReport> {
    const opStart = Date.now();
    const before = new Set(model.expected.keys());
    if (op === "apply" || op === "values") {
      if (op === "values") {
        const gen = Number(model.program.values.gen) + 1;
        const rotated = rng.chance(0.5);
        const fresh = rotated ? newToken(rng) : model.program.token;
        if (rotated) model.tokens.push(fresh);
        model.program = {
          ...model.program,
          token: fresh,
          values: { ...model.program.values, note: `run ${seed}, values ${gen}`, gen },
        };
        log(`  re-synthesized with values ${gen}${rotated ? " and a new secret" : ""}`);
      }
      objects = synthesizeProxy(world, model.program);
      await applyAll(world.mgmt, objects);
      model.proxy = true;
    } else if (op === "select" || op === "deselect") {
      const pool = [...Array(count).keys()].filter((i) => model.selected.has(i) === (op === "deselect"));
      if (pool.length > (op === "deselect" ? 1 : 0)) {
        const i = rng.pick(pool);
        await label(i, op === "select" ? "on" : undefined);
        if (op === "select") model.selected.add(i);
        else model.selected.delete(i);
        log(`  ${op === "select" ? "selected" : "unselected"} ${world.workloads[i]?.name}`);
      } else log(`  nothing to ${op}`);
    } else {
      await removeAt(proxyPath(CAPI_NS, model.program.name));
      model.proxy = false;
      log("  deleted the proxy");
    }
    if (model.proxy) {
      for (const i of model.selected) if (!model.expected.has(i)) model.expected.set(i, model.program.values);
    }
    const installing = [...model.expected.keys()].filter((i) => !before.has(i));
    const plan = drawCapiFault(rng, installing.length > 0 ? installing : [...model.selected]);
    return await underFault(op, plan, opStart);
  }

  /** Injects `plan` and waits until the op converged after the fault healed, or the bound passed. */
  async function underFault(op: CapiOp, plan: CapiFaultPlan, opStart: number): Promise<CapiOpReport> {
    let done = false;
    let healedAt: number | undefined;
    const others = (): Promise<boolean> => isConverged(plan.target);
    const fault = injectCapiFault(world, plan, model.program.selectorKey, () => isConverged(), others).then(
      (i) => {
        healedAt = Date.now();
        return i;
      },
    );
    let injection: CapiInjection | undefined;
    fault.then((i) => (injection = i)).catch(() => undefined);
    for (;;) {
      const healedBefore = healedAt;
      const ok = await isConverged();
      if (ok) done = true;
      if (ok && healedBefore !== undefined) break;
      if (healedBefore !== undefined && Date.now() - healedBefore > CONVERGE_MS) break;
      await sleep(1000);
    }
    const injected = injection ?? (await fault);
    const converged = done && (await isConverged());
    const end = Date.now();
    log(
      `  ${op}: ${converged ? "converged" : "NOT converged"} ${((end - (healedAt ?? end)) / 1000).toFixed(1)} s after the fault healed (${injected.note})`,
    );
    if (converged) await sleep(SETTLE_MS);
    return {
      op,
      injection: injected,
      converged,
      msAfterFaults: end - (healedAt ?? end),
      ms: end - opStart,
    };
  }

  /**
   * Whether every cluster that should have a release has it deployed (all but `except`), and the
   * proxy is as the model says: reconciled at its generation, or gone with its HelmReleaseProxies.
   */
  async function isConverged(except?: number): Promise<boolean> {
    try {
      for (const i of model.expected.keys()) {
        const c = world.workloads[i];
        if (c === undefined || i === except) continue;
        const revisions = await storedRevisions(c.local, model.program.name, model.program.namespace);
        if (revisions.at(-1)?.status !== "deployed") return false;
      }
      const { name } = model.program;
      if (!model.proxy) {
        const res = await world.mgmt.request("GET", proxyPath(CAPI_NS, name));
        return res.status === 404 && (await releaseProxies(world.mgmt, CAPI_NS, name)).size === 0;
      }
      return (await proxyObserved(world.mgmt, CAPI_NS, name)) !== undefined;
    } catch {
      return false; // an API server of this run's faults is down
    }
  }

  async function removeAt(path: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const res = await world.mgmt.request("DELETE", path).catch(() => undefined);
      if (res !== undefined && (res.ok || res.status === 404)) return;
      if (attempt >= 60)
        throw new Error(`DELETE ${path}: ${res ? `HTTP ${res.status} ${res.text}` : "no answer"}`);
      await sleep(500);
    }
  }

  /** Removes the run's objects from the management cluster and its label from every Cluster. */
  async function cleanUp(): Promise<void> {
    for (const o of [...objects].reverse()) {
      const name = o.metadata.name ?? "";
      const ns = o.metadata.namespace ?? CAPI_NS;
      if (o.kind === "HelmChartProxy") await removeAt(proxyPath(ns, name));
      else if (o.kind === "ClusterResourceSet")
        await removeAt(`${CRS_API}/namespaces/${ns}/clusterresourcesets/${name}`);
      else if (o.kind === "Secret") await removeAt(`/api/v1/namespaces/${ns}/secrets/${name}`);
    }
    for (const i of world.workloads.keys()) await label(i, undefined);
  }
}
