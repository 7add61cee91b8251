/**
 * The seeded fault campaign: `runs` runs (run i has seed `seed + i`, so one run is replayed with
 * `--seed SEED+i --runs 1`) on one shared world, then the figures: runs, faults injected by kind,
 * runs converged, tries and time to converge, errors users saw by class, temp dirs swept, and the
 * invariant violations with the seed of each failing run. `npm run chaos -- --seed S --runs N
 * --addons K` runs it (`main.ts`); test/e2e/faults/chaos.test.ts runs a short fixed-seed campaign.
 *
 * Test-only code.
 *
 * @module
 */
import { median } from "../../bench/stats.js";
import { CAPI_FAULT_KINDS, type CapiOpReport } from "./capi-faults.js";
import { runCapiOnce } from "./capi-run.js";
import { type CapiWorld, startCapiWorld } from "./capi-world.js";
import { FAULT_KINDS, type FaultKind } from "./faults.js";
import { LOAD_KINDS, type LoadChoice } from "./load.js";
import { seededRng } from "./rng.js";
import { type RunReport, runOnce } from "./run.js";
import { typedErrorClass } from "./user-errors.js";
import { startWorld, type World } from "./world.js";

/** Every world a campaign can run in; `mixed` draws per run. */
export const WORLD_CHOICES = ["pulumi", "capi", "mixed"] as const;

/** The campaign's choice of world. */
export type WorldChoice = (typeof WORLD_CHOICES)[number];

/** The share of capi runs in a `mixed` campaign (a management cluster costs 1–2 min to start). */
export const MIXED_CAPI_SHARE = 0.1;

/** The world of run `seed`: the choice itself, or drawn by a generator of its own for `mixed`. */
export function worldOf(choice: WorldChoice, seed: number): "pulumi" | "capi" {
  if (choice !== "mixed") return choice;
  return seededRng((seed ^ 0xca91ca91) >>> 0).chance(MIXED_CAPI_SHARE) ? "capi" : "pulumi";
}

/** Options of {@link runCampaign}. */
export interface CampaignOptions {
  /** Seed of the first run. */
  readonly seed: number;
  readonly runs: number;
  /** Add-ons per run. */
  readonly addons: number;
  /** Progress and per-run lines. */
  readonly log: (line: string) => void;
  /**
   * Run only the runs `i` with `i % count === index` (one lane of a campaign split across
   * processes, each with its own world). @default every run
   */
  readonly lane?: { readonly index: number; readonly count: number };
  /** Local clusters in the world; a run's add-ons are spread over them in one program. @default 1 */
  readonly clusters?: number;
  /** The load beside each run (`load.ts`): one for all, or drawn per run. @default "none" */
  readonly load?: LoadChoice;
  /** The world of the runs. @default "pulumi" */
  readonly world?: WorldChoice;
}

/** The campaign's result. */
export interface CampaignResult {
  readonly reports: readonly RunReport[];
  /** The figures, as printed. */
  readonly figures: string;
  /** Seeds of the runs that broke an invariant. */
  readonly failedSeeds: readonly number[];
}

