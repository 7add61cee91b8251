/**
 * The release resource a `ClusterAddon` is, for both hosts: its type tokens, the properties it
 * registers and, for a Node.js program, the provider source the engine runs it with. In a Node.js
 * program it is a dynamic resource (`ClusterAddon`), routed by the engine to Pulumi's dynamic
 * provider host; in a YAML, Go, Python or C# program the custom resource
 * `helm-handoff:index:ClusterAddon` of the `helm-handoff` package, served by the package's
 * provider (`helmHandoffProvider`). Both run the same create/read/update/delete code
 * on the same stored inputs and outputs (`ReleaseInputs`, `ReleaseOutputs`).
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
import type { ReleaseInputs } from "./stored-release.js";

/**
 * Type token of `ClusterAddon` in a Node.js program: a dynamic resource (a token of the form
 * `pulumi.dynamic.Resource` makes), which the engine routes to `pulumi-nodejs`.
 */
export const DYNAMIC_RELEASE_TYPE = "pulumi-nodejs:dynamic/helm-handoff:ClusterAddon";

/**
 * Type token of `ClusterAddon` in the package's schema, served by the package's provider (YAML,
 * Go, Python, C#): one custom resource per add-on, whose check makes the stored inputs from the
 * arguments. A Node.js add-on's logical URN (its owner mark) is made with it too.
 */
export const ADDON_TYPE = "helm-handoff:index:ClusterAddon";

/** Every type token a release resource has, whichever provider serves it. */
export const RELEASE_TYPES: readonly string[] = [DYNAMIC_RELEASE_TYPE, ADDON_TYPE];

/** The provider module stored in `__provider`: `handler()` returns the provider object. */
export const PROVIDER_SOURCE = `"use strict";
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

/** The stored inputs of a release resource (`ReleaseInputs`), each possibly an Output. */
export type AddonReleaseArgs = { readonly [K in keyof ReleaseInputs]: pulumi.Input<ReleaseInputs[K]> };

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
