/**
 * The release resource a `ClusterAddon` is: its type tokens, the properties it registers and, for
 * a Node.js program's dynamic resource, the provider source stored in its state (`__provider`).
 * A dynamic resource's provider is JavaScript source that the engine's `pulumi-nodejs` process
 * loads; Pulumi's `dynamic.Resource` would serialize a closure for it (loading TypeScript and V8's
 * inspector into the program), so ours is a constant that loads the implementation from the
 * installed package at call time (`helm-handoff/pulumi/dynamic`). The state stays small, and a
 * newer helm-handoff also serves resources an older one created.
 *
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import type { ReleaseInputs } from "./shape.js";

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
export type ReleaseArgs = { readonly [K in keyof ReleaseInputs]: pulumi.Input<ReleaseInputs[K]> };

/** The properties a release resource registers: its inputs, and its outputs (filled in by the provider). */
export function releaseProps(args: ReleaseArgs): pulumi.Inputs {
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
