/**
 * Fleet benchmark of the Pulumi front end (`npm run bench -- fleet [rounds]`): one `pulumi up` of 3
 * ClusterAddons on one local cluster, then one `pulumi up` of 3 ClusterAddons on each of 10 local
 * clusters (30 in one stack, so in one dynamic provider process), alternated for `rounds` rounds
 * (default 5; each round installs new releases). Prints the median time of each, their ratio
 * (10 × 3 / 1 × 3; target <= 3 on 2 cores) and the dynamic provider's peak memory.
 * Not a test: nothing here asserts.
 *
 * @module
 */
import { pathToFileURL } from "node:url";
import type { LocalCluster } from "../local-cluster/index.js";
import { createSandbox } from "../test/support/faults.js";
import { benchUp, type MeasuredUp, startFleet } from "../test/support/fleet.js";
import { createHelmSpy } from "../test/support/helm-spy.js";
import { median } from "./stats.js";

async function main(rounds: number): Promise<void> {
  const [spy, sandbox] = await Promise.all([createHelmSpy(), createSandbox()]);
  const clusters = await startFleet("bench-fleet", 11);
  try {
    // The single-cluster run gets a cluster of its own; every round installs releases of its own.
    const [single = clusters[0] as LocalCluster, ...fleet] = clusters;
    const ones: MeasuredUp[] = [];
    const tens: MeasuredUp[] = [];
    let helmRuns = 0;
    for (let r = 1; r <= rounds; r++) {
      ones.push(await benchUp([single], spy, sandbox, `-r${r}`));
      await spy.reset();
      tens.push(await benchUp(fleet, spy, sandbox, `-r${r}`));
      helmRuns = (await spy.calls()).length;
      process.stderr.write(
        `round ${r}: ${(ones[r - 1]!.ms / 1000).toFixed(2)} s vs ${(tens[r - 1]!.ms / 1000).toFixed(2)} s\n`,
      );
    }
    const one = median(ones.map((m) => m.ms));
    const ten = median(tens.map((m) => m.ms));
    const mib = (kib: number): string => (kib / 1024).toFixed(0);
    const peak = (ms: MeasuredUp[]): number => Math.max(...ms.map((m) => m.provider.peakRssKiB));
    const peakHelm = Math.max(...tens.map((m) => m.provider.peakHelmProcesses));
    process.stdout.write(
      [
        `1 cluster x 3 add-ons: ${(one / 1000).toFixed(2)} s, median of ${rounds} (provider peak RSS ${mib(peak(ones))} MiB)`,
        `10 clusters x 3 add-ons: ${(ten / 1000).toFixed(2)} s, median of ${rounds} (provider peak RSS ${mib(peak(tens))} MiB, ${helmRuns} helm processes per run, at most ${peakHelm} seen at once)`,
        `fleet ratio (10 x 3 / 1 x 3): ${(ten / one).toFixed(2)} (target <= 3 on 2 cores)`,
        `dynamic provider peak memory (VmHWM): ${mib(Math.max(peak(ones), peak(tens)))} MiB`,
        "",
      ].join("\n"),
    );
  } finally {
    await Promise.allSettled(clusters.map((c) => c.stop()));
    await Promise.allSettled([spy.remove(), sandbox.remove()]);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main(Number(process.argv[2] ?? 5));
}
