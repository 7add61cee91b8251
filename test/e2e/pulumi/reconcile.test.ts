/**
 * ClusterAddon in Reconcile mode, and switching strategies, on the real
 * Pulumi engine, real helm and a real local cluster.
 */
import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { digestOf } from "../../../core/handoff/digests.js";
import { generatePki } from "../../../local-cluster/control-plane/certs.js";
import type { ClusterAddonArgs } from "../../../provider/index.js";
import { type AddonStack, addonStack, liveRelease } from "../../support/addon.js";
import { localChart, runHelm } from "../../support/charts.js";
import { clusterSuite, withLocalCluster } from "../../support/cluster.js";
import { unkeyedDigestForms } from "../../support/digests.js";
import { startHttpChartRepo } from "../../support/repos.js";

describe("ClusterAddon with strategy Reconcile", { timeout: 1_200_000 }, () => {
  const suite = clusterSuite({ name: "reconcile", workloads: true, helmSpy: true });

  function args(extra: Partial<ClusterAddonArgs>): ClusterAddonArgs {
    return {
      kubeconfig: suite.cluster.kubeconfig,
      chart: { path: localChart("workload") },
      strategy: "Reconcile",
      ...extra,
    };
  }

  async function stackOf(name: string, extra: Partial<ClusterAddonArgs>): Promise<AddonStack> {
    const s = await addonStack([{ name, args: args(extra) }], suite.spy);
    return suite.keep(s);
  }

  test("upgrades the release when the values change", async () => {
    const s = await stackOf("rec-upgrade", { values: { message: "v1" } });
    await s.up();
    s.current = [{ name: "rec-upgrade", args: args({ values: { message: "v2" } }) }];
    const up = await s.up();
    assert.equal(up.summary.resourceChanges?.update, 1);
    const live = await liveRelease(suite.cluster, "rec-upgrade");
    assert.equal(live?.revision, 2);
    assert.deepEqual(live?.values, { message: "v2" });
  });

  test("an up with nothing changed makes no upgrade", async () => {
    const s = await stackOf("rec-steady", { values: { message: "same" } });
    await s.up();
    const up = await s.up();
    assert.equal(up.summary.resourceChanges?.update ?? 0, 0);
    assert.equal((await liveRelease(suite.cluster, "rec-steady"))?.revision, 1);
  });

  test('a Reconcile add-on with version "^0.1" (or "v0.1.0") plans no update on an unchanged up', async () => {
    const repo = await startHttpChartRepo({ charts: ["workload"] });
    try {
      for (const [name, version] of [
        ["rec-range", "^0.1"],
        ["rec-v-prefix", "v0.1.0"],
      ] as const) {
        const s = await stackOf(name, {
          chart: { repo: repo.url, name: "workload", version },
          values: { message: "same" },
        });
        await s.up();
        await suite.spy.reset();
        const up = await s.up();
        assert.equal(up.summary.resourceChanges?.update ?? 0, 0, `${version}: no update planned`);
        assert.deepEqual(await suite.spy.calls(), [], `${version}: no helm call`);
        assert.equal((await liveRelease(suite.cluster, name))?.revision, 1);
      }
    } finally {
      await repo.close();
    }
  });

  test("an out-of-band upgrade is never overwritten silently: the up names it, and adopt takes the release back", async () => {
    const s = await stackOf("rec-drift", { values: { message: "ours" } });
    await s.up();
    await runHelm([
      "upgrade",
      "rec-drift",
      localChart("workload"),
      "--kubeconfig",
      suite.cluster.kubeconfigPath,
      "--set",
      "message=theirs",
      "--wait",
    ]);
    await s.refresh();
    await assert.rejects(
      s.up(),
      /release default\/rec-drift is not this resource's: revision 2 was written by someone else on top of this resource's revision 1 \(a person's helm upgrade or rollback, or a GitOps controller that took the release over\)\. Reconcile writes only to releases it wrote/,
    );
    assert.deepEqual((await liveRelease(suite.cluster, "rec-drift"))?.values, { message: "theirs" });
    s.current = [{ name: "rec-drift", args: args({ values: { message: "ours" }, adopt: true }) }];
    const up = await s.up();
    assert.equal(up.summary.resourceChanges?.update, 1);
    const live = await liveRelease(suite.cluster, "rec-drift");
    assert.equal(live?.revision, 3);
    assert.deepEqual(live?.values, { message: "ours" });
  });

  test("a second stack's add-on of the same release name fails naming the first stack, and changes nothing", async () => {
    const first = await stackOf("rec-shared", { values: { message: "first" } });
    await first.up();
    const second = await stackOf("rec-shared", { values: { message: "second" } });
    await assert.rejects(
      second.up(),
      /release default\/rec-shared is not this resource's: revision 1 was written by another helm-handoff resource \(helm-handoff-test\.t[a-z0-9]+\.rec-shared, owner id [0-9a-f]{40}\)/,
    );
    await second.destroy();
    const live = await liveRelease(suite.cluster, "rec-shared");
    assert.equal(live?.revision, 1);
    assert.deepEqual(live?.values, { message: "first" });
    await first.destroy();
    assert.equal(await liveRelease(suite.cluster, "rec-shared"), undefined);
  });

  test("a release uninstalled out of band is dropped by refresh and installed again by the next up", async () => {
    const s = await stackOf("rec-lost", {});
    await s.up();
    await runHelm(["uninstall", "rec-lost", "--kubeconfig", suite.cluster.kubeconfigPath, "--wait"]);
    await s.refresh();
    const up = await s.up();
    assert.equal(up.summary.resourceChanges?.create, 1);
    assert.equal((await liveRelease(suite.cluster, "rec-lost"))?.status, "deployed");
  });

  test("destroy uninstalls the release", async () => {
    const s = await stackOf("rec-destroy", {});
    await s.up();
    await s.destroy();
    assert.equal(await liveRelease(suite.cluster, "rec-destroy"), undefined);
  });

  test("switching from Reconcile to ApplyOnce records the handoff without a helm call", async () => {
    const s = await stackOf("rec-switch", { values: { message: "v1" } });
    await s.up();
    s.current = [{ name: "rec-switch", args: args({ values: { message: "v2" }, strategy: "ApplyOnce" }) }];
    await suite.spy.reset();
    const up = await s.up();
    assert.deepEqual(await suite.spy.calls(), []);
    const handoff = up.outputs["rec-switchHandoff"]?.value as { strategy: string; revision: number };
    assert.equal(handoff.strategy, "ApplyOnce");
    assert.equal(handoff.revision, 1);
    assert.deepEqual((await liveRelease(suite.cluster, "rec-switch"))?.values, { message: "v1" });
    await s.destroy();
    assert.equal(
      (await liveRelease(suite.cluster, "rec-switch"))?.status,
      "deployed",
      "ApplyOnce keeps it on destroy",
    );
  });

  test("switching from ApplyOnce to Reconcile upgrades the release to the spec", async () => {
    const s = await stackOf("rec-resume", { values: { message: "v1" }, strategy: "ApplyOnce" });
    await s.up();
    s.current = [{ name: "rec-resume", args: args({ values: { message: "v2" } }) }];
    await s.up();
    const live = await liveRelease(suite.cluster, "rec-resume");
    assert.equal(live?.revision, 2);
    assert.deepEqual(live?.values, { message: "v2" });
  });

  test("a replaced cluster gets the release and the old cluster's release is uninstalled", async () => {
    const s = await stackOf("rec-moved", {});
    await s.up();
    await withLocalCluster({ name: "rec-next", workloads: true }, async (next) => {
      await next.ready;
      s.current = [{ name: "rec-moved", args: { ...args({}), kubeconfig: next.kubeconfig } }];
      const up = await s.up();
      assert.equal(up.summary.resourceChanges?.replace, 1);
      assert.equal((await liveRelease(next, "rec-moved"))?.status, "deployed");
      assert.equal(await liveRelease(suite.cluster, "rec-moved"), undefined);
    });
  });

  test("the same cluster under another server address is a replace that leaves the release deployed, with no upgrade, rollback or uninstall", async () => {
    const s = await stackOf("rec-same", {});
    await s.up();
    const byName = suite.cluster.kubeconfig.replace(
      suite.cluster.server,
      suite.cluster.server.replace("127.0.0.1", "localhost"),
    );
    assert.notEqual(byName, suite.cluster.kubeconfig);
    s.current = [{ name: "rec-same", args: { ...args({}), kubeconfig: byName } }];
    await suite.spy.reset();
    const up = await s.up();
    assert.equal(up.summary.resourceChanges?.replace, 1);
    assert.match(
      up.stdout,
      /Reconcile delete: leaving release default\/rec-same as it is: revision 1 was written by a newer instance of this resource \(its replacement, instance [0-9a-f]{16}\)/,
    );
    assert.deepEqual(
      (await suite.spy.calls()).filter((c) => /^(upgrade|uninstall|rollback) /.test(c)),
      [],
    );
    const live = await liveRelease(suite.cluster, "rec-same");
    assert.equal(live?.status, "deployed");
    assert.equal(live?.revision, 1);
  });

  test("plans an update when the repository password changes, and no digest of the password reaches the state or the output", async () => {
    const pki = await generatePki(await mkdtemp(join(tmpdir(), "hh-repo-pki-")), "repo");
    const repo = await startHttpChartRepo({
      charts: ["workload"],
      tls: { cert: pki.servingCert, key: pki.servingKey },
    });
    try {
      const stored = {
        repo: repo.url,
        name: "workload",
        version: "0.1.0",
        username: "platform",
        caFile: pki.caCert,
      };
      const chart = (password: string) => ({ ...stored, password });
      const values = { message: "same" };
      const [oldPassword, newPassword] = ["pw-old-314159", "pw-new-271828"];
      const s = await stackOf("rec-password", { chart: chart(oldPassword), values });
      await s.up();
      s.current = [{ name: "rec-password", args: args({ chart: chart(newPassword), values }) }];
      const preview = await s.preview();
      assert.equal(preview.changeSummary.update, 1);
      const up = await s.up();
      assert.equal(up.summary.resourceChanges?.update, 1);
      assert.equal((await s.preview()).changeSummary.update ?? 0, 0, "the new password is recorded");
      assert.equal((await liveRelease(suite.cluster, "rec-password"))?.status, "deployed");

      const state = await s.stateText();
      const spec = { chart: stored, createNamespace: false, install: {}, retry: {} };
      for (const password of [oldPassword, newPassword]) {
        const desired = { s: spec, v: values, ns: "default", releaseName: "rec-password", pw: password };
        const forms = [password, ...unkeyedDigestForms(password), ...unkeyedDigestForms(desired)];
        forms.push(digestOf(desired).slice("sha256:".length));
        for (const [where, text] of [
          ["state", state],
          ["output", s.output()],
        ] as const) {
          for (const form of forms) {
            assert.ok(!text.includes(form), `the password or a digest of it (${form}) leaked into ${where}`);
          }
        }
      }
    } finally {
      await repo.close();
    }
  });
});
