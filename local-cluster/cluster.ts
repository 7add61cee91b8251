/**
 * `startLocalCluster`: a real etcd and kube-apiserver on loopback ports (and, with `workloads:
 * true`, kube-controller-manager, kube-scheduler and kwok with one fake node), started in a
 * private temp dir under a guard process that kills every daemon when the parent dies; `stop()`
 * removes everything.
 *
 * @module
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { buildKubeconfig, writePrivateFile } from "./control-plane/admin-kubeconfig.js";
import {
  type ApiResponse,
  type ObjectStatus,
  sendRequest,
  type TlsCredentials,
} from "./control-plane/api.js";
import { findBinary, kwokStageFiles } from "./control-plane/binaries.js";
import { type ClusterPki, generatePki } from "./control-plane/certs.js";
import {
  apiServerArgs,
  controllerManagerArgs,
  etcdArgs,
  etcdUrl,
  kwokArgs,
  schedulerArgs,
} from "./control-plane/flags.js";
import { freePort, isAddressInUse } from "./control-plane/ports.js";
import { waitUntil } from "./control-plane/wait.js";
import {
  createNode,
  defaultServiceAccount,
  KWOK_NODE_NAME,
  nodeSchedulable,
} from "./control-plane/workloads.js";
import { startArgoCd } from "./controllers/argocd.js";
import {
  type CapiBinaries,
  CapiFleet,
  findCapiBinaries,
  validateCapiOptions,
} from "./controllers/capi/managers.js";
import { startFlux } from "./controllers/flux.js";
import type { GitopsControllers, GitopsHost, GitopsKind } from "./controllers/host.js";
import { Daemon, type DaemonSpec, Guard } from "./process/daemon.js";
import type {
  CapiOptions,
  ClusterProcess,
  LocalCluster,
  LocalClusterIdentity,
  LocalClusterOptions,
} from "./types.js";

export type { ClusterProcess, LocalCluster, LocalClusterIdentity, LocalClusterOptions } from "./types.js";

const STOP_GRACE_MS = 10_000;
const PORT_ATTEMPTS = 3;
const NAME_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Paths of the executables a cluster runs. */
interface Binaries {
  readonly etcd: string;
  readonly apiServer: string;
  readonly workloads?: {
    readonly controllerManager: string;
    readonly scheduler: string;
    readonly kwok: string;
    readonly stageFiles: readonly string[];
  };
  readonly capi?: CapiBinaries;
}

/**
 * Starts etcd and kube-apiserver (and, with `workloads`, kube-controller-manager, kube-scheduler and kwok)
 * on free loopback ports, with fresh certificates, in a new temporary directory.
 *
 * Every process runs in its own process group and is watched by a small guard process that kills them
 * and removes the directory if this process dies, even by SIGKILL.
 *
 * @throws Error naming a missing binary, or a daemon's failure with the last lines of its log.
 */
export async function startLocalCluster(options: LocalClusterOptions = {}): Promise<LocalCluster> {
  const name = options.name ?? "local";
  const delay = options.apiServerDelay ?? 0;
  if (!NAME_PATTERN.test(name))
    throw new Error(`invalid cluster name "${name}": use lowercase letters, digits and "-"`);
  if (!Number.isFinite(delay) || delay < 0)
    throw new Error(`invalid apiServerDelay ${delay}: use milliseconds >= 0`);
  if (options.gitops !== undefined && options.gitops !== "flux" && options.gitops !== "argocd")
    throw new Error(`invalid gitops "${String(options.gitops)}": use "flux" or "argocd"`);
  if (options.capi !== undefined) validateCapiOptions(options.capi);
  const binaries = findBinaries(options.workloads ?? false, options.capi !== undefined);
  const dir = mkdtempSync(join(tmpdir(), `helm-handoff-${name}-`));
  const guard = Guard.start(dir);
  let cluster: Cluster | undefined;
  try {
    const pki = await generatePki(join(dir, "pki"), name);
    const port = await freePort();
    const timeoutMs = options.startTimeout ?? 120_000;
    const { gitops, capi } = options;
    cluster = new Cluster({ name, dir, binaries, pki, guard, port, timeoutMs, delayMs: delay, gitops, capi });
    if (delay === 0) await cluster.ready;
    return cluster;
  } catch (error) {
    if (cluster) await cluster.stop();
    else {
      rmSync(dir, { recursive: true, force: true });
      await guard.close();
    }
    throw error;
  }
}

