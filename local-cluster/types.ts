/**
 * The public shapes of a local cluster: the options of `startLocalCluster`, the running
 * cluster's interface, its identity and its processes (the implementation is `startLocalCluster`).
 *
 * @module
 */
import type { ApiResponse } from "./control-plane/api.js";
import type { GitopsControllers, GitopsKind } from "./controllers/host.js";

/** Options of `startLocalCluster`. */
export interface LocalClusterOptions {
  /**
   * Cluster name: kubeconfig cluster/context name and part of the temp dir name. Lowercase letters,
   * digits and "-".
   * @default "local"
   */
  readonly name?: string;
  /**
   * Also run kube-controller-manager, kube-scheduler and kwok with one fake node (`LocalCluster.nodeName`),
   * so that Deployments get Ready pods; the start waits until the node is Ready.
   * @default false
   */
  readonly workloads?: boolean;
  /**
   * Milliseconds between starting etcd and starting kube-apiserver, as for a freshly provisioned
   * cluster. When above 0, `startLocalCluster` returns as soon as the kubeconfig is written and
   * {@link LocalCluster.ready} settles later.
   * @default 0
   */
  readonly apiServerDelay?: number;
  /**
   * Milliseconds the whole start (after `apiServerDelay`) and each {@link LocalCluster.startApiServer} may
   * take before failing.
   * @default 120000
   */
  readonly startTimeout?: number;
  /**
   * Also run real GitOps controllers as host processes: `"flux"` (source-controller and
   * helm-controller) or `"argocd"` (application-controller, repo-server and Redis), with their CRDs;
   * the start waits until they are ready and {@link LocalCluster.stop} stops them. Usually together
   * with `workloads: true`, so that the objects they deploy become Ready.
   * @default none
   */
  readonly gitops?: GitopsKind;
  /**
   * Also make the cluster a Cluster API management cluster: the real Cluster API core manager and
   * CAAPH as host processes with their CRDs, and `capi.workloadClusters` more local clusters
   * registered as `Cluster` objects (see {@link CapiOptions}); the start waits until Cluster API is
   * connected to each, and {@link LocalCluster.stop} stops them all. This phase gets its own
   * `startTimeout`.
   * @default none
   */
  readonly capi?: CapiOptions;
}

/** What identifies one cluster: a recreated cluster has a new kube-system UID and a new CA. */
export interface LocalClusterIdentity {
  /** UID of the kube-system namespace. */
  readonly uid: string;
  /** sha256 of the CA certificate's DER encoding, lowercase hex without colons. */
  readonly caFingerprint: string;
}

/** A running process of the cluster, as listed by {@link LocalCluster.processes}. */
export interface ClusterProcess {
  /**
   * `guard`, `etcd`, `kube-apiserver`, `kube-controller-manager`, `kube-scheduler`, `kwok`, a GitOps
   * controller, `capi-manager` or `caaph-manager` (a workload cluster lists its own).
   */
  readonly name: string;
  /** Process id. */
  readonly pid: number;
}

