/**
 * The scaffolding the takeover suites against the real Flux and Argo CD share: the example charts
 * (examples/bootstrap/charts/), the CNI-like chart's values and objects, and `takeoverSuite`, which
 * registers the hooks that start a local cluster with one GitOps controller, a chart repository and a
 * helm spy, and make the suite's ClusterAddon stack, so that no suite redeclares them. Test-only code.
 *
 * @module
 */
import { join } from "node:path";
import { after, before } from "node:test";
import {
  type ArgoCdHandoffOptions,
  argoCdApplicationObject,
  type HandoffRecord,
} from "../../core/handoff/gitops.js";
import { type LocalCluster, startLocalCluster } from "../../local-cluster/index.js";
import type { ClusterAddonArgs } from "../../provider/index.js";
import { type AddonStack, addonStack } from "./addon.js";
import { bootstrapArgs, createObjects } from "./gitops.js";
import { createHelmSpy, type HelmSpy } from "./helm-spy.js";
import { repoRoot } from "./repo-root.js";
import { type HttpChartRepo, startHttpChartRepo } from "./repos.js";

/** The directory of one of the demo's charts (`cni`, `gitops`) in examples/bootstrap/charts/. */
export const exampleChart = (name: string): string =>
  join(repoRoot(), "examples", "bootstrap", "charts", name);

/** The values the CNI-like example chart is installed with. */
export const CNI_VALUES = { ipam: { mode: "kubernetes" } };

/** The objects the CNI-like example chart renders in `kube-system`: a takeover must keep their UIDs. */
export const CNI_OBJECTS = [
  { apiVersion: "v1", kind: "ConfigMap", name: "cni-config" },
  { apiVersion: "apps/v1", kind: "DaemonSet", name: "cni-agent" },
];

/** Options of {@link takeoverSuite}. */
export interface TakeoverSuiteOptions {
  /** The local cluster's name. */
  readonly name: string;
  /** The GitOps controller started beside the cluster (with workloads). */
  readonly gitops: "flux" | "argocd";
  /** What the chart repository serves: example chart directories or test chart names. */
  readonly charts: readonly string[];
}

/** A takeover suite's cluster, chart repository, helm spy and stack, readable from its tests and later hooks. */
export interface TakeoverSuite {
  readonly cluster: LocalCluster;
  readonly repo: HttpChartRepo;
  readonly spy: HelmSpy;
  /** The ClusterAddon stack (no add-ons until the suite sets `current`); every helm call goes through `spy`. */
  readonly stack: AddonStack;
  /** {@link bootstrapArgs} against the suite's cluster and chart repository. */
  args(chart: string, version: string, namespace: string, values: Record<string, unknown>): ClusterAddonArgs;
  /** The handoff record of add-on `name` in the stack's outputs. */
  record(name: string): Promise<HandoffRecord>;
  /** Creates the Argo CD Application built from `record`, aimed at the suite's cluster. */
  argoCdHandOff(record: HandoffRecord, options: ArgoCdHandoffOptions): Promise<void>;
}

/**
 * Registers, in the suite being defined, the hooks that start the cluster, repository and spy at once
 * and make the stack before its tests, and release them after.
 */
export function takeoverSuite(options: TakeoverSuiteOptions): TakeoverSuite {
  const state: { cluster?: LocalCluster; repo?: HttpChartRepo; spy?: HelmSpy; stack?: AddonStack } = {};
  before(async () => {
    const [cluster, repo, spy] = await Promise.allSettled([
      startLocalCluster({ name: options.name, workloads: true, gitops: options.gitops }),
      startHttpChartRepo({ charts: [...options.charts] }),
      createHelmSpy(),
    ]);
    if (cluster.status === "fulfilled") state.cluster = cluster.value;
    if (repo.status === "fulfilled") state.repo = repo.value;
    if (spy.status === "fulfilled") state.spy = spy.value;
    for (const r of [cluster, repo, spy]) if (r.status === "rejected") throw r.reason;
    state.stack = await addonStack([], suite.spy);
  });
  after(async () => {
    await state.stack?.dispose();
    await Promise.allSettled([state.cluster?.stop(), state.repo?.close(), state.spy?.remove()]);
  });
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the takeover suite "${options.name}" has no ${what} yet`);
    return value;
  };
  const suite: TakeoverSuite = {
    get cluster() {
      return started(state.cluster, "cluster");
    },
    get repo() {
      return started(state.repo, "chart repository");
    },
    get spy() {
      return started(state.spy, "helm spy");
    },
    get stack() {
      return started(state.stack, "stack");
    },
    args: (chart, version, namespace, values) =>
      bootstrapArgs(suite.cluster, suite.repo.url, chart, version, namespace, values),
    record: async (name) => (await suite.stack.stack.outputs())[`${name}Handoff`]?.value as HandoffRecord,
    argoCdHandOff: (record, handoff) =>
      createObjects(suite.cluster, [
        argoCdApplicationObject(record, {
          destinationServer: suite.cluster.gitops?.destinationServer,
          ...handoff,
        }),
      ]),
  };
  return suite;
}
