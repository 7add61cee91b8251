/**
 * `helm-handoff/pulumi`: the Pulumi front end.
 *
 * ```ts
 * import { ClusterAddon } from "helm-handoff/pulumi";
 * const cni = new ClusterAddon("cni", { kubeconfig, chart: { path: "./charts/cni" }, namespace: "kube-system" });
 * export const cniHandoff = cni.handoff;
 * ```
 *
 * @module
 */

export type { ChartSource, HandoffRecord, Strategy } from "../core/index.js";
export { ClusterAddon, type ClusterAddonArgs } from "./component.js";
export {
  type InterruptedUpdateRecovery,
  type RecoverInterruptedUpdateOptions,
  recoverInterruptedUpdate,
  type StackLock,
} from "./recovery.js";
export type { ReleaseStatus } from "./state.js";
