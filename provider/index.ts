/**
 * `helm-handoff/pulumi` (this folder, `provider/`): the Pulumi front end: `ClusterAddon`, its
 * release resource and the one create/read/update/delete both hosts run, the
 * Pulumi package's provider for other languages (`plugin/`) and, on request, Node.js programs
 * (`withPackageProvider` for Automation API inline programs), and `recoverInterruptedUpdate`.
 *
 * ```ts
 * import { ClusterAddon } from "helm-handoff/pulumi";
 * const cni = new ClusterAddon("cni", { kubeconfig, chart: { path: "./charts/cni" }, namespace: "kube-system" });
 * export const cniHandoff = cni.handoff;
 * ```
 *
 * @module
 */

export type {
  ChartSource,
  Duration,
  DurationInput,
  HandoffChartSource,
  HandoffRecord,
  InstallOptions,
  PathChartSource,
  RepoChartSource,
  RetryPolicy,
  Strategy,
} from "../core/index.js";
export { ClusterAddon, type ClusterAddonArgs } from "./cluster-addon.js";
export {
  type InterruptedUpdateRecovery,
  type RecoverInterruptedUpdateOptions,
  recoverInterruptedUpdate,
  type StackLock,
} from "./interrupted-update.js";
export { withPackageProvider } from "./package-provider.js";
export type { ReleaseStatus } from "./state/shape.js";
