/**
 * The handoff to the real Argo CD: the application-controller and repo-server (one `argocd`
 * binary built by the toolchain) and Redis run beside a local cluster with workloads; add-ons are
 * bootstrapped by ClusterAddon (ApplyOnce) on the real engine; the Applications are built from the
 * stack's handoff records by helm-handoff/gitops and created. Argo CD renders the chart with
 * `helm template` and applies over the live objects: it never touches Helm's storage, and
 * `helm-handoff status` tells whether it really took the objects over.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import {
  type ArgoCdHandoffOptions,
  type HandoffRecord,
  type HandoffStatus,
  verifyHandoff,
} from "../../../core/handoff/gitops.js";
import { liveRelease } from "../../support/addon.js";
import {
  getObject,
  type Json,
  mergePatch,
  objectPath,
  runHandoffCli,
  uidsOf,
  waitFor,
} from "../../support/gitops.js";
import {
  CNI_OBJECTS as cniObjects,
  CNI_VALUES as cniValues,
  exampleChart,
  takeoverSuite,
} from "../../support/takeover.js";

const APP = "argoproj.io/v1alpha1";

describe("Argo CD takes bootstrapped add-ons over", { timeout: 900_000 }, () => {
  const suite = takeoverSuite({
    name: "argocd",
    gitops: "argocd",
    charts: [exampleChart("cni"), exampleChart("gitops"), "random"],
  });
  let cniUids: Record<string, string>;
  let cniRecord: HandoffRecord;

  const addons = (cni: Record<string, unknown>) => [
    { name: "cni", args: suite.args("cni", "1.0.0", "kube-system", cni) },
    { name: "gitops", args: suite.args("gitops", "2.0.0", "gitops-system", { replicas: 1 }) },
    { name: "random", args: suite.args("random", "0.1.0", "random-system", {}) },
  ];
  const record = suite.record;
  const application = (name: string) => getObject(suite.cluster, APP, "Application", "argocd", name);
  const handOff = async (name: string, options: ArgoCdHandoffOptions) =>
    suite.argoCdHandOff(await record(name), options);
  const verdict = (r: HandoffRecord) => verifyHandoff(r, { kubeconfig: suite.cluster.kubeconfig });
  const until = (name: string, want: (v: HandoffStatus) => boolean) =>
    waitFor(
      `the verdict on ${name}`,
      async () => {
        const v = await verdict(await record(name));
        return want(v) ? v : undefined;
      },
      240_000,
      async () => JSON.stringify(await verdict(await record(name))),
    );

  before(async () => {
    suite.stack.current = addons(cniValues);
    const up = await suite.stack.up();
    assert.equal(up.summary.result, "succeeded");
    cniUids = await uidsOf(suite.cluster, "kube-system", cniObjects);
    cniRecord = await record("cni");
  });

  test("Argo CD takes the objects over in place: Synced, Healthy, every object tracked, Helm's storage left at revision 1", async () => {
    await handOff("cni", { values: cniValues, automated: true });
    const v = await until("cni", (x) => x.state === "handed-off");
    assert.deepEqual(v.owner, {
      kind: "argocd",
      application: "argocd/cni",
      sync: "Synced",
      health: "Healthy",
      objects: { total: 2, tracked: 2, missing: 0, drifted: 0, foreign: 0 },
    });
    assert.deepEqual(
      await uidsOf(suite.cluster, "kube-system", cniObjects),
      cniUids,
      "nothing was reinstalled",
    );
    const config = await getObject(suite.cluster, "v1", "ConfigMap", "kube-system", "cni-config");
    assert.equal(config?.data?.["ipam-mode"], "kubernetes");
    const stored = await liveRelease(suite.cluster, "cni", "kube-system");
    assert.equal(stored?.revision, 1, "Argo CD never writes Helm's storage");
    assert.equal(stored?.status, "deployed");
    const run = await runHandoffCli(
      ["status", "--kubeconfig", suite.cluster.kubeconfigPath],
      JSON.stringify({ cniHandoff: cniRecord }),
    );
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(
      run.stdout,
      /^kube-system\/cni: handed-off: handed off to Argo CD Application argocd\/cni: Synced, Healthy, 2 of 2 objects tracked$/m,
    );
  });

  test("an Application that has not synced has not taken the release over: status exits 3 until one sync writes the tracking marks", async () => {
    await handOff("gitops", { values: { replicas: 1 }, syncOnCreate: false });
    await waitFor("the Application to be compared", async () => {
      const app = await application("gitops");
      const sync = (app?.status?.sync as { status?: string } | undefined)?.status;
      return sync === "Synced" || sync === "OutOfSync" ? sync : undefined;
    });
    const before = await verdict(await record("gitops"));
    assert.equal(before.state, "not-taken-over", JSON.stringify(before));
    assert.equal(before.exitCode, 3);
    assert.match(
      before.message,
      /: Argo CD has not written the objects yet \("Synced" alone does not mean it took them over\)$/,
    );
    assert.equal(
      before.action,
      "sync the Application once so that Argo CD writes its tracking annotation: argocd app sync argocd/gitops",
    );
    await mergePatch(suite.cluster, objectPath(APP, "Application", "argocd", "gitops"), {
      operation: { initiatedBy: { username: "test" }, sync: { syncOptions: ["ServerSideApply=true"] } },
    });
    const after = await until("gitops", (x) => x.state === "handed-off");
    assert.equal(after.exitCode, 0);
  });

  test("our next up with changed values and refresh leave Argo CD's Application and objects untouched", async () => {
    const before = (await application("cni")) as Json;
    suite.stack.current = addons({ ipam: { mode: "eni" } });
    await suite.spy.reset();
    const up = await suite.stack.up();
    assert.deepEqual(Object.keys(up.summary.resourceChanges ?? {}), ["same"]);
    assert.equal((await suite.stack.refresh()).summary.result, "succeeded");
    assert.deepEqual(await suite.spy.calls(), [], "no helm call after handoff");
    const after = (await application("cni")) as Json;
    assert.equal(after.metadata.generation, before.metadata.generation);
    assert.deepEqual(after.status?.history, before.status?.history);
    assert.equal((await verdict(cniRecord)).state, "handed-off");
    const config = await getObject(suite.cluster, "v1", "ConfigMap", "kube-system", "cni-config");
    assert.equal(config?.data?.["ipam-mode"], "kubernetes");
  });

  test("new values in the Application are synced by Argo CD, and our next up does not fight them", async () => {
    const changed = { ipam: { mode: "cluster-pool" } };
    await mergePatch(suite.cluster, objectPath(APP, "Application", "argocd", "cni"), {
      spec: { source: { helm: { valuesObject: changed } } },
    });
    await waitFor("Argo CD to apply the new values", async () => {
      const config = await getObject(suite.cluster, "v1", "ConfigMap", "kube-system", "cni-config");
      return config?.data?.["ipam-mode"] === "cluster-pool" ? true : undefined;
    });
    await suite.spy.reset();
    await suite.stack.up();
    assert.deepEqual(await suite.spy.calls(), []);
    const config = await getObject(suite.cluster, "v1", "ConfigMap", "kube-system", "cni-config");
    assert.equal(config?.data?.["ipam-mode"], "cluster-pool");
    assert.deepEqual(await uidsOf(suite.cluster, "kube-system", cniObjects), cniUids);
    assert.equal((await until("cni", (x) => x.state === "handed-off")).exitCode, 0);
  });

  test("an Application built with automated sync does not re-apply a chart that renders differently each time", async () => {
    await handOff("random", { automated: true });
    const history = async () =>
      ((await application("random"))?.status?.history as unknown[] | undefined) ?? [];
    await waitFor("the first sync of random", async () => ((await history()).length >= 1 ? true : undefined));
    const token = async () =>
      (await getObject(suite.cluster, "v1", "ConfigMap", "random-system", "random-random"))?.data?.token;
    const synced = await token();
    // Ask for two fresh renders (a hard refresh drops the cached manifests) and let the controller compare.
    for (let i = 0; i < 2; i++) {
      await mergePatch(suite.cluster, objectPath(APP, "Application", "argocd", "random"), {
        metadata: { annotations: { "argocd.argoproj.io/refresh": "hard" } },
      });
      await waitFor("the refresh to be taken", async () => {
        const app = await application("random");
        return app?.metadata.annotations?.["argocd.argoproj.io/refresh"] === undefined ? true : undefined;
      });
    }
    const app = await application("random");
    assert.equal(
      (app?.status?.sync as { status?: string } | undefined)?.status,
      "OutOfSync",
      "every render differs",
    );
    assert.equal((await history()).length, 1, "synced once, not again");
    assert.equal(await token(), synced, "the live object was not re-applied");
    assert.equal((await verdict(await record("random"))).state, "drifted");
  });

  test("retire-helm-storage refuses while the takeover is not complete, then deletes only Helm's stale release Secrets", async () => {
    const refused = await runHandoffCli(
      ["retire-helm-storage", "--kubeconfig", suite.cluster.kubeconfigPath],
      JSON.stringify(await record("random")),
    );
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /^helm-handoff: helm-handoff retire-helm-storage: random-system\/random: refused: only a release handed off to Argo CD with every object tracked may lose Helm's storage; now: Argo CD Application argocd\/random: OutOfSync/,
    );
    assert.equal(
      (await liveRelease(suite.cluster, "random", "random-system"))?.revision,
      1,
      "nothing deleted",
    );

    const run = await runHandoffCli(
      ["retire-helm-storage", "--kubeconfig", suite.cluster.kubeconfigPath],
      JSON.stringify(cniRecord),
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "kube-system/cni: deleted Helm's release Secrets sh.helm.release.v1.cni.v1\n");
    assert.equal(
      await liveRelease(suite.cluster, "cni", "kube-system"),
      undefined,
      "helm no longer lists it",
    );
    assert.deepEqual(
      await uidsOf(suite.cluster, "kube-system", cniObjects),
      cniUids,
      "every object is still there",
    );
    assert.equal((await verdict(cniRecord)).state, "handed-off");
  });

  test("an object deleted or claimed by another Application is reported as drift, with counts", async () => {
    const gitopsRecord = await record("gitops");
    const sa = objectPath("v1", "ServiceAccount", "gitops-system", "gitops-controller");
    assert.ok((await suite.cluster.request("DELETE", sa)).ok);
    await mergePatch(
      suite.cluster,
      objectPath("apps/v1", "Deployment", "gitops-system", "gitops-controller"),
      {
        metadata: {
          annotations: {
            "argocd.argoproj.io/tracking-id": "other:apps/Deployment:gitops-system/gitops-controller",
          },
        },
      },
    );
    const v = await verdict(gitopsRecord);
    assert.equal(v.state, "drifted");
    assert.equal(v.exitCode, 1);
    assert.deepEqual(
      v.owner.kind === "argocd" && { missing: v.owner.objects.missing, foreign: v.owner.objects.foreign },
      {
        missing: 1,
        foreign: 1,
      },
    );
    assert.match(
      v.message,
      /^Argo CD Application argocd\/gitops: \w+, \w+, 0 of 2 objects tracked \(1 missing, 1 tracked by another Application/,
    );
  });

  test("destroy leaves every Application and object", async () => {
    await suite.spy.reset();
    assert.equal((await suite.stack.destroy()).summary.result, "succeeded");
    assert.deepEqual(await suite.spy.calls(), [], "no helm call on destroy");
    assert.ok(await application("cni"));
    assert.deepEqual(await uidsOf(suite.cluster, "kube-system", cniObjects), cniUids);
    assert.equal((await verdict(cniRecord)).state, "handed-off");
  });
});
