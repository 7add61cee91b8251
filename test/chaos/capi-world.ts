/**
 * The Cluster API world of the fault campaign (`--world capi`), set up once per lane and reused by
 * every capi run in it: a local management cluster running the real Cluster API core manager and
 * CAAPH with three workload clusters registered as `Cluster` objects (each its own etcd and
 * kube-apiserver), and an HTTP chart repository serving the `gated` chart. The chart needs a
 * Secret at install (helm's `lookup`, then `fail` while it is missing), so a release can only
 * exist once the ClusterResourceSet of the construct's `workloadSecrets` has carried the run's
 * secret in, and it records only the Secret's key names, never its data. A run gets its own
 * proxy, release, namespace and selector label, so runs on the same world do not see each other;
 * `synthesizeProxy` is the app a user would `cdk8s synth`: `ClusterAddon` with output
 * `HelmChartProxy`, InstallOnce (ApplyOnce), the secret in `workloadSecrets` and only its name in
 * the plain-text values.
 *
 * Test-only code.
 *
 * @module
 */
import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { ClusterAddon } from "../../constructs/index.js";
import type { KubeObject } from "../../core/util/kube-object.js";
import { type CapiWorkloadCluster, type LocalCluster, startLocalCluster } from "../../local-cluster/index.js";
import { GATED_CHART_FILES, synth } from "../support/capi.js";
import { writeChart } from "../support/constructs.js";
import { type HttpChartRepo, startHttpChartRepo } from "../support/repos.js";

/** Where the Clusters, the proxies and the resource sets live. */
export const CAPI_NS = "default";
/** Workload clusters of the world. */
export const CAPI_WORKLOADS = 3;
/** The chart every capi run installs. */
export const GATED_CHART = "gated";

/** The shared parts of the capi runs of one lane. */
export interface CapiWorld {
  /** The management cluster (its `capi` is set). */
  readonly mgmt: LocalCluster;
  /** The workload clusters, in the order they were registered. */
  readonly workloads: readonly CapiWorkloadCluster[];
  readonly repo: HttpChartRepo;
  /** Stops everything and removes the temp dirs. */
  close(): Promise<void>;
}

/** Starts the management cluster with its workload clusters and the chart repository. */
export async function startCapiWorld(log: (line: string) => void): Promise<CapiWorld> {
  const closers: Array<() => Promise<unknown>> = [];
  const close = async (): Promise<void> => {
    for (const c of closers.reverse()) await c().catch(() => undefined);
  };
  try {
    log(
      `starting a local management cluster (Cluster API core manager, CAAPH) with ${CAPI_WORKLOADS} workload clusters`,
    );
    const started = Date.now();
    const mgmt = await startLocalCluster({
      name: "chaos-mgmt",
      capi: { workloadClusters: CAPI_WORKLOADS, labels: { fleet: "chaos" } },
    });
    closers.push(() => mgmt.stop());
    await mgmt.ready;
    const workloads = mgmt.capi?.clusters ?? [];
    if (workloads.length !== CAPI_WORKLOADS)
      throw new Error(`the management cluster has ${workloads.length} workload clusters`);
    const chartDir = writeChart(GATED_CHART, GATED_CHART_FILES);
    closers.push(async () => rmSync(dirname(chartDir), { recursive: true, force: true }));
    const repo = await startHttpChartRepo({ charts: [chartDir] });
    closers.push(() => repo.close());
    log(`management cluster ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return { mgmt, workloads, repo, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** What a capi run synthesizes: its add-on now. */
export interface ProxyProgram {
  /** Release, proxy and construct name. */
  readonly name: string;
  /** The release namespace in every workload cluster. */
  readonly namespace: string;
  /** The label a Cluster carries (value `on`) to be selected. */
  readonly selectorKey: string;
  /** The plain-text values: the Secret's name, a note, the run and the values generation. */
  readonly values: Readonly<Record<string, unknown>>;
  /** The secret carried by `workloadSecrets` (never in `values`). */
  readonly token: string;
}

/** The name of the run's workload Secret (what the chart's `existingSecret` names). */
export const tokenSecretName = (p: Pick<ProxyProgram, "name">): string => `${p.name}-token`;

/** The objects `cdk8s synth` writes for the run's add-on, in order (carrier, resource set, proxy). */
export function synthesizeProxy(world: CapiWorld, p: ProxyProgram): KubeObject[] {
  return synth((chart) => {
    new ClusterAddon(chart, p.name, {
      chart: { repo: world.repo.url, name: GATED_CHART, version: "0.1.0" },
      namespace: p.namespace,
      createNamespace: true,
      values: { ...p.values },
      workloadSecrets: [{ name: tokenSecretName(p), stringData: { token: p.token } }],
      strategy: "ApplyOnce",
      output: "HelmChartProxy",
      carrierNamespace: CAPI_NS,
      clusterSelector: { matchLabels: { [p.selectorKey]: "on" } },
      install: { timeout: "60s" },
    });
  });
}

/** What the run expects: the program now, the selection and each cluster's first-install values. */
export interface CapiModel {
  /** What the run synthesizes now. */
  program: ProxyProgram;
  /** Every secret the run's `workloadSecrets` held. */
  readonly tokens: string[];
  /** Indexes of the workload clusters whose Cluster carries the run's label now. */
  readonly selected: Set<number>;
  /** Per workload cluster index: the values its release must keep (its first install's). */
  readonly expected: Map<number, Readonly<Record<string, unknown>>>;
  /** Whether the proxy exists in the management cluster. */
  proxy: boolean;
}