function findBinaries(workloads: boolean, capi: boolean): Binaries {
  const etcd = findBinary("etcd");
  const apiServer = findBinary("kube-apiserver");
  const base = { etcd, apiServer, ...(capi ? { capi: findCapiBinaries() } : {}) };
  if (!workloads) return base;
  const kwok = findBinary("kwok");
  return {
    ...base,
    workloads: {
      controllerManager: findBinary("kube-controller-manager"),
      scheduler: findBinary("kube-scheduler"),
      kwok,
      stageFiles: kwokStageFiles(kwok),
    },
  };
}

/** Everything a {@link Cluster} is made from. */
interface ClusterSetup {
  readonly name: string;
  readonly dir: string;
  readonly binaries: Binaries;
  readonly pki: ClusterPki;
  readonly guard: Guard;
  /** The API server's port, known before it starts. */
  readonly port: number;
  readonly timeoutMs: number;
  readonly delayMs: number;
  readonly gitops: GitopsKind | undefined;
  readonly capi: CapiOptions | undefined;
}

class Cluster implements LocalCluster {
  readonly name: string;
  readonly dir: string;
  readonly logDir: string;
  readonly kubeconfigPath: string;
  readonly nodeName: string | undefined;
  readonly ready: Promise<LocalClusterIdentity>;
  gitops: GitopsControllers | undefined;
  capi: CapiFleet | undefined;
  readonly #fleet: CapiFleet | undefined;
  #kubeconfig = "";
  #port: number;
  #etcdUrl = "";
  #identity: LocalClusterIdentity | undefined;
  #stopping: Promise<void> | undefined;
  #apiServerStarting = false;
  readonly #binaries: Binaries;
  readonly #pki: ClusterPki;
  readonly #tls: Required<TlsCredentials>;
  readonly #guard: Guard;
  readonly #timeoutMs: number;
  readonly #daemons = new Map<string, Daemon>();
  readonly #abort = new AbortController();

