/**
 * From what a program gives `ClusterAddon` to what its release resource stores (`ReleaseInputs`):
 * one set of rules, {@link encodeInputs}, applied by both hosts through a {@link Lift}. A Node.js
 * program applies it to Outputs while it runs (`ClusterAddon`, {@link outputLift}), so that each
 * input keeps its own secrecy and stays known in preview when what it depends on is; the
 * package's provider applies it to resolved arguments in its check ({@link releaseInputsOf}).
 * The owner is the add-on's logical URN (`…::helm-handoff:index:ClusterAddon::NAME`) on both.
 *
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import { clusterIdentityFromKubeconfig } from "../../core/cluster/identity.js";
import { digestOf } from "../../core/handoff/digests.js";
import { ownerIdOf, ownerNameOf } from "../../core/lifecycle/ownership.js";
import {
  type AddonSpec,
  type ChartSource,
  isPlainObject,
  validateKnownFields,
} from "../../core/spec/index.js";
import { mergeValues, readValueFiles } from "../../core/spec/values.js";
import type { ReleaseArgs } from "./resource.js";
import type { ReleaseInputs, StoredSpec } from "./shape.js";

/** `ClusterAddonArgs` with every value resolved: what the package's provider's check gets. */
export interface ResolvedAddonArgs extends Omit<AddonSpec, "releaseName"> {
  readonly kubeconfig: string;
  readonly clusterId?: string;
  /** @default the resource name */
  readonly releaseName?: string;
}

/** The arguments {@link encodeInputs} reads: resolved, or each possibly an Output. */
export type AddonArgs = {
  readonly [K in keyof ResolvedAddonArgs]: K extends "releaseName" | "strategy" | "valueFiles"
    ? ResolvedAddonArgs[K]
    : pulumi.Input<ResolvedAddonArgs[K]>;
};

/** What the encoder makes: every stored input but the owner key, which the check adds. */
export type EncodedInputs = Omit<ReleaseArgs, "ownerKey">;

/** The values of `sources`, as `make` gets them. */
type Resolved<A extends readonly unknown[]> = {
  [I in keyof A]: A[I] extends pulumi.Input<infer T> ? T : A[I];
};

/** How {@link encodeInputs} combines arguments: resolved values, or Outputs. */
export interface Lift {
  /** `make` applied to the values of `sources`. */
  map<A extends readonly unknown[], T>(sources: [...A], make: (...values: Resolved<A>) => T): pulumi.Input<T>;
  /** `value` marked secret (a no-op where secrecy is the wire's: the package's provider). */
  secret<T>(value: pulumi.Input<T>): pulumi.Input<T>;
}

/**
 * The stored inputs of an add-on, by the rules both hosts apply.
 * @param name - the resource name, the release name's default
 * @param logicalUrn - the add-on's URN, its owner mark
 * @throws SpecError for a values file that cannot be read, a kubeconfig that cannot be parsed
 */
