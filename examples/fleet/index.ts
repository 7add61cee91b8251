/**
 * The fleet example: bootstrap the same add-ons into many clusters at once, the way a platform
 * team brings up a fleet. One Pulumi stack per cluster (`fleet-CLUSTER`), run as inline Automation
 * API programs in parallel with bounded concurrency ({@link DEFAULT_CONCURRENCY} by default); each
 * stack declares one ApplyOnce `ClusterAddon` per add-on. A cluster that fails does not stop the
 * others; the result says which add-on reached which revision on which cluster.
 *
 * For bigger fleets, let the management cluster do the work instead: the cdk8s construct's
 * `ClusterResourceSet` or `HelmChartProxy` output (see docs/cdk8s.md).
 *
 * @module
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as automation from "@pulumi/pulumi/automation/index.js";
import type { HandoffRecord } from "helm-handoff";
import {
  ClusterAddon,
  type ClusterAddonArgs,
  type ReleaseStatus,
  recoverInterruptedUpdate,
} from "helm-handoff/pulumi";

/** How many stacks run at once unless {@link FleetOptions.concurrency} says otherwise. */
export const DEFAULT_CONCURRENCY = 4;

/** The repository root (from the sources and from dist/). */
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

/** Where the bootstrap example's charts live. */
const chartsDir = join(repoRoot, "examples", "bootstrap", "charts");

/** One cluster of the fleet. */
export interface FleetCluster {
  /** Cluster name: lowercase letters, digits and "-"; the stack is `fleet-NAME`. */
  readonly name: string;
  /** kubeconfig content of the cluster (kept secret in the stack). */
  readonly kubeconfig: string;
}

/** One add-on every cluster gets: a `ClusterAddon` resource name plus its arguments. */
export interface FleetAddon extends Omit<ClusterAddonArgs, "kubeconfig" | "clusterId"> {
  /** Resource name, also the release name unless `releaseName` is given. */
  readonly name: string;
}

/** Options of {@link bootstrapFleet}. */
export interface FleetOptions {
  /** The clusters; each gets its own stack. */
  readonly clusters: readonly FleetCluster[];
  /**
   * The add-ons every cluster gets.
   * @default {@link defaultFleetAddons} with `wait: true`
   */
  readonly addons?: readonly FleetAddon[];
  /**
   * How many stacks run at once (at least 1).
   * @default DEFAULT_CONCURRENCY
   */
  readonly concurrency?: number;
  /**
   * Pulumi backend URL; the stacks' state lives there and later runs find it again.
   * @default `file://REPO/.pulumi-state/fleet`
   */
  readonly backendUrl?: string;
  /**
   * Passphrase of the stacks' secrets (the kubeconfigs and values are encrypted with it).
   * @default `$PULUMI_CONFIG_PASSPHRASE`, else "helm-handoff-fleet" (fine for local clusters only)
   */
  readonly passphrase?: string;
  /**
   * Pulumi project name.
   * @default "helm-handoff-fleet"
   */
  readonly projectName?: string;
  /**
   * Directory holding one work dir per stack. It must be somewhere `@pulumi/pulumi` resolves from
   * (the dynamic provider loads it from the work dir).
   * @default `REPO/node_modules/.cache/helm-handoff-fleet`
   */
  readonly workRoot?: string;
  /** Extra environment for the Pulumi CLI and its plugins (e.g. `PULUMI_HOME`). @default none */
  readonly env?: Readonly<Record<string, string>>;
  /** Receives the engine's output of each stack, line by line as it comes. @default dropped */
  readonly onOutput?: (cluster: string, text: string) => void;
}

/** One line of the summary: one add-on on one cluster. */
export interface FleetRow {
  /** Cluster name. */
  readonly cluster: string;
  /** Add-on (resource) name. */
  readonly addon: string;
  /** Release revision after the run; undefined when the add-on was not installed. */
  readonly revision: number | undefined;
  /** Helm status (`deployed`, …), or `failed` when the stack failed before the add-on was installed. */
  readonly status: string;
  /** Install attempts the first install needed (0 when unknown). */
  readonly attempts: number;
  /** Milliseconds the add-on's step took in this run (0 when it did not run). */
  readonly ms: number;
  /** The add-on's handoff record, when installed. */
  readonly handoff: HandoffRecord | undefined;
}

/** The result of one cluster's stack. */
export interface FleetClusterResult {
  /** Cluster name. */
  readonly cluster: string;
  /** Stack name. */
  readonly stack: string;
  /** Whether the stack's `up` succeeded. */
  readonly ok: boolean;
  /** The error message of a failed `up`. */
  readonly error: string | undefined;
  /** One row per add-on, in the order of {@link FleetOptions.addons}. */
  readonly rows: readonly FleetRow[];
}

/**
 * The default add-ons: the bootstrap example's CNI-like chart into `kube-system` and its
 * GitOps-controller-like chart into `gitops-system`, both ApplyOnce.
 *
 * @param wait - whether helm waits for the workloads to become ready (false for clusters without nodes)
 */
export function defaultFleetAddons(wait = true): FleetAddon[] {
  return [
    {
      name: "cni",
      chart: { path: join(chartsDir, "cni") },
      namespace: "kube-system",
      values: { ipam: { mode: "kubernetes" } },
      install: { wait },
    },
    {
      name: "gitops",
      chart: { path: join(chartsDir, "gitops") },
      namespace: "gitops-system",
      createNamespace: true,
      values: { replicas: 1 },
      install: { wait },
    },
  ];
}

