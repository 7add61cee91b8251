/**
 * The lifecycle every program using helm-handoff as a Pulumi package goes through in the CLI tests,
 * whatever its language (YAML, Go, Python): one implementation of the checks, so that each language
 * is held to the same ones. The program installs one add-on of the `schema` chart with `values: { replicas:
 * 1, mode }`, takes `mode` from config, and exports `handoff` and `status`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { LocalCluster } from "../../local-cluster/index.js";
import { liveRelease } from "./addon.js";
import { installedVersion, type PulumiCli } from "./project.js";

/** What the programs export (the fields these checks read). */
interface Outputs {
  readonly handoff: { readonly revision: number; readonly strategy: string };
  readonly status: { readonly revision: number };
}

/** The stack's outputs, secrets shown. */
export async function stackOutputs<T = Outputs>(cli: PulumiCli): Promise<T> {
  return JSON.parse((await cli.run(["stack", "output", "--json", "--show-secrets"])).stdout) as T;
}

/**
 * Sets the config the programs read besides the kubeconfig: `releaseName`, `strategy` and `mode`
 * "a". Disposes `cli` and rethrows when a command fails.
 */
export async function configureAddonStack(
  cli: PulumiCli,
  releaseName: string,
  strategy: string,
): Promise<PulumiCli> {
  try {
    const config = { releaseName, strategy, mode: "a" };
    for (const [key, value] of Object.entries(config)) await cli.run(["config", "set", key, value]);
  } catch (err) {
    await cli.dispose();
    throw err;
  }
  return cli;
}

/** Runs `check` on `cli`, then disposes `cli` whatever the outcome. */
export async function disposeAfter(cli: PulumiCli, check: (cli: PulumiCli) => Promise<void>): Promise<void> {
  try {
    await check(cli);
  } finally {
    await cli.dispose();
  }
}

/**
 * The schema (JSON) the package installed in `projectDir`'s node_modules serves: what `pulumi package
 * add` reads before it generates a language's SDK.
 */
export async function installedPackageSchema(projectDir: string): Promise<string> {
  const module = join(projectDir, "node_modules", "helm-handoff", "dist", "provider", "plugin", "schema.js");
  const { packageSchema } = (await import(pathToFileURL(module).href)) as {
    packageSchema(version: string): unknown;
  };
  return JSON.stringify(packageSchema(installedVersion("helm-handoff")));
}

/**
 * ApplyOnce, from a configured stack with `mode` "a": `up` installs revision 1 through the package's
 * component and release, the kubeconfig and the values are secrets in the state, a values change
 * leaves every resource unchanged and the release as it was, and destroy keeps the release.
 */
export async function checkApplyOnceHandsOff(
  cli: PulumiCli,
  cluster: LocalCluster,
  releaseName: string,
  namespace: string,
): Promise<void> {
  const up = await cli.run(["up", "--yes", "--skip-preview"]);
  // One resource per add-on: the package's custom resource, no component and no child.
  assert.match(up.all, /helm-handoff:index:ClusterAddon/);
  assert.doesNotMatch(up.all, /helm-handoff:index:AddonRelease/);
  const first = await liveRelease(cluster, releaseName, namespace);
  assert.deepEqual(first, { revision: 1, status: "deployed", values: { replicas: 1, mode: "a" } });
  const out = await stackOutputs(cli);
  assert.equal(out.handoff.revision, 1);
  assert.equal(out.handoff.strategy, "ApplyOnce");
  assert.equal(out.status.revision, 1);
  // The kubeconfig and the values are secrets in the state, as from a Node.js program.
  const state = (await cli.run(["stack", "export"])).stdout;
  const key = /client-key-data: (\S+)/.exec(cluster.kubeconfig)?.[1] ?? "no key";
  assert.equal(state.includes(key), false, "the kubeconfig's client key is not in the state");
  assert.equal(/"mode": ?"a"/.test(state), false, "the values are not in the state in plaintext");

  await cli.run(["config", "set", "mode", "b"]);
  const second = await cli.run(["up", "--yes", "--skip-preview"]);
  assert.match(second.all, /Resources:\n +2 unchanged\n/);
  assert.deepEqual(await liveRelease(cluster, releaseName, namespace), first);

  await cli.run(["destroy", "--yes", "--skip-preview"]);
  assert.deepEqual(await liveRelease(cluster, releaseName, namespace), first);
}

/**
 * Reconcile, from a configured stack with `mode` "a": `up` installs revision 1, a values change
 * upgrades to revision 2 (and the handoff record says so), destroy uninstalls.
 */
export async function checkReconcileUpgradesAndUninstalls(
  cli: PulumiCli,
  cluster: LocalCluster,
  releaseName: string,
  namespace: string,
): Promise<void> {
  await cli.run(["up", "--yes", "--skip-preview"]);
  assert.equal((await liveRelease(cluster, releaseName, namespace))?.revision, 1);

  await cli.run(["config", "set", "mode", "b"]);
  await cli.run(["up", "--yes", "--skip-preview"]);
  assert.deepEqual(await liveRelease(cluster, releaseName, namespace), {
    revision: 2,
    status: "deployed",
    values: { replicas: 1, mode: "b" },
  });
  assert.equal((await stackOutputs(cli)).handoff.revision, 2);

  await cli.run(["destroy", "--yes", "--skip-preview"]);
  assert.equal(await liveRelease(cluster, releaseName, namespace), undefined);
}
