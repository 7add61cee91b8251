/**
 * `npm run chaos -- [--seed S] [--runs N] [--addons K]`: runs the seeded fault campaign (see
 * `campaign.ts`) and prints its figures; exits 1 when any run broke an invariant, naming the seeds.
 * Defaults: a seed from the clock (printed first, to replay), 20 runs, 3 add-ons per run.
 *
 * Test-only code.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { runCampaign } from "./campaign.js";

const { values } = parseArgs({
  options: {
    seed: { type: "string" },
    runs: { type: "string", default: "20" },
    addons: { type: "string", default: "3" },
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
// An inline program killed mid-operation leaves rejections in Pulumi's in-process runtime that
// nobody awaits; the engine already reported the operation's failure.
process.on("unhandledRejection", () => undefined);
const stamp = (): string => new Date().toISOString().slice(11, 19);
console.log(`${stamp()} chaos: seed ${seed}, ${runs} runs, ${addons} add-ons per run`);
const result = await runCampaign({ seed, runs, addons, log: (line) => console.log(`${stamp()} ${line}`) });
console.log(`\n${result.figures}`);
process.exit(result.failedSeeds.length > 0 ? 1 : 0);
