/**
 * The bootstrap example as a Pulumi project: `cd examples/bootstrap && pulumi up`.
 *
 * Config (the only one required is the kubeconfig):
 *   pulumi config set --secret kubeconfig < ~/.kube/config
 *   pulumi config set cniIpamMode cluster-pool   # optional, default "kubernetes"
 */
import { fileURLToPath } from "node:url";
import * as pulumi from "@pulumi/pulumi";
import { bootstrap } from "./program.ts";

const config = new pulumi.Config();
const outputs = bootstrap({
  kubeconfig: config.requireSecret("kubeconfig"),
  chartsDir: fileURLToPath(new URL("./charts/", import.meta.url)),
  ipamMode: config.get("cniIpamMode") ?? "kubernetes",
});

export const cniHandoff = outputs.cniHandoff;
export const cniStatus = outputs.cniStatus;
export const gitopsHandoff = outputs.gitopsHandoff;
export const gitopsStatus = outputs.gitopsStatus;
