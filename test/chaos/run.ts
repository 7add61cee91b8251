/**
 * One run of the campaign: K add-ons (ApplyOnce and Reconcile mixed, charts from the repository,
 * the registry and a directory, a secret in every add-on's values) on a fresh stack, driven by the
 * CLI or the Automation API (drawn), through a drawn sequence of operations (the first `up`, then
 * values changes, refreshes, `up --replace` of one add-on, strategy changes, and maybe a last
 * `destroy`). Each operation's first try gets one fault at a drawn moment; a failed try is followed
 * by the user's recovery and the same operation again, until it succeeds or `MAX_TRIES` are spent.
 * Once per run, a foreign release is planted under one add-on's name before the first `up`, and
 * another owner upgrades one handed-off release between two operations. The invariants are
 * checked at the end (see `invariants.ts`). Every choice comes from the run's seed.
 *
 * Test-only code.
 *
 * @module
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { CapiOpReport } from "./capi-faults.js";
import { automationDriver, cliDriver, type Driver } from "./drivers.js";
import { drawFault, type FaultPlan, type Injection, inject } from "./faults.js";
import { checkInvariants } from "./invariants.js";
import { type LoadChoice, type LoadKind, loadOf, startLoad } from "./load.js";
import {
  type AddonModel,
  afterDestroy,
  afterUp,
  declOf,
  drawAddons,
  leftUnreachable,
  newToken,
} from "./model.js";
import { plantForeignRelease, upgradeAsOtherOwner } from "./other-owners.js";
import { type Rng, seededRng } from "./rng.js";
import { classifyErrors, type SeenError } from "./user-errors.js";
import type { World } from "./world.js";

/** Tries of one operation (the faulted one included) before the run counts as not converged. */
export const MAX_TRIES = 5;
/** An operation still running after this long is killed and counted as a violation (a hang). */
const HANG_MS = 300_000;

/** The operations a run draws from, after its first `up`. */
type OpKind = "up" | "values" | "refresh" | "replace" | "strategy" | "destroy";

/** What one operation of a run did. */
export interface OpReport {
  readonly op: OpKind;
  readonly injection: Injection;
  /** Tries until it succeeded (1 = the faulted try itself). */
  readonly tries: number;
  readonly converged: boolean;
  /** From the operation's start to its success, recoveries included. */
  readonly ms: number;
}

/** What one run did and found. */
export interface RunReport {
  readonly seed: number;
  readonly driver: string;
  /** The load beside the run (`load.ts`). */
  readonly load: LoadKind;
  readonly ops: readonly OpReport[];
  /** A run of the Cluster API world (`capi-run.ts`): its operations (`ops` is then empty). */
  readonly capi?: readonly CapiOpReport[];
  readonly converged: boolean;
  /** Every error a user saw, sorted (see `user-errors.ts`). */
  readonly errors: readonly SeenError[];
  /** Invariants broken; empty when the run passed. */
  readonly violations: readonly string[];
  /** helm-handoff temp dirs left by killed processes and swept by the next one. */
  readonly swept: number;
  /** Reconcile releases a destroy left because it found the cluster unreachable (by design). */
  readonly leftByDestroy: number;
  /** Older revisions left `pending-*` in a release's history (the release itself is not). */
  readonly staleHistory: number;
  readonly ms: number;
}

/** Options of {@link runOnce}. */
export interface RunOptions {
  readonly world: World;
  readonly seed: number;
  readonly addons: number;
  readonly log: (line: string) => void;
  /** The load beside the run. @default "none" */
  readonly load?: LoadChoice;
}

function drawOps(rng: Rng): OpKind[] {
  const ops: OpKind[] = ["up"];
  for (let i = rng.int(1, 2); i > 0; i--)
    ops.push(rng.pick(["values", "refresh", "replace", "strategy"] as const));
  if (rng.chance(0.3)) ops.push("destroy");
  return ops;
}

