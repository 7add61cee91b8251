/**
 * The fault campaign's fixed-seed short version (`npm run chaos` runs the long one): a few seeded
 * runs, each a stack of add-ons driven through the CLI or the Automation API with one fault per
 * operation (process kills, API server and etcd outages, a cut network, a failing or stalled chart
 * repository), a foreign release and another owner's upgrade, then every invariant of
 * test/chaos/invariants.ts, one run whose add-ons are on three clusters in one program, and one
 * run with a CPU load beside it (test/chaos/load.ts). Seeds a
 * long campaign found failing are replayed here by name.
 */
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { runCampaign } from "../../chaos/campaign.js";
import { collectProgramRejections } from "../../support/pulumi.js";

describe("the seeded fault campaign keeps every invariant", { timeout: 1_800_000 }, () => {
  const rejections = collectProgramRejections();
  after(() => rejections.restore());

  test("four fixed-seed runs converge with no invariant broken", async () => {
    const lines: string[] = [];
    const result = await runCampaign({ seed: 3400, runs: 4, addons: 3, log: (l) => lines.push(l) });
    const failures = result.reports.flatMap((r) => r.violations.map((v) => `seed ${r.seed}: ${v}`));
    assert.deepEqual(failures, [], `${result.figures}\n${lines.join("\n")}`);
    assert.equal(result.reports.filter((r) => r.converged).length, 4);
  });

  test("a fixed-seed run with its add-ons on three clusters in one program converges with no invariant broken", async () => {
    const lines: string[] = [];
    const result = await runCampaign({
      seed: 3420,
      runs: 1,
      addons: 4,
      clusters: 3,
      log: (l) => lines.push(l),
    });
    const failures = result.reports.flatMap((r) => r.violations.map((v) => `seed ${r.seed}: ${v}`));
    assert.deepEqual(failures, [], `${result.figures}\n${lines.join("\n")}`);
    assert.equal(result.reports.filter((r) => r.converged).length, 1);
  });

  test("a fixed-seed run with more busy processes than cores beside it converges with no invariant broken", async () => {
    const lines: string[] = [];
    const result = await runCampaign({
      seed: 3410,
      runs: 1,
      addons: 3,
      load: "cpu",
      log: (l) => lines.push(l),
    });
    const failures = result.reports.flatMap((r) => r.violations.map((v) => `seed ${r.seed}: ${v}`));
    assert.deepEqual(failures, [], `${result.figures}\n${lines.join("\n")}`);
    assert.deepEqual(
      result.reports.map((r) => [r.load, r.converged]),
      [["cpu", true]],
    );
  });
});
