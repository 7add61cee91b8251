/**
 * State written when a Node.js `ClusterAddon` was a component with a release child (the component
 * `helm-handoff:index:ClusterAddon` and its child
 * `pulumi-nodejs:dynamic/helm-handoff:ClusterAddonRelease`) moves to one resource per add-on on the
 * next `up`, on the real engine, helm and a local cluster: the alias gives the child's state to
 * the add-on, the component leaves the state, no helm call is made and the release is untouched;
 * the owner mark stays the same, so a Reconcile add-on still upgrades its release afterwards and
 * uninstalls it on destroy.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ownerIdOf } from "../../core/lifecycle/ownership.js";
import type { ClusterAddonArgs } from "../../provider/index.js";
import { DYNAMIC_RELEASE_TYPE, LEGACY_DYNAMIC_RELEASE_TYPE } from "../../provider/release.js";
import { type AddonStack, addonStack, liveRelease } from "../support/addon.js";
import { localChart } from "../support/charts.js";
import { clusterSuite } from "../support/cluster.js";

const COMPONENT_TYPE = "helm-handoff:index:ClusterAddon";

interface StoredResource {
  urn: string;
  type: string;
  custom: boolean;
  parent?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

/**
 * Rewrites the stack's state into the component shape: the add-on `name` becomes a component of
 * that name with the release as its child, as the component versions of `ClusterAddon` stored it.
 * @returns the component's URN
 */
async function toComponentShape(s: AddonStack, name: string): Promise<string> {
  const exported = await s.stack.exportStack();
  const deployment = exported.deployment as { resources: StoredResource[] };
  const index = deployment.resources.findIndex(
    (r) => r.type === DYNAMIC_RELEASE_TYPE && r.urn.endsWith(`::${name}`),
  );
  const release = deployment.resources[index];
  assert.ok(release, `the stack holds the add-on ${name}`);
  const prefix = release.urn.split("::").slice(0, 2).join("::");
  const component: StoredResource = {
    urn: `${prefix}::${COMPONENT_TYPE}::${name}`,
    type: COMPONENT_TYPE,
    custom: false,
    ...(release.parent !== undefined ? { parent: release.parent } : {}),
    inputs: {},
    outputs: {},
  };
  release.urn = `${prefix}::${COMPONENT_TYPE}$${LEGACY_DYNAMIC_RELEASE_TYPE}::${name}`;
  release.type = LEGACY_DYNAMIC_RELEASE_TYPE;
  release.parent = component.urn;
  deployment.resources.splice(index, 0, component);
  await s.stack.importStack(exported);
  return component.urn;
}

/** The stack's resources of the given types, as stored. */
async function storedOf(s: AddonStack, ...types: string[]): Promise<StoredResource[]> {
  const deployment = (await s.stack.exportStack()).deployment as { resources: StoredResource[] };
  return deployment.resources.filter((r) => types.includes(r.type));
}

describe("ClusterAddon state of the component shape", { timeout: 1_200_000 }, () => {
  const suite = clusterSuite({ name: "migration", workloads: true, helmSpy: true });

  function args(extra: Partial<ClusterAddonArgs>): ClusterAddonArgs {
    return { kubeconfig: suite.cluster.kubeconfig, chart: { path: localChart("workload") }, ...extra };
  }

  test("an ApplyOnce add-on stored as a component with a release child becomes one resource on the next up, with no helm call and the release untouched", async () => {
    const s = suite.keep(
      await addonStack([{ name: "mig-once", args: args({ values: { message: "a" } }) }], suite.spy),
    );
    await s.up();
    const componentUrn = await toComponentShape(s, "mig-once");
    assert.equal((await storedOf(s, COMPONENT_TYPE, LEGACY_DYNAMIC_RELEASE_TYPE)).length, 2);

    await suite.spy.reset();
    s.current = [{ name: "mig-once", args: args({ values: { message: "b" } }) }];
    const up = await s.up();
    assert.deepEqual(await suite.spy.calls(), []);
    assert.equal(up.summary.resourceChanges?.create ?? 0, 0);
    assert.equal(up.summary.resourceChanges?.replace ?? 0, 0);
    assert.equal(up.summary.resourceChanges?.delete, 1, "the component leaves the state");
    const stored = await storedOf(s, COMPONENT_TYPE, LEGACY_DYNAMIC_RELEASE_TYPE, DYNAMIC_RELEASE_TYPE);
    assert.deepEqual(
      stored.map((r) => r.type),
      [DYNAMIC_RELEASE_TYPE],
    );
    assert.equal(stored[0]?.inputs?.ownerId, ownerIdOf(componentUrn), "the owner mark is the component's");
    assert.deepEqual(await liveRelease(suite.cluster, "mig-once"), {
      revision: 1,
      status: "deployed",
      values: { message: "a" },
    });
    assert.equal((await s.preview()).changeSummary.update ?? 0, 0, "the next preview plans nothing");
  });

  test("a Reconcile add-on stored as a component moves with its owner mark: the next change upgrades the release and destroy uninstalls it", async () => {
    const decl = (message: string) => [
      { name: "mig-rec", args: args({ strategy: "Reconcile", values: { message } }) },
    ];
    const s = suite.keep(await addonStack(decl("a"), suite.spy));
    await s.up();
    await toComponentShape(s, "mig-rec");

    await suite.spy.reset();
    const moved = await s.up();
    assert.deepEqual(await suite.spy.calls(), [], "moving the state calls no helm");
    assert.equal(moved.summary.resourceChanges?.delete, 1, "the component leaves the state");
    assert.equal(moved.summary.resourceChanges?.create ?? 0, 0);
    assert.equal((await liveRelease(suite.cluster, "mig-rec"))?.revision, 1);

    s.current = decl("b");
    await s.up();
    assert.deepEqual(await liveRelease(suite.cluster, "mig-rec"), {
      revision: 2,
      status: "deployed",
      values: { message: "b" },
    });
    await s.destroy();
    assert.equal(await liveRelease(suite.cluster, "mig-rec"), undefined);
  });
});
