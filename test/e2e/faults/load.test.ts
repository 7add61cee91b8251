/**
 * Load: 30 ClusterAddons across 10 local clusters (no workloads, no wait) in one stack, so one
 * `pulumi up` and one dynamic provider process. Every cluster gets the same three release names:
 * only the cluster identity tells the add-ons apart. Checks that every release landed on its own
 * cluster (by identity and by its values), that the provider never ran more helm processes at once
 * than its bound, and reports the provider's peak memory.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { valuesFingerprint } from "../../../core/handoff/digests.js";
import type { HandoffRecord } from "../../../core/handoff/record.js";
import { clusterIdentityFromKubeconfig } from "../../../core/index.js";
import type { LocalCluster } from "../../../local-cluster/index.js";
import type { ReleaseStatus } from "../../../provider/index.js";
import type { AddonStack } from "../../support/addon.js";
import { runHelm } from "../../support/charts.js";
import { assertNoLeftovers, createSandbox, faultStack, type Sandbox } from "../../support/faults.js";
import {
  FLEET_RELEASES,
  fleetAddons,
  fleetValues,
  type MeasuredUp,
  measuredUp,
  startFleet,
} from "../../support/fleet.js";
import { createHelmSpy, type HelmSpy } from "../../support/helm-spy.js";

/** Clusters of the fleet. */
const CLUSTERS = 10;
/** The provider's helm bound in this test (`HELM_HANDOFF_MAX_CONCURRENCY`), below the engine's parallelism. */
const MAX_HELM = 6;
/** A generous sanity bound on the provider's peak RSS; the measured figure is reported, not asserted. */
const RSS_SANITY_KIB = 2 * 1024 * 1024;

/** A release as `helm list -o json` prints it. */
interface ListedRelease {
  readonly name: string;
  readonly namespace: string;
  readonly status: string;
  readonly chart: string;
}

/** `helm list --all-namespaces` of a cluster, with the real helm (not through the spy). */
async function helmList(cluster: LocalCluster): Promise<ListedRelease[]> {
  const out = await runHelm([
    "list",
    "--all-namespaces",
    "--max",
    "0",
    "--kubeconfig",
    cluster.kubeconfigPath,
    "-o",
    "json",
  ]);
  return JSON.parse(out.stdout) as ListedRelease[];
}

/** The user-supplied values of a release on a cluster, with the real helm. */
async function liveValues(cluster: LocalCluster, release: string): Promise<Record<string, unknown>> {
  const out = await runHelm([
    "get",
    "values",
    release,
    "--namespace",
    "default",
    "--kubeconfig",
    cluster.kubeconfigPath,
    "-o",
    "json",
  ]);
  return (JSON.parse(out.stdout) ?? {}) as Record<string, unknown>;
}

