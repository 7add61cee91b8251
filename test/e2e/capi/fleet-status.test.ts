/**
 * `helm-handoff status --management-cluster` over a real fleet: a local management cluster runs the
 * real Cluster API core manager and CAAPH; three workload clusters are registered as `Cluster`s, the
 * first two with the real Flux controllers, the third with the real Argo CD. One HelmChartProxy
 * (InstallOnce) installs a ConfigMap chart on all three; Flux takes it over on the first (a
 * HelmRelease from our handoff objects), Argo CD on the third, whose API server is then stopped,
 * and nothing on the second: the fleet status says handed off / not yet / problem and exits 1. With
 * the third back and Flux on the second it says handed off on all three and exits 0, the same with
 * a ServiceAccount token holding only the verbs docs/security.md lists. A ClusterResourceSet's add-on
 * is judged before and after Flux installs over it; Clusters being deleted, without or with a broken
 * kubeconfig Secret, or whose API server never answers are problems naming why, within the deadline;
 * on a terminal a progress line on stderr counts the clusters judged.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { after, before, describe, test } from "node:test";
import { parse as parseYaml, stringify } from "yaml";
import { ClusterAddon, FluxHandoff } from "../../../constructs/index.js";
import { clusterIdentityFromKubeconfig } from "../../../core/cluster/identity.js";
import { runFleet } from "../../../core/handoff/fleet-cli.js";
import {
  argoCdApplicationObject,
  type FleetStatus,
  type HandoffRecord,
  verifyHandoff,
} from "../../../core/handoff/gitops.js";
import { makeHandoffRecord } from "../../../core/handoff/record.js";
import { clusterPath } from "../../../local-cluster/controllers/capi/objects.js";
import type { CapiWorkloadCluster, LocalCluster } from "../../../local-cluster/index.js";
import { skipUnlessBuilt } from "../../support/binaries.js";
import { applyAll, synth } from "../../support/capi.js";
import { clusterSuite } from "../../support/cluster.js";
import { isolateCache, writeChart } from "../../support/constructs.js";
import { createObjects, getObject, runHandoffCli, waitFor } from "../../support/gitops.js";
import { type HttpChartRepo, startHttpChartRepo } from "../../support/repos.js";
import { startTcpProxy, type TcpProxy } from "../../support/tcp-proxy.js";

const NS = "default";
const NOTE_CHART = {
  "values.yaml": "message: default\n",
  "templates/configmap.yaml":
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-note\n  namespace: {{ .Release.Namespace | quote }}\ndata:\n  message: {{ .Values.message | quote }}\n",
};
const VALUES = { message: "first" };
const TAKE =
  "apply the handoff objects built from this record (helm-handoff/gitops: fluxHandoffObjects or argoCdApplicationObject; cdk8s: FluxHandoff or ArgoCdHandoff)";

describe("helm-handoff status over a Cluster API fleet", {
  skip: skipUnlessBuilt(["capi-manager", "caaph-manager", "helm-controller", "source-controller", "argocd"]),
  timeout: 1_200_000,
}, () => {
  const suite = clusterSuite({ name: "fleet", capi: { workloadClusters: 0 } });
  let repo: HttpChartRepo;
  let chartDir: string;
  let cache: ReturnType<typeof isolateCache>;
  let dir: string;
  let proxy: TcpProxy | undefined;
  const workloads: CapiWorkloadCluster[] = [];
  const records = new Map<string, HandoffRecord>();
  const mgmt = (): LocalCluster => suite.cluster;
  const defined = <T>(value: T | undefined, what: string): T => {
    assert.ok(value, what);
    return value;
  };
  const at = (i: number) => defined(workloads[i], `workload cluster ${i + 1}`);
  const record = (c: CapiWorkloadCluster) => defined(records.get(c.name), `a record for ${c.name}`);
  const fleet = (...args: string[]) =>
    runHandoffCli(["status", "--management-cluster", mgmt().kubeconfigPath, ...args], "");
  // A restarted API server answers 429 while its storage reinitializes: keep asking until it settles.
  const verdict = (c: CapiWorkloadCluster, record: HandoffRecord) =>
    verifyHandoff(record, { kubeconfig: c.kubeconfig }).catch((e: unknown) => String(e));
  const handedOff = (c: CapiWorkloadCluster, record: HandoffRecord) =>
    waitFor(
      `the release to be handed off on ${c.name}`,
      async () => ((await verdict(c, record)) as { state?: string }).state === "handed-off" || undefined,
      300_000,
      async () => JSON.stringify(await verdict(c, record)),
    );
  const fluxTakeover = async (
    c: CapiWorkloadCluster,
    record: HandoffRecord,
    values: Record<string, unknown>,
  ) => {
    await applyAll(
      c.local,
      synth((chart) => new FluxHandoff(chart, `handoff-${record.release.name}`, { record, values })),
    );
    await handedOff(c, record);
  };
  const line = (cluster: string, text: string) => `  ${NS}/${cluster}: ${text}`;
  const fluxLine = (c: CapiWorkloadCluster, name: string, revision: number) =>
    line(
      c.name,
      `handed-off: handed off to Flux HelmRelease flux-system/${name}: revision ${revision} deployed by helm-controller, Ready`,
    );
  const argoLine = (c: CapiWorkloadCluster) =>
    line(
      c.name,
      "handed-off: handed off to Argo CD Application argocd/note: Synced, Healthy, 1 of 1 objects tracked",
    );

  before(async () => {
    cache = isolateCache();
    dir = mkdtempSync(join(tmpdir(), "hh-fleet-"));
    chartDir = writeChart("note", NOTE_CHART);
    repo = await startHttpChartRepo({ charts: [chartDir] });
    const capi = mgmt().capi;
    assert.ok(capi);
    // One at a time: three clusters with their controllers starting at once overload two cores.
    workloads.push(await capi.addCluster({ labels: { fleet: "on", crs: "on" }, gitops: "flux" }));
    workloads.push(await capi.addCluster({ labels: { fleet: "on" }, gitops: "flux" }));
    workloads.push(await capi.addCluster({ labels: { fleet: "on" }, gitops: "argocd" }));
    await applyAll(
      mgmt(),
      synth((chart) => {
        const addon = new ClusterAddon(chart, "note", {
          chart: { repo: repo.url, name: "note", version: "0.1.0" },
          namespace: "addons",
          createNamespace: true,
          values: VALUES,
          output: "HelmChartProxy",
          carrierNamespace: NS,
          clusterSelector: { matchLabels: { fleet: "on" } },
        });
        for (const c of workloads) {
          const { clusterId, server } = clusterIdentityFromKubeconfig(c.kubeconfig);
          records.set(c.name, addon.handoffRecord({ clusterId, server, revision: 1 }));
        }
      }),
    );
  });
  after(async () => {
    await proxy?.close();
    await repo?.close();
    if (chartDir) rmSync(dirname(chartDir), { recursive: true, force: true });
    if (dir) rmSync(dir, { recursive: true, force: true });
    cache?.restore();
  });
  test("one HelmChartProxy on three clusters, Flux on the first, nothing on the second, the third's API server stopped: handed off, not yet, problem, exit 1", async () => {
    for (const c of workloads) {
      await waitFor(`CAAPH's install on ${c.name}`, async () =>
        (await getObject(c.local, "v1", "ConfigMap", "addons", "note-note")) ? true : undefined,
      );
    }
    const [first, second, third] = [at(0), at(1), at(2)];
    await fluxTakeover(first, record(first), VALUES);
    const app = argoCdApplicationObject(record(third), {
      destinationServer: third.local.gitops?.destinationServer,
      values: VALUES,
    });
    await createObjects(third.local, [app]);
    await handedOff(third, record(third));
    await third.local.stopApiServer();

    const started = performance.now();
    const run = await fleet("--helm-chart-proxy", "note");
    const ms = Math.round(performance.now() - started);
    process.stderr.write(`[fleet-status] 3 clusters, one down: ${ms} ms\n`);
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.stderr, "", "no progress line without a terminal");
    const down = third.local.server;
    assert.equal(
      run.stdout,
      [
        "addons/note (HelmChartProxy default/note):",
        fluxLine(first, "note", 2),
        line(
          second.name,
          "not-taken-over: still as HelmChartProxy default/note installed it: revision 1 (deployed); no Flux HelmRelease or Argo CD Application names the release",
        ),
        `    next: ${TAKE}`,
        line(
          third.name,
          `unreachable: the API server ${down} cannot be read: connect ECONNREFUSED ${down.replace("https://", "")}`,
        ),
        `    next: check that Cluster ${NS}/${third.name} is up (kubectl get cluster -n ${NS} ${third.name})`,
        "addons/note handed off on 1/3 clusters, 1 not yet, 1 problem",
        "",
      ].join("\n"),
    );
  });

  test("with the third cluster back and Flux on the second, the add-on is handed off on all three and the fleet status exits 0", async () => {
    const [first, second, third] = [at(0), at(1), at(2)];
    await third.local.startApiServer();
    await fluxTakeover(second, record(second), VALUES);
    await handedOff(third, record(third));
    const timings: number[] = [];
    const run = await waitFor("the fleet status to exit 0", async () => {
      const started = performance.now();
      const r = await fleet("--helm-chart-proxy", "note");
      timings.push(Math.round(performance.now() - started));
      return r.code === 0 ? r : undefined;
    });
    process.stderr.write(`[fleet-status] 3 clusters, all up: ${timings.at(-1)} ms\n`);
    const expected = [
      "addons/note (HelmChartProxy default/note):",
      fluxLine(first, "note", 2),
      fluxLine(second, "note", 2),
      argoLine(third),
      "addons/note handed off on 3/3 clusters, 0 not yet, 0 problems",
      "",
    ].join("\n");
    assert.equal(run.stdout, expected);
    const serial = performance.now();
    const json = await fleet("--helm-chart-proxy", "note", "--json", "--concurrency", "1");
    process.stderr.write(
      `[fleet-status] 3 clusters, all up, --concurrency 1: ${Math.round(performance.now() - serial)} ms\n`,
    );
    assert.equal(json.code, 0, json.stderr);
    const parsed = JSON.parse(json.stdout) as FleetStatus;
    assert.deepEqual(
      parsed.verdicts.map((v) => [v.cluster, v.addon, v.carrier, v.status.state, v.status.owner.kind]),
      [
        [`${NS}/${first.name}`, "addons/note", "HelmChartProxy default/note", "handed-off", "flux"],
        [`${NS}/${second.name}`, "addons/note", "HelmChartProxy default/note", "handed-off", "flux"],
        [`${NS}/${third.name}`, "addons/note", "HelmChartProxy default/note", "handed-off", "argocd"],
      ],
    );
    assert.deepEqual(parsed.addons, [
      {
        addon: "addons/note",
        carrier: "HelmChartProxy default/note",
        clusters: 3,
        handedOff: 3,
        notYet: 0,
        problems: 0,
      },
    ]);
    assert.equal(parsed.exitCode, 0);
  });

  test("on a terminal, stderr counts the clusters judged as the run advances and clears the line before the verdicts", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const none = { context: undefined, namespace: undefined, selector: undefined, clusterTimeout: undefined };
    const args = { ...none, managementKubeconfig: mgmt().kubeconfig, concurrency: 1, json: false };
    const carriers = { helmChartProxies: ["note"], clusterResourceSets: [], records: [] };
    const stdout = { write: (text: string) => out.push(text) };
    const code = await runFleet(
      { ...args, ...carriers },
      { stdout, stderr: { isTTY: true, write: (t) => err.push(t) } },
    );
    const clear = "\r\u001b[2K";
    assert.deepEqual([code, err], [0, [...[1, 2, 3].map((n) => `${clear}judged ${n}/3 clusters`), clear]]);
    assert.match(out.join(""), /^addons\/note handed off on 3\/3 clusters, 0 not yet, 0 problems$/m);
  });

  test("a ServiceAccount holding only the verbs docs/security.md lists gets the same verdicts, and without reading the kubeconfig Secrets a problem naming the refused read", async () => {
    const clusterNames = workloads.map((c) => `${c.name}-kubeconfig`);
    const addons = "addons.cluster.x-k8s.io";
    const rules = (secrets: boolean) => [
      { apiGroups: ["cluster.x-k8s.io"], resources: ["clusters"], verbs: ["get", "list"] },
      { apiGroups: [addons], resources: ["helmchartproxies", "clusterresourcesets"], verbs: ["get"] },
      { apiGroups: [addons], resources: ["helmreleaseproxies"], verbs: ["list"] },
      { apiGroups: [addons], resources: ["clusterresourcesetbindings"], verbs: ["get"] },
      { apiGroups: [""], resources: ["configmaps"], verbs: ["get"] },
      ...(secrets
        ? [{ apiGroups: [""], resources: ["secrets"], verbs: ["get"], resourceNames: clusterNames }]
        : []),
    ];
    const kubeconfigOf = async (name: string, secrets: boolean): Promise<{ path: string; token: string }> => {
      const rbac = "/apis/rbac.authorization.k8s.io/v1/namespaces/default";
      const created = [
        [`/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name } }],
        [`${rbac}/roles`, { metadata: { name }, rules: rules(secrets) }],
        [
          `${rbac}/rolebindings`,
          {
            metadata: { name },
            roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
            subjects: [{ kind: "ServiceAccount", name, namespace: NS }],
          },
        ],
      ] as const;
      for (const [path, body] of created) {
        const res = await mgmt().request("POST", path, body);
        assert.ok(res.ok, `POST ${path}: HTTP ${res.status} ${res.text}`);
      }
      const res = await mgmt().request("POST", `/api/v1/namespaces/${NS}/serviceaccounts/${name}/token`, {
        apiVersion: "authentication.k8s.io/v1",
        kind: "TokenRequest",
        spec: { expirationSeconds: 600 },
      });
      assert.ok(res.ok, `TokenRequest: HTTP ${res.status} ${res.text}`);
      const token = res.json<{ status: { token: string } }>().status.token;
      const config = parseYaml(mgmt().kubeconfig) as { users: { name: string; user: unknown }[] };
      for (const u of config.users) u.user = { token };
      const path = join(dir, `${name}.kubeconfig`);
      writeFileSync(path, stringify(config), { mode: 0o600 });
      return { path, token };
    };
    const admin = await fleet("--helm-chart-proxy", "note");
    const reader = await kubeconfigOf("fleet-reader", true);
    const run = await runHandoffCli(
      ["status", "--management-cluster", reader.path, "--helm-chart-proxy", "note"],
      "",
    );
    assert.deepEqual([run.code, run.stdout, run.stderr], [0, admin.stdout, ""]);
    const blind = await kubeconfigOf("fleet-blind", false);
    const refused = await runHandoffCli(
      ["status", "--management-cluster", blind.path, "--helm-chart-proxy", "note"],
      "",
    );
    assert.equal(refused.code, 1, refused.stderr);
    for (const c of workloads) {
      assert.ok(
        refused.stdout.includes(
          line(
            c.name,
            `unreachable: the kubeconfig Secret ${NS}/${c.name}-kubeconfig cannot be read: HTTP 403`,
          ),
        ),
        refused.stdout,
      );
    }
    for (const text of [run.stdout, refused.stdout, refused.stderr]) {
      assert.ok(!text.includes(reader.token) && !text.includes(blind.token), "no token printed");
    }
  });

  test("a ClusterResourceSet's add-on is not taken over yet while only its objects are there, and handed off once Flux installs over them", async () => {
    const first = at(0);
    await applyAll(
      mgmt(),
      synth((chart) => {
        new ClusterAddon(chart, "carried", {
          chart: { path: chartDir },
          namespace: "addons",
          values: { message: "carried" },
          output: "ClusterResourceSet",
          carrierNamespace: NS,
          clusterSelector: { matchLabels: { crs: "on" } },
        });
      }),
    );
    await waitFor("the ClusterResourceSet's ConfigMap in the first cluster", async () =>
      (await getObject(first.local, "v1", "ConfigMap", "addons", "carried-note")) ? true : undefined,
    );
    const before = await waitFor("the set to be applied", async () => {
      const r = await fleet("--cluster-resource-set", "carried");
      return r.stdout.includes("applied as manifests") ? r : undefined;
    });
    assert.equal(before.code, 3, before.stderr);
    assert.equal(
      before.stdout,
      [
        "addons/carried (ClusterResourceSet default/carried):",
        line(
          first.name,
          "not-taken-over: applied as manifests by ClusterResourceSet default/carried, with no Helm release yet; no Flux HelmRelease or Argo CD Application names the release",
        ),
        `    next: ${TAKE}`,
        "addons/carried handed off on 0/1 clusters, 1 not yet, 0 problems",
        "",
      ].join("\n"),
    );
    const { clusterId, server } = clusterIdentityFromKubeconfig(first.kubeconfig);
    const carried = makeHandoffRecord({
      clusterId,
      server,
      releaseName: "carried",
      namespace: "addons",
      chart: { repo: repo.url, name: "note" },
      chartVersion: "0.1.0",
      revision: 0,
      strategy: "ApplyOnce",
      installedAt: new Date(0),
    });
    await fluxTakeover(first, carried, { message: "carried" });
    const after = await fleet("--cluster-resource-set", "carried", "--helm-chart-proxy", "note");
    assert.equal(after.code, 0, after.stdout);
    assert.match(after.stdout, /^addons\/carried handed off on 1\/1 clusters, 0 not yet, 0 problems$/m);
    assert.ok(after.stdout.includes(fluxLine(first, "carried", 1)), after.stdout);
  });

  test("Clusters being deleted, without a kubeconfig Secret, with a malformed one, or whose API server never answers are problems naming why, and the run ends within the deadline", async () => {
    const first = at(0);
    proxy = await startTcpProxy("127.0.0.1", Number(new URL(first.local.server).port));
    proxy.cut("blackhole");
    const silent = first.kubeconfig.replace(first.local.server, `https://${proxy.address}`);
    const cluster = (name: string, finalizers: string[] = []) => ({
      apiVersion: "cluster.x-k8s.io/v1beta2",
      kind: "Cluster",
      metadata: { name, namespace: NS, labels: { faults: "on" }, finalizers },
      // Paused: Cluster API leaves these stand-ins alone (and the CRD wants a spec with a field).
      spec: { paused: true },
    });
    const secret = (name: string, value: string) => ({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: `${name}-kubeconfig`, namespace: NS },
      data: { value: Buffer.from(value).toString("base64") },
    });
    const create = async (path: string, body: unknown) => {
      const res = await mgmt().request("POST", path, body);
      assert.ok(res.ok, `POST ${path}: HTTP ${res.status} ${res.text}`);
    };
    for (const name of ["gone-secret", "bad-secret", "silent"]) await create(clusterPath(NS), cluster(name));
    await create(clusterPath(NS), cluster("leaving", ["test.helm-handoff.dev/hold"]));
    await create(`/api/v1/namespaces/${NS}/secrets`, secret("bad-secret", "this is not a kubeconfig"));
    await create(`/api/v1/namespaces/${NS}/secrets`, secret("silent", silent));
    assert.ok((await mgmt().request("DELETE", clusterPath(NS, "leaving"))).ok);
    const leaving = await mgmt().request("GET", clusterPath(NS, "leaving"));
    const since = leaving.json<{ metadata: { deletionTimestamp?: string } }>().metadata.deletionTimestamp;
    assert.ok(since, "the Cluster is held by its finalizer, being deleted");

    const started = performance.now();
    const run = await fleet("-l", "faults=on", "--release", "addons/note", "--cluster-timeout", "3s");
    const ms = performance.now() - started;
    assert.equal(run.code, 1, run.stderr);
    assert.ok(ms < 20_000, `the run took ${ms} ms`);
    const look = (name: string) => `    next: kubectl get cluster -n ${NS} ${name}`;
    assert.equal(
      run.stdout,
      [
        "addons/note:",
        line(
          "bad-secret",
          "unreachable: the kubeconfig in Secret default/bad-secret-kubeconfig is not usable: kubeconfig is invalid: must be a YAML mapping with clusters, contexts and users (kind: Config)",
        ),
        `    next: fix the Secret's key "value" (Cluster API writes it from the control plane)`,
        line(
          "gone-secret",
          "unreachable: the kubeconfig Secret default/gone-secret-kubeconfig does not exist (Cluster API writes it once the control plane is up)",
        ),
        look("gone-secret"),
        line("leaving", `unreachable: Cluster default/leaving is being deleted (since ${since}): not judged`),
        "    next: nothing to hand off on a cluster going away",
        line(
          "silent",
          `unreachable: the API server https://${proxy.address} of Cluster default/silent did not answer within 3s`,
        ),
        `    next: check that Cluster ${NS}/silent is up (kubectl get cluster -n ${NS} silent)`,
        "addons/note handed off on 0/4 clusters, 0 not yet, 4 problems",
        "",
      ].join("\n"),
    );
    assert.ok(
      !run.stdout.includes("BEGIN") && !run.stdout.includes("client-key-data"),
      "no kubeconfig content printed",
    );
  });
});
