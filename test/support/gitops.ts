/**
 * Shared pieces of the takeover tests against the real Flux and Argo CD controllers: reading,
 * creating and patching objects through a local cluster's API, waiting for a controller to report
 * something, the UIDs of a release's objects, and running the `helm-handoff` CLI on the stack's
 * outputs. Test-only code.
 *
 * @module
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { KubeObject } from "../../core/handoff/gitops.js";
import type { LocalCluster } from "../../local-cluster/index.js";
import type { ClusterAddonArgs } from "../../provider/index.js";
import { repoRoot } from "./repo-root.js";

/**
 * The args of an ApplyOnce add-on bootstrapped from the test's chart repository, waiting for its
 * workloads, its namespace created: the shape every takeover test starts from.
 */
export function bootstrapArgs(
  cluster: LocalCluster,
  repoUrl: string,
  chart: string,
  version: string,
  namespace: string,
  values: Record<string, unknown>,
): ClusterAddonArgs {
  return {
    kubeconfig: cluster.kubeconfig,
    chart: { repo: repoUrl, name: chart, version },
    namespace,
    createNamespace: true,
    values,
    install: { wait: true },
    strategy: "ApplyOnce",
  };
}

/** A loosely typed object read back from the API server. */
export type Json = Record<string, unknown> & {
  metadata: {
    name: string;
    namespace?: string;
    uid: string;
    generation?: number;
    annotations?: Record<string, string>;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  data?: Record<string, string>;
};

const PLURALS: Readonly<Record<string, string>> = {
  HelmRelease: "helmreleases",
  HelmRepository: "helmrepositories",
  OCIRepository: "ocirepositories",
  Application: "applications",
  Deployment: "deployments",
  DaemonSet: "daemonsets",
  ConfigMap: "configmaps",
  ServiceAccount: "serviceaccounts",
  Secret: "secrets",
};

/** The REST path of an object (namespaced kinds only). */
export function objectPath(apiVersion: string, kind: string, namespace: string, name?: string): string {
  const plural = PLURALS[kind];
  assert.ok(plural, `no plural known for ${kind}`);
  const base = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return `${base}/namespaces/${namespace}/${plural}${name ? `/${name}` : ""}`;
}

/** Reads an object; undefined when it does not exist. */
export async function getObject(
  cluster: LocalCluster,
  apiVersion: string,
  kind: string,
  namespace: string,
  name: string,
): Promise<Json | undefined> {
  const res = await cluster.request("GET", objectPath(apiVersion, kind, namespace, name));
  if (res.status === 404) return undefined;
  assert.ok(res.ok, `GET ${kind} ${namespace}/${name}: HTTP ${res.status} ${res.text}`);
  return res.json<Json>();
}

/** Creates the objects in order, as `kubectl create` would. */
export async function createObjects(cluster: LocalCluster, objects: readonly KubeObject[]): Promise<void> {
  for (const o of objects) {
    const ns = o.metadata.namespace ?? "default";
    const res = await cluster.request("POST", objectPath(o.apiVersion, o.kind, ns), o);
    assert.ok(res.ok, `create ${o.kind} ${ns}/${o.metadata.name}: HTTP ${res.status} ${res.text}`);
  }
}

/** Merges `patch` into the object at `path` (read, merged, written back with its resourceVersion). */
export async function mergePatch(
  cluster: LocalCluster,
  path: string,
  patch: Record<string, unknown>,
): Promise<void> {
  const merge = (into: Record<string, unknown>, from: Record<string, unknown>): Record<string, unknown> => {
    const out = { ...into };
    for (const [k, v] of Object.entries(from)) {
      const cur = out[k];
      const bothObjects = [cur, v].every((x) => x !== null && typeof x === "object" && !Array.isArray(x));
      out[k] = bothObjects ? merge(cur as Record<string, unknown>, v as Record<string, unknown>) : v;
    }
    return out;
  };
  const read = await cluster.request("GET", path);
  assert.ok(read.ok, `GET ${path}: HTTP ${read.status} ${read.text}`);
  const res = await cluster.request("PUT", path, merge(read.json<Record<string, unknown>>(), patch));
  assert.ok(res.ok, `PUT ${path}: HTTP ${res.status} ${res.text}`);
}

/** Polls `check` every second until it returns a value; fails with `what` and the last value seen. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 240_000,
  describe: () => Promise<string> = async () => "",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}. ${await describe()}`);
    await sleep(1_000);
  }
}

/** The condition `type` of an object's status. */
export function conditionOf(
  o: Json | undefined,
  type: string,
): { status: string; reason?: string; message?: string } | undefined {
  const list = (o?.status?.conditions ?? []) as {
    type: string;
    status: string;
    reason?: string;
    message?: string;
  }[];
  return list.find((c) => c.type === type);
}

/** `Kind/name` → uid of each object. */
export async function uidsOf(
  cluster: LocalCluster,
  namespace: string,
  objects: readonly { apiVersion: string; kind: string; name: string }[],
): Promise<Record<string, string>> {
  const uids: Record<string, string> = {};
  for (const o of objects) {
    const live = await getObject(cluster, o.apiVersion, o.kind, namespace, o.name);
    assert.ok(live, `${o.kind} ${namespace}/${o.name} exists`);
    uids[`${o.kind}/${o.name}`] = live.metadata.uid;
  }
  return uids;
}

/** What the `helm-handoff` CLI did. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the built `helm-handoff` CLI (dist/core/handoff/cli.js) with `input` on stdin. */
export function runHandoffCli(args: readonly string[], input: string): Promise<CliRun> {
  const cli = join(repoRoot(), "dist", "core", "handoff", "cli.js");
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [cli, ...args],
      { encoding: "utf8" },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end(input);
  });
}
