/**
 * The provider of the `helm-handoff` Pulumi package, which lets a Python, Go, C# or YAML program
 * use `ClusterAddon` (see docs/languages.md). It serves two things:
 * - `construct` of the component `helm-handoff:index:ClusterAddon`: the same `ClusterAddon` a
 *   Node.js program makes, with its release as the package's custom resource (`release.ts`);
 * - check/diff/create/read/update/delete of that release (`helm-handoff:index:AddonRelease`),
 *   which call the dynamic provider's functions (`provider/crud.ts`): one implementation of the
 *   lifecycle, two hosts. The ApplyOnce guarantees hold the same way: the engine options the
 *   component puts on the release (`ignoreChanges`, `retainOnDelete`), then the strategy table
 *   checked by every helm runner.
 *
 * Only what a call needs is loaded: the CRUD code on the first CRUD call, the component (and the
 * whole Pulumi SDK runtime it uses) on the first `construct`.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import type * as pulumi from "@pulumi/pulumi";
import type * as provider from "@pulumi/pulumi/provider/index.js";
import { SpecError } from "../../core/errors.js";
import { PACKAGE_RELEASE_TYPE } from "../release.js";
import type { ReleaseInputs, ReleaseOutputs } from "../state.js";
import { PLAIN_INPUTS, packageSchema } from "./schema.js";
import { unwrapSecrets, wrapSecrets } from "./secrets.js";

/** Type token of the component. */
export const COMPONENT_TYPE = "helm-handoff:index:ClusterAddon";

type Props = Record<string, unknown>;
type Crud = typeof import("../crud.js");

let crudModule: Promise<Crud> | undefined;
/** The shared CRUD code, loaded on first use. */
function crud(): Promise<Crud> {
  crudModule ??= import("../crud.js");
  return crudModule;
}

/** The package's version: the npm package's. */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

/** The resource type in a URN (`urn:pulumi:stack::project::parent$type::name`). */
function typeOf(urn: string): string {
  const qualified = urn.split("::")[2] ?? "";
  return qualified.slice(qualified.lastIndexOf("$") + 1);
}

function assertRelease(urn: string): void {
  const type = typeOf(urn);
  if (type !== PACKAGE_RELEASE_TYPE) throw new Error(`helm-handoff: unknown resource type ${type}`);
}

/**
 * The engine's properties, wire secrets unwrapped, as the stored inputs the CRUD code takes (the
 * same shape the dynamic provider host hands it: the engine passes back what `check` accepted).
 */
function inputsOf(props: unknown): ReleaseInputs & Props {
  return unwrapSecrets(props ?? {}) as ReleaseInputs & Props;
}

/** The same for stored outputs (what `create`/`update`/`read` returned). */
function outputsOf(props: unknown): ReleaseOutputs & Props {
  return unwrapSecrets(props ?? {}) as ReleaseOutputs & Props;
}

/** The provider object served by `@pulumi/pulumi/provider`'s `main`. */
export function helmHandoffProvider(version: string = packageVersion()): provider.Provider {
  return {
    version,
    getSchema: async () => JSON.stringify(packageSchema(version)),
    async check(urn, olds, news) {
      assertRelease(urn);
      const result = await (await crud()).check(inputsOf(olds), inputsOf(news));
      // The inputs go back as they came, secrets still marked.
      return result.failures !== undefined && result.failures.length > 0
        ? { failures: result.failures }
        : { inputs: news };
    },
    async diff(id, urn, olds, news) {
      assertRelease(urn);
      return (await crud()).diff(id, outputsOf(olds), inputsOf(news));
    },
    async create(urn, inputs) {
      assertRelease(urn);
      const result = await (await crud()).create(inputsOf(inputs));
      return { id: result.id, outs: wrapSecrets(result.outs as Props) };
    },
    async read(id, urn, props) {
      assertRelease(urn);
      const result = await (await crud()).read(id, props === undefined ? undefined : outputsOf(props));
      return result.id === undefined
        ? {}
        : { id: result.id, props: wrapSecrets((result.props ?? {}) as Props) };
    },
    async update(id, urn, olds, news) {
      assertRelease(urn);
      const result = await (await crud()).update(id, outputsOf(olds), inputsOf(news));
      return { outs: wrapSecrets((result.outs ?? {}) as Props) };
    },
    async delete(id, urn, props) {
      assertRelease(urn);
      await (await crud()).remove(id, outputsOf(props));
    },
    async construct(name, type, inputs, options) {
      if (type !== COMPONENT_TYPE) throw new Error(`helm-handoff: unknown component type ${type}`);
      // The SDK's modules, not its index (which also loads closure serialization, ~0.3 s).
      const [{ PackagedClusterAddon }, { Output }, { InputPropertiesError }] = await Promise.all([
        import("./component.js"),
        import("@pulumi/pulumi/output.js"),
        import("@pulumi/pulumi/errors.js"),
      ]);
      let addon: InstanceType<typeof PackagedClusterAddon>;
      try {
        addon = new PackagedClusterAddon(name, clusterAddonArgs(inputs, Output.isInstance), options);
      } catch (err) {
        if (err instanceof SpecError) {
          throw new InputPropertiesError({
            message: err.message,
            errors: [{ propertyPath: err.field, reason: err.message }],
          });
        }
        throw err;
      }
      return {
        urn: addon.urn,
        state: {
          status: addon.status,
          clusterId: addon.clusterId,
          handoff: addon.handoff,
          valuesDigestKey: addon.valuesDigestKey,
        },
      };
    },
  };
}

/**
 * The component's inputs as `ClusterAddonArgs`.
 * @throws SpecError naming an input that must be plain but is the output of another resource
 */
function clusterAddonArgs(
  inputs: pulumi.Inputs,
  isOutput: (v: unknown) => boolean,
): import("../component.js").ClusterAddonArgs {
  for (const key of PLAIN_INPUTS) {
    if (isOutput(inputs[key])) {
      throw new SpecError(
        key,
        `${key} must be a plain value known when the program runs (a literal or config), not an output of another resource`,
      );
    }
  }
  return inputs as unknown as import("../component.js").ClusterAddonArgs;
}

/**
 * Serves the provider to the engine (`args`: the engine's address and flags, as the engine or the
 * plugin host passes them).
 *
 * Stack traces stay plain V8 ones in this process. Two hooks would map every frame through source
 * maps: ts-node's, which Pulumi's plugin host registers for TypeScript plugins (this package ships
 * JavaScript), and source-map-support's, which the SDK's `main` installs (synchronously, before it
 * first awaits) and which parses the SDK's own source maps. The SDK takes a stack for each
 * resource it registers: with the hooks, ten `ClusterAddon`s take 0.2 s longer to construct.
 */
export async function serve(args: readonly string[]): Promise<void> {
  const plainStacks = (): void => {
    (Error as { prepareStackTrace?: unknown }).prepareStackTrace = undefined;
  };
  plainStacks();
  const { main } = await import("@pulumi/pulumi/provider/index.js");
  const serving = main(helmHandoffProvider(), [...args]);
  plainStacks();
  await serving;
}
