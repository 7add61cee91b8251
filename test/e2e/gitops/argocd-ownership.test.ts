/**
 * The ownership rule against the real Argo CD (application-controller, repo-server and Redis beside
 * a local cluster with workloads): Argo CD never writes a Helm revision, so a release it took over
 * still carries helm-handoff's marks, and only its claim (the Application naming the release, its
 * tracking annotation on the objects) tells that it is not helm-handoff's any more. An ApplyOnce
 * add-on handed to Argo CD and then switched to Reconcile is refused instead of upgraded; a
 * Reconcile add-on whose Helm storage was retired is not installed again over Argo CD's objects
 * after a refresh dropped it; and a Reconcile add-on that Argo CD took over is left by destroy.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import {
  type ArgoCdHandoffOptions,
  type HandoffRecord,
  verifyHandoff,
} from "../../../core/handoff/gitops.js";
import type { ClusterAddonArgs } from "../../../provider/index.js";
import { liveRelease } from "../../support/addon.js";
import { runHandoffCli, uidsOf, waitFor } from "../../support/gitops.js";
import { CNI_OBJECTS as cniObjects, exampleChart, takeoverSuite } from "../../support/takeover.js";

describe("a release Argo CD took over is not helm-handoff's to write", { timeout: 900_000 }, () => {
  const suite = takeoverSuite({
    name: "argocd-own",
    gitops: "argocd",
    charts: [exampleChart("cni"), exampleChart("gitops"), "schema"],
  });
  const keepObjects = [{ apiVersion: "v1", kind: "ConfigMap", name: "keep-schema" }];

  /** The add-ons: `cni` (ApplyOnce unless switched), `ctl` and `keep` (Reconcile). */
  const addons = (cni: Partial<ClusterAddonArgs> = {}, names = ["cni", "ctl", "keep"]) => {
    const args = suite.args;
    const all = [
      {
        name: "cni",
        args: { ...args("cni", "1.0.0", "kube-system", { ipam: { mode: "kubernetes" } }), ...cni },
      },
      {
        name: "ctl",
        args: { ...args("gitops", "2.0.0", "ctl-system", { replicas: 1 }), strategy: "Reconcile" as const },
      },
      {
        name: "keep",
        args: {
          ...args("schema", "0.1.0", "keep-system", { replicas: 1, mode: "a" }),
          strategy: "Reconcile" as const,
        },
      },
    ];
    return all.filter((a) => names.includes(a.name));
  };
  const records: Record<string, HandoffRecord> = {};
  const handOff = async (name: string, options: ArgoCdHandoffOptions) => {
    const record = records[name];
    assert.ok(record, `a record of ${name}`);
    await suite.argoCdHandOff(record, options);
    await waitFor(
      `Argo CD to take ${name} over`,
      async () =>
        (await verifyHandoff(record, { kubeconfig: suite.cluster.kubeconfig })).state === "handed-off"
          ? true
          : undefined,
      240_000,
      async () => JSON.stringify(await verifyHandoff(record, { kubeconfig: suite.cluster.kubeconfig })),
    );
  };
  const helmWrites = async () =>
    (await suite.spy.calls()).filter((argv) => /^(install|upgrade|uninstall|rollback) /.test(argv));

  before(async () => {
    suite.stack.current = addons();
    assert.equal((await suite.stack.up()).summary.result, "succeeded");
    for (const name of ["cni", "ctl", "keep"]) records[name] = await suite.record(name);
  });

  test("an ApplyOnce add-on handed to Argo CD and then switched to Reconcile is refused: no helm upgrade", async () => {
    await handOff("cni", { values: { ipam: { mode: "kubernetes" } }, automated: true });
    const uids = await uidsOf(suite.cluster, "kube-system", cniObjects);
    suite.stack.current = addons({ strategy: "Reconcile", values: { ipam: { mode: "eni" } } });
    await suite.spy.reset();
    await assert.rejects(suite.stack.up(), (e: unknown) => {
      assert.match(
        String(e),
        /release kube-system\/cni is not this resource's: revision 1 carries this resource's marks, but another controller manages the release now: Argo CD Application argocd\/cni names it\. helm-handoff never writes to a release another controller manages\./,
      );
      return true;
    });
    assert.deepEqual(await helmWrites(), [], "no helm write");
    assert.equal((await liveRelease(suite.cluster, "cni", "kube-system"))?.revision, 1);
    assert.deepEqual(await uidsOf(suite.cluster, "kube-system", cniObjects), uids);
    suite.stack.current = addons();
  });

  test("after retire-helm-storage, a Reconcile refresh and up do not install again over Argo CD's objects", async () => {
    await handOff("ctl", { values: { replicas: 1 }, automated: true });
    const objects = [{ apiVersion: "apps/v1", kind: "Deployment", name: "ctl-controller" }];
    const uids = await uidsOf(suite.cluster, "ctl-system", objects);
    const retired = await runHandoffCli(
      ["retire-helm-storage", "--kubeconfig", suite.cluster.kubeconfigPath],
      JSON.stringify(records.ctl),
    );
    assert.equal(retired.code, 0, retired.stderr);
    assert.equal((await suite.stack.refresh()).summary.result, "succeeded");
    await suite.spy.reset();
    await assert.rejects(suite.stack.up(), (e: unknown) => {
      assert.match(
        String(e),
        /release ctl-system\/ctl is not this resource's: Helm has no release of that name, but another controller manages it: Argo CD Application argocd\/ctl names it\./,
      );
      return true;
    });
    assert.deepEqual(await helmWrites(), [], "no helm install");
    assert.equal(await liveRelease(suite.cluster, "ctl", "ctl-system"), undefined);
    assert.deepEqual(await uidsOf(suite.cluster, "ctl-system", objects), uids);
    suite.stack.current = addons({}, ["cni", "keep"]);
  });

  test("destroy leaves a Reconcile release whose objects Argo CD took over, and every object", async () => {
    await handOff("keep", { values: { replicas: 1, mode: "a" }, automated: true });
    const uids = await uidsOf(suite.cluster, "keep-system", keepObjects);
    await suite.spy.reset();
    assert.equal((await suite.stack.destroy()).summary.result, "succeeded");
    assert.deepEqual(await helmWrites(), [], "no helm uninstall");
    assert.equal((await liveRelease(suite.cluster, "keep", "keep-system"))?.revision, 1);
    assert.deepEqual(await uidsOf(suite.cluster, "keep-system", keepObjects), uids);
  });
});
