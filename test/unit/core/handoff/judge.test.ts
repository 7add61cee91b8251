/**
 * Unit tests of the handoff verdict (core/handoff/judge.ts) and of finding handoff records in
 * command input: each state of the closed set from a hand-written observation, with its exact
 * message, action and exit code. The same verdicts against the real controllers are in
 * gitops-flux and gitops-argocd.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { clusterIdentityFromKubeconfig } from "../../../../core/cluster/identity.js";
import { judgeHandoff } from "../../../../core/handoff/judge.js";
import {
  type ArgoClaim,
  decodeRelease,
  type FluxClaim,
  type LiveObject,
  manifestObjects,
  type Observation,
  type StoredRevision,
} from "../../../../core/handoff/observe.js";
import { type HandoffRecord, makeHandoffRecord } from "../../../../core/handoff/record.js";
import { retireHelmStorage } from "../../../../core/handoff/retire.js";
import { findRecords, verifyHandoff, WrongClusterError } from "../../../../core/handoff/verify.js";

const record = makeHandoffRecord({
  clusterId: "sha256:0123456789abcdef",
  server: "https://127.0.0.1:6443",
  releaseName: "cni",
  namespace: "kube-system",
  chart: { repo: "https://charts.example", name: "cni" },
  chartVersion: "1.0.0",
  revision: 1,
  strategy: "ApplyOnce",
  installedAt: "2026-12-01T00:00:00.000Z",
});

const ours = { "helm-handoff.dev/owner": "abc", "helm-handoff.dev/owner-name": "platform.prod.cni" };
function revision(n: number, labels: Record<string, string>, status = "deployed"): StoredRevision {
  return {
    revision: n,
    status,
    labels,
    secret: { name: `sh.helm.release.v1.cni.v${n}`, uid: `u${n}`, resourceVersion: "1" },
  };
}
function observation(partial: Partial<Observation> & { latest?: StoredRevision }): Observation {
  const latest = partial.latest;
  return {
    release: latest && {
      recorded: { name: "cni", namespace: "kube-system" },
      revisions: [latest],
      latest,
      deployedAt: "2026-12-01T00:00:00Z",
      objects: [],
    },
    flux: partial.flux ?? [],
    argo: partial.argo ?? [],
    objects: partial.objects ?? [],
  };
}
const flux = (over: Partial<FluxClaim>): FluxClaim => ({
  namespace: "flux-system",
  name: "cni",
  ready: { status: "True", reason: "UpgradeSucceeded", message: "ok", since: "2026-12-02T00:00:00Z" },
  failed: undefined,
  latest: { version: 2, status: "deployed" },
  firstDeployedByFlux: "2026-12-02T00:00:00Z",
  ...over,
});
const ref = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", namespace: "kube-system", name });
const argo = (over: Partial<ArgoClaim>): ArgoClaim => ({
  namespace: "argocd",
  name: "cni",
  sync: "Synced",
  health: "Healthy",
  lastSyncedAt: "2026-12-02T00:00:00Z",
  resources: [],
  ...over,
});
const live = (name: string, trackedBy?: string, exists = true): LiveObject => ({
  ref: ref(name),
  exists,
  trackedBy,
});

describe("the handoff verdict", () => {
  test("a release still at helm-handoff's revision with no GitOps object is not taken over yet (exit 3)", () => {
    const v = judgeHandoff(
      record,
      observation({ latest: revision(1, { ...ours, "helm-handoff.dev/revision": "1" }) }),
    );
    assert.equal(v.state, "not-taken-over");
    assert.equal(v.exitCode, 3);
    assert.deepEqual(v.owner, { kind: "helm-handoff", ownerName: "platform.prod.cni", revision: 1 });
    assert.equal(
      v.message,
      "still helm-handoff's: revision 1 (deployed); no Flux HelmRelease or Argo CD Application names the release",
    );
    assert.equal(
      v.action,
      "apply the handoff objects built from this record (helm-handoff/gitops: fluxHandoffObjects or argoCdApplicationObject)",
    );
  });

  test("a Ready HelmRelease whose history holds the current revision has taken the release over (exit 0)", () => {
    const v = judgeHandoff(record, observation({ latest: revision(2, ours), flux: [flux({})] }));
    assert.equal(v.state, "handed-off");
    assert.equal(v.exitCode, 0);
    assert.equal(v.since, "2026-12-02T00:00:00Z");
    assert.equal(
      v.message,
      "handed off to Flux HelmRelease flux-system/cni: revision 2 deployed by helm-controller, Ready",
    );
  });

  test("a HelmRelease that has not upgraded the release yet is not a takeover", () => {
    const v = judgeHandoff(
      record,
      observation({
        latest: revision(1, { ...ours, "helm-handoff.dev/revision": "1" }),
        flux: [
          flux({
            latest: undefined,
            ready: { status: "Unknown", reason: "Progressing", message: "", since: "" },
          }),
        ],
      }),
    );
    assert.equal(v.state, "not-taken-over");
    assert.equal(
      v.message,
      "Flux HelmRelease flux-system/cni names the release but has not upgraded it yet (Ready: Unknown Progressing); the release is at revision 1 (deployed)",
    );
  });

  test("a HelmRelease whose last release action failed is stalled (exit 1), even while it retries", () => {
    const failed = { reason: "UpgradeFailed", message: "Helm upgrade failed", since: "2026-12-03T00:00:00Z" };
    const v = judgeHandoff(
      record,
      observation({
        latest: revision(1, { ...ours, "helm-handoff.dev/revision": "1" }),
        flux: [
          flux({
            latest: undefined,
            ready: { status: "Unknown", reason: "Progressing", message: "", since: "" },
            failed,
          }),
        ],
      }),
    );
    assert.equal(v.state, "stalled");
    assert.equal(v.exitCode, 1);
    assert.equal(
      v.message,
      "Flux HelmRelease flux-system/cni failed (UpgradeFailed: Helm upgrade failed); the release is at revision 1 (deployed)",
    );
  });

  test("an Application tracking every object, Synced and Healthy, has taken the objects over", () => {
    const v = judgeHandoff(
      record,
      observation({
        latest: revision(1, ours),
        argo: [argo({})],
        objects: [live("a", "cni"), live("b", "argocd_cni")],
      }),
    );
    assert.equal(v.state, "handed-off");
    assert.equal(
      v.message,
      "handed off to Argo CD Application argocd/cni: Synced, Healthy, 2 of 2 objects tracked",
    );
  });

  test("an Application showing Synced over objects it never wrote is not a takeover", () => {
    const v = judgeHandoff(
      record,
      observation({ latest: revision(1, ours), argo: [argo({})], objects: [live("a"), live("b")] }),
    );
    assert.equal(v.state, "not-taken-over");
    assert.equal(
      v.message,
      'Argo CD Application argocd/cni: Synced, Healthy, 0 of 2 objects tracked: Argo CD has not written the objects yet ("Synced" alone does not mean it took them over)',
    );
    assert.equal(
      v.action,
      "sync the Application once so that Argo CD writes its tracking annotation: argocd app sync argocd/cni",
    );
  });

  test("an Application with a missing object, one tracked by another Application, or one out of sync reports drift", () => {
    const v = judgeHandoff(
      record,
      observation({
        latest: revision(1, ours),
        argo: [argo({ sync: "OutOfSync", resources: [{ ...ref("a"), status: "OutOfSync" }] })],
        objects: [live("a", "cni"), live("b", "other"), live("c", undefined, false)],
      }),
    );
    assert.equal(v.state, "drifted");
    assert.equal(
      v.message,
      "Argo CD Application argocd/cni: OutOfSync, Healthy, 1 of 3 objects tracked (1 missing, 1 tracked by another Application, 1 out of sync)",
    );
  });

  test("two GitOps objects claiming one release are contested", () => {
    const v = judgeHandoff(
      record,
      observation({ latest: revision(2, ours), flux: [flux({})], argo: [argo({})] }),
    );
    assert.equal(v.state, "contested");
    assert.equal(
      v.message,
      "2 GitOps objects claim the release: Flux HelmRelease flux-system/cni, Argo CD Application argocd/cni",
    );
  });

  test("a release someone else upgraded with no GitOps object naming it is foreign, and a release gone is missing", () => {
    const foreign = judgeHandoff(record, observation({ latest: revision(2, ours) }));
    assert.equal(foreign.state, "foreign");
    assert.equal(
      foreign.message,
      "revision 2 (deployed) was written by someone else, and no Flux HelmRelease or Argo CD Application names the release",
    );
    const missing = judgeHandoff(record, observation({}));
    assert.equal(missing.state, "missing");
    assert.equal(missing.exitCode, 1);
  });

  test("a cdk8s Manifests record (revision 0) with no Helm release yet is not taken over (exit 3), also while a HelmRelease has not installed it; installed by Flux it is handed off", () => {
    const applied = { ...record, revision: 0 };
    const alone = judgeHandoff(applied, observation({}));
    assert.deepEqual([alone.state, alone.exitCode], ["not-taken-over", 3]);
    assert.equal(
      alone.message,
      "applied as manifests (revision 0 in the record: a cdk8s Manifests output), with no Helm release yet; no Flux HelmRelease or Argo CD Application names the release",
    );
    const waiting = flux({
      ready: { status: "Unknown", reason: "Progressing", message: "", since: "" },
      latest: undefined,
    });
    const pending = judgeHandoff(applied, observation({ flux: [waiting] }));
    assert.deepEqual([pending.state, pending.exitCode], ["not-taken-over", 3]);
    assert.equal(
      pending.message,
      "Flux HelmRelease flux-system/cni names the release but has not installed it over the applied objects yet (Ready: Unknown Progressing); Helm has no release kube-system/cni",
    );
    const installed = flux({ latest: { version: 1, status: "deployed" } });
    const done = judgeHandoff(applied, observation({ flux: [installed], latest: revision(1, {}) }));
    assert.deepEqual([done.state, done.exitCode], ["handed-off", 0]);
  });
});

describe("verifying against the right cluster", () => {
  test("a kubeconfig of another cluster than the record's is refused before any request", async () => {
    const kubeconfig = [
      "apiVersion: v1",
      "kind: Config",
      "clusters: [{ name: c, cluster: { server: https://10.9.9.9:6443 } }]",
      "users: [{ name: u, user: { token: t } }]",
      "contexts: [{ name: x, context: { cluster: c, user: u } }]",
      "current-context: x",
    ].join("\n");
    await assert.rejects(verifyHandoff(record, { kubeconfig }), {
      name: "WrongClusterError",
      code: "WRONG_CLUSTER",
      message: `the handoff record of kube-system/cni is for cluster https://127.0.0.1:6443 (sha256:0123456789abcdef), but the kubeconfig points at https://10.9.9.9:6443 (${clusterIdentityFromKubeconfig(kubeconfig).clusterId}): pass the kubeconfig (or --context) of the record's cluster`,
    });
  });

  test("retire-helm-storage refuses the record's server URL with another CA before any request; status reads it", async () => {
    const kubeconfig = [
      "apiVersion: v1",
      "kind: Config",
      "clusters: [{ name: c, cluster: { server: https://127.0.0.1:6443 } }]",
      "users: [{ name: u, user: { token: t } }]",
      "contexts: [{ name: x, context: { cluster: c, user: u } }]",
      "current-context: x",
    ].join("\n");
    const other = clusterIdentityFromKubeconfig(kubeconfig).clusterId;
    await assert.rejects(retireHelmStorage(record, { kubeconfig }), {
      name: "WrongClusterError",
      message: `the handoff record of kube-system/cni is for cluster https://127.0.0.1:6443 (sha256:0123456789abcdef), but the kubeconfig points at https://127.0.0.1:6443 (${other}): pass the kubeconfig (or --context) of the record's cluster`,
    });
    // status accepts the same server URL (a rotated CA): it gets as far as the (absent) server.
    await assert.rejects(
      verifyHandoff(record, { kubeconfig }),
      (e: unknown) => !(e instanceof WrongClusterError),
    );
  });

  test("retire-helm-storage refuses a record whose names are not Helm's, naming the field, before any request", async () => {
    const kubeconfig = "not read";
    const cases: [Partial<HandoffRecord["release"]>, string][] = [
      [
        { name: "../../x" },
        `the handoff record's release.name "../../x" is not a Helm release name (a lowercase DNS-1123 name of at most 53 characters): use the handoff record helm-handoff exported, unedited`,
      ],
      [
        { storageNamespace: "kube-system/secrets/x?" },
        `the handoff record's release.storageNamespace "kube-system/secrets/x?" is not a namespace (a lowercase DNS-1123 label of at most 63 characters): use the handoff record helm-handoff exported, unedited`,
      ],
    ];
    for (const [release, message] of cases) {
      const bad = { ...record, release: { ...record.release, ...release } };
      await assert.rejects(retireHelmStorage(bad, { kubeconfig }), { name: "SpecError", message });
    }
  });
});

describe("reading Helm's storage", () => {
  test("a release that cannot be decoded and a manifest document that does not parse quote none of their content", () => {
    const secretish = Buffer.from(Buffer.from('{"config":{"password":"hunter2"').toString("base64")).toString(
      "base64",
    );
    assert.throws(() => decodeRelease(secretish, "sh.helm.release.v1.cni.v1"), {
      message:
        "Helm's release Secret sh.helm.release.v1.cni.v1 cannot be decoded (not base64 of gzipped JSON)",
    });
    const manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\npassword: [hunter2\n";
    assert.deepEqual(
      manifestObjects(manifest, "kube-system", () => true),
      [{ apiVersion: "v1", kind: "ConfigMap", namespace: "kube-system", name: "a" }],
    );
  });
});

describe("finding handoff records", () => {
  test("records are found anywhere in pulumi stack output --json, and nothing else is taken for one", () => {
    const outputs = {
      cniHandoff: record,
      nested: { list: [{ x: 1 }, record] },
      other: { kind: "HandoffRecord" },
    };
    assert.deepEqual(findRecords(outputs), [record, record]);
  });
});
