/**
 * The platform example as a Pulumi project: `cd examples/platform && pulumi up`.
 *
 * Config (the charts must come from a repository the GitOps controller can reach):
 *   pulumi config set --secret kubeconfig < ~/.kube/config
 *   pulumi config set --path cniChart.repo https://charts.example.org
 *   pulumi config set --path cniChart.name cni
 *   pulumi config set --path cniChart.version 1.0.0
 *   pulumi config set --path gitopsChart.repo https://charts.example.org   (and .name, .version)
 *   pulumi config set --path cniValues.ipam.mode kubernetes              # optional, default {}
 *   pulumi config set rootObject argocd                                 # optional, default flux
 */
import * as pulumi from "@pulumi/pulumi";
import type { ChartSource } from "helm-handoff";
import { platform, type RootObjectKind } from "./program.ts";

const config = new pulumi.Config();
const outputs = platform({
  kubeconfig: config.requireSecret("kubeconfig"),
  charts: {
    cni: config.requireObject<ChartSource>("cniChart"),
    gitops: config.requireObject<ChartSource>("gitopsChart"),
  },
  cniValues: config.getObject<Record<string, unknown>>("cniValues") ?? {},
  rootObject: (config.get("rootObject") ?? "flux") as RootObjectKind,
});

export const cniHandoff = outputs.cniHandoff;
export const gitopsHandoff = outputs.gitopsHandoff;
export const rootObjects = outputs.rootObjects;
