/**
 * `ClusterAddon`: installs a Helm chart once into a cluster from a Pulumi program, then either
 * steps aside (ApplyOnce) or keeps it in line (Reconcile). Each add-on is one resource, served by
 * one of two providers (`providerRoute` says which). By default it is the package's custom resource
 * `helm-handoff:index:ClusterAddon`, registered with the arguments as they are (values files read
 * here), whose `check` applies the rules. On Pulumi's dynamic provider host it is the release
 * resource itself (a dynamic resource), with the strategy's engine options forced by the class and
 * its inputs made from the arguments on Outputs (`encodeInputs`) by the same rules. Both store the
 * same inputs, and each route names the other's type as an alias, so a stack moves between them
 * without a replacement; the owner mark is the add-on's logical URN either way.
 *
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
// Values from the SDK's modules, not its index: the index also loads closure serialization
// (TypeScript 3.8, about 0.3 s), which the package's provider process never needs.
import * as log from "@pulumi/pulumi/log/index.js";
import { all, Output, output, secret } from "@pulumi/pulumi/output.js";
import { CustomResource, createUrn } from "@pulumi/pulumi/resource.js";
// The project's root directory as the language host gives it (a module the resource module loads anyway).
import * as runtimeSettings from "@pulumi/pulumi/runtime/settings.js";
import type { HandoffRecord } from "../core/handoff/record.js";
import type { ChartSource, InstallOptions, RetryPolicy, Strategy } from "../core/spec/index.js";
import { readValueFiles, rejectProtoKeys } from "../core/spec/values.js";
import { providerRoute } from "./package-provider.js";
import { ownSubchannelPools, quietPromiseStacks } from "./process/edge.js";
import { failProgramOnLostRegistration } from "./process/lost-registration.js";
import { encodeInputs, type Lift, mergedValuesOf, validateKnownArgs } from "./state/encode.js";
import { retainsOnDelete, strategyOptions } from "./state/engine-options.js";
import {
  ADDON_TYPE,
  DYNAMIC_RELEASE_TYPE,
  PROVIDER_SOURCE,
  type ReleaseArgs,
  releaseProps,
} from "./state/resource.js";
import { type ReleaseStatus, SECRET_OUTPUT_KEYS } from "./state/shape.js";

// Before the runtime connects this process's next run to its engine (see the function).
ownSubchannelPools((runtimeSettings as { grpcClientOptions?: Record<string, unknown> }).grpcClientOptions);

/** Arguments of {@link ClusterAddon}. The chart, values and options are the shared add-on spec of `helm-handoff`. */
export interface ClusterAddonArgs {
  /** kubeconfig content of the target cluster. Kept secret end to end. */
  readonly kubeconfig: pulumi.Input<string>;
  /**
   * Explicit cluster identity. When it changes, the add-on is installed on the (new) cluster.
   * @default derived from the kubeconfig's API server URL and CA fingerprint, without a cluster call;
   * rotated credentials keep the identity.
   */
  readonly clusterId?: pulumi.Input<string>;
  /** Chart reference: `{ repo, name, version }` (https:// or oci://) or `{ path }`. */
  readonly chart: pulumi.Input<ChartSource>;
  /**
   * Helm release name (at most 53 characters, lowercase DNS-1123).
   * @default the resource name
   */
  readonly releaseName?: string;
  /**
   * Namespace of the release.
   * @default "default"
   */
  readonly namespace?: pulumi.Input<string>;
  /**
   * Create the namespace when it does not exist (`helm install --create-namespace`).
   * @default false
   */
  readonly createNamespace?: boolean;
  /**
   * Chart values. Kept secret in state, argv and logs.
   * @default the chart's defaults
   */
  readonly values?: pulumi.Input<Record<string, unknown>>;
  /**
   * Values files read at program run, merged before `values` (later files win).
   * @default none
   */
  readonly valueFiles?: readonly string[];
  /**
   * Install options (wait, waitForJobs, per-attempt timeout, skipCrds, disableHooks, description).
   * @default wait for resources to be ready, 5 minute attempts
   */
  readonly install?: InstallOptions;
  /**
   * Retry policy of the first install: overall deadline and backoff bounds.
   * @default 15 minute deadline, backoff 2s to 30s
   */
  readonly retry?: RetryPolicy;
  /**
   * `ApplyOnce`: install once, then never touch the release again (no upgrade, no drift
   * correction, no uninstall). `Reconcile`: upgrade on change, uninstall on delete; a revision
   * someone else wrote (a person's `helm upgrade`, a controller) is refused with `OwnershipError`
   * unless `adopt: true`, which takes it back.
   * @default "ApplyOnce"
   */
  readonly strategy?: Strategy;
  /**
   * Reconcile only: take over a release of this name that this add-on did not write (installed by
   * hand or by another tool, upgraded by someone else since, or another stack's), marking it as
   * this add-on's, instead of failing with an `OwnershipError`. ApplyOnce always adopts such a
   * release as it is and never writes to it (so `adopt` with ApplyOnce is an error).
   * @default false
   */
  readonly adopt?: boolean;
}

