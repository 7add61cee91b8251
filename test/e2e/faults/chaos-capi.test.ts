/**
 * The fault campaign's Cluster API world, fixed-seed (`npm run chaos -- --world capi` runs the long
 * one): a local management cluster with the real Cluster API core manager and CAAPH and three
 * workload clusters; each run applies the HelmChartProxy the cdk8s `ClusterAddon` synthesizes
 * (InstallOnce, its secret in `workloadSecrets`), then changes its values, its selection or deletes
 * it, while workload API servers restart or go away, the management API server restarts or a
 * Cluster is relabelled, and checks every invariant of test/chaos/capi-invariants.ts: one release
 * per selected cluster, revision 1 with its first install's values, no secret in the management
 * cluster outside the resource-set carriers. A suite of its own (not in chaos.test.ts): the
 * management cluster takes one to two minutes to start, and beside the other suite it runs in
 * parallel under `npm test`.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { runCampaign } from "../../chaos/campaign.js";
import { skipUnlessBuilt } from "../../support/binaries.js";

describe("the seeded fault campaign in the Cluster API world keeps every invariant", {
  skip: skipUnlessBuilt(["capi-manager", "caaph-manager", "kube-apiserver"]),
  timeout: 1_500_000,
}, () => {
  test("two fixed-seed HelmChartProxy runs under API server faults converge with no invariant broken", async () => {
    const lines: string[] = [];
    const result = await runCampaign({
      seed: 3430,
      runs: 2,
      addons: 1,
      world: "capi",
      log: (l) => lines.push(l),
    });
    const failures = result.reports.flatMap((r) => r.violations.map((v) => `seed ${r.seed}: ${v}`));
    assert.deepEqual(failures, [], `${result.figures}\n${lines.join("\n")}`);
    assert.deepEqual(
      result.reports.map((r) => [r.driver, r.converged]),
      [
        ["capi", true],
        ["capi", true],
      ],
    );
  });
});
