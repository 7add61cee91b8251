/**
 * What the fault campaign's runs share, set up once and reused: one local cluster or several
 * (etcd and kube-apiserver; no workloads: the campaign's chart makes ConfigMaps only; with several,
 * a run's add-ons are spread over them in one program and a cluster fault hits one), each with a
 * loopback TCP proxy in front of its API server (the add-ons' kubeconfig points at it, so the
 * network can be cut without touching the admin client the checks use), the three chart sources (an HTTP repository
 * that can answer 5xx or stall, an OCI registry, a directory), a sandbox `TMPDIR` that tells the
 * campaign's processes and temp dirs apart, and the JavaScript project the CLI runs use (the
 * `npm pack` tarball installed once). A run gets its own stack and release names; reusing the
 * cluster hides nothing a run checks, since every check is by release name.
 *
 * Test-only code.
 *
 * @module
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type LocalCluster, startLocalCluster } from "../../local-cluster/index.js";
import { localChart } from "../support/charts.js";
import { createSandbox, type Sandbox } from "../support/faults.js";
import { createProject, installedVersion, type Project } from "../support/project.js";
import {
  type HttpChartRepo,
  type OciRegistry,
  startHttpChartRepo,
  startOciRegistry,
} from "../support/repos.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.js";

/** The chart every add-on of the campaign installs: ConfigMaps only, any extra values accepted. */
export const CHAOS_CHART = "big";
/** Its version in test/charts/big/Chart.yaml. */
export const CHAOS_CHART_VERSION = "0.1.0";

/** Where an add-on's chart comes from. */
export type ChartSourceKind = "repo" | "oci" | "path";

/** One cluster of the world, as the add-ons on it reach it. */
export interface Target {
  readonly cluster: LocalCluster;
  readonly proxy: TcpProxy;
  /** The admin kubeconfig with its server behind {@link proxy}: what its add-ons get. */
  readonly kubeconfig: string;
}

/** The shared parts of the campaign. */
export interface World {
  /** The clusters: one, or several for a multi-cluster campaign. */
  readonly targets: readonly [Target, ...Target[]];
  readonly repo: HttpChartRepo;
  readonly oci: OciRegistry;
  /** `oci://HOST/charts/big`. */
  readonly ociRef: string;
  readonly chartDir: string;
  readonly sandbox: Sandbox;
  /** The CLI runs' project: `index.js` declares the add-ons listed in `addons.json`. */
  readonly project: Project;
  /** Stops everything and removes the temp dirs. */
  close(): Promise<void>;
}

/**
 * The CLI runs' program: one `ClusterAddon` per entry of `addons.json`, which the campaign rewrites
 * before every operation (`ClusterAddon` keeps the kubeconfig and the values secret).
 */
const CLI_PROGRAM = `"use strict";
const fs = require("node:fs");
const { ClusterAddon } = require("helm-handoff/pulumi");
const out = {};
for (const a of JSON.parse(fs.readFileSync(__dirname + "/addons.json", "utf8"))) {
  out[a.name + "Status"] = new ClusterAddon(a.name, a.args).status;
}
module.exports = out;
`;

/** The cluster an add-on is on (`cluster`, an index into the world's targets). */
export function targetOf(world: World, a: { readonly cluster: number }): Target {
  return world.targets[a.cluster] ?? world.targets[0];
}

/** Starts everything a run needs, with `clusters` local clusters (default one). */
export async function startWorld(log: (line: string) => void, clusters = 1): Promise<World> {
  const closers: Array<() => Promise<unknown>> = [];
  const close = async (): Promise<void> => {
    for (const c of closers.reverse()) await c().catch(() => undefined);
  };
  try {
    log(
      `starting ${clusters} local cluster(s) with a TCP proxy each, an HTTP chart repository and an OCI registry`,
    );
    const targets: Target[] = [];
    for (let i = 0; i < clusters; i++) {
      const cluster = await startLocalCluster({ name: i === 0 ? "chaos" : `chaos-${i}` });
      closers.push(() => cluster.stop());
      const target = new URL(cluster.server);
      const proxy = await startTcpProxy(target.hostname, Number(target.port));
      closers.push(() => proxy.close());
      const kubeconfig = cluster.kubeconfig.replace(cluster.server, `https://${proxy.address}`);
      if (kubeconfig === cluster.kubeconfig)
        throw new Error("the kubeconfig does not name the API server URL");
      targets.push({ cluster, proxy, kubeconfig });
    }
    const repo = await startHttpChartRepo({ charts: [CHAOS_CHART] });
    closers.push(() => repo.close());
    const oci = await startOciRegistry();
    closers.push(() => oci.close());
    const archive = repo.charts.find((c) => c.name === CHAOS_CHART);
    if (archive === undefined) throw new Error(`the repository has no ${CHAOS_CHART} chart`);
    const pushed = await oci.push(archive.path);
    const sandbox = await createSandbox();
    closers.push(() => sandbox.remove());
    log("installing the npm pack tarball into the CLI runs' project");
    const project = await createProject({
      name: "chaos",
      packageJson: { main: "index.js" },
      dependencies: { "@pulumi/pulumi": installedVersion("@pulumi/pulumi") },
      files: {
        "index.js": CLI_PROGRAM,
        "addons.json": "[]\n",
        "Pulumi.yaml": "name: chaos\nruntime: nodejs\n",
      },
    });
    closers.push(() => project.remove());
    return {
      targets: targets as [Target, ...Target[]],
      repo,
      oci,
      ociRef: pushed.ref,
      chartDir: localChart(CHAOS_CHART),
      sandbox,
      project,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Writes the add-ons of the CLI program (see {@link CLI_PROGRAM}). */
export async function writeCliAddons(world: World, addons: unknown[]): Promise<void> {
  await writeFile(join(world.project.dir, "addons.json"), `${JSON.stringify(addons, null, 2)}\n`);
}
