/**
 * The programs the side-by-side benchmarks run, shared by `peer-cli.ts` and `peer-scale.ts`: a
 * JavaScript program of `count` `ClusterAddon`s against one of `count` `kubernetes.helm.v3.Release`s
 * (both reading `count`, `chart`, `mode` and `prefix` from the stack's config; the peer also
 * `retain`: "true" gives each release `ignoreChanges: ["values"]` and `retainOnDelete`, the peer's
 * own way to install once and leave the release), and the same two as Automation API inline
 * programs, and a Python program of each (the package's generated SDK, `pulumi_kubernetes`). The
 * workload chart takes `message`, the schema chart `replicas` and `mode`.
 *
 * @module
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { ClusterAddon } from "../provider/index.js";

/** Values for a chart: the workload chart's `message`, or the schema chart's `mode`. */
export function chartValues(chart: string, mode: string): Record<string, unknown> {
  return chart === "schema" ? { replicas: 1, mode } : { message: mode };
}

/** A JavaScript program of `count` ApplyOnce `ClusterAddon`s in `namespace`. */
export function jsOurs(namespace: string): string {
  return `"use strict";
const pulumi = require("@pulumi/pulumi");
const { ClusterAddon } = require("helm-handoff/pulumi");
const c = new pulumi.Config();
const kubeconfig = c.requireSecret("kubeconfig");
const chart = c.require("chart");
for (let i = 0; i < c.requireNumber("count"); i++) {
  new ClusterAddon("a" + i, {
    kubeconfig, chart: { path: "./charts/" + chart }, releaseName: c.require("prefix") + i,
    namespace: "${namespace}", createNamespace: true,
    values: chart === "schema" ? { replicas: 1, mode: c.require("mode") } : { message: c.require("mode") },
  });
}
`;
}

/** A JavaScript program of `count` `helm.v3.Release`s in `namespace` (retained when config `retain` is "true"). */
export function jsPeer(namespace: string): string {
  return `"use strict";
const pulumi = require("@pulumi/pulumi");
const k8s = require("@pulumi/kubernetes");
const c = new pulumi.Config();
const provider = new k8s.Provider("k8s", { kubeconfig: c.requireSecret("kubeconfig") });
const chart = c.require("chart");
const retain = c.get("retain") === "true";
for (let i = 0; i < c.requireNumber("count"); i++) {
  new k8s.helm.v3.Release("a" + i, {
    chart: "./charts/" + chart, name: c.require("prefix") + i,
    namespace: "${namespace}", createNamespace: true,
    values: chart === "schema" ? { replicas: 1, mode: c.require("mode") } : { message: c.require("mode") },
  }, retain ? { provider, ignoreChanges: ["values"], retainOnDelete: true } : { provider });
}
`;
}

/** What an inline program declares: how many add-ons, of which chart (a path), with which values mode. */
export interface InlineShape {
  count: number;
  chartPath: string;
  mode: string;
}

/**
 * An inline program of `shape.count` add-ons (read at each run): ApplyOnce `ClusterAddon`s (ours),
 * or retained `helm.v3.Release`s that ignore values changes (the peer).
 */
export function inlineProgram(
  side: "ours" | "peer",
  kubeconfig: string,
  namespace: string,
  prefix: string,
  shape: InlineShape,
): () => Promise<void> {
  return async () => {
    const secretKubeconfig = pulumi.secret(kubeconfig);
    const provider = side === "peer" ? new k8s.Provider("k8s", { kubeconfig: secretKubeconfig }) : undefined;
    for (let i = 0; i < shape.count; i++) {
      const common = { namespace, createNamespace: true, values: { message: shape.mode } };
      if (provider === undefined) {
        const chart = { path: shape.chartPath };
        new ClusterAddon(`a${i}`, {
          kubeconfig: secretKubeconfig,
          chart,
          releaseName: `${prefix}${i}`,
          ...common,
        });
      } else {
        const args = { chart: shape.chartPath, name: `${prefix}${i}`, ...common };
        new k8s.helm.v3.Release(`a${i}`, args, { provider, ignoreChanges: ["values"], retainOnDelete: true });
      }
    }
  };
}

/** A Python program of `count` ApplyOnce `ClusterAddon`s in `namespace`, through the package's generated SDK. */
export function pyOurs(namespace: string): string {
  return `import pulumi
import pulumi_helm_handoff as helm_handoff

c = pulumi.Config()
kubeconfig = c.require_secret("kubeconfig")
chart = c.require("chart")
mode = c.require("mode")
values = {"replicas": 1, "mode": mode} if chart == "schema" else {"message": mode}
for i in range(c.require_int("count")):
    helm_handoff.ClusterAddon(
        f"a{i}",
        kubeconfig=kubeconfig,
        chart=helm_handoff.ChartArgs(path=f"./charts/{chart}"),
        release_name=c.require("prefix") + str(i),
        namespace="${namespace}",
        create_namespace=True,
        values=values,
    )
`;
}

/** A Python program of `count` `helm.v3.Release`s in `namespace`, through `pulumi_kubernetes`. */
export function pyPeer(namespace: string): string {
  return `import pulumi
import pulumi_kubernetes as k8s

c = pulumi.Config()
provider = k8s.Provider("k8s", kubeconfig=c.require_secret("kubeconfig"))
chart = c.require("chart")
mode = c.require("mode")
values = {"replicas": 1, "mode": mode} if chart == "schema" else {"message": mode}
for i in range(c.require_int("count")):
    k8s.helm.v3.Release(
        f"a{i}",
        chart=f"./charts/{chart}",
        name=c.require("prefix") + str(i),
        namespace="${namespace}",
        create_namespace=True,
        values=values,
        opts=pulumi.ResourceOptions(provider=provider),
    )
`;
}
