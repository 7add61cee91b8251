/**
 * Fleet benchmark of the Pulumi front end (`npm run bench -- fleet`): one `pulumi up` of 3
 * ClusterAddons on one local cluster, then one `pulumi up` of 3 ClusterAddons on each of 10 local
 * clusters (30 in one stack, so in one dynamic provider process). Prints the time of each up, their
 * ratio (10 × 3 / 1 × 3; target <= 3 on 2 cores) and the dynamic provider's peak memory.
 * Not a test: nothing here asserts.
 *
 * @module
 */
import { pathToFileURL } from "node:url";
import type { LocalCluster } from "../local-cluster/index.js";
import { createSandbox } from "../test/support/faults.js";
import { benchUp, startFleet } from "../test/support/fleet.js";
import { createHelmSpy } from "../test/support/helm-spy.js";

async function main(): Promise<void> {
  const [spy, sandbox] = await Promise.all([createHelmSpy(), createSandbox()]);
  const clusters = await startFleet("bench-fleet", 11);
  try {
    // The single-cluster run gets a cluster of its own, so both runs install fresh releases.
    const [single = clusters[0] as LocalCluster, ...fleet] = clusters;
    const one = await benchUp([single], spy, sandbox);
    await spy.reset();
    const ten = await benchUp(fleet, spy, sandbox);
    const helmRuns = (await spy.calls()).length;
    const mib = (kib: number): string => (kib / 1024).toFixed(0);
    process.stdout.write(
      [
        `1 cluster x 3 add-ons: ${(one.ms / 1000).toFixed(2)} s (provider peak RSS ${mib(one.provider.peakRssKiB)} MiB)`,
        `10 clusters x 3 add-ons: ${(ten.ms / 1000).toFixed(2)} s (provider peak RSS ${mib(ten.provider.peakRssKiB)} MiB, ${helmRuns} helm processes, at most ${ten.provider.peakHelmProcesses} seen at once)`,
        `fleet ratio (10 x 3 / 1 x 3): ${(ten.ms / one.ms).toFixed(2)} (target <= 3 on 2 cores)`,
        `dynamic provider peak memory (VmHWM): ${mib(Math.max(one.provider.peakRssKiB, ten.provider.peakRssKiB))} MiB`,
        "",
      ].join("\n"),
    );
  } finally {
    await Promise.allSettled(clusters.map((c) => c.stop()));
    await Promise.allSettled([spy.remove(), sandbox.remove()]);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
