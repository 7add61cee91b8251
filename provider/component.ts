/**
 * `ClusterAddon`: installs a Helm chart once into a cluster from a Pulumi
 * program, then either steps aside (ApplyOnce) or keeps it in line (Reconcile).
 *
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
// Values from the SDK's modules, not its index: the index also loads closure serialization
// (TypeScript 3.8, about 0.3 s), which the package's provider process never needs.
import { all, Output, output, secret } from "@pulumi/pulumi/output.js";
import { ComponentResource } from "@pulumi/pulumi/resource.js";
import { digestOf, type HandoffRecord } from "../core/handoff.js";
import { type ClusterIdentity, clusterIdentityFromKubeconfig } from "../core/identity.js";
import { ownerIdOf, ownerNameOf } from "../core/lifecycle/ownership.js";
import { STRATEGY_TABLE } from "../core/lifecycle/strategy.js";
import {
  type ChartSource,
  type InstallOptions,
  isPlainObject,
  type RetryPolicy,
  type Strategy,
  validateKnownFields,
} from "../core/spec.js";
import { mergeValues, readValueFiles, rejectProtoKeys } from "../core/values.js";
import { AddonRelease, type AddonReleaseArgs, quietPromiseStacks, type ReleaseResource } from "./release.js";
import { type ReleaseStatus, SECRET_OUTPUT_KEYS, type StoredSpec } from "./state.js";

/** Arguments of {@link ClusterAddon}. The chart, values and options are the shared add-on spec of `helm-handoff`. */
export interface ClusterAddonArgs {
  /** kubeconfig content of the target cluster. Kept secret end to end. */
  readonly kubeconfig: pulumi.Input<string>;
  /**
   * Explicit cluster identity. When it changes, the add-on is installed on the (new) cluster.
   * @default - derived from the kubeconfig's API server URL and CA fingerprint, without a cluster call;
   * rotated credentials keep the identity.
   */
  readonly clusterId?: pulumi.Input<string>;
  /** Chart reference: `{ repo, name, version }` (https:// or oci://) or `{ path }`. */
  readonly chart: pulumi.Input<ChartSource>;
  /**
   * Helm release name (at most 53 characters, lowercase DNS-1123).
   * @default - the resource name
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
   * @default - the chart's defaults
   */
  readonly values?: pulumi.Input<Record<string, unknown>>;
  /**
   * Values files read at program run, merged before `values` (later files win).
   * @default - none
   */
  readonly valueFiles?: readonly string[];
  /**
   * Install options (wait, waitForJobs, per-attempt timeout, skipCrds, disableHooks, description).
   * @default - wait for resources to be ready, 5 minute attempts
   */
  readonly install?: InstallOptions;
  /**
   * Retry policy of the first install: overall deadline and backoff bounds.
   * @default - 15 minute deadline, backoff 2s to 30s
   */
  readonly retry?: RetryPolicy;
  /**
   * `ApplyOnce`: install once, then never touch the release again (no upgrade, no drift
   * correction, no uninstall). `Reconcile`: upgrade on change, revert drift, uninstall on delete.
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
export class ClusterAddon extends ComponentResource {
  /** Release status after the last helm call: revision, status, chart, versions, attempts, adopted. */
  public readonly status: pulumi.Output<ReleaseStatus>;
  /** The cluster identity the release was installed on. */
  public readonly clusterId: pulumi.Output<string>;
  /** The handoff record, JSON-serializable, for stack exports and the GitOps side. */
  public readonly handoff: pulumi.Output<HandoffRecord>;
  /**
   * The secret key of the handoff record's `valuesDigest` (HMAC-SHA256), for a platform team that
   * wants the GitOps side to verify values against it (see docs/strategies.md). Always secret.
   */
  public readonly valuesDigestKey: pulumi.Output<string>;

