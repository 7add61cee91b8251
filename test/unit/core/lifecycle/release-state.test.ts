import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { isRetryableFailure, ReleaseBusyError } from "../../../../core/errors.js";
import { otherFieldManagers } from "../../../../core/handoff/field-managers.js";
import { HelmRunner, type ReleaseInfo } from "../../../../core/helm/index.js";
import {
  describeOwnership,
  INSTANCE_LABEL,
  keyedOwnerId,
  labelValue,
  MARK_LABEL,
  mayWrite,
  OWN_REVISION_LABEL,
  ownerIdOf,
  ownerLabels,
  ownerNameOf,
  ownershipOf,
  type ReleaseOwner,
} from "../../../../core/lifecycle/ownership.js";
import { classifyRelease } from "../../../../core/lifecycle/release-state.js";
import {
  allowedHelmCalls,
  helmPolicy,
  type LifecycleStep,
  mayCallHelm,
  type STRATEGY_TABLE,
  type StepCalls,
} from "../../../../core/lifecycle/strategy.js";
import { Duration } from "../../../../core/spec/duration.js";
import { type Strategy, validateSpec } from "../../../../core/spec/index.js";

// Type tests (tsc fails on them): the strategy table has a row for every strategy, and each row a
// list for every step and no other.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
function typeTest<_T extends true>(): void {}
typeTest<Same<keyof typeof STRATEGY_TABLE, Strategy>>();
typeTest<Same<keyof StepCalls, LifecycleStep>>();

const AFTER_FIRST_SUCCESS: readonly LifecycleStep[] = ["check", "diff", "read", "update", "delete"];

test("ApplyOnce after the first success allows no helm call at any step", () => {
  for (const step of AFTER_FIRST_SUCCESS) {
    assert.deepEqual([...allowedHelmCalls("ApplyOnce", step)], [], `ApplyOnce ${step}`);
    assert.equal(mayCallHelm("ApplyOnce", step), false);
  }
});

test("ApplyOnce never upgrades and never reads values, even at create", () => {
  const create = allowedHelmCalls("ApplyOnce", "create");
  assert.equal(create.has("upgrade"), false);
  assert.equal(create.has("getValues"), false);
});

test("Reconcile reads on refresh, converges on create and update, and only re-reads and uninstalls on delete", () => {
  assert.deepEqual([...allowedHelmCalls("Reconcile", "read")], ["version", "status", "getValues"]);
  assert.ok(allowedHelmCalls("Reconcile", "update").has("upgrade"));
  assert.deepEqual([...allowedHelmCalls("Reconcile", "delete")], ["version", "status", "uninstall"]);
  assert.deepEqual([...allowedHelmCalls("Reconcile", "diff")], []);
});

test("a runner limited to a step of the table refuses every other call before starting helm", async () => {
  const dir = mkdtempSync(join(tmpdir(), "hh-policy-"));
  const marker = join(dir, "ran");
  const bin = join(dir, "helm");
  writeFileSync(bin, `#!/bin/sh\ntouch "${marker}"\nprintf v4.9.9\n`);
  chmodSync(bin, 0o755);
  writeFileSync(join(dir, "Chart.yaml"), "apiVersion: v2\nname: x\nversion: 0.1.0\n");
  const spec = validateSpec({ chart: { path: dir }, releaseName: "x" });
  for (const step of AFTER_FIRST_SUCCESS) {
    const runner = new HelmRunner({
      helmBinary: bin,
      kubeconfig: "k",
      policy: helmPolicy("ApplyOnce", step),
    });
    await assert.rejects(runner.upgrade(spec), {
      name: "HelmCallNotAllowedError",
      code: "HELM_CALL_NOT_ALLOWED",
      message: `helm upgrade is not allowed at ApplyOnce ${step} (see the strategy table in core/lifecycle/strategy.ts); no helm process was started`,
    });
    await assert.rejects(runner.status("x", "default"), { code: "HELM_CALL_NOT_ALLOWED" });
    await assert.rejects(runner.uninstall("x", "default"), { code: "HELM_CALL_NOT_ALLOWED" });
    await assert.rejects(runner.version(), { code: "HELM_CALL_NOT_ALLOWED" });
  }
  assert.equal(existsSync(marker), false, "no helm process ran");
});

function release(status: string, lastDeployed = "2026-01-01T00:00:00Z"): ReleaseInfo {
  return {
    name: "x",
    namespace: "default",
    revision: 2,
    status,
    chart: "c",
    chartVersion: "1.0.0",
    appVersion: "",
    firstDeployed: "2026-01-01T00:00:00Z",
    lastDeployed,
    description: "",
    labels: {},
  };
}

