/**
 * The objects a local cluster with `workloads: true` needs before Deployments and DaemonSets
 * become Ready: the kwok fake node, its schedulability, and the default service account.
 *
 * @module
 */
import type { ApiResponse, ObjectStatus } from "./api.js";

/** Name of the fake node kwok manages in a cluster started with `workloads: true`. */
export const KWOK_NODE_NAME = "kwok-node-0";

/** Sends one request to the cluster's API server. */
export type Send = (method: string, path: string, body?: unknown) => Promise<ApiResponse>;

/** The fake Node: no taints, `spec.providerID: kwok://NAME`, label `type=kwok` (kwok's selector). */
export function kwokNode(name: string): object {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      labels: {
        type: "kwok",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "node-role.kubernetes.io/agent": "",
      },
      annotations: { "kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0" },
    },
    spec: { providerID: `kwok://${name}` },
  };
}

/** Creates the fake node; true once it exists (also when it existed already). */
export async function createNode(send: Send, name: string): Promise<true | undefined> {
  const res = await send("POST", "/api/v1/nodes", kwokNode(name));
  if (res.ok || res.status === 409) return true;
  throw new Error(`creating node ${name} answered ${res.status}: ${res.text}`);
}

/**
 * True once the node is Ready and schedulable: condition Ready=True and no `not-ready`/`unreachable`
 * taint left (the TaintNodesByCondition admission plugin adds one at creation; the controller-manager
 * removes it).
 */
export async function nodeSchedulable(send: Send, name: string): Promise<true | undefined> {
  const res = await send("GET", `/api/v1/nodes/${name}`);
  if (!res.ok) throw new Error(`GET node ${name} answered ${res.status}`);
  const node = res.json<ObjectStatus>();
  const ready = node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
  const blocked = (node.spec?.taints ?? []).some(
    (t) => t.key === "node.kubernetes.io/not-ready" || t.key === "node.kubernetes.io/unreachable",
  );
  return ready && !blocked ? true : undefined;
}

/** True once the `default` ServiceAccount of the `default` namespace exists (pods need it). */
export async function defaultServiceAccount(send: Send): Promise<true | undefined> {
  const res = await send("GET", "/api/v1/namespaces/default/serviceaccounts/default");
  return res.ok ? true : undefined;
}