/** Runs one seeded run and checks its invariants. Never throws for what the run finds. */
export async function runOnce(options: RunOptions): Promise<RunReport> {
  const { world, seed, log } = options;
  const started = Date.now();
  const rng = seededRng(seed);
  const clusters = world.targets.length;
  const addons = drawAddons(rng, options.addons, `c${seed.toString(36)}`, clusters);
  const driverKind = rng.pick(["cli", "automation/dynamic", "automation/package"] as const);
  const ops = drawOps(rng);
  const takeoverBefore = ops.length > 1 ? rng.int(1, ops.length - 1) : -1;
  const foreignTarget = rng.pick(addons);
  const loadKind = loadOf(options.load ?? "none", seed);
  log(
    `run ${seed}: ${driverKind}, load ${loadKind}, add-ons ${addons.map((a) => `${a.name}(${a.strategy},${a.source}${clusters > 1 ? `,cluster ${a.cluster}` : ""})`).join(" ")}, ops ${ops.join(" ")}`,
  );
  const driver: Driver =
    driverKind === "cli"
      ? await cliDriver(world)
      : await automationDriver(world, driverKind === "automation/package");
  const errors: SeenError[] = [];
  let printed = "";
  let leftByDestroy = 0;
  let staleHistory = 0;
  const violations: string[] = [];
  const reports: OpReport[] = [];
  const load = await startLoad(loadKind, world);
  log(`  load: ${load.note}`);
  const program = (): Promise<void> =>
    driver.setAddons(addons.filter((a) => a.inStack).map((a) => declOf(world, a, seed)));
  try {
    const planted = await plantForeignRelease(world, foreignTarget, {
      count: 1,
      kibPerObject: 1,
      owner: "someone-else",
    });
    foreignTarget.foreign = planted.pinned;
    foreignTarget.expected = planted.values;
    log(`  planted a foreign release ${foreignTarget.name} (${foreignTarget.strategy} will meet it)`);
    for (const [i, op] of ops.entries()) {
      if (i === takeoverBefore) await takeOver(world, rng, addons, log);
      const report = await perform(op);
      reports.push(report);
      if (!report.converged) {
        violations.push(`${op} did not converge in ${MAX_TRIES} tries`);
        break;
      }
    }
    if (violations.length === 0) {
      const destroyed = ops.at(-1) === "destroy";
      const found = await checkInvariants({ world, driver, addons, seed, destroyed, printed, log });
      violations.push(...found.violations);
      staleHistory = found.staleHistory;
      printed = found.printed;
      return report(found.swept);
    }
    return report(0);
  } catch (error) {
    violations.push(
      `the run itself failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    return report(0);
  } finally {
    await load.stop().catch(() => undefined);
    await driver.dispose().catch(() => undefined);
  }

  function report(swept: number): RunReport {
    const untyped = errors.filter((e) => e.kind === "untyped");
    for (const e of untyped) violations.push(`an error that is not a typed one: ${e.message}`);
    for (const e of errors.filter((x) => x.kind === "typed" && !x.nextStep)) {
      violations.push(`a typed error without its next step: ${e.message}`);
    }
    if (violations.length > 0) saveTranscript(seed, violations, printed, log);
    return {
      seed,
      driver: driverKind,
      load: loadKind,
      ops: reports,
      converged: reports.length === ops.length && reports.every((r) => r.converged),
      errors,
      violations,
      swept,
      leftByDestroy,
      staleHistory,
      ms: Date.now() - started,
    };
  }

  /** Applies the op's change to the model and the program, then runs it with a fault until it succeeds. */
  async function perform(op: OpKind): Promise<OpReport> {
    let replace: string[] | undefined;
    if (op === "values") {
      for (const a of addons.filter((x) => x.inStack)) {
        if (rng.chance(0.7)) {
          a.gen++;
          a.token = newToken(rng);
          a.tokens.push(a.token);
        }
      }
    } else if (op === "strategy") {
      const eligible = addons.filter(
        (a) => a.inStack && a.foreign === undefined && a.takenOver === undefined,
      );
      if (eligible.length > 0) {
        const a = rng.pick(eligible);
        a.strategy = a.strategy === "ApplyOnce" ? "Reconcile" : "ApplyOnce";
        log(`  ${a.name} switches to ${a.strategy}`);
      }
    } else if (op === "replace") {
      const inStack = addons.filter((a) => a.inStack);
      if (inStack.length > 0) {
        const a = rng.pick(inStack);
        const urn = (await driver.releaseUrns()).get(a.name);
        if (urn !== undefined) replace = [urn];
        log(`  replacing ${a.name}`);
      }
    }
    await program();
    const plan = drawFault(rng, clusters);
    const opStart = Date.now();
    let opOutput = "";
    let injection: Injection | undefined;
    for (let tries = 1; tries <= MAX_TRIES; tries++) {
      const faulted = tries === 1 ? plan : undefined;
      const { outcome, injected } = await attempt(op, replace, faulted);
      printed += outcome.output;
      opOutput += outcome.output;
      injection ??= injected;
      const killed = injected?.hit === true && (plan.kind === "kill-pulumi" || plan.kind === "kill-provider");
      if (outcome.ok) {
        log(`  ${op}: ok after ${tries} tr${tries === 1 ? "y" : "ies"} (${injection?.note ?? "no fault"})`);
        if (op === "destroy") {
          const left = leftUnreachable(opOutput);
          if (left.size > 0) log(`  destroy found the cluster unreachable and left ${[...left].join(", ")}`);
          afterDestroy(addons, left);
          leftByDestroy += left.size;
        } else if (op !== "refresh") afterUp(addons, seed);
        return { op, injection: injection ?? missed(plan), tries, converged: true, ms: Date.now() - opStart };
      }
      const seen = classifyErrors(outcome.output, killed);
      errors.push(...seen);
      log(
        `  ${op}: try ${tries} failed (${injected?.note ?? "no fault"}): ${seen.map((e) => `[${e.kind}] ${e.message.slice(0, 160)}`).join(" | ") || firstLines(outcome.output)}`,
      );
      // A Reconcile add-on refused a release someone else wrote: the user takes it out of the program.
      for (const a of addons) {
        if (a.inStack && a.foreign !== undefined && a.strategy === "Reconcile") {
          if (seen.some((e) => e.message.startsWith(`release default/${a.name} is not this resource's`))) {
            a.inStack = false;
            log(`  ${a.name} is someone else's: taken out of the program`);
          }
        }
      }
      await program();
      const recovered = await driver.recover().catch((e: unknown) => `recovery failed: ${String(e)}`);
      printed += recovered;
      if (recovered.trim() !== "") log(`  recovery: ${firstLines(recovered)}`);
    }
    return {
      op,
      injection: injection ?? missed(plan),
      tries: MAX_TRIES,
      converged: false,
      ms: Date.now() - opStart,
    };
  }

  /** One try of `op`, with `plan` injected when given; heals the fault before resolving. */
  async function attempt(
    op: OpKind,
    replace: string[] | undefined,
    plan: FaultPlan | undefined,
  ): Promise<{ outcome: { ok: boolean; output: string }; injected: Injection | undefined }> {
    let running = true;
    const verb = op === "destroy" ? "destroy" : op === "refresh" ? "refresh" : "up";
    const operation = driver.run(verb, replace === undefined ? {} : { replace });
    const timer = new AbortController();
    const hang = sleep(HANG_MS, "hang" as const, { signal: timer.signal }).catch(() => "done" as const);
    const fault = plan === undefined ? Promise.resolve(undefined) : inject(world, plan, () => running);
    const first = await Promise.race([operation, hang]);
    timer.abort();
    if (first === "hang") {
      violations.push(`${op} still ran after ${HANG_MS / 1000} s: killed`);
      for (const p of world.sandbox.strayProcesses()) process.kill(p.pid, "SIGKILL");
    }
    const outcome = await operation;
    running = false;
    return { outcome, injected: await fault };
  }
}

