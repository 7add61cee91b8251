/**
 * Example: bootstrap a CNI and a GitOps controller with cdk8s, twice:
 * - `cluster-resource-set`: as Cluster API ClusterResourceSets for the clusters labelled
 *   `bootstrap: "true"` (the management cluster applies them to each new workload cluster);
 * - `manifests`: as plain manifests to apply to one cluster with server-side apply.
 * Either way the objects carry Helm's ownership metadata of their release, so a later
 * `helm install`, Flux HelmRelease or Argo CD Application of the same release adopts them.
 *
 * Run after `tsc`: `node dist/examples/cdk8s-bootstrap/main.js` (writes `cdk8s.out/` in the
 * working directory, or in the directory given as the first argument).
 *
 * @module
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { App, Chart } from "cdk8s";
import type { Construct } from "constructs";
import { ClusterAddon, type ClusterAddonProps } from "../../constructs/index.js";

/** The example's charts directory, from the sources or from dist/. */
export function chartsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "examples", "cdk8s-bootstrap", "charts");
    if (existsSync(candidate)) return candidate;
    if (existsSync(join(dir, "charts", "cni"))) return join(dir, "charts");
    const parent = dirname(dir);
    if (parent === dir) throw new Error("examples/cdk8s-bootstrap/charts not found");
    dir = parent;
  }
}

/** Adds the CNI and the GitOps controller to `scope` with the given output. */
export function addBootstrap(
  scope: Construct,
  output: NonNullable<ClusterAddonProps["output"]>,
): ClusterAddon[] {
  const charts = chartsDir();
  const carrier =
    output === "Manifests" ? {} : { output, clusterSelector: { matchLabels: { bootstrap: "true" } } };
  return [
    new ClusterAddon(scope, "cni", {
      chart: { path: join(charts, "cni") },
      namespace: "kube-system",
      values: { ipam: { mode: "kubernetes" } },
      strategy: "ApplyOnce",
      ...carrier,
    }),
    new ClusterAddon(scope, "gitops", {
      chart: { path: join(charts, "gitops") },
      namespace: "gitops-system",
      createNamespace: true,
      strategy: "ApplyOnce",
      ...carrier,
    }),
  ];
}

/** Synthesizes both variants into `outdir` and returns the file names written. */
export function main(outdir: string): string[] {
  const app = new App({ outdir });
  addBootstrap(new Chart(app, "cluster-resource-set"), "ClusterResourceSet");
  addBootstrap(new Chart(app, "manifests"), "Manifests");
  app.synth();
  return app.charts.map((c) => join(outdir, `${c.node.id}.k8s.yaml`));
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const f of main(resolve(process.argv[2] ?? "cdk8s.out"))) console.log(f);
}