  constructor(setup: ClusterSetup) {
    const { name, dir, binaries, pki } = setup;
    this.name = name;
    this.dir = dir;
    this.logDir = join(dir, "logs");
    this.kubeconfigPath = join(dir, "kubeconfig");
    this.nodeName = binaries.workloads ? KWOK_NODE_NAME : undefined;
    this.#binaries = binaries;
    this.#pki = pki;
    this.#guard = setup.guard;
    this.#timeoutMs = setup.timeoutMs;
    this.#port = setup.port;
    this.#tls = {
      ca: readFileSync(pki.caCert, "utf8"),
      cert: readFileSync(pki.adminCert, "utf8"),
      key: readFileSync(pki.adminKey, "utf8"),
    };
    mkdirSync(this.logDir, { mode: 0o700 });
    this.#writeKubeconfig();
    if (setup.capi !== undefined && binaries.capi !== undefined) {
      this.#fleet = new CapiFleet({
        name,
        binaries: binaries.capi,
        pki,
        options: setup.capi,
        timeoutMs: setup.timeoutMs,
        hostFor: (deadline) => this.#gitopsHost(deadline),
        startCluster: (options) => startLocalCluster(options),
      });
    }
    // Starts etcd now and the rest in the background; nobody may be listening for a failure yet.
    this.ready = this.#bringUp(setup.delayMs, setup.gitops);
    this.ready.catch(() => {});
  }

  get kubeconfig(): string {
    return this.#kubeconfig;
  }

  get server(): string {
    return `https://127.0.0.1:${this.#port}`;
  }

  get identity(): LocalClusterIdentity {
    if (this.#identity === undefined) throw this.#notReady();
    return this.#identity;
  }

  processes(): ClusterProcess[] {
    const daemons = [...this.#daemons.values()].filter((daemon) => daemon.running);
    const guard = this.#guard.running ? [{ name: "guard", pid: this.#guard.pid }] : [];
    return [...guard, ...daemons.map(({ name, pid }) => ({ name, pid }))];
  }

  request(method: string, path: string, body?: unknown): Promise<ApiResponse> {
    return sendRequest(`${this.server}${path}`, { method, body, tls: this.#tls });
  }

  async stopApiServer(): Promise<void> {
    await this.#daemons.get("kube-apiserver")?.stop(STOP_GRACE_MS);
  }

  async killApiServer(): Promise<void> {
    await this.#daemons.get("kube-apiserver")?.kill();
  }

  async startApiServer(): Promise<void> {
    this.#abort.signal.throwIfAborted();
    if (this.#identity === undefined) throw this.#notReady();
    if (this.#daemons.get("kube-apiserver")?.running || this.#apiServerStarting) {
      throw new Error(`kube-apiserver of local cluster "${this.name}" is already running`);
    }
    this.#apiServerStarting = true;
    try {
      await this.#startApiServer(Date.now() + this.#timeoutMs, false);
    } finally {
      this.#apiServerStarting = false;
    }
  }

  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    this.#abort.abort(new Error(`local cluster "${this.name}" was stopped`));
    // etcd last: kube-apiserver hangs in its shutdown (until SIGKILL) when etcd is gone already.
    const daemons = [...this.#daemons.values()];
    await Promise.all([
      ...daemons.filter((d) => d.name !== "etcd").map((d) => d.stop(STOP_GRACE_MS)),
      this.#fleet?.stop(),
    ]);
    await Promise.all(daemons.map((d) => d.stop(STOP_GRACE_MS)));
    await this.ready.catch(() => {});
    await Promise.all([...this.#daemons.values()].map((daemon) => daemon.kill()));
    rmSync(this.dir, { recursive: true, force: true, maxRetries: 5 });
    await this.#guard.close();
  }

  /** Starts etcd, then (after `delayMs`) kube-apiserver, the workloads, GitOps and Cluster API. */
  async #bringUp(delayMs: number, gitops: GitopsKind | undefined): Promise<LocalClusterIdentity> {
    const start = Date.now();
    const deadline = start + delayMs + this.#timeoutMs;
    await this.#startEtcd(deadline);
    const remaining = start + delayMs - Date.now();
    const { signal } = this.#abort;
    if (remaining > 0) await sleep(remaining, undefined, { signal }).catch(() => signal.throwIfAborted());
    await this.#startApiServer(deadline, delayMs === 0);
    const uid = await this.#wait("the kube-system namespace", deadline, ["kube-apiserver"], async () => {
      const res = await this.request("GET", "/api/v1/namespaces/kube-system");
      return res.ok ? res.json<ObjectStatus>().metadata?.uid : undefined;
    });
    if (this.#binaries.workloads) await this.#startWorkloads(this.#binaries.workloads, deadline);
    if (gitops) this.gitops = await (gitops === "flux" ? startFlux : startArgoCd)(this.#gitopsHost(deadline));
    if (this.#fleet) {
      await this.#fleet.start();
      this.capi = this.#fleet;
    }
    this.#identity = { uid, caFingerprint: this.#pki.caFingerprint };
    return this.#identity;
  }

  /** Starts etcd on fresh ports with an empty data dir, retrying when a port was taken meanwhile. */
  async #startEtcd(deadline: number): Promise<void> {
    const dataDir = join(this.dir, "etcd");
    await this.#startWithRetry(
      async () => {
        rmSync(dataDir, { recursive: true, force: true });
        const [client, peer] = [await freePort(), await freePort()];
        this.#etcdUrl = etcdUrl(client);
        return this.#spec("etcd", this.#binaries.etcd, etcdArgs(dataDir, client, peer, this.#pki));
      },
      () =>
        this.#wait("etcd to report healthy", deadline, ["etcd"], async () => {
          const res = await sendRequest(`${this.#etcdUrl}/health`, { tls: this.#etcdTls() });
          return res.ok ? true : undefined;
        }),
      PORT_ATTEMPTS,
    );
  }

  /** Starts kube-apiserver; a taken port is replaced (and the kubeconfig rewritten) only if `mayMove`. */
  async #startApiServer(deadline: number, mayMove: boolean): Promise<void> {
    const workloads = this.#binaries.workloads !== undefined;
    let attempt = 0;
    await this.#startWithRetry(
      async () => {
        if (attempt++ > 0) {
          this.#port = await freePort();
          this.#writeKubeconfig();
        }
        const args = apiServerArgs({ etcdUrl: this.#etcdUrl, port: this.#port, pki: this.#pki, workloads });
        return this.#spec("kube-apiserver", this.#binaries.apiServer, args);
      },
      () =>
        this.#wait("kube-apiserver to answer /readyz", deadline, ["kube-apiserver", "etcd"], async () => {
          const res = await this.request("GET", "/readyz");
          if (res.ok) return true;
          throw new Error(
            `/readyz answered ${res.status}: ${res.text.trim().split("\n").slice(-3).join("; ")}`,
          );
        }),
      mayMove ? PORT_ATTEMPTS : 1,
    );
  }

  /** Starts kube-controller-manager, kube-scheduler and kwok; waits for a Ready node and a ServiceAccount. */
  async #startWorkloads(bins: NonNullable<Binaries["workloads"]>, deadline: number): Promise<void> {
    // One component on a free port, ready when it answers /healthz.
    const component = (name: string, command: string, args: (port: number) => string[]) => {
      let port = 0;
      return this.#startWithRetry(
        async () => {
          port = await freePort();
          return this.#spec(name, command, args(port));
        },
        () =>
          this.#wait(`${name} to answer /healthz`, deadline, [name], async () => {
            const res = await sendRequest(`https://127.0.0.1:${port}/healthz`, { tls: { ca: this.#tls.ca } });
            return res.ok ? true : undefined;
          }),
        PORT_ATTEMPTS,
      );
    };
    await Promise.all([
      component("kube-controller-manager", bins.controllerManager, (port) =>
        controllerManagerArgs(this.kubeconfigPath, port, this.#pki, this.name),
      ),
      component("kube-scheduler", bins.scheduler, (port) =>
        schedulerArgs(this.kubeconfigPath, port, this.#pki),
      ),
      this.#startDaemon({
        ...this.#spec("kwok", bins.kwok, kwokArgs(this.kubeconfigPath, bins.stageFiles)),
        // kwok also reads ~/.kwok/kwok.yaml: keep a user's own kwok setup out.
        env: { ...process.env, HOME: this.dir },
      }),
    ]);
    const all = ["kwok", "kube-controller-manager", "kube-scheduler", "kube-apiserver"];
    const send = this.request.bind(this);
    const node = KWOK_NODE_NAME;
    await this.#wait(`node ${node} to be created`, deadline, all, () => createNode(send, node));
    await this.#wait(`node ${node} to be Ready`, deadline, all, () => nodeSchedulable(send, node));
    await this.#wait("the default ServiceAccount", deadline, all, () => defaultServiceAccount(send));
  }

  /** Starts a daemon and awaits `ready`; retries with a fresh spec when its port turned out to be taken. */
  async #startWithRetry(
    spec: () => Promise<DaemonSpec>,
    ready: () => Promise<unknown>,
    attempts: number,
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const daemon = await this.#startDaemon(await spec());
      try {
        await ready();
        return;
      } catch (error) {
        const collided = !daemon.running && isAddressInUse(daemon.logTail(200));
        if (!collided || attempt >= attempts) throw error;
      }
    }
  }

  /** Starts one daemon under the guard and records it; one started while stopping is killed at once. */
  async #startDaemon(spec: DaemonSpec): Promise<Daemon> {
    this.#abort.signal.throwIfAborted();
    const daemon = await Daemon.start(spec, this.#guard);
    this.#daemons.set(spec.name, daemon);
    if (this.#abort.signal.aborted) {
      await daemon.kill();
      this.#abort.signal.throwIfAborted();
    }
    return daemon;
  }

  /** What the GitOps controllers' start may use of this cluster. */
  #gitopsHost(deadline: number): GitopsHost {
    return {
      dir: this.dir,
      logDir: this.logDir,
      kubeconfigPath: this.kubeconfigPath,
      server: this.server,
      tls: this.#tls,
      request: (method, path, body) => this.request(method, path, body),
      start: (spec) => this.#startDaemon(spec),
      wait: (what, names, check) => this.#wait(what, deadline, [...names, "kube-apiserver"], check),
    };
  }

  #spec(name: string, command: string, args: string[]): DaemonSpec {
    return { name, command, args, cwd: this.dir, logFile: join(this.logDir, `${name}.log`) };
  }

  #wait<T>(what: string, deadline: number, names: string[], check: () => Promise<T | undefined>): Promise<T> {
    const watch = names.flatMap((name) => this.#daemons.get(name) ?? []);
    return waitUntil(check, { what, deadline, signal: this.#abort.signal, watch });
  }

  /** The client credentials etcd accepts: kube-apiserver's certificate and key. */
  #etcdTls(): Required<TlsCredentials> {
    return {
      ca: this.#tls.ca,
      cert: readFileSync(this.#pki.etcdClientCert, "utf8"),
      key: readFileSync(this.#pki.etcdClientKey, "utf8"),
    };
  }

  #notReady(): Error {
    return new Error(`local cluster "${this.name}" is not ready yet: await cluster.ready first`);
  }

  #writeKubeconfig(): void {
    this.#kubeconfig = buildKubeconfig(this.name, this.server, this.#tls);
    writePrivateFile(this.kubeconfigPath, this.#kubeconfig);
  }
}
