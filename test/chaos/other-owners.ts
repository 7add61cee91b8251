/**
 * What other owners do to a run's releases: someone installs a release under a name one add-on
 * will use before the first `up` (a foreign release), and a GitOps controller upgrades a handed-off
 * release (another owner's revision on top of ours). Both write with plain helm and the admin
 * kubeconfig, never with helm-handoff, and pin the helm storage Secret they wrote, which must stay
 * byte-identical for the rest of the run.
 *
 * Test-only code.
 *
 * @module
 */
import { setTimeout as sleep } from "node:timers/promises";
import { liveRelease } from "../support/addon.js";
import { runHelm } from "../support/charts.js";
import type { AddonModel, Pinned, Values } from "./model.js";
import { targetOf, type World } from "./world.js";

/** The add-on whose release another owner writes: its name, and the cluster it is on. */
type Release = Pick<AddonModel, "name" | "cluster">;

/** Reads helm's storage Secret of `release` at `revision` as it is now. */
export async function readPinned(world: World, release: Release, revision: number): Promise<Pinned> {
  const secretName = `sh.helm.release.v1.${release.name}.v${revision}`;
  const res = await targetOf(world, release).cluster.request(
    "GET",
    `/api/v1/namespaces/default/secrets/${secretName}`,
  );
  if (!res.ok) throw new Error(`reading ${secretName}: HTTP ${res.status} ${res.text}`);
  const s = res.json<{
    metadata: { uid: string; resourceVersion: string; labels?: unknown };
    data?: unknown;
  }>();
  return {
    revision,
    secretName,
    uid: s.metadata.uid,
    resourceVersion: s.metadata.resourceVersion,
    data: JSON.stringify({ labels: s.metadata.labels, data: s.data }),
  };
}

/**
 * Plain `helm ARGS` as the cluster's admin, in the default namespace; retried a few times, as the
 * other owner (a controller, a person) would, when the API server is still coming back from the
 * last fault.
 */
async function helmAsAdmin(world: World, release: Release, args: readonly string[]): Promise<void> {
  const { kubeconfigPath } = targetOf(world, release).cluster;
  for (let attempt = 1; ; attempt++) {
    try {
      await runHelm([...args, "--kubeconfig", kubeconfigPath, "--namespace", "default"]);
      return;
    } catch (error) {
      if (attempt >= 5) throw error;
      await sleep(2000);
    }
  }
}

/** Installs a foreign release under `release`'s name from the chart directory; resolves with its values and pin. */
export async function plantForeignRelease(
  world: World,
  release: Release,
  values: Values,
): Promise<{ readonly values: Values; readonly pinned: Pinned }> {
  const sets = Object.entries(values).flatMap(([k, v]) => ["--set-string", `${k}=${String(v)}`]);
  await helmAsAdmin(world, release, ["install", release.name, world.chartDir, ...sets]);
  return settled(world, release);
}

/** Upgrades `release` as a GitOps controller would (its values plus `owner=gitops`). */
export async function upgradeAsOtherOwner(
  world: World,
  release: Release,
): Promise<{ readonly values: Values; readonly pinned: Pinned }> {
  await helmAsAdmin(world, release, [
    "upgrade",
    release.name,
    world.chartDir,
    "--reuse-values",
    "--set-string",
    "owner=gitops",
  ]);
  return settled(world, release);
}

async function settled(world: World, release: Release): Promise<{ values: Values; pinned: Pinned }> {
  const live = await liveRelease(targetOf(world, release).cluster, release.name);
  if (live === undefined) throw new Error(`release ${release.name} is missing right after it was written`);
  return { values: live.values, pinned: await readPinned(world, release, live.revision) };
}
