/**
 * Faults outside the release, on local clusters without workloads: a flapping chart repository, a
 * version that does not exist at a reachable repository, a CRD that arrives 30 s late, and an API
 * server that dies and never comes back. Transient faults are retried until they heal; permanent
 * ones and the deadline fail with a message that says why; no helm-handoff temp dir and no process
 * is left behind.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { ReleaseStatus } from "../../../provider/index.js";
import { RELEASE_TYPES } from "../../../provider/state/resource.js";
import { type AddonDecl, type AddonStack, liveRelease } from "../../support/addon.js";
import { localChart, runHelm } from "../../support/charts.js";
import { clusterSuite, withLocalCluster } from "../../support/cluster.js";
import { assertNoLeftovers, createSandbox, faultStack, type Sandbox, waitFor } from "../../support/faults.js";
import { type HttpChartRepo, startHttpChartRepo } from "../../support/repos.js";

describe("ClusterAddon retries what heals and fails fast on what does not", { timeout: 1_200_000 }, () => {
  const suite = clusterSuite({ name: "recovery", helmSpy: true });
  let sandbox: Sandbox;
  let repo: HttpChartRepo;

  before(async () => {
    sandbox = suite.keep(await createSandbox());
    repo = suite.keep(await startHttpChartRepo({ charts: ["schema"], failFirst: 3 }));
  });

  async function stackOf(decls: AddonDecl[]): Promise<AddonStack> {
    return suite.keep(await faultStack(decls, suite.spy, sandbox));
  }

  /** The ClusterAddon resources recorded in the stack's state. */
  async function recordedReleases(s: AddonStack): Promise<unknown[]> {
    const exported = await s.stack.exportStack();
    const resources = (exported.deployment as { resources?: Array<{ type: string }> }).resources ?? [];
    return resources.filter((r) => RELEASE_TYPES.includes(r.type));
  }

  test("a chart repository that answers 503 to its first requests is retried and the install succeeds", async () => {
    const name = "flapping";
    const s = await stackOf([
      {
        name,
        args: {
          kubeconfig: suite.cluster.kubeconfig,
          chart: { repo: repo.url, name: "schema", version: "0.1.0" },
          retry: { minBackoff: "1s", maxBackoff: "2s" },
        },
      },
    ]);
    const up = await s.up();
    const status = up.outputs[`${name}Status`]?.value as ReleaseStatus;
    assert.equal(status.status, "deployed");
    assert.ok(status.attempts >= 2, `retried (attempts: ${status.attempts})`);
    assert.match(s.output(), /transient: server error \(5xx\)/);
    const statuses = repo.log().map((r) => r.status);
    assert.deepEqual(statuses.slice(0, 3), [503, 503, 503]);
    assert.ok(statuses.includes(200), "the repository served the chart in the end");
    assert.equal((await liveRelease(suite.cluster, name))?.status, "deployed");
    await assertNoLeftovers(sandbox);
  });

  test("a version that does not exist at a reachable repository fails at the first attempt as permanent", async () => {
    const name = "no-such-version";
    await suite.spy.reset();
    const s = await stackOf([
      {
        name,
        args: {
          kubeconfig: suite.cluster.kubeconfig,
          chart: { repo: repo.url, name: "schema", version: "9.9.9" },
        },
      },
    ]);
    await assert.rejects(s.up());
    const out = s.output();
    assert.match(out, /helm install exited with code 1 \(permanent: chart or version not found\)/);
    assert.match(out, /chart "schema" version "9\.9\.9" not found/);
    assert.doesNotMatch(out, /retrying in|attempt 2/);
    const installs = (await suite.spy.calls()).filter((c) => c.startsWith(`install ${name} `));
    assert.equal(installs.length, 1, "helm install ran once");
    assert.equal(await liveRelease(suite.cluster, name), undefined);
    assert.deepEqual(await recordedReleases(s), []);
    await assertNoLeftovers(sandbox);
  });

  test("a custom resource whose CRD is created 30 s later by someone else is retried as transient and succeeds", async () => {
    const name = "widget-late";
    await suite.spy.reset();
    const s = await stackOf([
      {
        name,
        args: {
          kubeconfig: suite.cluster.kubeconfig,
          chart: { path: localChart("widget") },
          retry: { minBackoff: "1s", maxBackoff: "5s" },
        },
      },
    ]);
    const up = s.up();
    up.catch(() => {});
    await waitFor("the first install attempt", async () =>
      (await suite.spy.calls()).some((c) => c.startsWith(`install ${name} `)) ? true : undefined,
    );
    await sleep(30_000);
    await runHelm([
      "install",
      "widget-crds",
      localChart("crds-only"),
      "--kubeconfig",
      suite.cluster.kubeconfigPath,
      "--wait",
    ]);
    const result = await up;
    const status = result.outputs[`${name}Status`]?.value as ReleaseStatus;
    assert.equal(status.status, "deployed");
    assert.ok(status.attempts >= 2, `retried (attempts: ${status.attempts})`);
    assert.match(s.output(), /transient: CRD not established yet/);
    assert.equal((await liveRelease(suite.cluster, name))?.status, "deployed");
    await assertNoLeftovers(sandbox);
  });

  test("an API server that dies and never comes back fails the up at the deadline, listing the attempts and the last cause", async () => {
    await withLocalCluster({ name: "doomed" }, async (doomed) => {
      await doomed.ready;
      const name = "doomed";
      await suite.spy.reset();
      const s = await stackOf([
        {
          name,
          args: {
            kubeconfig: doomed.kubeconfig,
            // A Deployment that never becomes ready (no workloads here): the first install is still
            // waiting when the API server dies, whatever the machine's speed.
            chart: { path: localChart("workload") },
            install: { timeout: "10s" },
            retry: { deadline: "30s", minBackoff: "1s", maxBackoff: "4s" },
          },
        },
      ]);
      const up = s.up();
      up.catch(() => {});
      // The API server answered /readyz and the first helm install started: now it dies for good.
      await waitFor("the first helm install", async () =>
        (await suite.spy.calls()).some((c) => c.startsWith("install ")) ? true : undefined,
      );
      await doomed.killApiServer();
      await assert.rejects(up);
      const out = s.output();
      assert.match(
        out,
        /install of release default\/doomed did not succeed within the deadline of 30s after \d+ attempt\(s\):/,
      );
      // helm waiting on a dying API server reports the lost connection, or its own timeout when the
      // watch closes first: both are transient.
      assert.match(
        out,
        /#1 at \S+: helm install exited with code 1 \(transient: (lost the API server while waiting|API server or repository unreachable|timed out waiting)\)/,
      );
      assert.match(out, /#2 at \S+: /);
      assert.match(
        out,
        // (the last attempt may fail at helm, or at the read of who else manages the release)
        /last cause: (helm \w+ exited with code 1 \(transient: API server or repository unreachable\)|default\/doomed: cannot read yet whether another controller manages it \(connect ECONNREFUSED [^)]*\); looking again)/,
      );
      assert.deepEqual(await recordedReleases(s), [], "nothing is recorded as created");
      await assertNoLeftovers(sandbox);
    });
  });
  // Found by the fault campaign (`npm run chaos`, seed 107): the delete retried for a fixed 5 minutes.
  test("seed 107: a Reconcile destroy whose API server dies after the reachability check fails within the add-on's retry.deadline, and the next destroy uninstalls", async () => {
    await withLocalCluster({ name: "dying-destroy" }, async (dying) => {
      await dying.ready;
      const name = "dying-destroy";
      const s = await stackOf([
        {
          name,
          args: {
            kubeconfig: dying.kubeconfig,
            chart: { path: localChart("schema") },
            values: { replicas: 1, mode: "a" },
            strategy: "Reconcile",
            install: { timeout: "10s" },
            retry: { deadline: "20s", minBackoff: "1s", maxBackoff: "2s" },
          },
        },
      ]);
      await s.up();
      await suite.spy.reset();
      const destroy = s.destroy();
      destroy.catch(() => {});
      // The delete found the cluster reachable and reads the release before uninstalling: now it dies.
      await waitFor("the delete's helm status", async () =>
        (await suite.spy.calls()).some((c) => c.startsWith(`status ${name} `)) ? true : undefined,
      );
      await dying.killApiServer();
      await assert.rejects(destroy);
      const out = s.output();
      assert.match(
        out,
        /uninstall of release default\/dying-destroy did not succeed within the deadline of 20s after \d+ attempt\(s\):/,
      );
      assert.match(out, /next step: fix what the last cause names/);
      await dying.startApiServer();
      await s.destroy();
      assert.equal(await liveRelease(dying, name), undefined, "the next destroy uninstalled it");
      await assertNoLeftovers(sandbox);
    });
  });
  // Found by the fault campaign (`npm run chaos`, seeds 1003 and 1007): a refresh read failed at the first transient error.
  test("seeds 1003 and 1007: a Reconcile refresh that meets a dead API server retries its read until the server is back", async () => {
    await withLocalCluster({ name: "refresh-outage" }, async (flaky) => {
      await flaky.ready;
      const name = "refresh-outage";
      const s = await stackOf([
        {
          name,
          args: {
            kubeconfig: flaky.kubeconfig,
            chart: { path: localChart("schema") },
            values: { replicas: 1, mode: "a" },
            strategy: "Reconcile",
            install: { timeout: "10s" },
            retry: { deadline: "2m", minBackoff: "1s", maxBackoff: "2s" },
          },
        },
      ]);
      await s.up();
      await flaky.killApiServer();
      await suite.spy.reset();
      const refresh = s.refresh();
      refresh.catch(() => {});
      // A second helm status means the first failed and the read is being retried: now the server comes back.
      await waitFor("the refresh's second helm status", async () =>
        (await suite.spy.calls()).filter((c) => c.startsWith(`status ${name} `)).length >= 2
          ? true
          : undefined,
      );
      await flaky.startApiServer();
      await refresh;
      assert.match(s.output(), /refresh: read failed \(helm \w+ .*\(transient: .*\); retrying in/);
      assert.equal((await liveRelease(flaky, name))?.status, "deployed");
      await assertNoLeftovers(sandbox);
    });
  });
});
