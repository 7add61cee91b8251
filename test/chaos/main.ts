/**
 * `npm run chaos -- [--seed S] [--runs N] [--addons K] [--lanes L] [--load KIND] [--clusters C] [--world W]`: runs the seeded fault campaign
 * (see `campaign.ts`) and prints its figures; exits 1 when any run broke an invariant, naming the
 * seeds. With `--lanes L` the runs are split across L child processes, each with its own local
 * cluster and sandbox (run i goes to lane i % L, so every seed runs as it would alone), and the
 * figures are those of all runs. Defaults: a seed from the clock (printed first, to replay), 20
 * runs, 3 add-ons per run, 1 lane, no load. `--load cpu|io|cluster` puts that load beside every
 * run, `--load drawn` draws one per run from its seed (`load.ts`); `--clusters C` gives each lane C
 * local clusters, each run's add-ons spread over them in one program. `--world capi` makes every
 * run one of the Cluster API world (a HelmChartProxy on a local management cluster, one per lane,
 * `capi-run.ts`), `--world mixed` one run in ten, drawn from its seed; default `pulumi`.
 *
 * Test-only code.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { campaignFigures, runCampaign, WORLD_CHOICES, type WorldChoice } from "./campaign.js";
import { LOAD_KINDS, type LoadChoice } from "./load.js";
import type { RunReport } from "./run.js";

const { values } = parseArgs({
  options: {
    seed: { type: "string" },
    runs: { type: "string", default: "20" },
    addons: { type: "string", default: "3" },
    lanes: { type: "string", default: "1" },
    lane: { type: "string" },
    report: { type: "string" },
    load: { type: "string", default: "none" },
    clusters: { type: "string", default: "1" },
    world: { type: "string", default: "pulumi" },
  },
});
const number = (name: string, text: string | undefined, min: number): number => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) {
    console.error(`--${name} must be an integer of at least ${min}, got ${JSON.stringify(text)}`);
    process.exit(2);
  }
  return n;
};
const seed = values.seed === undefined ? Date.now() % 1_000_000 : number("seed", values.seed, 0);
const runs = number("runs", values.runs, 1);
const addons = number("addons", values.addons, 1);
const lanes = number("lanes", values.lanes, 1);
const clusters = number("clusters", values.clusters, 1);
const load = values.load as LoadChoice;
if (![...LOAD_KINDS, "drawn"].includes(load)) {
  console.error(
    `--load must be one of ${[...LOAD_KINDS, "drawn"].join(", ")}, got ${JSON.stringify(values.load)}`,
  );
  process.exit(2);
}
const world = values.world as WorldChoice;
if (!WORLD_CHOICES.includes(world)) {
  console.error(`--world must be one of ${WORLD_CHOICES.join(", ")}, got ${JSON.stringify(values.world)}`);
  process.exit(2);
}
const stamp = (): string => new Date().toISOString().slice(11, 19);

if (values.lane !== undefined) {
  // One lane, started by the parent below: runs its share and writes the reports as JSON.
  const index = number("lane", values.lane, 0);
  // An inline program killed mid-operation leaves rejections in Pulumi's in-process runtime that
  // nobody awaits; the engine already reported the operation's failure.
  process.on("unhandledRejection", () => undefined);
  const result = await runCampaign({
    seed,
    runs,
    addons,
    lane: { index, count: lanes },
    load,
    clusters,
    world,
    log: (line) => console.log(`${stamp()} [${index}] ${line}`),
  });
  await writeFile(values.report ?? "/dev/null", JSON.stringify(result.reports));
  process.exit(0);
}

console.log(
  `${stamp()} chaos: seed ${seed}, ${runs} runs, ${addons} add-ons per run, ${lanes} lane(s), load ${load}, ${clusters} cluster(s), world ${world}`,
);
const started = Date.now();
const dir = await mkdtemp(join(tmpdir(), "hh-chaos-"));
try {
  const lanesDone = Array.from({ length: Math.min(lanes, runs) }, async (_, index) => {
    const report = join(dir, `lane-${index}.json`);
    const args = [
      process.argv[1] ?? "",
      ...[
        "--seed",
        `${seed}`,
        "--runs",
        `${runs}`,
        "--addons",
        `${addons}`,
        "--load",
        load,
        "--clusters",
        `${clusters}`,
        "--world",
        world,
      ],
    ];
    const child = spawn(
      process.execPath,
      [...args, "--lanes", `${lanes}`, "--lane", `${index}`, "--report", report],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    createInterface({ input: child.stdout }).on("line", (line) => console.log(line));
    const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
    if (code !== 0) throw new Error(`lane ${index} exited with code ${code}`);
    return JSON.parse(await readFile(report, "utf8")) as RunReport[];
  });
  const reports = (await Promise.all(lanesDone)).flat().sort((a, b) => a.seed - b.seed);
  console.log(`\n${campaignFigures(reports, { seed, addons }, Date.now() - started)}`);
  process.exitCode = reports.some((r) => r.violations.length > 0) ? 1 : 0;
} finally {
  await rm(dir, { recursive: true, force: true });
}
