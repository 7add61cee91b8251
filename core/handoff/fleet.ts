/**
 * `fleetStatus`: did GitOps take each add-on over on each workload cluster of a Cluster API
 * management cluster? It finds the Clusters (`fleet-targets.ts`: a namespace, a label selector, or
 * the Clusters each given HelmChartProxy or ClusterResourceSet selects), takes the add-ons from those
 * carriers and from the records given, reads each cluster's kubeconfig from its
 * `<cluster>-kubeconfig` Secret and judges every add-on there with `observe` and `judgeHandoff`,
 * the same reads and rules as `verifyHandoff`. At most `concurrency` clusters are read at once,
 * each within `clusterTimeout`; a cluster that cannot be judged (being deleted, no or a malformed
 * kubeconfig Secret, an API server that does not answer in time) gets the `unreachable` verdict
 * naming why, for every add-on, and every other cluster is still judged. Every string returned has
 * passed `printable` with every kubeconfig read registered as secret.
 *
 * @module
 */
import { type KubeClient, kubeClient } from "../cluster/client.js";
import { clusterIdentityFromKubeconfig } from "../cluster/identity.js";
import { Redactor } from "../helm/redact.js";
import { Duration } from "../spec/duration.js";
import {
  type CarrierAddon,
  clusterResourceSetAddon,
  type FleetCluster,
  helmChartProxyAddon,
  listClusters,
  readKubeconfigSecret,
  selectorQuery,
} from "./fleet-targets.js";
import { type CarrierBootstrap, type HandoffStatus, judgeHandoff, unreachable } from "./judge.js";
import { observe } from "./observe.js";
import { printableDeep } from "./printable.js";
import { type HandoffRecord, namedReleaseRecord, splitRelease } from "./record.js";

/** Options of {@link fleetStatus}. */
export interface FleetStatusOptions {
  /** kubeconfig content of the Cluster API management cluster. */
  readonly managementKubeconfig: string;
  /** Its context. @default its current-context */
  readonly context?: string;
  /** Namespace of the Clusters, their kubeconfig Secrets and the carriers. @default "default" */
  readonly namespace?: string;
  /** Only the Clusters matching this label selector (`a=b,c in (d)`). @default every Cluster of the namespace (or of the carriers) */
  readonly selector?: string;
  /** HelmChartProxies whose add-on is judged on every Cluster each one selects. @default none */
  readonly helmChartProxies?: readonly string[];
  /** ClusterResourceSets whose carried release is judged on every Cluster each one selects. @default none */
  readonly clusterResourceSets?: readonly string[];
  /**
   * Add-ons judged on every Cluster found: handoff records (their cluster is replaced by each
   * workload cluster) or `NS/NAME` releases (a record at revision 0, as `status --release`). @default none
   */
  readonly records?: readonly (HandoffRecord | string)[];
  /** How many clusters are read at once. @default 8 */
  readonly concurrency?: number;
  /** How long one cluster may take, all its add-ons together (`20s`, `1m`). @default "30s" */
  readonly clusterTimeout?: string;
  /** Called after each cluster is judged (a progress line). @default none */
  readonly onProgress?: (judged: number, total: number) => void;
}

/** The verdict on one add-on on one workload cluster. */
export interface FleetVerdict {
  /** `namespace/name` of the `Cluster`. */
  readonly cluster: string;
  /** `namespace/name` of the release. */
  readonly addon: string;
  /** `Kind namespace/name` of the carrier that delivers it, if it came from one. */
  readonly carrier: string | undefined;
  /** The verdict, as `verifyHandoff` gives it (`unreachable` when the cluster could not be read). */
  readonly status: HandoffStatus;
}

/** The verdicts on a fleet, and how each add-on fares across it. */
export interface FleetStatus {
  /** One per cluster and add-on, by add-on, then cluster. */
  readonly verdicts: readonly FleetVerdict[];
  /** One per add-on: on how many of its clusters it is handed off, not yet, or has a problem. */
  readonly addons: readonly {
    /** `namespace/name` of the release. */
    readonly addon: string;
    /** `Kind namespace/name` of its carrier, if it came from one. */
    readonly carrier: string | undefined;
    /** On how many clusters it was judged. */
    readonly clusters: number;
    /** Handed off (exit code 0). */
    readonly handedOff: number;
    /** Not taken over yet (3). */
    readonly notYet: number;
    /** A problem, `unreachable` included (1). */
    readonly problems: number;
  }[];
  /** 0 every verdict handed off, 3 some not yet and no problem, 1 any problem. */
  readonly exitCode: 0 | 1 | 3;
}

/** One add-on to judge and the Clusters it is judged on. */
interface Target {
  readonly addon: string;
  readonly carrier: CarrierAddon | undefined;
  readonly record: (clusterId: string, server: string, revision: number) => HandoffRecord;
  readonly clusters: ReadonlySet<string>;
}