  /**
   * @param name - resource name, also the default release name
   * @param args - the add-on
   * @param opts - component options; `retainOnDelete` and `ignoreChanges` are set on the release by strategy
   */
  public constructor(name: string, args: ClusterAddonArgs, opts?: pulumi.ComponentResourceOptions) {
    // Fail before registering anything on everything known now (plain args); Outputs are
    // checked by the provider's check. Throwing before super() leaves no dangling Outputs.
    validateKnownArgs(name, args);
    super("helm-handoff:index:ClusterAddon", name, {}, opts);
    const releaseName = args.releaseName ?? name;
    const strategy: Strategy = args.strategy ?? "ApplyOnce";
    const fileValues = readValueFiles(args.valueFiles ?? []);

    const kubeconfig = secret(args.kubeconfig);
    const identity = all([kubeconfig, args.clusterId]).apply(([kc, explicit]) => {
      const derived = identityOf(kc);
      return { clusterId: explicit ?? derived.clusterId, server: derived.server };
    });
    const chart = output(args.chart);
    // Merged like helm merges -f files (maps recursively). A value that is not a plain object is
    // passed through unchanged so that the provider's check rejects it by name (spreading it would
    // turn a string or an array into an object of characters or items).
    const values = secret(
      output(withoutProtoKeys(args.values ?? {})).apply(
        (v): Record<string, unknown> => (isPlainObject(v) ? mergeValues(fileValues, v) : v),
      ),
    );
    const namespace = output(args.namespace ?? "default");
    const spec = chart.apply(
      (c): StoredSpec => ({
        chart: "path" in c ? { path: c.path } : withoutPassword(c),
        createNamespace: args.createNamespace ?? false,
        adopt: args.adopt ?? false,
        install: args.install ?? {},
        retry: args.retry ?? {},
      }),
    );
    const chartPassword = secret(chart.apply((c) => ("password" in c ? (c.password ?? "") : "")));
    // Secret, and without the password: an unkeyed digest of the values must not be readable in
    // state or preview. A password change is seen by comparing chartPassword itself (Reconcile).
    const desiredDigest = secret(
      all([spec, values, namespace]).apply(([s, v, ns]) => digestOf({ s, v, ns, releaseName })),
    );

    const release = this.newRelease(
      name,
      {
        kubeconfig,
        clusterId: identity.clusterId,
        clusterServer: identity.server,
        strategy,
        releaseName,
        namespace,
        spec,
        values,
        chartPassword,
        desiredDigest,
        // Who writes the release: the component's URN names the project, stack and resource.
        ownerId: this.urn.apply(ownerIdOf),
        ownerName: this.urn.apply(ownerNameOf),
      },
      {
        parent: this,
        additionalSecretOutputs: [...SECRET_OUTPUT_KEYS],
        // The strategy table (core/lifecycle/strategy.ts) is enforced by the engine first:
        // ApplyOnce's spec inputs are frozen and delete is skipped. The identity, strategy and
        // provider stay compared.
        ...engineOptions(strategy),
      },
    );
    this.status = release.status;
    this.clusterId = release.clusterId;
    this.handoff = release.handoff;
    this.valuesDigestKey = secret(release.digestKey);
    const restore = quietPromiseStacks();
    try {
      this.registerOutputs({ status: this.status, clusterId: this.clusterId, handoff: this.handoff });
    } finally {
      restore();
    }
  }

  /**
   * @internal
   * The release resource: the dynamic resource in a Node.js program. The Pulumi package's provider
   * (`provider/plugin/`) overrides it with its own custom resource; the inputs and options are the same.
   * @param name - resource name
   * @param args - the release inputs
   * @param opts - the release's options (parent, secrets, strategy's engine options)
   */
  protected newRelease(
    name: string,
    args: AddonReleaseArgs,
    opts: pulumi.CustomResourceOptions,
  ): ReleaseResource {
    return new AddonRelease(name, args, opts);
  }
}

/** The engine's options for the release, from the strategy table. */
function engineOptions(strategy: Strategy): pulumi.CustomResourceOptions {
  const rules = STRATEGY_TABLE[strategy];
  return rules.retainOnDelete || rules.frozenInputs.length > 0
    ? { ignoreChanges: [...rules.frozenInputs], retainOnDelete: rules.retainOnDelete }
    : { deleteBeforeReplace: false };
}

function withoutPassword(c: Extract<ChartSource, { readonly repo: string }>): StoredSpec["chart"] {
  const { password: _password, ...rest } = c;
  return rest;
}

function isPlain(value: unknown): boolean {
  return value !== undefined && !Output.isInstance(value) && !(value instanceof Promise);
}

function validateKnownArgs(name: string, args: ClusterAddonArgs): void {
  const known: Record<string, unknown> = { releaseName: args.releaseName ?? name, strategy: args.strategy };
  for (const [key, value] of Object.entries(args)) {
    if (key !== "kubeconfig" && key !== "clusterId" && isPlain(value)) known[key] = value;
  }
  validateKnownFields(known);
  if (typeof args.kubeconfig === "string") identityOf(args.kubeconfig);
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

/** The identity of the last kubeconfig read: a program usually gives one kubeconfig to all its add-ons. */
let lastIdentity: { readonly kubeconfig: string; readonly identity: ClusterIdentity } | undefined;

/** {@link clusterIdentityFromKubeconfig}, parsing each kubeconfig once in a row. */
function identityOf(kubeconfig: string): ClusterIdentity {
  if (lastIdentity?.kubeconfig !== kubeconfig) {
    lastIdentity = { kubeconfig, identity: clusterIdentityFromKubeconfig(kubeconfig) };
  }
  return lastIdentity.identity;
}