test("classifyRelease maps every helm status into one of the lifecycle's states", () => {
  const at = { now: Date.parse("2026-01-01T00:10:00Z"), staleAfter: Duration.minutes(5) };
  assert.deepEqual(classifyRelease(undefined, at), { kind: "absent" });
  assert.deepEqual(classifyRelease(release("uninstalled"), at), {
    kind: "uninstalled",
    release: release("uninstalled"),
  });
  assert.equal(classifyRelease(release("deployed"), at).kind, "deployed");
  assert.equal(classifyRelease(release("failed"), at).kind, "failed");
  assert.deepEqual(classifyRelease(release("pending-upgrade"), at), {
    kind: "pending",
    release: release("pending-upgrade"),
    stale: true,
  });
  assert.deepEqual(classifyRelease(release("pending-install", "2026-01-01T00:08:00Z"), at), {
    kind: "pending",
    release: release("pending-install", "2026-01-01T00:08:00Z"),
    stale: false,
  });
  assert.equal(classifyRelease(release("unknown"), at).kind, "unsupported");
});

test("classifyRelease calls a deployed release out of sync only when compared and different", () => {
  const at = { now: 0, staleAfter: Duration.minutes(5) };
  const desired = { chart: "c", chartVersion: undefined, valuesDigest: "d1" };
  assert.equal(
    classifyRelease(release("deployed"), { ...at, compare: { desired, liveValuesDigest: "d1" } }).kind,
    "deployed",
  );
  assert.deepEqual(
    classifyRelease(release("deployed"), { ...at, compare: { desired, liveValuesDigest: "d2" } }),
    {
      kind: "out-of-sync",
      release: release("deployed"),
      reasons: ["values"],
    },
  );
});

test("a busy release is its own error, retried, and says what it waits for", () => {
  const e = new ReleaseBusyError("default/x", "release is pending-install since T; waiting");
  assert.equal(e.code, "RELEASE_BUSY");
  assert.equal(e.message, "default/x: release is pending-install since T; waiting");
  assert.equal(isRetryableFailure(e), true);
});

test("ownershipOf sorts a release into ours, replaced, overwritten, another owner's or foreign", () => {
  const owner: ReleaseOwner = { id: "a".repeat(40), name: "p.s.cni", instance: "i1" };
  const at = (revision: number, labels: Readonly<Record<string, string>>) => ({
    name: "cni",
    namespace: "kube-system",
    revision,
    labels,
  });
  assert.deepEqual(ownershipOf(at(2, ownerLabels(owner, 2)), owner), { kind: "ours" });
  assert.deepEqual(ownershipOf(at(2, ownerLabels({ ...owner, instance: "i0" }, 2)), owner), {
    kind: "replaced",
    instance: "i0",
  });
  assert.deepEqual(ownershipOf(at(3, ownerLabels(owner, 2)), owner), {
    kind: "overwritten",
    ownRevision: "2",
  });
  assert.deepEqual(
    ownershipOf(at(1, ownerLabels({ ...owner, id: "b".repeat(40), name: "p.t.cni" }, 1)), owner),
    {
      kind: "other-owner",
      ownerId: "b".repeat(40),
      ownerName: "p.t.cni",
    },
  );
  assert.deepEqual(ownershipOf(at(1, { "helm-handoff.dev/revision": "1" }), owner), { kind: "foreign" });
  assert.equal(mayWrite({ kind: "ours" }, "delete"), true);
  assert.equal(mayWrite({ kind: "replaced", instance: "i0" }, "converge"), true);
  assert.equal(mayWrite({ kind: "replaced", instance: "i0" }, "delete"), false);
  assert.equal(mayWrite({ kind: "overwritten", ownRevision: "2" }, "converge"), false);
});