function recordFor(addon: CarrierAddon) {
  return (clusterId: string, server: string, revision: number): HandoffRecord =>
    namedReleaseRecord({
      clusterId,
      server,
      releaseName: addon.releaseName,
      namespace: addon.namespace,
      ...(addon.chart === undefined ? {} : { chart: addon.chart }),
      chartVersion: addon.version,
      revision,
    });
}

function givenRecord(given: HandoffRecord | string) {
  if (typeof given !== "string") {
    return (clusterId: string, server: string): HandoffRecord => ({
      ...given,
      cluster: { id: clusterId, server },
    });
  }
  const release = splitRelease(given);
  if (release === undefined) throw new Error(`a release must be NS/NAME, not "${given}"`);
  return (clusterId: string, server: string): HandoffRecord =>
    namedReleaseRecord({ clusterId, server, releaseName: release.name, namespace: release.namespace });
}

/** Runs `work` on each item, at most `limit` at once. */
async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

/** Resolves with `run`'s value, or rejects with `onTimeout` after `ms` (`run` is then abandoned). */
async function within<T>(ms: number, run: Promise<T>, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  run.catch(() => undefined);
  try {
    return await Promise.race([run, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The message of an error, on one line. */
function why(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
}

/** Judges every target of one cluster; never throws. */
async function judgeCluster(
  management: KubeClient,
  cluster: FleetCluster,
  targets: readonly Target[],
  timeout: Duration,
  redactor: Redactor,
): Promise<FleetVerdict[]> {
  const id = `${cluster.namespace}/${cluster.name}`;
  const mine = targets.filter((t) => t.clusters.has(id));
  const all = (message: string, action: string): FleetVerdict[] =>
    mine.map((t) => ({
      cluster: id,
      addon: t.addon,
      carrier: t.carrier?.carrier,
      status: unreachable(t.addon, message, action),
    }));
  if (mine.length === 0) return [];
  if (cluster.deleting !== undefined) {
    return all(
      `Cluster ${id} is being deleted (since ${cluster.deleting}): not judged`,
      "nothing to hand off on a cluster going away",
    );
  }
  let client: KubeClient | undefined;
  let server = "";
  // Set at the deadline: the abandoned run closes what it opens late and starts no more reads.
  let abandoned = false;
  const run = async (): Promise<FleetVerdict[]> => {
    const secret = await readKubeconfigSecret(management, cluster);
    if ("problem" in secret)
      return all(secret.problem, `kubectl get cluster -n ${cluster.namespace} ${cluster.name}`);
    redactor.addKubeconfig(secret.kubeconfig);
    let identity: { clusterId: string; server: string };
    try {
      identity = clusterIdentityFromKubeconfig(secret.kubeconfig);
      server = identity.server;
      client = await kubeClient(secret.kubeconfig);
      if (abandoned) client.close();
    } catch (error) {
      return all(
        `the kubeconfig in Secret ${id}-kubeconfig is not usable: ${why(error)}`,
        `fix the Secret's key "value" (Cluster API writes it from the control plane)`,
      );
    }
    const verdicts: FleetVerdict[] = [];
    for (const t of mine) {
      if (abandoned) break;
      const delivery = t.carrier === undefined ? undefined : await t.carrier.delivery(cluster.name);
      const record = t.record(identity.clusterId, identity.server, delivery?.revision ?? 0);
      const bootstrap: CarrierBootstrap | undefined =
        t.carrier === undefined || delivery === undefined
          ? undefined
          : {
              by: t.carrier.carrier,
              delivered: delivery.delivered,
              inspect: t.carrier.inspect.replace("CLUSTER", cluster.name),
            };
      let status: HandoffStatus;
      try {
        status = judgeHandoff(record, await observe(client, record), bootstrap);
      } catch (error) {
        status = unreachable(
          t.addon,
          `the API server ${identity.server} cannot be read: ${why(error)}`,
          `check that Cluster ${id} is up (kubectl get cluster -n ${cluster.namespace} ${cluster.name})`,
        );
      }
      verdicts.push({ cluster: id, addon: t.addon, carrier: t.carrier?.carrier, status });
    }
    return verdicts;
  };
  try {
    return await within(timeout.toMilliseconds(), run(), () => new Error("deadline"));
  } catch (error) {
    const where = server === "" ? `Cluster ${id}` : `the API server ${server} of Cluster ${id}`;
    return why(error) === "deadline"
      ? all(
          `${where} did not answer within ${timeout}`,
          `check that Cluster ${id} is up (kubectl get cluster -n ${cluster.namespace} ${cluster.name})`,
        )
      : all(
          `${where} cannot be judged: ${why(error)}`,
          `kubectl get cluster -n ${cluster.namespace} ${cluster.name}`,
        );
  } finally {
    abandoned = true;
    (client as KubeClient | undefined)?.close();
  }
}

/** The add-ons to judge and the Clusters to judge them on, read from the management cluster. */
async function discover(
  management: KubeClient,
  options: FleetStatusOptions,
  namespace: string,
): Promise<{ targets: Target[]; clusters: FleetCluster[] }> {
  const carriers = [
    ...(await Promise.all(
      (options.helmChartProxies ?? []).map((n) => helmChartProxyAddon(management, namespace, n)),
    )),
    ...(await Promise.all(
      (options.clusterResourceSets ?? []).map((n) => clusterResourceSetAddon(management, namespace, n)),
    )),
  ];
  const given = options.records ?? [];
  if (carriers.length === 0 && given.length === 0) {
    throw new Error(
      "nothing to judge: give a HelmChartProxy, a ClusterResourceSet, a release (NS/NAME) or handoff records",
    );
  }
  const selector = options.selector ?? "";
  const byName = new Map<string, FleetCluster>();
  const targets: Target[] = [];
  const found = async (extra: string): Promise<Set<string>> => {
    const query = [selector, extra].filter((s) => s !== "").join(",");
    const clusters = await listClusters(management, namespace, query);
    for (const c of clusters) byName.set(`${c.namespace}/${c.name}`, c);
    return new Set(clusters.map((c) => `${c.namespace}/${c.name}`));
  };
  for (const c of carriers) {
    const clusters = await found(selectorQuery(c.selector));
    targets.push({ addon: `${c.namespace}/${c.releaseName}`, carrier: c, record: recordFor(c), clusters });
  }
  if (given.length > 0) {
    const clusters = await found("");
    for (const g of given) {
      const addon = typeof g === "string" ? g : `${g.release.namespace}/${g.release.name}`;
      targets.push({ addon, carrier: undefined, record: givenRecord(g), clusters });
    }
  }
  const clusters = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  if (clusters.length === 0) {
    const what = [
      selector === "" ? "" : `the selector "${selector}"`,
      carriers.length > 0 ? "the carriers' clusterSelector" : "",
    ].filter((w) => w !== "");
    throw new Error(
      `no Cluster in namespace ${namespace}${what.length > 0 ? ` matches ${what.join(" and ")}` : ""}: nothing was judged`,
    );
  }
  return { targets, clusters };
}

/**
 * Judges each add-on on each workload cluster of a Cluster API management cluster (see the module
 * comment). The verdicts are safe to print: every kubeconfig read is redacted from them.
 * @throws Error when the management cluster, a carrier or the Clusters cannot be read, or nothing is given to judge
 */
export async function fleetStatus(options: FleetStatusOptions): Promise<FleetStatus> {
  const namespace = options.namespace ?? "default";
  const redactor = new Redactor().addKubeconfig(options.managementKubeconfig);
  const management = await kubeClient(
    options.managementKubeconfig,
    options.context ? { context: options.context } : {},
  );
  try {
    const { targets, clusters } = await discover(management, options, namespace).catch((error: unknown) => {
      // A refused or silent management API server is named, not left as a bare socket error.
      const network = error instanceof Error && ("code" in error || /^no answer from /.test(error.message));
      throw network
        ? new Error(`the management cluster ${management.server} cannot be read: ${why(error)}`)
        : error;
    });
    const timeout = Duration.parse(options.clusterTimeout ?? "30s", "clusterTimeout");
    const results = new Map<string, FleetVerdict[]>();
    let judged = 0;
    await pool(clusters, options.concurrency ?? 8, async (c) => {
      results.set(`${c.namespace}/${c.name}`, await judgeCluster(management, c, targets, timeout, redactor));
      options.onProgress?.(++judged, clusters.length);
    });
    const verdicts = targets.flatMap((t) =>
      clusters.flatMap((c) =>
        (results.get(`${c.namespace}/${c.name}`) ?? []).filter(
          (v) => v.addon === t.addon && v.carrier === t.carrier?.carrier,
        ),
      ),
    );
    return printableDeep(summarize(targets, verdicts), redactor);
  } finally {
    management.close();
  }
}

function summarize(targets: readonly Target[], verdicts: readonly FleetVerdict[]): FleetStatus {
  const addons = targets.map((t) => {
    const mine = verdicts.filter((v) => v.addon === t.addon && v.carrier === t.carrier?.carrier);
    const count = (code: number) => mine.filter((v) => v.status.exitCode === code).length;
    return {
      addon: t.addon,
      carrier: t.carrier?.carrier,
      clusters: mine.length,
      handedOff: count(0),
      notYet: count(3),
      problems: count(1),
    };
  });
  const codes = verdicts.map((v) => v.status.exitCode);
  return { verdicts, addons, exitCode: codes.includes(1) ? 1 : codes.includes(3) ? 3 : 0 };
}
