/**
 * What the campaign expects of each add-on of a run: its program (strategy, chart source, values,
 * the secret in its values) and the release the cluster should hold after the operations so far,
 * updated after every operation that converged. The rules are the product's promises: a Reconcile
 * add-on's release has the program's values and is uninstalled by destroy; an ApplyOnce add-on's
 * keeps the values it was installed with (or found with, when it adopted a release) through value
 * changes, replacement and destroy; a release another owner wrote keeps that owner's revision.
 *
 * Test-only code.
 *
 * @module
 */
import type { ClusterAddonArgs } from "../../provider/index.js";
import type { Decl } from "./drivers.js";
import type { Rng } from "./rng.js";
import { CHAOS_CHART, CHAOS_CHART_VERSION, type ChartSourceKind, targetOf, type World } from "./world.js";

/** Values of a release. */
export type Values = Record<string, unknown>;

/** A helm storage revision pinned when another owner wrote it: it must never change. */
export interface Pinned {
  readonly revision: number;
  readonly secretName: string;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly data: string;
}

/** One add-on of a run. */
export interface AddonModel {
  /** Resource name and release name. */
  readonly name: string;
  strategy: "ApplyOnce" | "Reconcile";
  readonly source: ChartSourceKind;
  /** Which of the world's clusters it is on (an index into its targets). */
  readonly cluster: number;
  /** Bumped by every values change. */
  gen: number;
  /** The secret in its values now (a new one with every values change). */
  token: string;
  /** Every secret its values had during the run (searched for in the state and the output). */
  readonly tokens: string[];
  /** The values the release should hold, or undefined when there should be no release. */
  expected: Values | undefined;
  /** Declared by the program. */
  inStack: boolean;
  /** A release planted under its name before the first up, by someone else. */
  foreign?: Pinned;
  /** A revision another owner wrote on top of ours (a GitOps upgrade after handoff). */
  takenOver?: Pinned;
}

/** The values the program gives an add-on now. */
export function programValues(a: AddonModel, runSeed: number): Values {
  return { count: 1, kibPerObject: 1, run: runSeed, gen: a.gen, token: a.token };
}

/**
 * Draws the add-ons of a run, spread over `clusters` clusters (the draw of a cluster only happens
 * with more than one, so a one-cluster run draws what it always drew).
 */
export function drawAddons(rng: Rng, count: number, prefix: string, clusters = 1): AddonModel[] {
  return Array.from({ length: count }, (_, i) => {
    const strategy = rng.chance(0.5) ? ("ApplyOnce" as const) : ("Reconcile" as const);
    const source = rng.pick(["repo", "oci", "path"] as const);
    const token = newToken(rng);
    // Round-robin first, so every cluster gets an add-on when there are enough.
    const cluster = clusters > 1 ? (i < clusters ? i : rng.int(0, clusters - 1)) : 0;
    return {
      name: `${prefix}-${i}`,
      strategy,
      source,
      cluster,
      gen: 0,
      token,
      tokens: [token],
      expected: undefined,
      inStack: true,
    };
  });
}

/** A new secret for an add-on's values. */
export function newToken(rng: Rng): string {
  return `tok${rng.token(20)}`;
}

/** The program's declaration of an add-on. */
export function declOf(world: World, a: AddonModel, runSeed: number): Decl {
  const chart: ClusterAddonArgs["chart"] =
    a.source === "path"
      ? { path: world.chartDir }
      : a.source === "repo"
        ? { repo: world.repo.url, name: CHAOS_CHART, version: CHAOS_CHART_VERSION }
        : { repo: world.oci.url, name: CHAOS_CHART, version: CHAOS_CHART_VERSION, plainHttp: true };
  return {
    name: a.name,
    args: {
      kubeconfig: targetOf(world, a).kubeconfig,
      chart,
      releaseName: a.name,
      namespace: "default",
      strategy: a.strategy,
      values: programValues(a, runSeed),
      install: { timeout: "20s" },
      retry: { deadline: "25s", minBackoff: "500ms", maxBackoff: "3s" },
    },
  };
}

/** The model after an `up` converged: Reconcile releases follow the program, ApplyOnce ones stay. */
export function afterUp(addons: readonly AddonModel[], runSeed: number): void {
  for (const a of addons) {
    if (!a.inStack) continue;
    if (a.strategy === "Reconcile") a.expected = programValues(a, runSeed);
    else a.expected ??= programValues(a, runSeed);
  }
}

/**
 * The model after a `destroy` converged: Reconcile releases are gone, ApplyOnce ones stay. The
 * exception, by design: a Reconcile delete that found the cluster unreachable for 30 s takes it as
 * gone and leaves the release (`leftUnreachable`, the names its warning line named).
 */
export function afterDestroy(addons: readonly AddonModel[], leftUnreachable: ReadonlySet<string>): void {
  for (const a of addons) {
    if (!a.inStack) continue;
    if (a.strategy === "Reconcile" && !leftUnreachable.has(a.name)) a.expected = undefined;
    a.inStack = false;
  }
}

/** The releases a destroy's output says it left because the cluster was unreachable. */
export function leftUnreachable(output: string): Set<string> {
  const left = /unreachable for \S+; leaving release [^/\s]+\/(\S+) as it is and dropping it from state/g;
  return new Set([...output.matchAll(left)].map((m) => m[1] ?? ""));
}
