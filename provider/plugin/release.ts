/**
 * The release as a custom resource of the `helm-handoff` Pulumi package, for programs in any
 * language: the same inputs and outputs as the dynamic resource of a Node.js program
 * (`provider/resource.ts`), served by the package's own provider (`provider.ts`), which runs the
 * same CRUD code. `PackagedClusterAddon` is `ClusterAddon` with this resource as its release.
 *
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import { CustomResource } from "@pulumi/pulumi/resource.js";
import { ClusterAddon } from "../component.js";
import {
  type AddonReleaseArgs,
  quietPromiseStacks,
  type ReleaseResource,
  releaseProps,
} from "../resource.js";
import { PACKAGE_RELEASE_TYPE, type ReleaseOutputs } from "../state.js";

/** One Helm release on one cluster, served by the `helm-handoff` package's provider. */
export class PackagedRelease extends CustomResource implements ReleaseResource {
  declare public readonly status: pulumi.Output<ReleaseOutputs["status"]>;
  declare public readonly handoff: pulumi.Output<ReleaseOutputs["handoff"]>;
  declare public readonly clusterId: pulumi.Output<string>;
  declare public readonly digestKey: pulumi.Output<string>;

  /**
   * @param name - resource name
   * @param args - the release inputs
   * @param opts - resource options (the component sets ignoreChanges/retainOnDelete)
   */
  public constructor(name: string, args: AddonReleaseArgs, opts?: pulumi.CustomResourceOptions) {
    const restore = quietPromiseStacks();
    try {
      super(PACKAGE_RELEASE_TYPE, name, releaseProps(args), opts);
    } finally {
      restore();
    }
  }
}

/** `ClusterAddon` whose release is the package's custom resource ({@link PackagedRelease}). */
export class PackagedClusterAddon extends ClusterAddon {
  protected override newRelease(
    name: string,
    args: AddonReleaseArgs,
    opts: pulumi.CustomResourceOptions,
  ): ReleaseResource {
    return new PackagedRelease(name, args, opts);
  }
}