/** Runs the campaign; never throws for what a run finds (only when the world cannot start). */
export async function runCampaign(options: CampaignOptions): Promise<CampaignResult> {
  const { log } = options;
  const choice = options.world ?? "pulumi";
  const world: World | undefined =
    choice === "capi" ? undefined : await startWorld(log, options.clusters ?? 1);
  let capiWorld: CapiWorld | undefined;
  const reports: RunReport[] = [];
  const started = Date.now();
  try {
    const lane = options.lane ?? { index: 0, count: 1 };
    for (let i = lane.index; i < options.runs; i += lane.count) {
      const seed = (options.seed + i) >>> 0;
      const capi = worldOf(choice, seed) === "capi";
      if (capi) capiWorld ??= await startCapiWorld(log);
      const report =
        capi && capiWorld !== undefined
          ? await runCapiOnce({ world: capiWorld, seed, log })
          : world !== undefined
            ? await runOnce({ world, seed, addons: options.addons, log, load: options.load ?? "none" })
            : undefined;
      if (report === undefined) throw new Error(`run ${seed} has no world`);
      reports.push(report);
      const verdict = report.violations.length === 0 ? "ok" : `FAILED (seed ${seed})`;
      log(`run ${i + 1}/${options.runs} seed ${seed}: ${verdict} in ${(report.ms / 1000).toFixed(1)} s`);
      for (const v of report.violations) log(`  violation: ${v}`);
    }
  } finally {
    await capiWorld?.close();
    await world?.close();
  }
  const failedSeeds = reports.filter((r) => r.violations.length > 0).map((r) => r.seed);
  const figures = campaignFigures(reports, options, Date.now() - started);
  return { reports, figures, failedSeeds };
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** The figures of a campaign's runs (of every lane), as printed. */
export function campaignFigures(
  reports: readonly RunReport[],
  options: Pick<CampaignOptions, "seed" | "addons">,
  ms: number,
): string {
  const ops = reports.flatMap((r) => r.ops);
  const hit = ops.filter((o) => o.injection.hit);
  const byKind = (kind: FaultKind): string => {
    const drawn = ops.filter((o) => o.injection.plan.kind === kind);
    return `${kind} ${drawn.filter((o) => o.injection.hit).length}/${drawn.length}`;
  };
  const faultedFailed = hit.filter((o) => o.tries > 1);
  const errors = reports.flatMap((r) => r.errors);
  const classes = new Map<string, number>();
  for (const e of errors) {
    const key = e.kind === "typed" ? (typedErrorClass(e.message) ?? "typed") : e.kind;
    classes.set(key, (classes.get(key) ?? 0) + 1);
  }
  const drivers = new Map<string, number>();
  for (const r of reports) drivers.set(r.driver, (drivers.get(r.driver) ?? 0) + 1);
  const loads = LOAD_KINDS.map((kind) => {
    const loaded = reports.filter((r) => r.load === kind);
    return `${kind} ${loaded.length} (${loaded.filter((r) => r.violations.length > 0).length} failed)`;
  });
  const violations = reports.reduce((n, r) => n + r.violations.length, 0);
  const failed = reports.filter((r) => r.violations.length > 0);
  const s = (v: number): string => `${(v / 1000).toFixed(1)} s`;
  return [
    `chaos campaign: seed ${options.seed}, ${reports.length} runs of ${options.addons} add-ons, ${s(ms)} in all`,
    `drivers: ${[...drivers].map(([d, n]) => `${d} ${n}`).join(", ")}`,
    // The Pulumi world's lines, left out of a campaign of capi runs only.
    ...(reports.some((r) => r.capi === undefined)
      ? [
          `load beside the runs: ${loads.join(", ")}`,
          `operations: ${ops.length}; faults injected (hit/drawn): ${hit.length}/${ops.length}`,
          `  by kind: ${FAULT_KINDS.map(byKind).join(", ")}`,
          `operations a fault made fail: ${faultedFailed.length}; tries to converge over hit faults: median ${median(hit.map((o) => o.tries))}, max ${Math.max(0, ...hit.map((o) => o.tries))}`,
          `time to converge over hit faults: p50 ${s(
            percentile(
              hit.map((o) => o.ms),
              50,
            ),
          )}, p95 ${s(
            percentile(
              hit.map((o) => o.ms),
              95,
            ),
          )}`,
          `errors users saw: ${[...classes].map(([c, n]) => `${c} ${n}`).join(", ") || "none"}`,
          `Reconcile releases a destroy left, having found the cluster unreachable for 30 s (by design): ${reports.reduce((n, r) => n + r.leftByDestroy, 0)}`,
          `older revisions left pending-* in a release's history by a helm write cut short (the release itself deployed): ${reports.reduce((n, r) => n + r.staleHistory, 0)}`,
          `temp dirs left by killed processes and removed by the next one's sweep: ${reports.reduce((n, r) => n + r.swept, 0)}`,
          `typed errors without their next step: ${errors.filter((e) => e.kind === "typed" && !e.nextStep).length}`,
        ]
      : []),
    `runs converged: ${reports.filter((r) => r.converged).length}/${reports.length}`,
    ...capiFigures(reports),
    `invariant violations: ${violations}${failed.length > 0 ? ` in runs with seeds ${failed.map((r) => r.seed).join(", ")}` : ""}`,
  ].join("\n");
}

/** The capi world's lines of the figures (none without a capi run). */
function capiFigures(reports: readonly RunReport[]): string[] {
  const runs = reports.filter((r) => r.capi !== undefined);
  if (runs.length === 0) return [];
  const ops: CapiOpReport[] = runs.flatMap((r) => r.capi ?? []);
  const hit = ops.filter((o) => o.injection.hit);
  const kinds = CAPI_FAULT_KINDS.map((kind) => {
    const drawn = ops.filter((o) => o.injection.plan.kind === kind);
    return `${kind} ${drawn.filter((o) => o.injection.hit).length}/${drawn.length}`;
  });
  const after = hit.filter((o) => o.converged).map((o) => o.msAfterFaults);
  const s = (v: number): string => `${(v / 1000).toFixed(1)} s`;
  return [
    `capi world: ${runs.length} runs, ${ops.length} operations (${[...new Set(ops.map((o) => o.op))].map((op) => `${op} ${ops.filter((o) => o.op === op).length}`).join(", ")}); faults hit/drawn ${hit.length}/${ops.length}`,
    `  by kind: ${kinds.join(", ")}`,
    `  operations converged: ${ops.filter((o) => o.converged).length}/${ops.length}; after a fault that hit, converged p50 ${s(percentile(after, 50))}, p95 ${s(percentile(after, 95))}, max ${s(Math.max(0, ...after))} after it healed`,
  ];
}