/** A Helm add-on bootstrapped into a cluster, then handed off to the cluster's GitOps. */
export class ClusterAddon extends CustomResource {
  /** Release status after the last helm call: revision, status, chart, versions, attempts, adopted. */
  declare public readonly status: pulumi.Output<ReleaseStatus>;
  /** The cluster identity the release was installed on. */
  declare public readonly clusterId: pulumi.Output<string>;
  /** The handoff record, JSON-serializable, for stack exports and the GitOps side. */
  declare public readonly handoff: pulumi.Output<HandoffRecord>;
  /**
   * The secret key of the handoff record's `valuesDigest` (HMAC-SHA256), for a platform team that
   * wants the GitOps side to verify values against it (see docs/strategies.md). Always secret.
   */
  public readonly valuesDigestKey: pulumi.Output<string>;
  /** The stored digest key (`valuesDigestKey`). */
  declare private readonly digestKey: pulumi.Output<string>;

  /**
   * @param name - resource name, also the default release name
   * @param args - the add-on
   * @param opts - resource options; the strategy adds `ignoreChanges` (ApplyOnce's frozen inputs)
   * and `retainOnDelete` (ApplyOnce), which the user's options cannot turn off
   */
  public constructor(name: string, args: ClusterAddonArgs, opts: pulumi.CustomResourceOptions = {}) {
    // Fail before registering anything on everything known now (plain args); Outputs are
    // checked by the provider's check.
    validateKnownArgs(name, args, isPlain);
    const strategy: Strategy = args.strategy ?? "ApplyOnce";
    const secretOutputs = [...SECRET_OUTPUT_KEYS, ...(opts.additionalSecretOutputs ?? [])];
    const restore = quietPromiseStacks();
    try {
      const route = providerRoute(runtimeSettings.getRootDirectory?.() ?? "");
      if (route.kind === "package") {
        // The package's provider enforces the strategy itself (its check keeps ApplyOnce's frozen
        // inputs, its delete makes no helm call), as for a YAML program: no ignoreChanges, which
        // would name stored inputs the arguments do not have.
        super(ADDON_TYPE, name, packageProps(args), {
          ...opts,
          ...(route.version === undefined ? {} : { version: route.version }),
          retainOnDelete: retainsOnDelete(strategy) || opts.retainOnDelete === true,
          aliases: [...(opts.aliases ?? []), { type: DYNAMIC_RELEASE_TYPE }],
          additionalSecretOutputs: ["valuesDigestKey", ...secretOutputs],
        });
      } else {
        if (route.warning !== undefined) warnOnce(route.warning);
        // The add-on's logical URN: who owns the release (the same in every language).
        const logicalUrn = createUrn(name, ADDON_TYPE, opts.parent);
        super(
          DYNAMIC_RELEASE_TYPE,
          name,
          { ...releaseProps(releaseArgs(name, args, logicalUrn)), __provider: PROVIDER_SOURCE },
          {
            ...strategyOptions(strategy, opts),
            aliases: [...(opts.aliases ?? []), { type: ADDON_TYPE }],
            additionalSecretOutputs: secretOutputs,
          },
        );
      }
    } finally {
      restore();
    }
    failProgramOnLostRegistration(this, name);
    this.valuesDigestKey = secret(this.digestKey);
  }
}

