/**
 * How the fleet status grows with the number of clusters (`npm run bench -- fleet-status [rounds]`):
 * a local management cluster (etcd and kube-apiserver, with Cluster API's `clusters` CRD and no
 * controllers: the fleet status reads only Clusters and Secrets there) and three local workload
 * clusters, each with one Helm release installed by the real helm. 3, 30 and 90 `Cluster`s are
 * registered, their kubeconfig Secrets pointing at the three workload clusters in turn, and
 * `fleetStatus` (in-process, so no CLI start is counted) judges the release on all of them with
 * concurrency 1, 8 and 32. Prints the median of `rounds` runs (default 3) of each, and the time per
 * cluster. Not a test: nothing here asserts.
 *
 * @module
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { fleetStatus } from "../core/handoff/gitops.js";
import { type LocalCluster, startLocalCluster } from "../local-cluster/index.js";
import { median, timed } from "./stats.js";

const NS = "default";
const CLUSTERS_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "clusters.cluster.x-k8s.io" },
  spec: {
    group: "cluster.x-k8s.io",
    scope: "Namespaced",
    names: { kind: "Cluster", listKind: "ClusterList", plural: "clusters", singular: "cluster" },
    versions: [
      {
        name: "v1beta2",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      },
    ],
  },
};

async function post(cluster: LocalCluster, path: string, body: unknown): Promise<void> {
  const res = await cluster.request("POST", path, body);
  if (!res.ok) throw new Error(`POST ${path}: HTTP ${res.status} ${res.text}`);
}

/** A chart of one ConfigMap, written to a temp dir. */
function noteChart(dir: string): string {
  const chart = join(dir, "note");
  const files: Record<string, string> = {
    "Chart.yaml": "apiVersion: v2\nname: note\nversion: 0.1.0\n",
    "templates/configmap.yaml":
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: note\ndata:\n  message: hello\n",
  };
  for (const [file, text] of Object.entries(files)) {
    const path = join(chart, file);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, text);
  }
  return chart;
}

async function main(rounds: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "hh-bench-fleet-status-"));
  const started = await Promise.allSettled([
    startLocalCluster({ name: "bench-mgmt" }),
    ...[1, 2, 3].map((i) => startLocalCluster({ name: `bench-w${i}` })),
  ]);
  const clusters = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  try {
    for (const s of started) if (s.status === "rejected") throw s.reason;
    const [mgmt, ...workloads] = clusters as [LocalCluster, ...LocalCluster[]];
    const chart = noteChart(dir);
    await Promise.all(
      workloads.map((w) =>
        promisify(execFile)("helm", [
          "install",
          "note",
          chart,
          "--namespace",
          "addons",
          "--create-namespace",
          "--kubeconfig",
          w.kubeconfigPath,
        ]),
      ),
    );
    await post(mgmt, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", CLUSTERS_CRD);
    for (;;) {
      const res = await mgmt.request("GET", "/apis/cluster.x-k8s.io/v1beta2");
      if (res.ok) break;
      await sleep(200);
    }
    const lines: string[] = [];
    for (const n of [3, 30, 90]) {
      for (let i = 0; i < n; i++) {
        const name = `c${n}-${i}`;
        const kubeconfig = (workloads[i % workloads.length] as LocalCluster).kubeconfig;
        await post(mgmt, `/apis/cluster.x-k8s.io/v1beta2/namespaces/${NS}/clusters`, {
          apiVersion: "cluster.x-k8s.io/v1beta2",
          kind: "Cluster",
          metadata: { name, namespace: NS, labels: { bench: String(n) } },
          spec: {},
        });
        await post(mgmt, `/api/v1/namespaces/${NS}/secrets`, {
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name: `${name}-kubeconfig`, namespace: NS },
          data: { value: Buffer.from(kubeconfig).toString("base64") },
        });
      }
      for (const concurrency of [1, 8, 32]) {
        const runs: number[] = [];
        for (let r = 0; r < rounds; r++) {
          runs.push(
            await timed(async () => {
              const status = await fleetStatus({
                managementKubeconfig: mgmt.kubeconfig,
                selector: `bench=${n}`,
                records: ["addons/note"],
                concurrency,
              });
              if (status.verdicts.length !== n)
                throw new Error(`${status.verdicts.length} verdicts, not ${n}`);
            }),
          );
        }
        const ms = median(runs);
        lines.push(
          `${String(n).padStart(3)} clusters, concurrency ${String(concurrency).padStart(2)}: ${(ms / 1000).toFixed(2)} s (${(ms / n).toFixed(0)} ms a cluster), median of ${rounds}`,
        );
        process.stderr.write(`${lines.at(-1)}\n`);
      }
    }
    process.stdout.write(`${lines.join("\n")}\n`);
  } finally {
    await Promise.allSettled(clusters.map((c) => c.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await main(Number(process.argv[2] ?? 3));
}
