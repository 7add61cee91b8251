/**
 * Unit tests of the fleet status's pure parts: the verdict on a release a Cluster API carrier
 * bootstrapped (core/handoff/judge.ts with a `CarrierBootstrap`), the `unreachable` verdict, a
 * carrier's `clusterSelector` as a list's `labelSelector` and the release a ClusterResourceSet's data
 * carries (core/handoff/fleet-targets.ts), and the human output with its summary line
 * (core/handoff/fleet-cli.ts), and the fleet mode's command-line errors (the built CLI, against a
 * port nothing listens on). The same against the real Cluster API controllers, Flux and Argo CD
 * is test/e2e/capi/fleet-status.test.ts.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { describeFleet, summaryLine } from "../../../../core/handoff/fleet-cli.js";
import { carriedRelease, selectorQuery } from "../../../../core/handoff/fleet-targets.js";
import { type CarrierBootstrap, judgeHandoff, unreachable } from "../../../../core/handoff/judge.js";
import type { Observation } from "../../../../core/handoff/observe.js";
import { makeHandoffRecord } from "../../../../core/handoff/record.js";
import { runHandoffCli } from "../../../support/gitops.js";

const record = (revision: number) =>
  makeHandoffRecord({
    clusterId: "sha256:0123",
    server: "https://127.0.0.1:6443",
    releaseName: "note",
    namespace: "addons",
    chart: { repo: "http://127.0.0.1:8080", name: "note" },
    chartVersion: "0.1.0",
    revision,
    strategy: "ApplyOnce",
    installedAt: new Date(0),
  });
const proxy: CarrierBootstrap = {
  by: "HelmChartProxy default/note",
  delivered: true,
  inspect: "kubectl get helmreleaseproxies -n default",
};
const stored = (revision: number): Observation => {
  const latest = {
    revision,
    status: "deployed",
    labels: { owner: "helm", name: "note", version: String(revision) },
    secret: { name: `sh.helm.release.v1.note.v${revision}`, uid: "u", resourceVersion: "1" },
  };
  return {
    release: {
      recorded: { name: "note", namespace: "addons" },
      revisions: [latest],
      latest,
      deployedAt: "2026-12-07T00:00:00Z",
      objects: [],
    },
    flux: [],
    argo: [],
    objects: [],
  };
};
const nothing: Observation = { release: undefined, flux: [], argo: [], objects: [] };
const TAKE =
  "apply the handoff objects built from this record (helm-handoff/gitops: fluxHandoffObjects or argoCdApplicationObject; cdk8s: FluxHandoff or ArgoCdHandoff)";

describe("the verdict on a release a Cluster API carrier bootstrapped", () => {
  test("CAAPH's own revision with no GitOps object is not taken over yet, owned by the carrier", () => {
    const v = judgeHandoff(record(1), stored(1), proxy);
    assert.deepEqual(
      [v.state, v.exitCode, v.owner, v.message, v.action],
      [
        "not-taken-over",
        3,
        { kind: "carrier", carrier: "HelmChartProxy default/note", revision: 1 },
        "still as HelmChartProxy default/note installed it: revision 1 (deployed); no Flux HelmRelease or Argo CD Application names the release",
        TAKE,
      ],
    );
  });

  test("without the carrier the same release is someone else's write", () => {
    assert.equal(judgeHandoff(record(1), stored(1)).state, "foreign");
  });

  test("a later revision nobody names is still foreign, carrier or not", () => {
    assert.equal(judgeHandoff(record(1), stored(2), proxy).state, "foreign");
  });

  test("a carrier that has not delivered yet is not taken over yet, saying what to watch", () => {
    const v = judgeHandoff(record(1), nothing, { ...proxy, delivered: false });
    assert.deepEqual(
      [v.state, v.message, v.action],
      [
        "not-taken-over",
        "HelmChartProxy default/note has not delivered the release to this cluster yet; no Flux HelmRelease or Argo CD Application names it",
        "wait for the carrier (kubectl get helmreleaseproxies -n default)",
      ],
    );
  });

  test("a ClusterResourceSet's objects with no Helm release are not taken over yet, applied by the set", () => {
    const v = judgeHandoff(record(0), nothing, { ...proxy, by: "ClusterResourceSet default/note" });
    assert.deepEqual(
      [v.state, v.owner, v.message],
      [
        "not-taken-over",
        { kind: "carrier", carrier: "ClusterResourceSet default/note", revision: 0 },
        "applied as manifests by ClusterResourceSet default/note, with no Helm release yet; no Flux HelmRelease or Argo CD Application names the release",
      ],
    );
  });

  test("an unreachable cluster is a problem naming why", () => {
    const v = unreachable("addons/note", "Cluster default/w3 is being deleted", "nothing to do");
    assert.deepEqual(
      [v.release, v.state, v.exitCode, v.owner, v.message],
      ["addons/note", "unreachable", 1, { kind: "none" }, "Cluster default/w3 is being deleted"],
    );
  });
});

describe("what the fleet status reads in the management cluster", () => {
  test("a carrier's clusterSelector becomes the labelSelector of the Clusters' list", () => {
    assert.equal(
      selectorQuery({
        matchLabels: { fleet: "on" },
        matchExpressions: [
          { key: "tier", operator: "In", values: ["a", "b"] },
          { key: "old", operator: "NotIn", values: ["x"] },
          { key: "cni", operator: "Exists" },
          { key: "gone", operator: "DoesNotExist" },
        ],
      }),
      "fleet=on,tier in (a,b),old notin (x),cni,!gone",
    );
  });

  test("an unknown selector operator is refused by name", () => {
    assert.throws(() => selectorQuery({ matchExpressions: [{ key: "a", operator: "Gt" }] }), {
      message: 'label selector operator "Gt" is not one of In, NotIn, Exists, DoesNotExist',
    });
  });

  test("the release a ClusterResourceSet carries is read from its objects' Helm annotations, keys in order", () => {
    const object = (name: string, release: string) =>
      `kind: ConfigMap\nmetadata:\n  name: ${name}\n  annotations:\n    meta.helm.sh/release-name: ${release}\n    meta.helm.sh/release-namespace: addons\n`;
    assert.deepEqual(
      carriedRelease({
        "0001-b.yaml": object("b", "second"),
        "0000-a.yaml": `kind: Namespace\nmetadata:\n  name: addons\n---\n${object("a", "note")}`,
      }),
      { name: "note", namespace: "addons" },
    );
    assert.equal(carriedRelease({ "0000-x.yaml": "kind: ConfigMap\nmetadata: {name: x}\n" }), undefined);
  });
});

describe("the fleet status as a person reads it", () => {
  const verdict = (cluster: string, state: ReturnType<typeof unreachable>) => ({
    cluster,
    addon: "addons/note",
    carrier: "HelmChartProxy default/note",
    status: state,
  });
  test("one line per cluster under the add-on, the next step indented, and the summary line", () => {
    const problem = unreachable(
      "addons/note",
      "the kubeconfig Secret default/w2-kubeconfig does not exist",
      "look",
    );
    const done = {
      ...problem,
      state: "handed-off" as const,
      message: "handed off",
      action: "",
      exitCode: 0 as const,
    };
    const text = describeFleet({
      verdicts: [verdict("default/w1", done), verdict("default/w2", problem)],
      addons: [
        {
          addon: "addons/note",
          carrier: "HelmChartProxy default/note",
          clusters: 2,
          handedOff: 1,
          notYet: 0,
          problems: 1,
        },
      ],
      exitCode: 1,
    });
    assert.equal(
      text,
      [
        "addons/note (HelmChartProxy default/note):",
        "  default/w1: handed-off: handed off",
        "  default/w2: unreachable: the kubeconfig Secret default/w2-kubeconfig does not exist",
        "    next: look",
        "addons/note handed off on 1/2 clusters, 0 not yet, 1 problem",
        "",
      ].join("\n"),
    );
  });

  test("the summary line counts clusters and problems in the plural", () => {
    const line = summaryLine({
      addon: "kube-system/cni",
      carrier: undefined,
      clusters: 50,
      handedOff: 41,
      notYet: 7,
      problems: 2,
    });
    assert.equal(line, "kube-system/cni handed off on 41/50 clusters, 7 not yet, 2 problems");
  });
});

describe("the fleet mode on the command line", () => {
  const dir = mkdtempSync(join(tmpdir(), "hh-fleet-unit-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const token = "fleet-unit-secret-token-0123456789";
  const refused = join(dir, "refused.kubeconfig");
  // Port 1 on loopback: nothing listens there, so the connection is refused at once.
  writeFileSync(
    refused,
    `apiVersion: v1\nkind: Config\ncurrent-context: m\nclusters:\n- name: m\n  cluster:\n    server: https://127.0.0.1:1\n    insecure-skip-tls-verify: true\ncontexts:\n- name: m\n  context: {cluster: m, user: m}\nusers:\n- name: m\n  user:\n    token: ${token}\n`,
    { mode: 0o600 },
  );
  const firstLine = (text: string) => text.split("\n")[0];

  test("a fleet flag without --management-cluster is a usage error, exit 2", async () => {
    const run = await runHandoffCli(["status", "--helm-chart-proxy", "cni"], "");
    assert.deepEqual(
      [run.code, firstLine(run.stderr)],
      [2, "helm-handoff: --helm-chart-proxy needs --management-cluster KUBECONFIG"],
    );
  });

  test("a --concurrency that is not a whole number of at least 1 is a usage error, exit 2", async () => {
    const run = await runHandoffCli(
      ["status", "--management-cluster", refused, "--helm-chart-proxy", "cni", "--concurrency", "0"],
      "",
    );
    assert.deepEqual(
      [run.code, firstLine(run.stderr)],
      [2, 'helm-handoff: --concurrency must be a whole number of at least 1, not "0"'],
    );
  });

  test("the fleet mode with no add-on to judge is a usage error naming the ways to give one", async () => {
    const run = await runHandoffCli(["status", "--management-cluster", refused], "");
    assert.deepEqual(
      [run.code, firstLine(run.stderr)],
      [
        2,
        "helm-handoff: the fleet mode needs the add-ons: --helm-chart-proxy NAME, --cluster-resource-set NAME, --release NS/NAME or a FILE of handoff records",
      ],
    );
  });

  test("a management kubeconfig that cannot be read says so and how to give another, exit 1", async () => {
    const missing = join(dir, "missing.kubeconfig");
    const run = await runHandoffCli(["status", "--management-cluster", missing, "--release", "a/b"], "");
    assert.deepEqual(
      [run.code, run.stderr],
      [
        1,
        `helm-handoff: the kubeconfig ${missing} cannot be read (ENOENT): pass --management-cluster KUBECONFIG\n`,
      ],
    );
  });

  test("a management cluster that refuses the connection is named, exit 1, and its token is not printed", async () => {
    const run = await runHandoffCli(["status", "--management-cluster", refused, "--release", "a/b"], "");
    assert.deepEqual(
      [run.code, run.stdout, run.stderr],
      [
        1,
        "",
        "helm-handoff: the management cluster https://127.0.0.1:1 cannot be read: connect ECONNREFUSED 127.0.0.1:1\n",
      ],
    );
    assert.ok(!run.stderr.includes(token));
  });
});
