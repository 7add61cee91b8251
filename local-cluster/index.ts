/**
 * `helm-handoff/local-cluster` (this folder): throwaway Kubernetes control planes (etcd + kube-apiserver, optionally
 * kube-controller-manager, kube-scheduler and kwok with a fake node, the real Flux or Argo CD controllers, or the
 * real Cluster API managers with workload clusters of their own) run as local processes, for tests.
 *
 * @example
 * ```ts
 * const cluster = await startLocalCluster({ name: "a", workloads: true });
 * try {
 *   // helm --kubeconfig cluster.kubeconfigPath install ...
 * } finally {
 *   await cluster.stop();
 * }
 * ```
 *
 * @module
 */

export { startLocalCluster } from "./cluster.js";
export { ApiResponse } from "./control-plane/api.js";
export type { GitopsControllers, GitopsKind } from "./controllers/host.js";
export type {
  AddClusterOptions,
  CapiManagement,
  CapiOptions,
  CapiWorkloadCluster,
  ClusterProcess,
  LocalCluster,
  LocalClusterIdentity,
  LocalClusterOptions,
} from "./types.js";