export function encodeInputs(
  name: string,
  args: AddonArgs,
  logicalUrn: pulumi.Input<string>,
  lift: Lift,
): EncodedInputs {
  const releaseName = args.releaseName ?? name;
  const strategy = args.strategy ?? "ApplyOnce";
  const namespace = lift.map([args.namespace], (ns) => ns ?? "default");
  const kubeconfig = lift.secret(args.kubeconfig);
  // Each kubeconfig text is parsed once per process (`readKubeconfig` keeps it); a CA file it
  // names is read again at each call, as the file may have changed.
  const identity = lift.map([kubeconfig], (text) => clusterIdentityFromKubeconfig(text));
  const spec = lift.map(
    [args.chart, args.createNamespace, args.adopt, args.install, args.retry],
    (chart, createNamespace, adopt, install, retry): StoredSpec => ({
      chart: "path" in chart ? { path: chart.path } : withoutPassword(chart),
      createNamespace: createNamespace ?? false,
      adopt: adopt ?? false,
      install: install ?? {},
      retry: retry ?? {},
    }),
  );
  const fileValues = lift.map([args.valueFiles], (files) => readValueFiles(files ?? []));
  const values = lift.secret(lift.map([fileValues, args.values], (f, v) => mergedValuesOf(f, v ?? {})));
  const owner = lift.map([logicalUrn], (urn) => ({ id: ownerIdOf(urn), name: ownerNameOf(urn) }));
  return {
    kubeconfig,
    // An explicit identity stays known while the kubeconfig is not (a preview).
    clusterId:
      (args.clusterId as pulumi.Input<string> | undefined) ?? lift.map([identity], (d) => d.clusterId),
    clusterServer: lift.map([identity], (derived) => derived.server),
    strategy,
    releaseName,
    namespace,
    spec,
    values,
    chartPassword: lift.secret(lift.map([args.chart], (c) => ("password" in c ? (c.password ?? "") : ""))),
    chartRepo: lift.secret(
      lift.map([args.chart], (c) => ("repo" in c && c.secretRepo === true ? c.repo : "")),
    ),
    desiredDigest: lift.secret(
      lift.map([spec, values, namespace], (s, v, ns) => desiredDigestOf(s, v, ns, releaseName)),
    ),
    ownerId: lift.map([owner], (o) => o.id),
    ownerName: lift.map([owner], (o) => o.name),
  };
}

/**
 * The digest of everything the program asks for but the repository password (a password change
 * is seen by comparing the password itself).
 */
export function desiredDigestOf(
  spec: StoredSpec,
  values: Record<string, unknown>,
  namespace: string,
  releaseName: string,
): string {
  return digestOf({ s: spec, v: values, ns: namespace, releaseName });
}

/**
 * How the package's provider sees values the engine does not know yet (a preview): `isUnknown`
 * finds one in a value, and an input made from one is `unknown`.
 */
export interface Unknowns {
  readonly isUnknown: (value: unknown) => boolean;
  readonly unknown: unknown;
}

const ALL_KNOWN: Unknowns = { isUnknown: () => false, unknown: undefined };

/** The lift over resolved arguments: an input made from a value not known yet is itself unknown. */
export function plainLift(unknowns: Unknowns = ALL_KNOWN): Lift {
  return {
    map: (sources, make) =>
      (sources.some(unknowns.isUnknown) ? unknowns.unknown : make(...(sources as never))) as never,
    secret: (value) => value,
  };
}

/**
 * {@link encodeInputs} on resolved arguments (the package's provider's check). The plain lift
 * makes plain values, so the result is the stored inputs (with `unknowns.unknown` where a value
 * is not known yet).
 */
export function releaseInputsOf(
  name: string,
  args: ResolvedAddonArgs,
  logicalUrn: string,
  unknowns: Unknowns = ALL_KNOWN,
): Omit<ReleaseInputs, "ownerKey"> {
  return encodeInputs(name, args, logicalUrn, plainLift(unknowns)) as Omit<ReleaseInputs, "ownerKey">;
}

/**
 * `values` merged over the values files' content like helm merges `-f` files (maps recursively).
 * A value that is not a plain object is passed through so that the check rejects it by name.
 */
export function mergedValuesOf(
  fileValues: Record<string, unknown>,
  values: unknown,
): Record<string, unknown> {
  return isPlainObject(values) ? mergeValues(fileValues, values) : (values as Record<string, unknown>);
}

/**
 * Validates everything known before any resource is registered (plain arguments; a value not
 * known yet is checked by the release's check once it resolves).
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
  if (typeof args.kubeconfig === "string" && isKnown(args.kubeconfig))
    clusterIdentityFromKubeconfig(args.kubeconfig);
}

/** The stored chart: without its password, and without its URL when that is secret (`chartRepo`). */
function withoutPassword(c: Extract<ChartSource, { readonly repo: string }>): StoredSpec["chart"] {
  const { password: _password, ...rest } = c;
  return c.secretRepo === true ? { ...rest, repo: "" } : rest;
}
