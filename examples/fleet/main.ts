/**
 * The fleet example's command line (after `npm run build`, with the tools it uses on PATH):
 *
 * ```sh
 * scripts/with-toolchain.sh --helm --cluster --pulumi node dist/examples/fleet/main.js --local 3
 * scripts/with-toolchain.sh --helm --pulumi node dist/examples/fleet/main.js --cluster a=./a.kubeconfig --cluster b=./b.kubeconfig
 * ```
 *
 * `--local N` starts N local clusters (no workloads, so installs do not wait) and stops them at the
 * end; `--cluster NAME=FILE` targets existing clusters. `--concurrency N` bounds the stacks running
 * at once (default 4), `--backend URL` chooses the state backend (default `file://REPO/.pulumi-state/fleet`,
 * or a temp dir removed at the end with `--local`).
 * Prints the engine output prefixed by cluster, then the summary table; exits 1 if a cluster failed.
 *
 * @module
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type LocalCluster, startLocalCluster } from "helm-handoff/local-cluster";
import {
  bootstrapFleet,
  DEFAULT_CONCURRENCY,
  defaultFleetAddons,
  type FleetCluster,
  formatFleetSummary,
} from "./index.js";

async function main(): Promise<void> {
  const { values: flags } = parseArgs({
    options: {
      cluster: { type: "string", multiple: true },
      local: { type: "string" },
      concurrency: { type: "string", default: String(DEFAULT_CONCURRENCY) },
      backend: { type: "string" },
    },
  });
  const locals: LocalCluster[] = [];
  let tempBackend: string | undefined;
  try {
    const clusters: FleetCluster[] = [];
    for (const spec of flags.cluster ?? []) {
      const eq = spec.indexOf("=");
      if (eq <= 0) throw new Error(`--cluster ${spec}: expected NAME=KUBECONFIG_FILE`);
      clusters.push({ name: spec.slice(0, eq), kubeconfig: await readFile(spec.slice(eq + 1), "utf8") });
    }
    const localCount = Number(flags.local ?? (clusters.length === 0 ? "3" : "0"));
    for (let i = 0; i < localCount; i++) {
      const cluster = await startLocalCluster({ name: `fleet-${i + 1}` });
      locals.push(cluster);
      clusters.push({ name: cluster.name, kubeconfig: cluster.kubeconfig });
      process.stdout.write(`local cluster ${cluster.name} at ${cluster.server}\n`);
    }
    // Local clusters die with this process: keep their stacks' state in a temp dir too.
    let backendUrl = flags.backend;
    if (backendUrl === undefined && locals.length > 0) {
      tempBackend = await mkdtemp(join(tmpdir(), "helm-handoff-fleet-state-"));
      backendUrl = `file://${tempBackend}`;
    }
    const results = await bootstrapFleet({
      clusters,
      concurrency: Number(flags.concurrency),
      addons: defaultFleetAddons(locals.length === 0),
      ...(backendUrl !== undefined ? { backendUrl } : {}),
      onOutput: (cluster, text) => {
        for (const line of text.split("\n"))
          if (line.trim() !== "") process.stdout.write(`[${cluster}] ${line}\n`);
      },
    });
    process.stdout.write(`\n${formatFleetSummary(results)}`);
    if (results.some((r) => !r.ok)) process.exitCode = 1;
  } finally {
    await Promise.allSettled(locals.map((c) => c.stop()));
    if (tempBackend !== undefined) await rm(tempBackend, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`fleet failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
