/**
 * examples/fleet on three local clusters (no workloads, so installs do not wait), one of which
 * comes up late: one stack per cluster in parallel, every cluster gets every add-on exactly once.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { clusterIdentityFromKubeconfig } from "../../../core/index.js";
import {
  bootstrapFleet,
  defaultFleetAddons,
  type FleetClusterResult,
  type FleetOptions,
  formatFleetSummary,
} from "../../../examples/fleet/index.js";
import { type LocalCluster, startLocalCluster } from "../../../local-cluster/index.js";
import { runHelm } from "../../support/charts.js";
import { inlinePulumiHome } from "../../support/pulumi.js";
import { repoRoot } from "../../support/repo-root.js";

/** `helm list -A` of a cluster: release name → namespace, revision and status. */
async function helmList(
  cluster: LocalCluster,
): Promise<Map<string, { ns: string; rev: number; st: string }>> {
  const out = await runHelm([
    "list",
    "--all-namespaces",
    "--deployed",
    "--failed",
    "--pending",
    "--uninstalling",
    "--kubeconfig",
    cluster.kubeconfigPath,
    "-o",
    "json",
  ]);
  const items = JSON.parse(out.stdout) as {
    name: string;
    namespace: string;
    revision: string;
    status: string;
  }[];
  return new Map(items.map((i) => [i.name, { ns: i.namespace, rev: Number(i.revision), st: i.status }]));
}

describe("examples/fleet on three local clusters", { timeout: 900_000 }, () => {
  const clusters: LocalCluster[] = [];
  const dirs: string[] = [];
  let options: FleetOptions;
  let first: FleetClusterResult[];

  before(async () => {
    const started = await Promise.all([
      startLocalCluster({ name: "fleet-a" }),
      startLocalCluster({ name: "fleet-b" }),
      // Provisioned late: its API server answers only after the fleet run has started.
      startLocalCluster({ name: "fleet-late", apiServerDelay: 15_000 }),
    ]);
    clusters.push(...started);
    const backend = await mkdtemp(join(tmpdir(), "hh-fleet-backend-"));
    // The runner's own home, as a user's runner has it: the inline programs put the package's
    // provider in this process's plugin cache (docs/languages.md).
    const pulumiHome = await inlinePulumiHome();
    await mkdir(join(repoRoot(), ".pulumi-test"), { recursive: true });
    const workRoot = await mkdtemp(join(repoRoot(), ".pulumi-test", "fleet-"));
    dirs.push(backend, workRoot);
    options = {
      clusters: clusters.map((c) => ({ name: c.name, kubeconfig: c.kubeconfig })),
      addons: defaultFleetAddons(false),
      backendUrl: `file://${backend}`,
      passphrase: "helm-handoff-fleet-test",
      workRoot,
      env: { PULUMI_HOME: pulumiHome },
    };
  });
  after(async () => {
    await Promise.allSettled(clusters.map((c) => c.stop()));
    await Promise.allSettled(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  test("one stack per cluster installs every add-on on every cluster exactly once, the late one included", async () => {
    first = await bootstrapFleet(options);
    assert.deepEqual(
      first.map((r) => [r.cluster, r.stack, r.ok, r.error]),
      clusters.map((c) => [c.name, `fleet-${c.name}`, true, undefined]),
    );
    await clusters[2]?.ready;
    for (const cluster of clusters) {
      const releases = await helmList(cluster);
      assert.deepEqual(
        [...releases.entries()].sort(([a], [b]) => a.localeCompare(b)),
        [
          ["cni", { ns: "kube-system", rev: 1, st: "deployed" }],
          ["gitops", { ns: "gitops-system", rev: 1, st: "deployed" }],
        ],
        `releases on ${cluster.name}`,
      );
    }
    const ids = new Set<string>();
    for (const [i, result] of first.entries()) {
      const cluster = clusters[i]!;
      const expectedId = clusterIdentityFromKubeconfig(cluster.kubeconfig).clusterId;
      for (const row of result.rows) {
        assert.equal(row.revision, 1);
        assert.equal(row.status, "deployed");
        assert.ok(row.attempts >= 1);
        assert.ok(row.ms > 0, "the add-on's step was timed");
        assert.equal(row.handoff?.cluster.id, expectedId);
        assert.equal(row.handoff?.cluster.server, cluster.server);
      }
      ids.add(expectedId);
    }
    assert.equal(ids.size, 3, "three distinct cluster identities");
  });

  test("the summary table has a line per cluster and add-on with revision, status and attempts", () => {
    const lines = formatFleetSummary(first).trimEnd().split("\n");
    assert.match(lines[0] ?? "", /^cluster\s+add-on\s+revision\s+status\s+attempts\s+time$/);
    const rows = lines.slice(2).map((l) => l.split(/\s+/));
    assert.deepEqual(
      rows.map((r) => r.slice(0, 4).join(" ")),
      clusters.flatMap((c) => [`${c.name} cni 1 deployed`, `${c.name} gitops 1 deployed`]),
    );
  });

  test("a second run of the fleet changes nothing on any cluster", async () => {
    const second = await bootstrapFleet({ ...options, concurrency: 2 });
    assert.ok(
      second.every((r) => r.ok),
      JSON.stringify(second.map((r) => r.error)),
    );
    for (const cluster of clusters) {
      const releases = await helmList(cluster);
      assert.deepEqual(
        [...releases.values()].map((r) => r.rev),
        [1, 1],
      );
    }
    assert.deepEqual(
      second.flatMap((r) => r.rows.map((row) => row.handoff?.installedAt)),
      first.flatMap((r) => r.rows.map((row) => row.handoff?.installedAt)),
    );
  });
});
