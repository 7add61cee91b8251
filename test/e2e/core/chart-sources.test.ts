/**
 * The environment end to end: the real helm v4 installs the workload chart with
 * `--wait` from each of the three chart sources (HTTP repository, OCI registry,
 * local path) into a local cluster whose fake kwok node runs the pods; then
 * upgrade and uninstall.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type LocalCluster, startLocalCluster } from "../../../local-cluster/index.js";
import {
  createHelmHome,
  type HelmHome,
  localChart,
  type PackagedCharts,
  packageCharts,
  runHelm,
} from "../../support/charts.js";
import {
  type HttpChartRepo,
  type OciRegistry,
  startHttpChartRepo,
  startOciRegistry,
} from "../../support/repos.js";

interface Deployment {
  readonly status?: { readonly readyReplicas?: number; readonly replicas?: number };
}
interface DaemonSet {
  readonly status?: { readonly numberReady?: number; readonly desiredNumberScheduled?: number };
}
interface ConfigMap {
  readonly data?: Record<string, string>;
}

describe("helm v4 against a local cluster with a kwok node", { timeout: 600_000 }, () => {
  let cluster: LocalCluster;
  let home: HelmHome;
  let repo: HttpChartRepo;
  let registry: OciRegistry;
  let packaged: PackagedCharts;

  before(async () => {
    [cluster, home, repo, registry, packaged] = await Promise.all([
      startLocalCluster({ name: "sources", workloads: true }),
      createHelmHome(),
      startHttpChartRepo({ charts: ["workload"], versions: { workload: ["0.2.0"] } }),
      startOciRegistry(),
      packageCharts({ charts: ["workload"] }),
    ]);
    await cluster.ready;
    await registry.push(packaged.path("workload"));
  });

  after(async () => {
    await Promise.allSettled([
      cluster?.stop(),
      repo?.close(),
      registry?.close(),
      home?.remove(),
      packaged?.remove(),
    ]);
  });

  function helm(args: readonly string[]) {
    return runHelm([...args, "--kubeconfig", cluster.kubeconfigPath], { env: home.env, timeoutMs: 240_000 });
  }

  async function get<T>(path: string): Promise<T> {
    const res = await cluster.request("GET", path);
    assert.equal(res.status, 200, `GET ${path}: ${res.status}`);
    return res.json() as T;
  }

  async function assertReady(release: string, namespace: string): Promise<void> {
    const deploy = await get<Deployment>(
      `/apis/apps/v1/namespaces/${namespace}/deployments/${release}-deploy`,
    );
    assert.equal(deploy.status?.readyReplicas, deploy.status?.replicas);
    assert.ok((deploy.status?.readyReplicas ?? 0) >= 1, "the Deployment has ready pods");
    const ds = await get<DaemonSet>(`/apis/apps/v1/namespaces/${namespace}/daemonsets/${release}-ds`);
    assert.equal(ds.status?.numberReady, 1, "the DaemonSet pod on the kwok node is ready");
  }

  const sources: ReadonlyArray<{ readonly name: string; readonly chartArgs: () => string[] }> = [
    {
      name: "an HTTP chart repository",
      chartArgs: () => ["workload", "--repo", repo.url, "--version", "0.1.0"],
    },
    {
      name: "an OCI registry",
      chartArgs: () => [`${registry.url}/workload`, "--version", "0.1.0", "--plain-http"],
    },
    { name: "a local path", chartArgs: () => [localChart("workload")] },
  ];

  for (const [i, source] of sources.entries()) {
    test(`installs the workload chart with --wait from ${source.name} and its pods become ready`, async () => {
      const release = `src-${i}`;
      const namespace = `ns-${i}`;
      const out = await helm([
        "install",
        release,
        ...source.chartArgs(),
        "--namespace",
        namespace,
        "--create-namespace",
        "--wait",
        "--timeout",
        "180s",
        "-o",
        "json",
      ]);
      // For oci:// charts helm prints "Pulled: …" and "Digest: …" before the JSON.
      const installed = JSON.parse(out.stdout.slice(out.stdout.search(/^\{/m))) as {
        info: { status: string };
        version: number;
      };
      assert.equal(installed.info.status, "deployed");
      assert.equal(installed.version, 1);
      await assertReady(release, namespace);
    });
  }

  test("upgrades a release to a new chart version and new values, then uninstalls it", async () => {
    await helm(["install", "lifecycle", "workload", "--repo", repo.url, "--version", "0.1.0", "--wait"]);
    const up = await helm([
      "upgrade",
      "lifecycle",
      "workload",
      "--repo",
      repo.url,
      "--version",
      "0.2.0",
      "--set",
      "message=upgraded",
      "--wait",
      "-o",
      "json",
    ]);
    const upgraded = JSON.parse(up.stdout) as { version: number; chart: { metadata: { version: string } } };
    assert.equal(upgraded.version, 2);
    assert.equal(upgraded.chart.metadata.version, "0.2.0");
    const cm = await get<ConfigMap>("/api/v1/namespaces/default/configmaps/lifecycle-config");
    assert.equal(cm.data?.message, "upgraded");
    await assertReady("lifecycle", "default");

    await helm(["uninstall", "lifecycle", "--wait"]);
    const gone = await cluster.request(
      "GET",
      "/apis/apps/v1/namespaces/default/deployments/lifecycle-deploy",
    );
    assert.equal(gone.status, 404);
    const status = await runHelm(["status", "lifecycle", "--kubeconfig", cluster.kubeconfigPath], {
      env: home.env,
      check: false,
    });
    assert.notEqual(status.exitCode, 0);
    assert.match(status.stderr, /release: not found/);
  });
});
