/**
 * The example platform program: bootstrap a CNI and a GitOps controller into a
 * new cluster with ApplyOnce, and export their handoff records.
 *
 * A platform repo writes the same thing with its own cluster's kubeconfig
 * (e.g. `eks.Cluster#kubeconfigJson`) instead of the `kubeconfig` parameter.
 */
import { fileURLToPath } from "node:url";
import type * as pulumi from "@pulumi/pulumi";
import { ClusterAddon } from "helm-handoff/pulumi";

/** Where the example's charts live (next to this program in the source tree). */
export const chartsDir = fileURLToPath(new URL("../../../examples/bootstrap/charts/", import.meta.url));

/** Settings of one run of the program. */
export interface BootstrapSettings {
  /** kubeconfig content of the target cluster. */
  readonly kubeconfig: pulumi.Input<string>;
  /** The CNI's IPAM mode; change it to see that ApplyOnce does not touch the release. */
  readonly ipamMode: string;
}

/** The program: two ApplyOnce add-ons and their handoff records. */
export function bootstrap(settings: BootstrapSettings): Record<string, pulumi.Output<unknown>> {
  const cni = new ClusterAddon("cni", {
    kubeconfig: settings.kubeconfig,
    chart: { path: `${chartsDir}cni` },
    namespace: "kube-system",
    values: { ipam: { mode: settings.ipamMode } },
    strategy: "ApplyOnce",
  });
  const gitops = new ClusterAddon("gitops", {
    kubeconfig: settings.kubeconfig,
    chart: { path: `${chartsDir}gitops` },
    namespace: "gitops-system",
    createNamespace: true,
    values: { replicas: 1 },
    strategy: "ApplyOnce",
  });
  return {
    cniHandoff: cni.handoff,
    cniStatus: cni.status,
    gitopsHandoff: gitops.handoff,
    gitopsStatus: gitops.status,
  };
}
