/**
 * The invariants checked at the end of every run, each a sentence of the issue that asked for the
 * campaign:
 * - every add-on has exactly one release, `deployed`, with the values the model expects (the first
 *   install's for ApplyOnce, the program's for Reconcile; none for a destroyed Reconcile add-on);
 * - no release is left `pending-*` (its latest revision; older revisions that a helm write cut
 *   short left pending are counted apart), and none has more revisions than the run could write;
 * - the foreign release and the other owner's revision are byte-identical to what was written;
 * - no process of the run is left, and no helm-handoff temp dir (kubeconfig copy inside) survives
 *   the sweep the next helm-handoff process runs;
 * - `refresh` then `preview` show no change (after a last `destroy`: the state holds no release);
 * - the state and everything printed hold no secret in plaintext.
 *
 * Test-only code.
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import { execa } from "execa";
import { liveRelease } from "../support/addon.js";
import { storedRevisions } from "../support/faults.js";
import { repoRoot } from "../support/repo-root.js";
import type { Driver } from "./drivers.js";
import type { AddonModel, Pinned } from "./model.js";
import { readPinned } from "./other-owners.js";
import { targetOf, type World } from "./world.js";

/** Revisions a release may have at most after one run (installs, upgrades, recovery rollbacks). */
const MAX_REVISIONS = 12;

/** Options of {@link checkInvariants}. */
export interface InvariantInput {
  readonly world: World;
  readonly driver: Driver;
  readonly addons: readonly AddonModel[];
  readonly seed: number;
  /** Whether the run ended with `destroy`. */
  readonly destroyed: boolean;
  /** Everything the run's operations printed, for the secret scan. */
  readonly printed: string;
  readonly log: (line: string) => void;
}

/**
 * Checks every invariant; resolves with the broken ones, how many temp dirs the sweep removed, and
 * everything printed with what the checks' own operations (refresh, preview) printed, for the transcript.
 */
export async function checkInvariants(
  input: InvariantInput,
): Promise<{ violations: string[]; swept: number; staleHistory: number; printed: string }> {
  const { world, driver, addons } = input;
  const violations: string[] = [];
  let printed = input.printed;
  let staleHistory = 0;
  if (input.destroyed) {
    const left = await driver.releaseUrns();
    if (left.size > 0) violations.push(`destroy left ${[...left.keys()].join(", ")} in the state`);
  } else {
    const refresh = await driver.run("refresh");
    printed += refresh.output;
    if (!refresh.ok) violations.push(`refresh failed: ${tail(refresh.output)}`);
    const preview = await driver.preview();
    printed += preview.output;
    if (!preview.ok || preview.changes !== 0) {
      violations.push(`preview after refresh shows ${preview.changes} change(s): ${tail(preview.output)}`);
    }
  }
  for (const a of addons) {
    const { cluster } = targetOf(world, a);
    const revisions = await storedRevisions(cluster, a.name);
    // The release's state is its latest revision's; an older one left pending by a helm write the
    // API server dropped is history, counted apart.
    const latest = revisions.at(-1);
    const pending = latest !== undefined && isPending(latest.status) ? [latest] : [];
    staleHistory += revisions.slice(0, -1).filter((r) => isPending(r.status)).length;
    const history = revisions.map((r) => `${r.version} ${r.status}`).join(", ");
    if (pending.length > 0) {
      const left = pending.map((r) => `${r.version} ${r.status}`).join(", ");
      violations.push(`${a.name}: revision(s) left ${left} (history: ${history})`);
    }
    if (revisions.length > MAX_REVISIONS)
      violations.push(`${a.name}: ${revisions.length} revisions (an install or upgrade loop?)`);
    const live = await liveRelease(cluster, a.name);
    if (a.expected === undefined) {
      if (live !== undefined)
        violations.push(`${a.name}: should have no release, has revision ${live.revision} (${live.status})`);
    } else if (live === undefined) {
      violations.push(`${a.name}: its release is gone`);
    } else {
      if (live.status !== "deployed") violations.push(`${a.name}: release is ${live.status}, not deployed`);
      if (!isDeepStrictEqual(live.values, a.expected)) {
        violations.push(
          `${a.name}: values ${JSON.stringify(live.values)}, expected ${JSON.stringify(a.expected)}`,
        );
      }
    }
    for (const [what, pinned] of [
      ["foreign release", a.foreign],
      ["other owner's revision", a.takenOver],
    ] as const) {
      if (pinned === undefined) continue;
      const latest = revisions.at(-1)?.version;
      if (latest !== pinned.revision)
        violations.push(
          `${a.name}: the ${what} (revision ${pinned.revision}) is followed by revision ${latest}`,
        );
      const now = await readPinned(world, a, pinned.revision).catch(() => undefined);
      if (!samePin(now, pinned))
        violations.push(`${a.name}: the ${what} (revision ${pinned.revision}) was changed or removed`);
    }
  }
  const left = await world.sandbox.leftovers(20_000);
  if (left.processes.length > 0) violations.push(`processes left: ${left.processes.join("; ")}`);
  const before = await world.sandbox.leftoverTempDirs();
  await sweepAsNextProcess(world.sandbox.dir);
  const after = await world.sandbox.leftoverTempDirs();
  if (after.length > 0) violations.push(`temp dirs the sweep cannot remove: ${after.join(", ")}`);
  const state = await driver.stateText();
  for (const secret of secretsOf(input)) {
    if (state.includes(secret)) violations.push(`a secret in plaintext in the state: ${secret.slice(0, 6)}…`);
    if (printed.includes(secret))
      violations.push(`a secret in plaintext in the output: ${secret.slice(0, 6)}…`);
  }
  return { violations, swept: before.length - after.length, staleHistory, printed };
}

/** The secrets of a run: every values token used, and each cluster's client key. */
function secretsOf(input: InvariantInput): string[] {
  const keys = input.world.targets.flatMap((t) => /client-key-data: (\S+)/.exec(t.kubeconfig)?.[1] ?? []);
  return [...input.addons.flatMap((a) => a.tokens), ...keys];
}

function isPending(status: string): boolean {
  return status.startsWith("pending") || status === "uninstalling";
}

function samePin(now: Pinned | undefined, pinned: Pinned): boolean {
  return now !== undefined && isDeepStrictEqual(now, pinned);
}

/** Runs the call-dir sweep as the next helm-handoff process on this machine would, in a new process. */
async function sweepAsNextProcess(tempRoot: string): Promise<void> {
  const module = `${repoRoot()}/dist/core/helm/call-dir.js`;
  await execa(process.execPath, [
    "--input-type=module",
    "-e",
    `const m = await import(${JSON.stringify(module)}); m.sweepStaleCallDirs(${JSON.stringify(tempRoot)});`,
  ]);
}

function tail(text: string): string {
  return text.trim().split("\n").slice(-4).join(" / ").slice(0, 500);
}