/**
 * Keeps a failed run's record in the temp dir, where a caller that removes the campaign's output
 * does not reach: each violation as the campaign describes it, then everything the run's
 * operations printed.
 */
export function saveTranscript(
  seed: number,
  violations: readonly string[],
  printed: string,
  log: (l: string) => void,
): void {
  // `scripts/test.sh` names the caller's own temp dir here: its run's temp dir is removed at the end.
  const dir = process.env.HELM_HANDOFF_CHAOS_DIR ?? join(tmpdir(), "helm-handoff-chaos");
  const file = join(dir, `seed-${seed}.log`);
  try {
    mkdirSync(dir, { recursive: true });
    const header = violations.map((v) => `violation: ${v}\n`).join("");
    writeFileSync(file, `${header}\n${printed}`);
    log(`  the run's violations and everything its operations printed: ${file}`);
  } catch {
    // best effort
  }
}

function missed(plan: FaultPlan): Injection {
  return { plan, hit: false, note: "not injected" };
}

function firstLines(text: string): string {
  return text.trim().split("\n").slice(-3).join(" / ").slice(0, 400);
}

/** Another owner upgrades one handed-off (ApplyOnce, ours) release. */
async function takeOver(
  world: World,
  rng: Rng,
  addons: AddonModel[],
  log: (l: string) => void,
): Promise<void> {
  const eligible = addons.filter(
    (a) => a.inStack && a.strategy === "ApplyOnce" && a.expected !== undefined && a.foreign === undefined,
  );
  if (eligible.length === 0) return;
  const a = rng.pick(eligible);
  const written = await upgradeAsOtherOwner(world, a);
  a.takenOver = written.pinned;
  a.expected = written.values;
  log(`  another owner upgraded ${a.name} to revision ${written.pinned.revision}`);
}
