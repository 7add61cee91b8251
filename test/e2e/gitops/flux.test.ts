/**
 * The handoff to the real Flux: source-controller and helm-controller (built by the toolchain) run
 * beside a local cluster with workloads; a CNI-like and a GitOps-controller-like chart are
 * bootstrapped by ClusterAddon (ApplyOnce) on the real engine; the Flux objects are built from the
 * stack's handoff records by helm-handoff/gitops and created; then helm-controller takes the
 * releases over, and `helm-handoff status` tells where each stands.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { fluxHandoffObjects, type HandoffRecord, verifyHandoff } from "../../../core/handoff/gitops.js";
import { liveRelease } from "../../support/addon.js";
import {
  conditionOf,
  createObjects,
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

const HR = "helm.toolkit.fluxcd.io/v2";

describe("Flux takes bootstrapped add-ons over", { timeout: 900_000 }, () => {
  const suite = takeoverSuite({
    name: "flux",
    gitops: "flux",
    charts: [exampleChart("cni"), exampleChart("gitops"), "schema"],
  });
  const gitopsValues = { replicas: 1 };
  const schemaValues = { replicas: 1, mode: "a" };
  let cniUids: Record<string, string>;
  // Kept from the first up: destroy empties the stack's outputs.
  let cniRecord: HandoffRecord;

  const addons = (cni: Record<string, unknown>) => [
    { name: "cni", args: suite.args("cni", "1.0.0", "kube-system", cni) },
    { name: "gitops", args: suite.args("gitops", "2.0.0", "gitops-system", gitopsValues) },
    { name: "schema", args: suite.args("schema", "0.1.0", "schema-system", schemaValues) },
  ];
  const outputsJson = async () =>
    JSON.stringify(
      Object.fromEntries(Object.entries(await suite.stack.stack.outputs()).map(([k, v]) => [k, v.value])),
    );
  const record = suite.record;
  const helmRelease = (name: string) => getObject(suite.cluster, HR, "HelmRelease", "flux-system", name);
  const describeRelease = (name: string) => async () =>
    JSON.stringify((await helmRelease(name))?.status ?? {});
  const ready = (name: string, status: "True" | "False") => async () => {
    const hr = await helmRelease(name);
    return conditionOf(hr, "Ready")?.status === status ? hr : undefined;
  };

  before(() => {
    suite.stack.current = addons(cniValues);
  });

  test("before the handoff, helm-handoff status reports each release still helm-handoff's and exits 3", async () => {
    const up = await suite.stack.up();
    assert.equal(up.summary.result, "succeeded");
    cniUids = await uidsOf(suite.cluster, "kube-system", cniObjects);
    cniRecord = await record("cni");
    const run = await runHandoffCli(
      ["status", "--kubeconfig", suite.cluster.kubeconfigPath],
      await outputsJson(),
    );
    assert.equal(run.code, 3, run.stderr);
    assert.match(
      run.stdout,
      /^kube-system\/cni: not-taken-over: still helm-handoff's: revision 1 \(deployed\); no Flux HelmRelease or Argo CD Application names the release$/m,
    );
    assert.match(run.stdout, /^ {2}next: apply the handoff objects built from this record/m);
  });

  test("Flux takes each release over by upgrading it to revision 2, keeping every object and the installed values", async () => {
    for (const [name, values] of [
      ["cni", cniValues],
      ["gitops", gitopsValues],
    ] as const) {
      await createObjects(suite.cluster, fluxHandoffObjects(await record(name), { values }));
    }
    for (const name of ["cni", "gitops"]) {
      await waitFor(`HelmRelease ${name} Ready`, ready(name, "True"), 240_000, describeRelease(name));
    }
    const cni = await liveRelease(suite.cluster, "cni", "kube-system");
    assert.equal(cni?.revision, 2);
    assert.equal(cni?.status, "deployed");
    assert.deepEqual(cni?.values, cniValues);
    assert.deepEqual(
      await uidsOf(suite.cluster, "kube-system", cniObjects),
      cniUids,
      "nothing was reinstalled",
    );
    const config = await getObject(suite.cluster, "v1", "ConfigMap", "kube-system", "cni-config");
    assert.equal(config?.data?.["ipam-mode"], "kubernetes");

    const verdict = await verifyHandoff(await record("cni"), { kubeconfig: suite.cluster.kubeconfig });
    assert.equal(verdict.state, "handed-off");
    assert.deepEqual(verdict.owner, {
      kind: "flux",
      helmRelease: "flux-system/cni",
      revision: 2,
      ready: "True",
    });
    assert.equal(
      verdict.message,
      "handed off to Flux HelmRelease flux-system/cni: revision 2 deployed by helm-controller, Ready",
    );
    const run = await runHandoffCli(
      ["status", "--kubeconfig", suite.cluster.kubeconfigPath, "--release", "gitops-system/gitops", "--json"],
      await outputsJson(),
    );
    assert.equal(run.code, 0, run.stderr);
    const [gitops] = JSON.parse(run.stdout) as { state: string; exitCode: number }[];
    assert.equal(gitops?.state, "handed-off");
  });

  test("a second HelmRelease naming the same release makes it contested, and removing it settles the handoff again", async () => {
    // Flux checks no ownership: two HelmReleases of one release would both write it. This one is
    // suspended so that it never acts (and its deletion uninstalls nothing).
    const [, second] = fluxHandoffObjects(await record("cni"), { name: "cni-copy", values: cniValues });
    assert.ok(second);
    await createObjects(suite.cluster, [{ ...second, spec: { ...(second.spec as object), suspend: true } }]);
    const contested = await verifyHandoff(await record("cni"), { kubeconfig: suite.cluster.kubeconfig });
    assert.equal(contested.state, "contested");
    assert.equal(contested.exitCode, 1);
    assert.equal(
      contested.message,
      "2 GitOps objects claim the release: Flux HelmRelease flux-system/cni, Flux HelmRelease flux-system/cni-copy",
    );
    const res = await suite.cluster.request(
      "DELETE",
      objectPath(HR, "HelmRelease", "flux-system", "cni-copy"),
    );
    assert.ok(res.ok, res.text);
    await waitFor("the second HelmRelease to be gone", async () =>
      (await helmRelease("cni-copy")) === undefined ? true : undefined,
    );
    assert.equal(
      (await verifyHandoff(await record("cni"), { kubeconfig: suite.cluster.kubeconfig })).state,
      "handed-off",
    );
    const cni = await liveRelease(suite.cluster, "cni", "kube-system");
    assert.equal(cni?.revision, 2);
    assert.equal(cni?.status, "deployed");
  });

  test("our next up with changed values and refresh leave Flux's releases and HelmReleases untouched", async () => {
    const before = (await helmRelease("cni")) as Json;
    suite.stack.current = addons({ ipam: { mode: "eni" } });
    await suite.spy.reset();
    const up = await suite.stack.up();
    assert.deepEqual(Object.keys(up.summary.resourceChanges ?? {}), ["same"]);
    assert.equal((await suite.stack.refresh()).summary.result, "succeeded");
    assert.deepEqual(await suite.spy.calls(), [], "no helm call after handoff");
    const after = (await helmRelease("cni")) as Json;
    assert.equal(after.metadata.generation, before.metadata.generation);
    assert.deepEqual(after.status?.history, before.status?.history);
    const cni = await liveRelease(suite.cluster, "cni", "kube-system");
    assert.equal(cni?.revision, 2);
    assert.deepEqual(cni?.values, cniValues);
  });

  test("new values in the HelmRelease are applied by Flux, and our next up does not fight them", async () => {
    const changed = { ipam: { mode: "cluster-pool" } };
    await mergePatch(suite.cluster, objectPath(HR, "HelmRelease", "flux-system", "cni"), {
      spec: { values: changed },
    });
    await waitFor("Flux to upgrade cni to revision 3", async () => {
      const live = await liveRelease(suite.cluster, "cni", "kube-system");
      return live?.revision === 3 && live.status === "deployed" ? live : undefined;
    });
    await waitFor("HelmRelease cni Ready at revision 3", ready("cni", "True"));
    await suite.spy.reset();
    await suite.stack.up();
    assert.deepEqual(await suite.spy.calls(), []);
    const cni = await liveRelease(suite.cluster, "cni", "kube-system");
    assert.equal(cni?.revision, 3);
    assert.deepEqual(cni?.values, changed);
    const config = await getObject(suite.cluster, "v1", "ConfigMap", "kube-system", "cni-config");
    assert.equal(config?.data?.["ipam-mode"], "cluster-pool");
    assert.deepEqual(await uidsOf(suite.cluster, "kube-system", cniObjects), cniUids);
  });

  test("a takeover upgrade that fails leaves the bootstrapped add-on installed, and status reports it stalled", async () => {
    const objects = fluxHandoffObjects(await record("schema"), { values: { replicas: 0, mode: "a" } });
    const helmReleaseObject = objects[1];
    assert.deepEqual(helmReleaseObject?.spec && (helmReleaseObject.spec as Json["spec"])?.upgrade, {
      remediation: { strategy: "rollback" },
    });
    const uids = await uidsOf(suite.cluster, "schema-system", [
      { apiVersion: "v1", kind: "ConfigMap", name: "schema-schema" },
    ]);
    await createObjects(suite.cluster, objects);
    const failed = await waitFor(
      "HelmRelease schema not Ready",
      ready("schema", "False"),
      240_000,
      describeRelease("schema"),
    );
    // Give helm-controller time for any remediation it would do.
    await waitFor("HelmRelease schema stalled", async () => {
      const hr = await helmRelease("schema");
      return conditionOf(hr, "Stalled")?.status === "True" || (hr?.status?.failures as number) >= 1
        ? hr
        : undefined;
    });
    const schema = await liveRelease(suite.cluster, "schema", "schema-system");
    assert.equal(schema?.status, "deployed", "the add-on is still installed");
    assert.deepEqual(schema?.values, schemaValues);
    assert.deepEqual(
      await uidsOf(suite.cluster, "schema-system", [
        { apiVersion: "v1", kind: "ConfigMap", name: "schema-schema" },
      ]),
      uids,
    );
    const verdict = await verifyHandoff(await record("schema"), { kubeconfig: suite.cluster.kubeconfig });
    assert.equal(verdict.state, "stalled", JSON.stringify(failed.status));
    assert.equal(verdict.exitCode, 1);
    assert.match(
      verdict.message,
      /^Flux HelmRelease flux-system\/schema failed \(UpgradeFailed: Helm upgrade failed for release schema-system\/schema with chart schema@0\.1\.0: values don't meet the specifications of the schema\(s\)/,
    );
    assert.match(verdict.message, /; the release is at revision 1 \(deployed\)$/);
  });

  test("destroy leaves every release and HelmRelease, and status still reports the handoff", async () => {
    await suite.spy.reset();
    assert.equal((await suite.stack.destroy()).summary.result, "succeeded");
    assert.deepEqual(await suite.spy.calls(), [], "no helm call on destroy");
    assert.equal((await liveRelease(suite.cluster, "cni", "kube-system"))?.revision, 3);
    assert.equal(conditionOf(await helmRelease("cni"), "Ready")?.status, "True");
    const outputs = JSON.stringify({ cniHandoff: cniRecord });
    const run = await runHandoffCli(["status", "--kubeconfig", suite.cluster.kubeconfigPath], outputs);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(
      run.stdout,
      /^kube-system\/cni: handed-off: handed off to Flux HelmRelease flux-system\/cni: revision 3/m,
    );
  });
});
