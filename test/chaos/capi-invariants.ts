/**
 * The invariants of a capi run (`capi-run.ts`), checked once its operations converged, each a
 * promise of InstallOnce through the construct's HelmChartProxy:
 * - every workload cluster that was selected while the proxy existed holds exactly one revision of
 *   the release, revision 1, `deployed`, with exactly the values the model expects (those the proxy
 *   had when the cluster was first selected): InstallOnce never upgrades, reinstalls or
 *   uninstalls, not on new values, a selector change, a deleted proxy or a fault;
 * - a workload cluster never selected while the proxy existed holds no revision of it;
 * - a deleted proxy is gone with every HelmReleaseProxy; a live one has one HelmReleaseProxy for
 *   each selected cluster;
 * - no object of the management cluster (every resource the API server lists, Events and the
 *   HelmChartProxy's and HelmReleaseProxies' status included; a Secret's data decoded), and neither
 *   manager's log, holds one of the run's `workloadSecrets` secrets, plain or base64, except the
 *   resource-set Secret carriers of the run's ClusterResourceSet, which is where Cluster API reads
 *   them.
 *
 * Test-only code.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import type { LocalCluster } from "../../local-cluster/index.js";
import { liveRelease } from "../support/addon.js";
import { releaseProxies } from "../support/capi.js";
import { storedRevisions } from "../support/faults.js";
import type { Json } from "../support/gitops.js";
import { CAPI_NS, type CapiModel, type CapiWorld } from "./capi-world.js";

/** The type of the Secrets a ClusterResourceSet carries objects in. */
const CARRIER_TYPE = "addons.cluster.x-k8s.io/resource-set";

/** Checks every invariant of a capi run; resolves with the broken ones. */
export async function checkCapiInvariants(
  world: CapiWorld,
  model: CapiModel,
  log: (line: string) => void,
): Promise<string[]> {
  const violations: string[] = [];
  const { name, namespace } = model.program;
  for (const [i, c] of world.workloads.entries()) {
    const revisions = await storedRevisions(c.local, name, namespace);
    const history = revisions.map((r) => `${r.version} ${r.status}`).join(", ");
    const expected = model.expected.get(i);
    if (expected === undefined) {
      if (revisions.length > 0) violations.push(`${c.name}: never selected, holds revision(s) ${history}`);
      continue;
    }
    if (history !== "1 deployed")
      violations.push(`${c.name}: revisions ${history || "none"}, expected exactly 1 deployed`);
    const live = await liveRelease(c.local, name, namespace);
    if (live !== undefined && !isDeepStrictEqual(live.values, expected))
      violations.push(
        `${c.name}: values ${JSON.stringify(live.values)}, expected ${JSON.stringify(expected)}`,
      );
  }
  const proxies = await releaseProxies(world.mgmt, CAPI_NS, name);
  if (!model.proxy && proxies.size > 0)
    violations.push(
      `the proxy was deleted, yet HelmReleaseProxies remain for ${[...proxies.keys()].join(", ")}`,
    );
  if (model.proxy) {
    for (const i of model.selected) {
      const c = world.workloads[i];
      if (c !== undefined && !proxies.has(c.name))
        violations.push(`${c.name}: selected, but no HelmReleaseProxy`);
    }
  }
  const { places, scanned } = await secretPlaces(world, model);
  violations.push(...places.map((p) => `a workloadSecrets secret in the management cluster: ${p}`));
  log(
    `  invariants: ${model.expected.size} release(s) checked, ${scanned} management objects and 2 manager logs scanned for ${model.tokens.length} secret(s)`,
  );
  return violations;
}

/** Where the management cluster holds one of the run's secrets outside its carriers, and how many objects were read. */
async function secretPlaces(
  world: CapiWorld,
  model: CapiModel,
): Promise<{ places: string[]; scanned: number }> {
  const forms = model.tokens.flatMap((t) => [t, Buffer.from(t).toString("base64")]);
  const holds = (text: string): boolean => forms.some((f) => text.includes(f));
  const carrierPrefix = `${model.program.name}-secrets-`;
  const places: string[] = [];
  let scanned = 0;
  for (const path of await listPaths(world.mgmt)) {
    const res = await world.mgmt.request("GET", path);
    if (!res.ok) continue;
    for (const item of res.json<{ items?: Json[] }>().items ?? []) {
      scanned++;
      const meta = item.metadata as { name?: string; namespace?: string };
      const secret = path.endsWith("/secrets");
      const type = (item as { type?: string }).type;
      if (
        secret &&
        type === CARRIER_TYPE &&
        meta.namespace === CAPI_NS &&
        meta.name?.startsWith(carrierPrefix)
      )
        continue;
      let text = JSON.stringify(item);
      if (secret) {
        const data = ((item as { data?: Record<string, string> }).data ?? {}) as Record<string, string>;
        text += Object.values(data)
          .map((v) => Buffer.from(v, "base64").toString("utf8"))
          .join("\n");
      }
      if (holds(text)) places.push(`${path} ${meta.namespace ?? ""}/${meta.name ?? ""}`);
    }
  }
  for (const file of ["caaph-manager.log", "capi-manager.log"]) {
    const text = readFileSync(join(world.mgmt.logDir, file), "utf8");
    if (holds(text)) places.push(`the log ${file}`);
  }
  return { places, scanned };
}

/** The list path of every resource the management cluster's API server serves, once per group. */
async function listPaths(cluster: LocalCluster): Promise<string[]> {
  interface Resources {
    resources: { name: string; verbs: string[] }[];
  }
  const listable = (base: string, r: Resources): string[] =>
    r.resources
      .filter((x) => !x.name.includes("/") && x.verbs.includes("list"))
      .map((x) => `${base}/${x.name}`);
  const core = await cluster.request("GET", "/api/v1");
  const paths = core.ok ? listable("/api/v1", core.json<Resources>()) : [];
  const groups = await cluster.request("GET", "/apis");
  if (!groups.ok) throw new Error(`GET /apis: HTTP ${groups.status} ${groups.text}`);
  // Every version of a group, not only the preferred one: addons.cluster.x-k8s.io prefers
  // v1beta2 (Cluster API's resource sets) while CAAPH's proxies are v1alpha1 only.
  type Groups = { groups: { name: string; versions: { groupVersion: string }[] }[] };
  for (const g of groups.json<Groups>().groups) {
    const seen = new Set<string>();
    for (const v of g.versions) {
      const base = `/apis/${v.groupVersion}`;
      const res = await cluster.request("GET", base);
      if (!res.ok) continue;
      for (const path of listable(base, res.json<Resources>())) {
        const resource = path.slice(base.length + 1);
        if (seen.has(resource)) continue;
        seen.add(resource);
        paths.push(path);
      }
    }
  }
  return paths;
}