const warned = new Set<string>();

/** Logs `message` as a warning of the program, once per process. */
function warnOnce(message: string): void {
  if (warned.has(message)) return;
  warned.add(message);
  void log.warn(message);
}

/**
 * The properties of the package's custom resource: the arguments, with the kubeconfig and the
 * values secret and the values files read now and merged under `values` (relative to the program,
 * as on the dynamic route); the outputs are filled in by the provider.
 */
function packageProps(args: ClusterAddonArgs): pulumi.Inputs {
  const fileValues = readValueFiles(args.valueFiles ?? []);
  return {
    kubeconfig: secret(args.kubeconfig),
    clusterId: args.clusterId,
    chart: args.chart,
    releaseName: args.releaseName,
    namespace: args.namespace,
    createNamespace: args.createNamespace,
    values: secret(output(withoutProtoKeys(args.values ?? {})).apply((v) => mergedValuesOf(fileValues, v))),
    install: args.install,
    retry: args.retry,
    strategy: args.strategy,
    adopt: args.adopt,
    status: undefined,
    handoff: undefined,
    valuesDigestKey: undefined,
    digestKey: undefined,
  };
}

/** The release inputs, made from the arguments on Outputs by the rules both hosts apply. */
function releaseArgs(name: string, args: ClusterAddonArgs, logicalUrn: pulumi.Output<string>): ReleaseArgs {
  const encoded = encodeInputs(
    name,
    { ...args, values: withoutProtoKeys(args.values ?? {}) },
    logicalUrn,
    OUTPUT_LIFT,
  );
  // The check puts the owner key here; sent as a secret, so that the engine keeps the key the
  // check returns secret in the state's inputs.
  return { ...encoded, ownerKey: secret("") };
}

/**
 * The lift over Outputs: `make` runs at once on plain arguments (so a values file that cannot be
 * read fails the constructor), else once they resolve, keeping their secrecy and unknowns.
 */
const OUTPUT_LIFT: Lift = {
  map: (sources, make) =>
    sources.every(isDeepPlain)
      ? make(...(sources as never))
      : (all(sources).apply((values) => make(...(values as never))) as never),
  secret: (value) => secret(value) as never,
};

/** Whether `value` holds no Output or Promise, at any depth. */
function isDeepPlain(value: unknown): boolean {
  if (Output.isInstance(value) || value instanceof Promise) return false;
  if (Array.isArray(value)) return value.every(isDeepPlain);
  return typeof value !== "object" || value === null || Object.values(value).every(isDeepPlain);
}

function isPlain(value: unknown): boolean {
  return value !== undefined && !Output.isInstance(value) && !(value instanceof Promise);
}

/**
 * `values` as given, refused when it holds a `__proto__` key: checked on the value an Output
 * resolves to before `output()` unwraps it, since Pulumi copies objects by assignment there and in
 * its serialization, which would drop the key before the provider's check sees it.
 */
function withoutProtoKeys(
  values: pulumi.Input<Record<string, unknown>>,
): pulumi.Input<Record<string, unknown>> {
  const check = <T>(v: T): T => {
    rejectProtoKeys(v, "values");
    return v;
  };
  if (Output.isInstance(values)) return values.apply(check);
  return values instanceof Promise ? values.then(check) : check(values);
}