test("with a key, only revisions marked under that key are ours: a copied or computed mark of another revision, instance or release is forged", () => {
  const urn = "urn:pulumi:prod::platform::helm-handoff:index:ClusterAddon::cni";
  const key = "k".repeat(43);
  const owner: ReleaseOwner = {
    id: keyedOwnerId(key, ownerIdOf(urn)),
    key,
    name: "platform.prod.cni",
    instance: "i1",
  };
  const cni = { name: "cni", namespace: "kube-system" };
  const at = (revision: number, labels: Readonly<Record<string, string>>, where = cni) => ({
    ...where,
    revision,
    labels,
  });
  assert.match(owner.id, /^[0-9a-f]{40}$/);
  assert.notEqual(owner.id, ownerIdOf(urn), "not computable from the URN");
  assert.notEqual(
    keyedOwnerId("other".repeat(9), ownerIdOf(urn)),
    owner.id,
    "another stack of the same names",
  );
  const labels = ownerLabels(owner, 2, cni);
  assert.match(labels[MARK_LABEL] ?? "", /^[0-9a-f]{40}$/);
  assert.deepEqual(ownershipOf(at(2, labels), owner), { kind: "ours" });
  // The predecessor (another instance, same key: carried to the replacement) is a replacement.
  assert.deepEqual(ownershipOf(at(2, ownerLabels({ ...owner, instance: "i0" }, 2, cni)), owner), {
    kind: "replaced",
    instance: "i0",
  });
  // Labels copied onto a revision someone else wrote: a new revision number, instance or release.
  const copied = (change: Record<string, string>) => ({ ...labels, ...change });
  assert.deepEqual(ownershipOf(at(3, copied({ [OWN_REVISION_LABEL]: "3" })), owner), { kind: "forged" });
  assert.deepEqual(ownershipOf(at(2, copied({ [INSTANCE_LABEL]: "i9" })), owner), { kind: "forged" });
  assert.deepEqual(ownershipOf(at(2, labels, { name: "coredns", namespace: "kube-system" }), owner), {
    kind: "forged",
  });
  // The plain labels (computable from the URN) are not ours to a keyed owner.
  const plain = ownerLabels({ ...owner, id: ownerIdOf(urn), key: undefined }, 2);
  assert.equal(ownershipOf(at(2, plain), owner).kind, "other-owner");
  assert.equal(mayWrite({ kind: "forged" }, "converge"), false);
  assert.equal(
    describeOwnership({ kind: "forged" }, 2),
    "revision 2 carries this resource's owner label but not its keyed mark (helm-handoff.dev/mark): someone else wrote or altered it",
  );
});

test("a release of ours that another controller manages is claimed: not ours to write, whatever its marks", () => {
  const owner: ReleaseOwner = { id: "a".repeat(40), name: "p.s.cni", instance: "i1" };
  const release = { name: "cni", namespace: "kube-system", revision: 1, labels: ownerLabels(owner, 1) };
  const by = "Argo CD Application argocd/cni tracks its ConfigMap kube-system/cni-config";
  assert.deepEqual(ownershipOf(release, owner, by), { kind: "claimed", by });
  assert.deepEqual(ownershipOf(release, { ...owner, instance: "i2" }, by), { kind: "claimed", by });
  assert.equal(mayWrite({ kind: "claimed", by }, "converge"), false);
  assert.equal(mayWrite({ kind: "claimed", by }, "delete"), false);
  // Someone else's release stays described by its marks.
  assert.equal(ownershipOf({ ...release, labels: {} }, owner, by).kind, "foreign");
  assert.equal(
    describeOwnership({ kind: "claimed", by }, 1),
    "revision 1 carries this resource's marks, but another controller manages the release now: Argo CD Application argocd/cni tracks its ConfigMap kube-system/cni-config",
  );
  assert.equal(
    describeOwnership({ kind: "claimed", by: "Argo CD Application argocd/cni names it" }, 0),
    "Helm has no release of that name, but another controller manages it: Argo CD Application argocd/cni names it",
  );
});

test("the field managers that claim an object: any server-side apply but helm's, and GitOps controllers' updates", () => {
  assert.deepEqual(
    otherFieldManagers([
      { manager: "helm", operation: "Apply" },
      { manager: "kube-controller-manager", operation: "Update" },
      { manager: "kube-controller-manager", operation: "Update", subresource: "status" },
      { manager: "argocd-controller", operation: "Update" },
      { manager: "kubectl", operation: "Apply" },
      { manager: "helm-controller", operation: "Update", subresource: "status" },
    ]),
    ["argocd-controller", "kubectl"],
  );
  assert.deepEqual(otherFieldManagers(undefined), []);
});

test("the owner id is a stable hash of the URN, and the owner name a valid label value", () => {
  const urn = "urn:pulumi:prod::platform::helm-handoff:index:ClusterAddon::cni";
  assert.match(ownerIdOf(urn), /^[0-9a-f]{40}$/);
  assert.equal(ownerIdOf(urn), ownerIdOf(urn));
  assert.notEqual(ownerIdOf(urn), ownerIdOf(urn.replace("prod", "staging")));
  assert.equal(ownerNameOf(urn), "platform.prod.cni");
  assert.equal(ownerNameOf(`urn:pulumi:s::p::t::${"x".repeat(80)}!`).length, 63);
  assert.equal(labelValue("--"), "unnamed");
});
