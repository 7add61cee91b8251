/**
 * The release resource behind `ClusterAddon`, one class for both hosts, and its type tokens. In a
 * Node.js program it is a dynamic resource, routed by the engine to Pulumi's dynamic provider
 * host; in a YAML, Go, Python or C# program a custom resource of the `helm-handoff` package,
 * served by the package's provider (`plugin/provider.ts`). Both run the same create/read/update/
 * delete code (`crud.ts`) on the same inputs and outputs (`state.ts`).
 *
 * A dynamic resource stores its provider as JavaScript source in the state (`__provider`), which
 * the engine's `pulumi-nodejs` provider process loads with require-from-string. Pulumi's
 * `dynamic.Resource` makes that source by serializing a function's closure, which loads
 * TypeScript and V8's inspector into the program (about half a second per program run). Ours
 * captures nothing, so the source is written here once, as a constant: each method loads the
 * implementation from the installed package at call time (`helm-handoff/pulumi/dynamic`, resolved
 * from the program's directory). The state stays small and upgrading helm-handoff also fixes
 * resources created by older versions (destroy and refresh run the stored source against the
 * current node_modules).
 *
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import { CustomResource } from "@pulumi/pulumi/resource.js";
import type { ReleaseInputs, ReleaseOutputs } from "./state.js";

/**
 * Type token of the release resource in a Node.js program: a dynamic resource (the token
 * `pulumi.dynamic.Resource` would make), which the engine routes to `pulumi-nodejs`.
 */
export const DYNAMIC_RELEASE_TYPE = "pulumi-nodejs:dynamic/helm-handoff:ClusterAddonRelease";

/** Type token of the release resource served by the package's provider (YAML, Go, Python, C#). */
export const PACKAGE_RELEASE_TYPE = "helm-handoff:index:AddonRelease";

/** Every type token a release resource has, whichever provider serves it. */
export const RELEASE_TYPES: readonly string[] = [DYNAMIC_RELEASE_TYPE, PACKAGE_RELEASE_TYPE];

/** Which provider serves a release: Pulumi's dynamic provider host, or the package's provider. */
export type ReleaseHost = "dynamic" | "package";

/** The provider module stored in `__provider`: `handler()` returns the provider object. */
const PROVIDER_SOURCE = `"use strict";
let loaded;
const impl = () => {
  if (loaded === undefined) {
    // Node's on-disk compile cache for helm-handoff and its dependencies (Node >= 22.1).
    require("node:module").enableCompileCache?.();
    loaded = require("helm-handoff/pulumi/dynamic");
  }
  return loaded;
};
exports.handler = () => ({
  check: (olds, news) => impl().check(olds, news),
  diff: (id, olds, news) => impl().diff(id, olds, news),
  create: (inputs) => impl().create(inputs),
  read: (id, props) => impl().read(id, props),
  update: (id, olds, news) => impl().update(id, olds, news),
  delete: (id, props) => impl().remove(id, props),
});
`;

/** Inputs of {@link AddonRelease}, each possibly an Output. */
export type AddonReleaseArgs = { readonly [K in keyof ReleaseInputs]: pulumi.Input<ReleaseInputs[K]> };

/** The outputs of a release resource that `ClusterAddon` passes on, whichever provider serves it. */
export interface ReleaseResource {
  readonly status: pulumi.Output<ReleaseOutputs["status"]>;
  readonly handoff: pulumi.Output<ReleaseOutputs["handoff"]>;
  readonly clusterId: pulumi.Output<string>;
  readonly digestKey: pulumi.Output<string>;
}

/** The properties a release resource registers: its inputs, and its outputs (filled in by the provider). */
export function releaseProps(args: AddonReleaseArgs): pulumi.Inputs {
  return {
    ...args,
    status: undefined,
    handoff: undefined,
    liveValuesDigest: undefined,
    liveChartVersion: undefined,
    digestKey: undefined,
    ownerInstance: undefined,
  };
}

/**
 * Turns off the Pulumi SDK's debug stack traces for a registration of ours (a release, the
 * component's outputs) until the returned function restores them: the SDK
 * captures `new Error().stack` for each of the four promises of every property it registers (for
 * its leaked-promise report), and with source maps installed each capture costs about 0.3 ms, a
 * quarter of a second for ten add-ons before the first release reaches the engine. Those traces
 * would only point into this package; a resource's own source position is still recorded (the
 * SDK lifts the limit for it).
 * @internal
 */
export function quietPromiseStacks(): () => void {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  return () => {
    Error.stackTraceLimit = limit;
  };
}

/** One Helm release on one cluster, served by the dynamic provider or the package's provider. */
export class AddonRelease extends CustomResource implements ReleaseResource {
  declare public readonly status: pulumi.Output<ReleaseOutputs["status"]>;
  declare public readonly handoff: pulumi.Output<ReleaseOutputs["handoff"]>;
  declare public readonly clusterId: pulumi.Output<string>;
  declare public readonly digestKey: pulumi.Output<string>;

  /**
   * @param name - resource name
   * @param args - the release inputs
   * @param opts - resource options (the component sets ignoreChanges/retainOnDelete)
   * @param host - which provider serves it
   */
  public constructor(
    name: string,
    args: AddonReleaseArgs,
    opts?: pulumi.CustomResourceOptions,
    host: ReleaseHost = "dynamic",
  ) {
    const restore = quietPromiseStacks();
    try {
      if (host === "dynamic") {
        super(DYNAMIC_RELEASE_TYPE, name, { ...releaseProps(args), __provider: PROVIDER_SOURCE }, opts);
      } else {
        super(PACKAGE_RELEASE_TYPE, name, releaseProps(args), opts);
      }
    } finally {
      restore();
    }
  }
}
