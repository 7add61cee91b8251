/**
 * The real GitOps controllers beside a local cluster (`gitops: "flux" | "argocd"`): what they are
 * started with (a {@link GitopsHost}, the cluster's own way to start and watch daemons), what a
 * test or a user's bootstrap code gets back ({@link GitopsControllers}), and the shared steps of
 * both starts: installing CRDs until they are served and creating the objects the controllers
 * need. Flux is in `flux.ts`, Argo CD in `argocd.ts`; the controllers run as host processes
 * against the cluster's API server, stopped with the cluster.
 *
 * @module
 */
import { readdirSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseAllDocuments } from "yaml";
import type { ApiResponse } from "../control-plane/api.js";
import type { Daemon, DaemonSpec } from "../process/daemon.js";

/** Which GitOps controllers a local cluster runs. */
export type GitopsKind = "flux" | "argocd";

/** The GitOps controllers of a running local cluster, for the objects a test or bootstrap code creates. */
export interface GitopsControllers {
  /** `flux` or `argocd`. */
  readonly kind: GitopsKind;
  /** The controllers' namespace: `flux-system` or `argocd`. */
  readonly namespace: string;
  /**
   * Argo CD only: the destination server an Application must name to deploy into this cluster. The
   * controller runs outside the cluster, so it knows the cluster by its API server URL (a cluster
   * Secret), not as `https://kubernetes.default.svc`.
   */
  readonly destinationServer?: string;
}

/** What a controller start needs from the cluster (given by the cluster itself). */
export interface GitopsHost {
  /** The cluster's temp dir (controllers keep their data under it). */
  readonly dir: string;
  /** Where daemon logs go. */
  readonly logDir: string;
  /** The admin kubeconfig file. */
  readonly kubeconfigPath: string;
  /** The API server URL. */
  readonly server: string;
  /** The admin TLS material (PEM). */
  readonly tls: { readonly ca: string; readonly cert: string; readonly key: string };
  /** One request to the API server as admin. */
  request(method: string, path: string, body?: unknown): Promise<ApiResponse>;
  /** Starts a daemon under the cluster's guard; it is stopped with the cluster. */
  start(spec: DaemonSpec): Promise<Daemon>;
  /** Polls `check` until it yields a value, within the cluster's start deadline, failing if a named daemon exits. */
  wait<T>(what: string, names: readonly string[], check: () => Promise<T | undefined>): Promise<T>;
}

/** A Kubernetes object as created here. */
export interface Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

/** The YAML files in the directory `dirName` beside a binary (or beside the file it links to). */
export function filesBeside(binary: string, dirName: string): string[] {
  for (const dir of [dirname(binary), dirname(realpathSync(binary))]) {
    try {
      const files = readdirSync(join(dir, dirName)).filter((f) => f.endsWith(".yaml"));
      if (files.length > 0) return files.sort().map((f) => join(dir, dirName, f));
    } catch {
      // not here: try the next place
    }
  }
  throw new Error(`no ${dirName}/*.yaml next to ${binary}; run \`npm run toolchain\` to install them`);
}

/** Every document of the YAML files, in order. */
export function readManifests(files: readonly string[]): Manifest[] {
  return files.flatMap((file) =>
    parseAllDocuments(readFileSync(file, "utf8"))
      .map((doc) => doc.toJS() as Manifest | null)
      .filter((m): m is Manifest => m !== null && typeof m === "object"),
  );
}

/** The REST path of an object's collection (core or grouped, namespaced or not). */
function collectionPath(m: Manifest, plural: string): string {
  const base = m.apiVersion.includes("/") ? `/apis/${m.apiVersion}` : `/api/${m.apiVersion}`;
  return m.metadata.namespace ? `${base}/namespaces/${m.metadata.namespace}/${plural}` : `${base}/${plural}`;
}

const PLURALS: Readonly<Record<string, string>> = {
  Namespace: "namespaces",
  ConfigMap: "configmaps",
  Secret: "secrets",
  CustomResourceDefinition: "customresourcedefinitions",
  AppProject: "appprojects",
};

/**
 * Creates each object (an existing one is left as it is), in order.
 * @throws Error with the API server's answer when a create fails otherwise.
 */
export async function createObjects(host: GitopsHost, objects: readonly Manifest[]): Promise<void> {
  for (const m of objects) {
    const plural = PLURALS[m.kind];
    if (plural === undefined) throw new Error(`local cluster: no REST path known for kind ${m.kind}`);
    const res = await host.request("POST", collectionPath(m, plural), m);
    if (!res.ok && res.status !== 409) {
      throw new Error(`local cluster: create ${m.kind} ${m.metadata.name}: HTTP ${res.status} ${res.text}`);
    }
  }
}

/** Installs the CRDs in the YAML files and waits until each is established and its resource is served. */
export function installCrds(host: GitopsHost, files: readonly string[]): Promise<void> {
  return installCrdObjects(host, readManifests(files));
}

/** Creates the CRDs among `objects` and waits until each one's resource is served. */
export async function installCrdObjects(host: GitopsHost, objects: readonly Manifest[]): Promise<void> {
  const crds = objects.filter((m) => m.kind === "CustomResourceDefinition");
  await createObjects(host, crds);
  for (const crd of crds) {
    const spec = crd.spec as {
      group: string;
      names: { plural: string };
      versions: { name: string; served: boolean }[];
    };
    const version = spec.versions.find((v) => v.served)?.name ?? spec.versions[0]?.name;
    await host.wait(`CRD ${crd.metadata.name} to be served`, [], async () => {
      const res = await host.request("GET", `/apis/${spec.group}/${version}/${spec.names.plural}?limit=1`);
      return res.ok ? true : undefined;
    });
  }
}

/** A namespace object. */
export function namespace(name: string): Manifest {
  return { apiVersion: "v1", kind: "Namespace", metadata: { name } };
}

/** Waits until `http://127.0.0.1:PORT/PATH` answers 200. */
export function waitHttp(host: GitopsHost, name: string, url: string): Promise<true> {
  return host.wait(`${name} to answer ${url}`, [name], async () => {
    const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await res.arrayBuffer();
    return res.ok ? true : undefined;
  });
}
