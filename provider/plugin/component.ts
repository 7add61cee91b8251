/**
 * `ClusterAddon` as the package's provider constructs it for a YAML, Go, Python or C# program:
 * the same component, with its release served by the package's provider (the `"package"` host of
 * `AddonRelease`, `provider/release.ts`). Loaded on the first `construct` only, since it brings
 * the Pulumi SDK's runtime.
 *
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import { ClusterAddon } from "../component.js";
import { AddonRelease, type AddonReleaseArgs, type ReleaseResource } from "../release.js";

/** `ClusterAddon` whose release is the package's custom resource. */
export class PackagedClusterAddon extends ClusterAddon {
  protected override newRelease(
    name: string,
    args: AddonReleaseArgs,
    opts: pulumi.CustomResourceOptions,
  ): ReleaseResource {
    return new AddonRelease(name, args, opts, "package");
  }
}
