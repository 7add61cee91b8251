/**
 * Shared pieces of the ClusterAddon lifecycle tests: a stack whose program is
 * one or more ClusterAddons built from mutable args, and helm status reads.
 */
import type { LocalCluster } from "../../local-cluster/index.js";
import { ClusterAddon, type ClusterAddonArgs } from "../../provider/index.js";
import { runHelm } from "./charts.js";
import type { HelmSpy } from "./helm-spy.js";
import { type TestStack, testStack } from "./pulumi.js";

/** One add-on of a test program. */
export interface AddonDecl {
  readonly name: string;
  readonly args: ClusterAddonArgs;
}

/** A stack whose program declares `current` add-ons; change `current` between operations. */
export interface AddonStack extends TestStack {
  current: AddonDecl[];
}

/**
 * Creates a stack of ClusterAddons; every helm call goes through `spy`.
 * @param env - extra environment for the CLI, the dynamic provider and helm
 */
export async function addonStack(
  initial: AddonDecl[],
  spy: HelmSpy,
  env: Readonly<Record<string, string>> = {},
): Promise<AddonStack> {
  const holder: { current: AddonDecl[] } = { current: initial };
  const base = await testStack({
    env: { HELM_HANDOFF_HELM: spy.binary, ...env },
    program: async () => {
      const outputs: Record<string, unknown> = {};
      for (const decl of holder.current) {
        const addon = new ClusterAddon(decl.name, decl.args);
        outputs[`${decl.name}Handoff`] = addon.handoff;
        outputs[`${decl.name}Status`] = addon.status;
        outputs[`${decl.name}ClusterId`] = addon.clusterId;
      }
      return outputs;
    },
  });
  // A real accessor (Object.assign would copy the getter's value, not the accessor).
  return Object.defineProperty(base, "current", {
    get: () => holder.current,
    set: (v: AddonDecl[]) => {
      holder.current = v;
    },
    enumerable: true,
  }) as AddonStack;
}

/** What `helm status -o json` says of a release, or undefined when there is none. */
export interface LiveRelease {
  readonly revision: number;
  readonly status: string;
  readonly values: Record<string, unknown>;
}

/** Reads a release with the real helm (not through the spy). */
export async function liveRelease(
  cluster: LocalCluster,
  name: string,
  namespace = "default",
): Promise<LiveRelease | undefined> {
  const kc = ["--kubeconfig", cluster.kubeconfigPath, "--namespace", namespace];
  const status = await runHelm(["status", name, ...kc, "-o", "json"], { check: false });
  if (status.exitCode !== 0) {
    if (/not found/.test(status.stderr)) return undefined;
    throw new Error(`helm status ${name}: ${status.stderr}`);
  }
  const parsed = JSON.parse(status.stdout) as { version: number; info: { status: string } };
  const values = await runHelm(["get", "values", name, ...kc, "-o", "json"], { check: false });
  if (values.exitCode !== 0) {
    // Uninstalled between the two calls (a controller's uninstall racing the read).
    if (/not found/.test(values.stderr)) return undefined;
    throw new Error(`helm get values ${name}: ${values.stderr}`);
  }
  return {
    revision: parsed.version,
    status: parsed.info.status,
    values: (JSON.parse(values.stdout) ?? {}) as Record<string, unknown>,
  };
}
