/**
 * The dynamic resource behind `ClusterAddon`.
 *
 * Pulumi serializes the provider object below into the state. It is kept thin on
 * purpose: each method loads the implementation from the installed package at
 * call time (`helm-handoff/pulumi/dynamic`) and captures nothing, so the state
 * stays small and upgrading helm-handoff also fixes resources created by older
 * versions (destroy and refresh run the old serialized code against the current
 * node_modules).
 *
 * @module
 */
import * as pulumi from "@pulumi/pulumi";
import type { ReleaseInputs, ReleaseOutputs } from "./state.js";

// `require` is resolved in the dynamic-provider process, from the program's
// working directory (the serialized code is loaded with require-from-string).
declare const require: (id: string) => typeof import("./dynamic.js");

const thinProvider: pulumi.dynamic.ResourceProvider = {
  async check(olds, news) {
    return require("helm-handoff/pulumi/dynamic").check(olds, news);
  },
  async diff(id, olds, news) {
    return require("helm-handoff/pulumi/dynamic").diff(id, olds, news);
  },
  async create(inputs) {
    return require("helm-handoff/pulumi/dynamic").create(inputs);
  },
  async read(id, props) {
    return require("helm-handoff/pulumi/dynamic").read(id, props);
  },
  async update(id, olds, news) {
    return require("helm-handoff/pulumi/dynamic").update(id, olds, news);
  },
  async delete(id, props) {
    return require("helm-handoff/pulumi/dynamic").remove(id, props);
  },
};

/** Inputs of {@link AddonRelease}, each possibly an Output. */
export type AddonReleaseArgs = { readonly [K in keyof ReleaseInputs]: pulumi.Input<ReleaseInputs[K]> };

/** One Helm release on one cluster, managed by the helm-handoff dynamic provider. */
export class AddonRelease extends pulumi.dynamic.Resource {
  declare public readonly status: pulumi.Output<ReleaseOutputs["status"]>;
  declare public readonly handoff: pulumi.Output<ReleaseOutputs["handoff"]>;
  declare public readonly clusterId: pulumi.Output<string>;

  /**
   * @param name - resource name
   * @param args - the release inputs
   * @param opts - resource options (the component sets ignoreChanges/retainOnDelete)
   */
  public constructor(name: string, args: AddonReleaseArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      thinProvider,
      name,
      {
        ...args,
        status: undefined,
        handoff: undefined,
        liveValuesDigest: undefined,
        liveChartVersion: undefined,
      },
      opts,
      "helm-handoff",
      "ClusterAddonRelease",
    );
  }
}