/** A throwaway Kubernetes control plane on 127.0.0.1, made of local processes. */
export interface LocalCluster {
  /** The cluster name. */
  readonly name: string;
  /** The kubeconfig (admin client certificate, embedded CA), as YAML text. */
  readonly kubeconfig: string;
  /** The same kubeconfig as a file with mode 0600, inside {@link dir}. */
  readonly kubeconfigPath: string;
  /** The API server URL, `https://127.0.0.1:PORT`; it never changes, even across API server restarts. */
  readonly server: string;
  /** The cluster's temporary directory (certificates, etcd data, logs), removed by {@link stop}. */
  readonly dir: string;
  /** Where each daemon appends its output (`etcd.log`, `kube-apiserver.log`, ...). */
  readonly logDir: string;
  /** The GitOps controllers when started with `gitops`; set once {@link ready} has resolved. */
  readonly gitops: GitopsControllers | undefined;
  /** The Cluster API side when started with `capi`: the workload clusters; set once {@link ready} has resolved. */
  readonly capi: CapiManagement | undefined;
  /** The fake node's name when started with `workloads: true`. */
  readonly nodeName: string | undefined;
  /**
   * The cluster's identity.
   * @throws Error `local cluster "NAME" is not ready yet: await cluster.ready first` before {@link ready}
   * has resolved.
   */
  readonly identity: LocalClusterIdentity;
  /**
   * Resolves with the identity once the API server answers `/readyz` (and, with workloads, the node is
   * Ready); already resolved when `apiServerDelay` is 0. Rejects when the start fails or {@link stop} is
   * called first; call {@link stop} afterwards in any case.
   */
  readonly ready: Promise<LocalClusterIdentity>;
  /** The processes running now, the guard first. */
  processes(): ClusterProcess[];
  /**
   * Sends one request to the API server as the admin user.
   *
   * @param method - HTTP method.
   * @param path - absolute API path, e.g. `/api/v1/namespaces`.
   * @param body - JSON body.
   */
  request(method: string, path: string, body?: unknown): Promise<ApiResponse>;
  /** Stops kube-apiserver with SIGTERM (SIGKILL after 10 s); etcd and its data stay. */
  stopApiServer(): Promise<void>;
  /** Kills kube-apiserver with SIGKILL (a crash); etcd and its data stay. */
  killApiServer(): Promise<void>;
  /** Starts kube-apiserver again on the same URL and waits for `/readyz`. */
  startApiServer(): Promise<void>;
  /**
   * Stops every process with SIGTERM (SIGKILL after 10 s), etcd last, and every workload cluster of
   * `capi`, waits for them and removes {@link dir}. Idempotent.
   */
  stop(): Promise<void>;
}

/** Options of the Cluster API management role of a local cluster (`startLocalCluster({ capi })`). */
export interface CapiOptions {
  /**
   * How many workload clusters to start and register as `Cluster` objects (0 or more).
   * @default 1
   */
  readonly workloadClusters?: number;
  /** Labels of every workload cluster's `Cluster` (what ClusterResourceSets and HelmChartProxies select). @default none */
  readonly labels?: Readonly<Record<string, string>>;
  /** Namespace of the `Cluster` objects and their kubeconfig Secrets; created when missing. @default "default" */
  readonly namespace?: string;
  /**
   * Run kube-controller-manager, kube-scheduler and kwok in each workload cluster (`workloads: true`),
   * so that Deployments become Ready there: needed by charts installed with `wait`.
   * @default false
   */
  readonly workloads?: boolean;
}

/** One workload cluster of a management cluster, registered as a Cluster API `Cluster`. */
export interface CapiWorkloadCluster {
  /** The `Cluster`'s name (its kubeconfig Secret is `NAME-kubeconfig`). */
  readonly name: string;
  /** The `Cluster`'s namespace. */
  readonly namespace: string;
  /** The labels the `Cluster` was registered with. */
  readonly labels: Readonly<Record<string, string>>;
  /** The workload cluster's admin kubeconfig (YAML), as in the Secret. */
  readonly kubeconfig: string;
  /** The same kubeconfig as a 0600 file. */
  readonly kubeconfigPath: string;
  /** The workload cluster itself (its API, processes and logs). */
  readonly local: LocalCluster;
}

/** Options of {@link CapiManagement.addCluster}. */
export interface AddClusterOptions {
  /** Labels of the new `Cluster`, added to {@link CapiOptions.labels}. @default none */
  readonly labels?: Readonly<Record<string, string>>;
  /** As {@link CapiOptions.workloads}. @default the management cluster's `capi.workloads` */
  readonly workloads?: boolean;
  /**
   * Also run real GitOps controllers in the new workload cluster, as {@link LocalClusterOptions.gitops}
   * (the workload cluster's own GitOps, taking over what Cluster API installed).
   * @default none
   */
  readonly gitops?: GitopsKind;
}

/** The Cluster API side of a management cluster started with `capi`. */
export interface CapiManagement {
  /** The namespace of the `Cluster` objects. */
  readonly namespace: string;
  /** The workload clusters, in the order they were registered. */
  readonly clusters: readonly CapiWorkloadCluster[];
  /**
   * Starts one more workload cluster, registers it and waits until Cluster API is connected to it
   * (`RemoteConnectionProbe` True), as a cluster created after the add-ons were declared.
   */
  addCluster(options?: AddClusterOptions): Promise<CapiWorkloadCluster>;
}
