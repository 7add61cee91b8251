/**
 * ClusterAddon in ApplyOnce mode on the real Pulumi engine, real helm and a
 * real local cluster: every row of the lifecycle table.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { clusterIdentityFromKubeconfig } from "../../../core/index.js";
import type { HandoffRecord } from "../../../provider/index.js";
import { RELEASE_TYPES } from "../../../provider/state/resource.js";
import { type AddonStack, addonStack, liveRelease } from "../../support/addon.js";
import { localChart, runHelm } from "../../support/charts.js";
import { clusterSuite, withLocalCluster } from "../../support/cluster.js";
import { unkeyedDigestForms } from "../../support/digests.js";

describe("ClusterAddon with strategy ApplyOnce", { timeout: 1_200_000 }, () => {
  const suite = clusterSuite({ name: "apply-once", workloads: true, helmSpy: true });

  async function stackOf(name: string, values: Record<string, unknown>): Promise<AddonStack> {
    const s = await addonStack(
      [
        {
          name,
          args: { kubeconfig: suite.cluster.kubeconfig, chart: { path: localChart("workload") }, values },
        },
      ],
      suite.spy,
    );
    return suite.keep(s);
  }

  test("installs the chart once and exports the handoff record", async () => {
    const s = await stackOf("once", { message: "first" });
    const up = await s.up();
    const handoff = up.outputs.onceHandoff?.value as HandoffRecord;
    assert.equal(handoff.kind, "helm-handoff.dev/HandoffRecord");
    assert.equal(handoff.cluster.id, clusterIdentityFromKubeconfig(suite.cluster.kubeconfig).clusterId);
    assert.equal(handoff.cluster.server, suite.cluster.server);
    assert.deepEqual(handoff.release, { name: "once", namespace: "default", storageNamespace: "default" });
    assert.equal(handoff.revision, 1);
    assert.equal(handoff.strategy, "ApplyOnce");
    assert.match(handoff.valuesDigest, /^hmac-sha256:[0-9a-f]{64}$/);
    const live = await liveRelease(suite.cluster, "once");
    assert.equal(live?.status, "deployed");
    assert.deepEqual(live?.values, { message: "first" });
  });

  test("ignores a values change after handoff: no helm call and the release stays at revision 1", async () => {
    const s = await stackOf("frozen", { message: "first" });
    await s.up();
    s.current = [{ ...s.current[0]!, args: { ...s.current[0]!.args, values: { message: "second" } } }];
    await suite.spy.reset();
    const preview = await s.preview();
    assert.match(s.output(), /ApplyOnce: the spec changed but is ignored after handoff/);
    assert.equal(preview.changeSummary.update ?? 0, 0);
    const up = await s.up();
    assert.equal(up.summary.resourceChanges?.update ?? 0, 0);
    assert.deepEqual(await suite.spy.calls(), []);
    const live = await liveRelease(suite.cluster, "frozen");
    assert.equal(live?.revision, 1);
    assert.deepEqual(live?.values, { message: "first" });
  });

  test("a replace leaves a release that GitOps upgraded and then failed exactly as it was: adopted, no helm write", async () => {
    const s = await stackOf("gitops-owned", { message: "first" });
    await s.up();
    const kc = ["--kubeconfig", suite.cluster.kubeconfigPath];
    const chart = localChart("workload");
    // GitOps takes over: one upgrade that works (revision 2), one that the API server rejects (revision 3, failed).
    await runHelm([
      "upgrade",
      "gitops-owned",
      chart,
      ...kc,
      "--reuse-values",
      "--set",
      "message=gitops",
      "--wait",
    ]);
    const rejected = await runHelm(
      ["upgrade", "gitops-owned", chart, ...kc, "--reuse-values", "--set", "replicaCount=-1"],
      { check: false },
    );
    assert.notEqual(rejected.exitCode, 0);
    const before = await liveRelease(suite.cluster, "gitops-owned");
    assert.equal(before?.status, "failed");
    assert.equal(before?.revision, 3);

    const deployment = (await s.stack.exportStack()).deployment as {
      resources: Array<{ urn: string; type: string }>;
    };
    const release = deployment.resources.find((r) => RELEASE_TYPES.includes(r.type));
    assert.ok(release);
    await suite.spy.reset();
    const up = await s.stack.up({ replace: [release.urn], color: "never", onOutput: () => {} });
    assert.equal(up.summary.resourceChanges?.replace, 1);
    assert.deepEqual(
      (await suite.spy.calls()).map((c) => c.split(" ")[0]).filter((c) => c !== "version"),
      ["install", "status", "get"],
      "one refused install, then a look: no rollback, uninstall or upgrade",
    );
    const after = await liveRelease(suite.cluster, "gitops-owned");
    assert.deepEqual(after, before);
    const status = up.outputs["gitops-ownedStatus"]?.value as {
      adopted: boolean;
      revision: number;
      status: string;
    };
    assert.deepEqual([status.adopted, status.revision, status.status], [true, 3, "failed"]);
    const handoff = up.outputs["gitops-ownedHandoff"]?.value as HandoffRecord;
    assert.deepEqual([handoff.adopted, handoff.revision], [true, 3]);
  });

  test("adopts a release that is already deployed instead of failing or upgrading it", async () => {
    await runHelm([
      "install",
      "existing",
      localChart("workload"),
      "--kubeconfig",
      suite.cluster.kubeconfigPath,
      "--set",
      "message=theirs",
      "--wait",
    ]);
    const s = await stackOf("existing", { message: "ours" });
    const up = await s.up();
    const status = up.outputs.existingStatus?.value as { adopted: boolean; revision: number };
    assert.equal(status.adopted, true);
    assert.equal(status.revision, 1);
    assert.deepEqual((await liveRelease(suite.cluster, "existing"))?.values, { message: "theirs" });
  });

  test("destroy makes no helm call and leaves the release running", async () => {
    const s = await stackOf("kept", { message: "kept" });
    await s.up();
    await suite.spy.reset();
    await s.destroy();
    assert.deepEqual(await suite.spy.calls(), []);
    assert.equal((await liveRelease(suite.cluster, "kept"))?.status, "deployed");
  });

  test("refresh and destroy succeed without any cluster call when the cluster is gone", async () => {
    await withLocalCluster({ name: "gone" }, async (other) => {
      // No workload controllers on this cluster: install without waiting for pods.
      const args = {
        kubeconfig: other.kubeconfig,
        chart: { path: localChart("workload") },
        install: { wait: false },
      };
      const s = await addonStack([{ name: "orphan", args }], suite.spy);
      suite.keep(s);
      await s.up();
      await other.stopApiServer();
      await suite.spy.reset();
      await s.refresh();
      await s.destroy();
      assert.deepEqual(await suite.spy.calls(), []);
    });
  });

  test("rotated credentials for the same cluster cause no replace and no helm call", async () => {
    const s = await stackOf("rotated", {});
    await s.up();
    // Same server and CA, other user entry: the identity must not change.
    const rotated = suite.cluster.kubeconfig.replaceAll(
      `${suite.cluster.name}-admin`,
      `${suite.cluster.name}-rotated`,
    );
    assert.notEqual(rotated, suite.cluster.kubeconfig);
    s.current = [{ ...s.current[0]!, args: { ...s.current[0]!.args, kubeconfig: rotated } }];
    await suite.spy.reset();
    const up = await s.up();
    assert.equal(up.summary.resourceChanges?.replace ?? 0, 0);
    assert.equal(up.summary.resourceChanges?.create ?? 0, 0);
    assert.deepEqual(await suite.spy.calls(), []);
  });

  test("a replaced cluster is bootstrapped again and the old one is never touched", async () => {
    const s = await stackOf("moved", { message: "a" });
    await s.up();
    await withLocalCluster({ name: "replacement", workloads: true }, async (next) => {
      await next.ready;
      s.current = [
        {
          name: "moved",
          args: {
            kubeconfig: next.kubeconfig,
            chart: { path: localChart("workload") },
            values: { message: "a" },
          },
        },
      ];
      const up = await s.up();
      assert.equal(up.summary.resourceChanges?.replace, 1);
      assert.equal((await liveRelease(next, "moved"))?.status, "deployed");
      assert.equal(
        (await liveRelease(suite.cluster, "moved"))?.status,
        "deployed",
        "the old cluster keeps its release",
      );
      const handoff = up.outputs.movedHandoff?.value as HandoffRecord;
      assert.equal(handoff.cluster.server, next.server);
    });
  });

  test("no secret value appears in the state file, in helm's argv or in the engine's output", async () => {
    const secretValue = "s3cr3t-value-9f8e7d";
    const s = await stackOf("secrets", { message: secretValue });
    await suite.spy.reset();
    await s.up();
    await s.preview();
    await s.refresh();
    const state = await s.stateText();
    const argv = (await suite.spy.calls()).join("\n");
    const keyLine = suite.cluster.kubeconfig.split("\n").find((l) => l.includes("client-key-data"))!;
    const clientKey = keyLine.split(":")[1]!.trim();
    for (const [where, text] of [
      ["state", state],
      ["argv", argv],
      ["output", s.output()],
    ] as const) {
      assert.ok(!text.includes(secretValue), `the values secret leaked into ${where}`);
      assert.ok(!text.includes(clientKey), `the kubeconfig client key leaked into ${where}`);
    }
    assert.ok(argv.length > 0, "helm ran at least once");
  });

  /** The stored outputs of the stack's one ClusterAddon, as exported (secrets encrypted). */
  async function storedRelease(s: AddonStack): Promise<Record<string, unknown>> {
    const exported = await s.stack.exportStack();
    const resources = (exported.deployment as { resources?: Array<{ type: string; outputs?: object }> })
      .resources;
    const release = (resources ?? []).find((r) => RELEASE_TYPES.includes(r.type));
    assert.ok(release?.outputs, "one release in the state");
    return release.outputs as Record<string, unknown>;
  }

  /** The handoff record `up` exported for add-on `name`. */
  function handoffOf(up: { outputs: Record<string, { value?: unknown }> }, name: string): HandoffRecord {
    const record = up.outputs[`${name}Handoff`]?.value;
    assert.ok(record, `${name} exports a handoff record`);
    return record as HandoffRecord;
  }

  /** What an unkeyed digest of `values` for release `name` (a path chart) looked like in any version. */
  function unkeyedForms(name: string, values: Record<string, unknown>): string[] {
    const s = {
      chart: { path: localChart("workload") },
      createNamespace: false,
      adopt: false,
      install: {},
      retry: {},
    };
    const desired = { s, v: values, ns: "default", releaseName: name };
    return [
      ...unkeyedDigestForms(values),
      ...unkeyedDigestForms(desired),
      ...unkeyedDigestForms({ ...desired, pw: "" }),
      ...Object.values(values).flatMap((v) => unkeyedDigestForms(v)),
    ];
  }

  test("two stacks with the same secret values store no unkeyed digest of them and different keyed digests", async () => {
    const values = { message: "123456" };
    const twins = [await stackOf("twin-a", values), await stackOf("twin-b", values)];
    const stored: Array<Record<string, unknown>> = [];
    for (const [i, s] of twins.entries()) {
      const name = i === 0 ? "twin-a" : "twin-b";
      const up = await s.up();
      await s.preview();
      await s.refresh();
      const state = await s.stateText();
      for (const [where, text] of [
        ["state", state],
        ["output", s.output()],
        ["stack outputs", JSON.stringify(up.outputs)],
      ] as const) {
        for (const form of unkeyedForms(name, values)) {
          assert.ok(!text.includes(form), `an unkeyed digest (${form}) of the values leaked into ${where}`);
        }
      }
      const release = await storedRelease(s);
      stored.push(release);
      assert.equal(handoffOf(up, name).valuesDigest, release.liveValuesDigest);
    }
    const [a = {}, b = {}] = stored;
    assert.match(String(a.liveValuesDigest), /^hmac-sha256:[0-9a-f]{64}$/);
    assert.notEqual(a.liveValuesDigest, b.liveValuesDigest);
    assert.notEqual((a.handoff as HandoffRecord).valuesDigest, (b.handoff as HandoffRecord).valuesDigest);
    for (const secret of [a.desiredDigest, a.digestKey, b.desiredDigest, b.digestKey]) {
      assert.equal(typeof secret, "object", "desiredDigest and digestKey are stored as secrets");
    }
  });
});