describe("30 ClusterAddons across 10 clusters in one pulumi up", { timeout: 600_000 }, () => {
  let clusters: LocalCluster[] = [];
  let spy: HelmSpy;
  let sandbox: Sandbox;
  let stack: AddonStack | undefined;
  let run: MeasuredUp;

  before(async () => {
    const started = Date.now();
    [clusters, spy, sandbox] = await Promise.all([
      startFleet("load", CLUSTERS),
      createHelmSpy(),
      createSandbox(),
    ]);
    process.stderr.write(
      `# ${CLUSTERS} local clusters ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
    );
  });
  after(async () => {
    await stack?.dispose();
    await Promise.allSettled([...clusters.map((c) => c.stop()), spy?.remove(), sandbox?.remove()]);
  });

  test("every add-on is installed by one up whose provider runs a bounded number of helm processes at once", async (t) => {
    // The bound is the provider's own: the engine is allowed all 30 creates at once.
    const s = await faultStack(fleetAddons(clusters), spy, sandbox);
    stack = s;
    s.stack.workspace.envVars.HELM_HANDOFF_MAX_CONCURRENCY = String(MAX_HELM);
    run = await measuredUp(s, sandbox, { parallel: 30 });
    const helmRuns = (await spy.calls()).length;
    t.diagnostic(
      `up of 30 add-ons: ${(run.ms / 1000).toFixed(1)} s, ${helmRuns} helm processes, at most ${run.provider.peakHelmProcesses} seen at once (bound ${MAX_HELM})`,
    );
    t.diagnostic(
      `dynamic provider peak RSS (VmHWM): ${(run.provider.peakRssKiB / 1024).toFixed(0)} MiB (pids ${run.provider.pids.join(", ")}, ${run.provider.samples} samples)`,
    );
    assert.equal(run.result.summary.result, "succeeded");
    for (const [i] of clusters.entries()) {
      for (const release of FLEET_RELEASES) {
        const status = run.result.outputs[`c${i}-${release}Status`]?.value as ReleaseStatus | undefined;
        assert.equal(status?.status, "deployed", `c${i}-${release} is deployed`);
        assert.equal(status?.adopted, false, `c${i}-${release} was installed, not adopted`);
      }
    }
    assert.ok(run.provider.pids.length >= 1, "the dynamic provider process was found");
    assert.ok(run.provider.peakHelmProcesses >= 1, "helm processes were seen under the provider");
    assert.ok(
      run.provider.peakHelmProcesses <= MAX_HELM,
      `at most ${MAX_HELM} helm processes at once, saw ${run.provider.peakHelmProcesses}`,
    );
  });

  test("each release is on the cluster its handoff record's identity names, told apart by identity, not by name", async () => {
    assert.ok(run !== undefined, "the up ran");
    const ids = clusters.map((c) => clusterIdentityFromKubeconfig(c.kubeconfig).clusterId);
    assert.equal(new Set(ids).size, CLUSTERS, "every cluster has its own identity");
    const lists = await Promise.all(clusters.map(helmList));
    for (const [i, list] of lists.entries()) {
      assert.deepEqual(
        list.map((r) => `${r.namespace}/${r.name} ${r.status} ${r.chart}`).sort(),
        FLEET_RELEASES.map((name) => `default/${name} deployed schema-0.1.0`),
        `cluster ${i} holds exactly its three releases`,
      );
    }
    for (const [i] of clusters.entries()) {
      for (const [j, release] of FLEET_RELEASES.entries()) {
        const handoff = run.result.outputs[`c${i}-${release}Handoff`]?.value as HandoffRecord;
        const home = ids.indexOf(handoff.cluster.id);
        assert.equal(home, i, `c${i}-${release}'s record names cluster ${i}`);
        const target = clusters[home] as LocalCluster;
        assert.ok(
          lists[home]?.some((r) => r.name === handoff.release.name),
          `cluster ${home}'s helm list holds ${handoff.release.name}`,
        );
        // Same name on every cluster: the values, unique in the fleet, show which add-on this is.
        const live = await liveValues(target, handoff.release.name);
        assert.deepEqual(live, fleetValues(i, j), `the release on cluster ${home} is c${i}-${release}`);
        assert.match(handoff.valuesDigest, /^hmac-sha256:[0-9a-f]{64}$/);
        assert.notEqual(handoff.valuesDigest, valuesFingerprint(live), "the record's digest is keyed");
        assert.equal(handoff.cluster.server, target.server.replace(/\/$/, ""));
      }
    }
  });

  test("the provider's peak memory was measured and stays bounded", () => {
    assert.ok(run !== undefined, "the up ran");
    assert.ok(run.provider.peakRssKiB > 0, "VmHWM was read");
    assert.ok(
      run.provider.peakRssKiB < RSS_SANITY_KIB,
      `peak RSS ${run.provider.peakRssKiB} KiB is under 2 GiB`,
    );
  });

  test("no helm-handoff temp dir and no process is left after the up", async () => {
    await assertNoLeftovers(sandbox);
  });
});
