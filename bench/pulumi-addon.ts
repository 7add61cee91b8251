/**
 * Benchmarks of the Pulumi front end, measured side by side in one run
 * (`npm run bench:pulumi`). Prints three figures:
 *
 * 1. create overhead = (up with one ClusterAddon - up of an empty program) / plain `helm install`
 *    of the same chart; target <= 1.15.
 * 2. steady state = second up of 20 ApplyOnce add-ons after a values change / up of an empty
 *    program; target <= 1.2, with zero helm processes started.
 * 3. readiness latency = from the API server answering /readyz to `helm install` starting;
 *    target <= 1 s.
 *
 * Each timing is the median of a few runs. Not a test: nothing here asserts.
 */
import { startLocalCluster } from "../local-cluster/index.js";
import { type AddonDecl, addonStack } from "../test/support/addon.js";
import { localChart, runHelm } from "../test/support/charts.js";
import { createHelmSpy } from "../test/support/helm-spy.js";
import { testStack } from "../test/support/pulumi.js";
import { median, timed } from "./stats.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

async function main(): Promise<void> {
  const spy = await createHelmSpy();
  const cluster = await startLocalCluster({ name: "bench", workloads: true });
  await cluster.ready;
  const chart = localChart("workload");
  try {
    // --- 1. create overhead ---------------------------------------------------------------
    const empty: number[] = [];
    const one: number[] = [];
    const helmOnly: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const e = await testStack({ program: async () => ({}) });
      empty.push(await timed(() => e.up()));
      await e.dispose();
      const s = await addonStack(
        [{ name: `bench-one-${i}`, args: { kubeconfig: cluster.kubeconfig, chart: { path: chart } } }],
        spy,
      );
      one.push(await timed(() => s.up()));
      await s.dispose();
      helmOnly.push(
        await timed(() =>
          runHelm(["install", `bench-helm-${i}`, chart, "--kubeconfig", cluster.kubeconfigPath, "--wait"]),
        ),
      );
    }
    const overhead = (median(one) - median(empty)) / median(helmOnly);

    // --- 2. steady state ------------------------------------------------------------------
    const decls = (message: string): AddonDecl[] =>
      Array.from({ length: 20 }, (_, i) => ({
        name: `steady-${i}`,
        args: {
          kubeconfig: cluster.kubeconfig,
          chart: { path: chart },
          install: { wait: false },
          values: { message },
        },
      }));
    const twenty = await addonStack(decls("first"), spy);
    await twenty.up();
    const steady: number[] = [];
    await spy.reset();
    for (let i = 0; i < ROUNDS; i++) {
      twenty.current = decls(`changed-${i}`);
      steady.push(await timed(() => twenty.up()));
    }
    const helmRuns = (await spy.calls()).length;
    await twenty.dispose();
    const steadyRatio = median(steady) / median(empty);

    // --- 3. readiness latency -------------------------------------------------------------
    const latencies: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const late = await startLocalCluster({ name: `late-${i}`, apiServerDelay: 8_000 });
      await spy.reset();
      const s = await addonStack(
        [
          {
            name: "late",
            args: { kubeconfig: late.kubeconfig, chart: { path: chart }, install: { wait: false } },
          },
        ],
        spy,
      );
      const up = s.up();
      await late.ready;
      const readyAt = Date.now();
      await up;
      const install = (await spy.timedCalls()).find((c) => c.argv.startsWith("install"));
      if (install) latencies.push(install.at - readyAt);
      await s.dispose();
      await late.stop();
    }

    const fmt = (n: number) => n.toFixed(2);
    process.stdout.write(
      [
        `rounds: ${ROUNDS} (medians)`,
        `empty up: ${fmt(median(empty) / 1000)} s; up with one ClusterAddon: ${fmt(median(one) / 1000)} s; helm install --wait: ${fmt(median(helmOnly) / 1000)} s`,
        `create overhead ratio: ${fmt(overhead)} (target <= 1.15)`,
        `steady state ratio (20 ApplyOnce add-ons after a values change / empty up): ${fmt(steadyRatio)} (target <= 1.2); helm processes started: ${helmRuns}`,
        `readiness latency (/readyz answering -> helm install starting): ${fmt(median(latencies) / 1000)} s (target <= 1 s)`,
        "",
      ].join("\n"),
    );
  } finally {
    await cluster.stop();
    await spy.remove();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
