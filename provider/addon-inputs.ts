/**
 * From what a program gives `ClusterAddon` to what its release resource stores (`ReleaseInputs`):
 * the one set of rules both hosts apply. A Node.js program applies them to Outputs while it runs
 * (`ClusterAddon`); the package's provider applies them to the resolved inputs in its `check`
 * ({@link releaseInputsOf}, `plugin/provider.ts`). Each rule is a small function here: the chart
 * split from its password, the stored spec, values files merged under `values`, the digest of the
 * desired spec, the cluster identity, and who owns the release (the add-on's logical URN,
 * `…::helm-handoff:index:ClusterAddon::NAME`, whichever resource carries it).
 *
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import { type ClusterIdentity, clusterIdentityFromKubeconfig } from "../core/cluster/identity.js";
import { ownerIdOf, ownerNameOf } from "../core/lifecycle/ownership.js";
import { STRATEGY_TABLE } from "../core/lifecycle/strategy.js";
import {
  type AddonSpec,
  type ChartSource,
  isPlainObject,
  type Strategy,
  validateKnownFields,
} from "../core/spec/index.js";
import { mergeValues, readValueFiles } from "../core/spec/values.js";
import { desiredDigestOf, type ReleaseInputs, type StoredSpec } from "./stored-release.js";

/** `ClusterAddonArgs` with every value resolved: what {@link releaseInputsOf} takes. */
export interface ResolvedAddonArgs extends Omit<AddonSpec, "releaseName"> {
  readonly kubeconfig: string;
  readonly clusterId?: string;
  /** @default the resource name */
  readonly releaseName?: string;
}

/** The spec options stored beside the chart (see {@link storedSpecOf}). */
type SpecOptions = Pick<ResolvedAddonArgs, "createNamespace" | "adopt" | "install" | "retry">;

/** The stored spec: the chart without its password, and the install options with their defaults. */
export function storedSpecOf(chart: ChartSource, options: SpecOptions): StoredSpec {
  return {
    chart: "path" in chart ? { path: chart.path } : withoutPassword(chart),
    createNamespace: options.createNamespace ?? false,
    adopt: options.adopt ?? false,
    install: options.install ?? {},
    retry: options.retry ?? {},
  };
}

/** The chart repository's URL when it is secret (`secretRepo`), kept apart from the stored spec; `""` otherwise. */
export function chartRepoOf(chart: ChartSource): string {
  return "repo" in chart && chart.secretRepo === true ? chart.repo : "";
}

/** The chart repository's password, kept apart from the stored spec (secret); `""` when none. */
export function chartPasswordOf(chart: ChartSource): string {
  return "password" in chart ? (chart.password ?? "") : "";
}

/**
 * `values` merged over the values files' content like helm merges `-f` files (maps recursively).
 * A value that is not a plain object is passed through unchanged so that the release's check
 * rejects it by name (spreading it would turn a string or an array into an object).
 */
export function mergedValuesOf(
  fileValues: Record<string, unknown>,
  values: unknown,
): Record<string, unknown> {
  return isPlainObject(values) ? mergeValues(fileValues, values) : (values as Record<string, unknown>);
}

/** The identity of the last kubeconfig read: a program usually gives one kubeconfig to all its add-ons. */
let lastIdentity: { readonly kubeconfig: string; readonly identity: ClusterIdentity } | undefined;

/** {@link clusterIdentityFromKubeconfig}, parsing each kubeconfig once in a row. */
export function identityOf(kubeconfig: string): ClusterIdentity {
  if (lastIdentity?.kubeconfig !== kubeconfig) {
    lastIdentity = { kubeconfig, identity: clusterIdentityFromKubeconfig(kubeconfig) };
  }
  return lastIdentity.identity;
}

/** Who writes the release: the owner id and readable name made from the add-on's logical URN. */
export function ownerFieldsOf(logicalUrn: string): Pick<ReleaseInputs, "ownerId" | "ownerName"> {
  return { ownerId: ownerIdOf(logicalUrn), ownerName: ownerNameOf(logicalUrn) };
}

/**
 * Validates everything known before any resource is registered (plain arguments; an Output is
 * checked by the release's check once it resolves).
 * @throws SpecError naming the field
 */
