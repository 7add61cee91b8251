/**
 * The bootstrap example's program as a function: a CNI and a GitOps controller installed into a
 * new cluster with ApplyOnce, and their handoff records. `index.ts` beside it is the Pulumi
 * project's entry (`cd examples/bootstrap && pulumi up`), which reads the settings from the stack's
 * config; the benchmark runs this same function as an inline Automation API program.
 *
 * A platform repo writes the same thing with its own cluster's kubeconfig
 * (e.g. `eks.Cluster#kubeconfigJson`).
 */
import type * as pulumi from "@pulumi/pulumi";
import { ClusterAddon } from "helm-handoff/pulumi";

/** Settings of one run of the program. */
export interface BootstrapSettings {
  /** kubeconfig content of the target cluster. */
  readonly kubeconfig: pulumi.Input<string>;
  /** The directory holding the `cni` and `gitops` charts (ending with a slash). */
  readonly chartsDir: string;
  /** The CNI's IPAM mode; change it to see that ApplyOnce does not touch the release. */
  readonly ipamMode: string;
}

/** The stack outputs: the two handoff records and release statuses. */
export interface BootstrapOutputs {
  readonly cniHandoff: pulumi.Output<unknown>;
  readonly cniStatus: pulumi.Output<unknown>;
  readonly gitopsHandoff: pulumi.Output<unknown>;
  readonly gitopsStatus: pulumi.Output<unknown>;
}

/** The program: two ApplyOnce add-ons and their handoff records. */
export function bootstrap(settings: BootstrapSettings): BootstrapOutputs {
  const cni = new ClusterAddon("cni", {
    kubeconfig: settings.kubeconfig,
    chart: { path: `${settings.chartsDir}cni` },
    namespace: "kube-system",
    values: { ipam: { mode: settings.ipamMode } },
    strategy: "ApplyOnce",
  });
  const gitops = new ClusterAddon("gitops", {
    kubeconfig: settings.kubeconfig,
    chart: { path: `${settings.chartsDir}gitops` },
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
