/**
 * A local cluster as a Cluster API management cluster (`capi`): the real Cluster API core manager
 * (ClusterResourceSet, the Cluster controller, the cluster cache) and the real Cluster API Add-on
 * Provider for Helm (CAAPH: HelmChartProxy), built by the toolchain from their Go modules, run as
 * host processes against the management cluster's API server with their CRDs, and N more local
 * clusters (each its own etcd + kube-apiserver, with kwok when `workloads` is set) registered as
 * `Cluster` objects backed by stand-in provider objects (`objects.ts`). Both managers keep
 * health on loopback and metrics off; their webhook servers listen on every interface (neither has a
 * flag for the host), with a certificate of the cluster's CA; no webhook configuration points at
 * them, so the API server never calls them. The workload clusters are stopped with the management
 * cluster.
 *
 * @module
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { ObjectStatus } from "../../control-plane/api.js";
import { findBinary } from "../../control-plane/binaries.js";
import { type ClusterPki, generateWebhookCertificate } from "../../control-plane/certs.js";
import { capiManagerArgs } from "../../control-plane/flags.js";
import { freePort } from "../../control-plane/ports.js";
import type {
  AddClusterOptions,
  CapiManagement,
  CapiOptions,
  CapiWorkloadCluster,
  LocalCluster,
  LocalClusterOptions,
} from "../../types.js";
import {
  createObjects,
  filesBeside,
  type GitopsHost,
  type GitopsKind,
  installCrdObjects,
  namespace,
  readManifests,
  waitHttp,
} from "../host.js";
import {
  type ClusterStatus,
  clusterConnected,
  clusterPath,
  describeClusterStatus,
  registrationObjects,
  standInCrds,
} from "./objects.js";

/** The executables and CRDs of the two managers. */
export interface CapiBinaries {
  readonly core: string;
  readonly caaph: string;
  readonly crdFiles: readonly string[];
}

/**
 * Finds `capi-manager` and `caaph-manager` and the CRD files beside them.
 * @throws Error naming a missing binary or CRD directory and `npm run toolchain`.
 */
export function findCapiBinaries(): CapiBinaries {
  const core = findBinary("capi-manager");
  const caaph = findBinary("caaph-manager");
  return {
    core,
    caaph,
    crdFiles: [...filesBeside(core, "capi-manager-crds"), ...filesBeside(caaph, "caaph-manager-crds")],
  };
}

/** What a {@link CapiFleet} needs from its management cluster. */
export interface CapiSetup {
  /** The management cluster's name (workload clusters are named `NAME-workload-N`). */
  readonly name: string;
  readonly binaries: CapiBinaries;
  readonly pki: ClusterPki;
  readonly options: CapiOptions;
  /** How long the start, and each {@link CapiManagement.addCluster}, may take. */
  readonly timeoutMs: number;
  /** The management cluster's host for a wait that ends at `deadline`. */
  hostFor(deadline: number): GitopsHost;
  /** Starts a local cluster (the workload clusters are local clusters of their own). */
  startCluster(options: LocalClusterOptions): Promise<LocalCluster>;
}

const NAMESPACE_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Checks `capi` options before anything starts.
 * @throws Error naming the bad option.
 */
export function validateCapiOptions(options: CapiOptions): void {
  const n = options.workloadClusters ?? 1;
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`invalid capi.workloadClusters ${n}: use an integer >= 0`);
  const ns = options.namespace ?? "default";
  if (!NAMESPACE_PATTERN.test(ns))
    throw new Error(`invalid capi.namespace "${ns}": use lowercase letters, digits and "-"`);
}

/** The management role: the two managers (daemons of the management cluster) and the workload clusters. */
export class CapiFleet implements CapiManagement {
  readonly namespace: string;
  readonly #setup: CapiSetup;
  readonly #clusters: CapiWorkloadCluster[] = [];
  /** Every workload cluster start, settled or not, so that {@link stop} finds all of them. */
  readonly #starts: Promise<LocalCluster>[] = [];
  #next = 1;
  #stopped = false;

  constructor(setup: CapiSetup) {
    this.#setup = setup;
    this.namespace = setup.options.namespace ?? "default";
  }

