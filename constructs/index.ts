/**
 * `helm-handoff/cdk8s`: the `ClusterAddon` construct, its Cluster API carriers and the GitOps
 * handoff objects.
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

export {
  type ArgoCdHandoffOptions,
  argoCdApplicationObject,
  type FluxHandoffOptions,
  fluxHandoffObjects,
  fluxHelmReleaseObject,
  fluxSourceObject,
  HELM_CHART_LAYER_MEDIA_TYPE,
} from "../core/gitops.js";
export {
  helmTemplateSync,
  helmVersionSync,
  resolveHelmBinary,
} from "../core/helm/index.js";
export { describeObject, type KubeMetadata, type KubeObject } from "../core/objects.js";
export {
  CLUSTER_ADDON_OUTPUTS,
  ClusterAddon,
  type ClusterAddonOutput,
  type ClusterAddonProps,
  type ClusterAddonRecordInput,
} from "./cluster-addon.js";
export {
  type ClusterApiVersion,
  type ClusterResourceSetOptions,
  carrierKey,
  clusterResourceSetObjects,
  DEFAULT_MAX_CARRIER_BYTES,
  type LabelSelector,
  objectYaml,
  RESOURCE_SET_SECRET_TYPE,
} from "./cluster-resource-set.js";
export {
  ArgoCdHandoff,
  type ArgoCdHandoffProps,
  FluxHandoff,
  type FluxHandoffProps,
} from "./handoff-objects.js";
export { type HelmChartProxyOptions, helmChartProxyObject, valuesTemplateOf } from "./helm-chart-proxy.js";
export {
  CLUSTER_SCOPED_KINDS,
  HELM_MANAGED_BY_LABEL,
  HELM_RELEASE_NAME_ANNOTATION,
  HELM_RELEASE_NAMESPACE_ANNOTATION,
  HOOKS_POLICIES,
  type HooksPolicy,
  KEEP_ANNOTATIONS,
  KIND_ORDER,
  type PreparedObjects,
  type PrepareOptions,
  parseManifest,
  prepareObjects,
  sortObjects,
} from "./manifest.js";
export { differingObjects, type RenderOptions, type RenderResult, renderChart } from "./render.js";
export { type RenderCacheEntry, renderCacheDir } from "./render-cache.js";