/**
 * Runs `pulumi up` of one stack per cluster, at most `concurrency` at once, and resolves with one
 * result per cluster (in the order of `clusters`) once every stack has finished. Never rejects
 * because of one cluster: its result has `ok: false` and the error.
 */
export async function bootstrapFleet(options: FleetOptions): Promise<FleetClusterResult[]> {
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? DEFAULT_CONCURRENCY));
  const addons = options.addons ?? defaultFleetAddons();
  const results: FleetClusterResult[] = new Array(options.clusters.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const index = next++;
      const cluster = options.clusters[index];
      if (cluster === undefined) return;
      results[index] = await bootstrapCluster(cluster, addons, options);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, options.clusters.length) }, worker));
  return results;
}

async function bootstrapCluster(
  cluster: FleetCluster,
  addons: readonly FleetAddon[],
  options: FleetOptions,
): Promise<FleetClusterResult> {
  const stackName = `fleet-${cluster.name}`;
  const started = new Map<string, number>();
  const took = new Map<string, number>();
  const program = async (): Promise<Record<string, unknown>> => {
    const outputs: Record<string, unknown> = {};
    for (const { name, ...args } of addons) {
      const addon = new ClusterAddon(name, { ...args, kubeconfig: cluster.kubeconfig });
      outputs[`${name}Status`] = addon.status;
      outputs[`${name}Handoff`] = addon.handoff;
    }
    return outputs;
  };
  const backendUrl = options.backendUrl ?? `file://${join(repoRoot, ".pulumi-state", "fleet")}`;
  if (backendUrl.startsWith("file://")) await mkdir(backendUrl.slice("file://".length), { recursive: true });
  const workDir = join(
    options.workRoot ?? join(repoRoot, "node_modules", ".cache", "helm-handoff-fleet"),
    stackName,
  );
  await mkdir(workDir, { recursive: true });
  try {
    const stack = await automation.LocalWorkspace.createOrSelectStack(
      { stackName, projectName: options.projectName ?? "helm-handoff-fleet", program },
      {
        workDir,
        // The `pulumi` on PATH (a Pulumi install, or this repository's toolchain under its scripts).
        pulumiCommand: await automation.PulumiCommand.get(),
        envVars: {
          PULUMI_BACKEND_URL: backendUrl,
          PULUMI_CONFIG_PASSPHRASE:
            options.passphrase ?? process.env.PULUMI_CONFIG_PASSPHRASE ?? "helm-handoff-fleet",
          PULUMI_SKIP_UPDATE_CHECK: "true",
          PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
          ...options.env,
        },
      },
    );
    // A run killed earlier (a cancelled CI job) left a stale lock and pending creates: clear them.
    await recoverInterruptedUpdate(stack, {
      onMessage: (line) => options.onOutput?.(cluster.name, `[helm-handoff] ${line}\n`),
    });
    const up = await stack.up({
      color: "never",
      onOutput: (text) => options.onOutput?.(cluster.name, text),
      onEvent: (event) => {
        // Time each add-on by its release resource's step (the package's provider serves it by
        // default, Pulumi's dynamic provider host on request).
        const step = event.resourcePreEvent?.metadata ?? event.resOutputsEvent?.metadata;
        if (step === undefined || !/helm-handoff:(index:)?ClusterAddon$/.test(step.type)) return;
        const name = step.urn.slice(step.urn.lastIndexOf("::") + 2);
        if (event.resourcePreEvent !== undefined) started.set(name, Date.now());
        else took.set(name, Date.now() - (started.get(name) ?? Date.now()));
      },
    });
    const rows = addons.map((a): FleetRow => {
      const status = up.outputs[`${a.name}Status`]?.value as ReleaseStatus | undefined;
      return {
        cluster: cluster.name,
        addon: a.name,
        revision: status?.revision,
        status: status?.status ?? "unknown",
        attempts: status?.attempts ?? 0,
        ms: took.get(a.name) ?? 0,
        handoff: up.outputs[`${a.name}Handoff`]?.value as HandoffRecord | undefined,
      };
    });
    return { cluster: cluster.name, stack: stackName, ok: true, error: undefined, rows };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const rows = addons.map(
      (a): FleetRow => ({
        cluster: cluster.name,
        addon: a.name,
        revision: undefined,
        status: "failed",
        attempts: 0,
        ms: took.get(a.name) ?? 0,
        handoff: undefined,
      }),
    );
    return { cluster: cluster.name, stack: stackName, ok: false, error: message, rows };
  }
}

/** The summary table: cluster, add-on, revision, status, attempts, time; one line per add-on per cluster. */
export function formatFleetSummary(results: readonly FleetClusterResult[]): string {
  const header = ["cluster", "add-on", "revision", "status", "attempts", "time"];
  const lines = results.flatMap((r) =>
    r.rows.map((row) => [
      row.cluster,
      row.addon,
      row.revision === undefined ? "-" : String(row.revision),
      row.status,
      String(row.attempts),
      row.ms === 0 ? "-" : `${(row.ms / 1000).toFixed(1)}s`,
    ]),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? "").length)));
  const format = (cells: readonly string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  const out = [format(header), format(widths.map((w) => "-".repeat(w))), ...lines.map(format)];
  for (const r of results) if (!r.ok) out.push(`${r.cluster}: ${r.error ?? "failed"}`);
  return `${out.join("\n")}\n`;
}