export function validateKnownArgs(
  name: string,
  args: { readonly [K in keyof ResolvedAddonArgs]?: unknown },
  isKnown: (value: unknown) => boolean,
): void {
  const known: Record<string, unknown> = { releaseName: args.releaseName ?? name, strategy: args.strategy };
  for (const [key, value] of Object.entries(args)) {
    if (key !== "kubeconfig" && key !== "clusterId" && isKnown(value)) known[key] = value;
  }
  validateKnownFields(known);
  if (typeof args.kubeconfig === "string" && isKnown(args.kubeconfig)) identityOf(args.kubeconfig);
}

/**
 * The engine's options the strategy table (`STRATEGY_TABLE`) puts on the release, over
 * the user's: ApplyOnce's spec inputs are frozen (`ignoreChanges`) and its delete is skipped
 * (`retainOnDelete`); identity, strategy and provider stay compared. Reconcile replaces in place.
 */
export function strategyOptions(
  strategy: Strategy,
  opts: pulumi.CustomResourceOptions,
): pulumi.CustomResourceOptions {
  const rules = STRATEGY_TABLE[strategy];
  if (!rules.retainOnDelete && rules.frozenInputs.length === 0)
    return { deleteBeforeReplace: false, ...opts };
  return {
    ...opts,
    ignoreChanges: [...rules.frozenInputs, ...(opts.ignoreChanges ?? [])],
    retainOnDelete: rules.retainOnDelete || opts.retainOnDelete === true,
  };
}

/**
 * How {@link releaseInputsOf} sees values the engine does not know yet (in a preview, an input that
 * is another resource's output): `isUnknown` finds one in a value, and an input made from one is
 * `unknown`. By default every value is known.
 */
export interface Unknowns {
  readonly isUnknown: (value: unknown) => boolean;
  readonly unknown: unknown;
}

const ALL_KNOWN: Unknowns = { isUnknown: () => false, unknown: undefined };

/**
 * The release inputs of an add-on whose arguments are resolved: what the package's provider
 * stores for `ClusterAddon` (the package's provider), by the same rules a Node.js program applies.
 * An input made from a value not known yet is itself unknown (see {@link Unknowns}).
 * @param name - the resource name, the release name's default
 * @param args - the resolved arguments
 * @param logicalUrn - the add-on's URN (`…::helm-handoff:index:ClusterAddon::NAME`)
 * @param unknowns - how values not known yet look
 * @throws SpecError for a values file that cannot be read, a kubeconfig that cannot be parsed
 */
export function releaseInputsOf(
  name: string,
  args: ResolvedAddonArgs,
  logicalUrn: string,
  unknowns: Unknowns = ALL_KNOWN,
): ReleaseInputs {
  const made = <T>(sources: readonly unknown[], make: () => T): T =>
    sources.some(unknowns.isUnknown) ? (unknowns.unknown as T) : make();
  const releaseName = args.releaseName ?? name;
  const namespace = args.namespace ?? "default";
  const identity = made([args.kubeconfig], () => identityOf(args.kubeconfig));
  const specOptions = [args.chart, args.createNamespace, args.adopt, args.install, args.retry];
  const spec = made(specOptions, () => storedSpecOf(args.chart, args));
  const values = made([args.values, args.valueFiles], () =>
    mergedValuesOf(readValueFiles(args.valueFiles ?? []), args.values ?? {}),
  );
  return {
    kubeconfig: args.kubeconfig,
    clusterId: args.clusterId ?? made([identity], () => identity.clusterId),
    clusterServer: made([identity], () => identity.server),
    strategy: args.strategy ?? "ApplyOnce",
    releaseName,
    namespace,
    spec,
    values,
    chartPassword: made([args.chart], () => chartPasswordOf(args.chart)),
    chartRepo: made([args.chart], () => chartRepoOf(args.chart)),
    desiredDigest: made([spec, values, namespace, releaseName], () =>
      desiredDigestOf(spec, values, namespace, releaseName),
    ),
    ...ownerFieldsOf(logicalUrn),
  };
}

/** The stored chart: without its password, and without its URL when that is secret (`chartRepo`). */
function withoutPassword(c: Extract<ChartSource, { readonly repo: string }>): StoredSpec["chart"] {
  const { password: _password, ...rest } = c;
  return c.secretRepo === true ? { ...rest, repo: "" } : rest;
}
