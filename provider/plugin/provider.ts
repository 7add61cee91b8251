/**
 * The provider of the `helm-handoff` Pulumi package, which lets a Python, Go, C# or YAML program
 * use `ClusterAddon` (see docs/languages.md): one custom resource per add-on,
 * `helm-handoff:index:ClusterAddon`. Its `check` makes the stored release inputs from the
 * program's arguments by the rules a Node.js program applies (`encodeInputs`); diff,
 * create, read, update and delete call the dynamic provider's functions (the shared steps): one
 * implementation of the lifecycle, two hosts. The provider enforces ApplyOnce itself (the engine
 * options a Node.js add-on also carries cannot be set from here): after the install, diff reports
 * no change, update records the inputs without a helm call and delete makes none, by the strategy
 * table every helm runner checks.
 *
 * Served by `serveProvider`, without the Pulumi SDK's resource runtime; the check's rules, the
 * schema and the steps load on first use (the rules and the steps as soon as it serves).
 *
 * @module
 */
import { readFileSync } from "node:fs";
import type * as provider from "@pulumi/pulumi/provider/index.js";
import { SpecError } from "../../core/errors.js";
import { plainStackTraces } from "../process/edge.js";
import { engineAddress, noteFailedStep } from "../process/failed-steps.js";
import { setProgressSink } from "../process/progress.js";
import type { ResolvedAddonArgs } from "../state/encode.js";
import { ADDON_TYPE } from "../state/resource.js";
import type { ReleaseInputs, ReleaseOutputs } from "../state/shape.js";
import { engineLogSink } from "./engine-log.js";
import { containsUnknown, UNKNOWN, unwrapSecrets, wrapSecrets } from "./secrets.js";

type Props = Record<string, unknown>;
type Steps = typeof import("../steps/index.js");
type Rules = typeof import("../state/encode.js");

let stepsModule: Promise<Steps> | undefined;
/** The shared steps, loaded on first use. */
function steps(): Promise<Steps> {
  stepsModule ??= import("../steps/index.js");
  return stepsModule;
}

let rulesModule: Promise<Rules> | undefined;
/** The rules that make the stored inputs from the arguments (`../state/encode.ts`), loaded on first use. */
function rules(): Promise<Rules> {
  rulesModule ??= import("../state/encode.js");
  return rulesModule;
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

/** The resource name in a URN (its last part). */
function nameOf(urn: string): string {
  return urn.slice(urn.lastIndexOf("::") + 2);
}

/** Refuses a URN of any type but the add-on's, before any step. */
function assertAddon(urn: string): void {
  const type = typeOf(urn);
  if (type !== ADDON_TYPE) throw new Error(`helm-handoff: unknown resource type ${type}`);
}

/**
 * The engine's properties, wire secrets unwrapped, as the stored inputs the steps take (the
 * same shape the dynamic provider host hands it: the engine passes back what `check` accepted).
 */
function inputsOf(props: unknown): ReleaseInputs {
  return unwrapSecrets(props ?? {}) as ReleaseInputs;
}

/** The same for stored outputs (what `create`/`update`/`read` returned). */
function outputsOf(props: unknown): ReleaseOutputs {
  return unwrapSecrets(props ?? {}) as ReleaseOutputs;
}

/**
 * Stored outputs as sent to the engine: secrets marked, and the add-on's public `valuesDigestKey`,
 * marked secret on the wire as the stored key is (not left to the schema alone).
 */
function sent(outs: Props): Props {
  return wrapSecrets({ ...outs, valuesDigestKey: outs.digestKey });
}

/**
 * An add-on's check: the stored inputs made from the program's arguments. While some argument is
 * not known (a preview), only the known ones are validated and what depends on the others stays
 * unknown; the full check runs when the engine checks again with every value known.
 */
async function checkAddon(urn: string, olds: unknown, news: unknown): Promise<provider.CheckResult> {
  const args = unwrapSecrets(news ?? {}) as ResolvedAddonArgs & Props;
  const name = nameOf(urn);
  const partial = containsUnknown(args);
  const { releaseInputsOf, validateKnownArgs } = await rules();
  let inputs: ReleaseInputs;
  try {
    if (partial) validateKnownArgs(name, args, (v) => v !== undefined && !containsUnknown(v));
    // The URN is the add-on's logical URN (`…::helm-handoff:index:ClusterAddon::NAME`): its owner mark.
    inputs = releaseInputsOf(name, args, urn, {
      isUnknown: containsUnknown,
      unknown: UNKNOWN,
    }) as ReleaseInputs;
  } catch (err) {
    noteFailedStep();
    if (err instanceof SpecError) {
      return { failures: [{ property: err.field.split(".")[0] ?? err.field, reason: err.message }] };
    }
    throw err;
  }
  if (!partial) {
    // The shared check validates, and keeps an installed ApplyOnce add-on's frozen inputs as stored.
    const result = await (await steps()).check(inputsOf(olds), inputs as ReleaseInputs);
    if (result.failures !== undefined && result.failures.length > 0) return { failures: result.failures };
    inputs = (result.inputs ?? inputs) as ReleaseInputs;
  }
  return { inputs: wrapSecrets(inputs as unknown as Props) };
}

/** The provider object served by `@pulumi/pulumi/provider`'s `main`. */
export function helmHandoffProvider(version: string = packageVersion()): provider.Provider {
  return {
    version,
    getSchema: async () => JSON.stringify((await import("./schema.js")).packageSchema(version)),
    async check(urn, olds, news) {
      assertAddon(urn);
      return checkAddon(urn, olds, news);
    },
    async diff(id, urn, olds, news) {
      assertAddon(urn);
      return (await steps()).diff(id, outputsOf(olds), inputsOf(news));
    },
    async create(urn, inputs) {
      assertAddon(urn);
      const result = await (await steps()).create(inputsOf(inputs));
      return { id: result.id, outs: sent(result.outs as Props) };
    },
    async read(id, urn, props) {
      assertAddon(urn);
      const result = await (await steps()).read(id, props === undefined ? undefined : outputsOf(props));
      return result.id === undefined ? {} : { id: result.id, props: sent((result.props ?? {}) as Props) };
    },
    async update(id, urn, olds, news) {
      assertAddon(urn);
      const result = await (await steps()).update(id, outputsOf(olds), inputsOf(news));
      return { outs: sent((result.outs ?? {}) as Props) };
    },
    async delete(id, urn, props) {
      assertAddon(urn);
      await (await steps()).remove(id, outputsOf(props));
    },
  };
}

/**
 * Serves the provider to the engine (`args`: the engine's address and flags, as the engine or the
 * plugin host passes them; progress lines go to the engine's `Log` at that address). Stack
 * traces stay plain V8 ones in this process.
 */
export async function serve(args: readonly string[]): Promise<void> {
  plainStackTraces();
  const address = engineAddress(args);
  if (address !== undefined) setProgressSink(engineLogSink(address));
  const { serveProvider } = await import("./server.js");
  // The engine's first call after configuring a provider is a check: have its code loaded by then.
  await serveProvider(helmHandoffProvider(), () => {
    rules().catch(() => undefined);
    steps().catch(() => undefined);
  });
}
