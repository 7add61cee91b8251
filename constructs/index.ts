/**
 * `helm-handoff/cdk8s` (this folder, `constructs/`): the `ClusterAddon` construct (rendered
 * manifests or Cluster API carriers) and the GitOps handoff constructs. The plain handoff objects
 * they wrap are in `helm-handoff/gitops`; the types their props name are exported here too.
 *
 * @example
 * ```ts
 * import { App, Chart } from "cdk8s";
 * import { ClusterAddon } from "helm-handoff/cdk8s";
 * const app = new App();
 * const chart = new Chart(app, "bootstrap");
 * new ClusterAddon(chart, "cni", { chart: { path: "./charts/cni" }, namespace: "kube-system" });
 * app.synth();
 * ```
 *
 * @module
 */

export type {
  ArgoCdHandoffOptions,
  FluxHandoffOptions,
  FluxValuesReference,
  HandoffChartSource,
  HandoffRecord,
  KubeMetadata,
  KubeObject,
} from "../core/handoff/gitops.js";
export type {
  AddonSpec,
  ChartSource,
  Duration,
  DurationInput,
  InstallOptions,
  PathChartSource,
  RepoChartSource,
  RetryPolicy,
  Strategy,
} from "../core/index.js";
export {
  ClusterAddon,
  type ClusterAddonProps,
} from "./cluster-addon.js";
export type { LabelSelector } from "./cluster-resource-set.js";
export { ClusterValue } from "./cluster-value.js";
export {
  ArgoCdHandoff,
  type ArgoCdHandoffProps,
  FluxHandoff,
  type FluxHandoffProps,
} from "./handoff-objects.js";