  get clusters(): readonly CapiWorkloadCluster[] {
    return [...this.#clusters];
  }

  /** Installs the CRDs, starts the workload clusters and the managers, and waits until every `Cluster` is connected. */
  async start(): Promise<void> {
    const { binaries, options, timeoutMs } = this.#setup;
    const host = this.#setup.hostFor(Date.now() + timeoutMs);
    const certDir = join(host.dir, "capi-webhook-certs");
    const count = options.workloadClusters ?? 1;
    const [locals] = await Promise.all([
      Promise.all(Array.from({ length: count }, () => this.#startCluster(options.workloads ?? false))),
      (async () => {
        await installCrdObjects(host, [...readManifests(binaries.crdFiles), ...standInCrds()]);
        await createObjects(host, [namespace(this.namespace)]);
      })(),
      generateWebhookCertificate(certDir, this.#setup.pki),
    ]);
    const registered = await Promise.all(
      locals.map(({ local, name }) => this.#register(host, local, name, {})),
    );
    await this.#startManagers(host, certDir);
    await Promise.all(registered.map((c) => this.#waitConnected(host, c)));
    this.#clusters.push(...registered);
  }

  async addCluster(options: AddClusterOptions = {}): Promise<CapiWorkloadCluster> {
    const host = this.#setup.hostFor(Date.now() + this.#setup.timeoutMs);
    const { local, name } = await this.#startCluster(
      options.workloads ?? this.#setup.options.workloads ?? false,
      options.gitops,
    );
    const cluster = await this.#register(host, local, name, options.labels ?? {});
    await this.#waitConnected(host, cluster);
    this.#clusters.push(cluster);
    return cluster;
  }

  /** Stops every workload cluster started so far (also those still starting). Idempotent. */
  async stop(): Promise<void> {
    this.#stopped = true;
    const started = await Promise.allSettled(this.#starts);
    await Promise.all(started.flatMap((s) => (s.status === "fulfilled" ? [s.value.stop()] : [])));
  }

  async #startCluster(
    workloads: boolean,
    gitops?: GitopsKind,
  ): Promise<{ local: LocalCluster; name: string }> {
    if (this.#stopped) throw new Error(`local cluster "${this.#setup.name}" was stopped`);
    const name = `workload-${this.#next++}`;
    const start = this.#setup.startCluster({
      name: `${this.#setup.name}-${name}`,
      workloads,
      ...(gitops !== undefined ? { gitops } : {}),
      startTimeout: this.#setup.timeoutMs,
    });
    this.#starts.push(start);
    const local = await start;
    // A stop() that ran while this cluster was starting has already waited for it and stopped it.
    if (this.#stopped) throw new Error(`local cluster "${this.#setup.name}" was stopped`);
    return { local, name };
  }

  /** Creates the stand-in objects, the kubeconfig Secret and the `Cluster`, and writes the stand-ins' status. */
  async #register(
    host: GitopsHost,
    local: LocalCluster,
    name: string,
    extraLabels: Readonly<Record<string, string>>,
  ): Promise<CapiWorkloadCluster> {
    const labels = { ...this.#setup.options.labels, ...extraLabels };
    const spec = {
      name,
      namespace: this.namespace,
      labels,
      server: local.server,
      kubeconfig: local.kubeconfig,
    };
    for (const { path, object, status } of registrationObjects(spec)) {
      const created = await host.request("POST", path, object);
      if (!created.ok) {
        throw new Error(
          `local cluster: create ${object.kind} ${this.namespace}/${name}: HTTP ${created.status} ${created.text}`,
        );
      }
      if (status === undefined) continue;
      const live = created.json<Record<string, unknown>>();
      const updated = await host.request("PUT", `${path}/${name}/status`, { ...live, status });
      if (!updated.ok) {
        throw new Error(
          `local cluster: status of ${object.kind} ${this.namespace}/${name}: HTTP ${updated.status} ${updated.text}`,
        );
      }
    }
    return {
      name,
      namespace: this.namespace,
      labels,
      kubeconfig: local.kubeconfig,
      kubeconfigPath: local.kubeconfigPath,
      local,
    };
  }

  /** Starts the core manager and CAAPH and waits until both answer `/readyz`. */
  async #startManagers(host: GitopsHost, webhookCertDir: string): Promise<void> {
    const home = join(host.dir, "capi-home");
    const tmp = join(home, "tmp");
    mkdirSync(tmp, { recursive: true, mode: 0o700 });
    // CAAPH runs helm in-process: its caches and the values files it writes stay in the cluster's dir.
    const env: NodeJS.ProcessEnv = { HOME: home, TMPDIR: tmp };
    for (const [key, value] of Object.entries(process.env)) {
      if (!/^(HELM_|XDG_|KUBECONFIG$|HOME$|TMPDIR$)/.test(key)) env[key] = value;
    }
    const managers = [
      { name: "capi-manager", command: this.#setup.binaries.core },
      { name: "caaph-manager", command: this.#setup.binaries.caaph },
    ];
    await Promise.all(
      managers.map(async ({ name, command }) => {
        const [webhookPort, healthPort] = [await freePort(), await freePort()];
        const args = capiManagerArgs({
          kubeconfig: host.kubeconfigPath,
          webhookPort,
          webhookCertDir,
          healthPort,
        });
        await host.start({ name, command, args, env, cwd: home, logFile: join(host.logDir, `${name}.log`) });
        await waitHttp(host, name, `http://127.0.0.1:${healthPort}/readyz`);
      }),
    );
  }

  /** Waits until the `Cluster` is provisioned, initialized and connected, quoting its status on timeout. */
  async #waitConnected(host: GitopsHost, cluster: CapiWorkloadCluster): Promise<void> {
    let last = "not read yet";
    await host
      .wait(`Cluster ${cluster.namespace}/${cluster.name} to be connected`, ["capi-manager"], async () => {
        const res = await host.request("GET", clusterPath(cluster.namespace, cluster.name));
        if (!res.ok) return undefined;
        const live = res.json<ClusterStatus & ObjectStatus>();
        last = describeClusterStatus(live);
        return clusterConnected(live) ? true : undefined;
      })
      .catch((error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        throw new Error(`${message}\nlast status of Cluster ${cluster.name}: ${last}`);
      });
  }
}
