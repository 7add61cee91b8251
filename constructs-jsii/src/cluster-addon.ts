/**
 * `ClusterAddon` for Python, Java, Go and .NET cdk8s apps: its enums and structs (outputs,
 * strategies, hooks, install options, the Cluster API selector), the handoff record, and the
 * construct itself, which turns these jsii-shaped props into the props of the TypeScript
 * `ClusterAddon` of `helm-handoff/cdk8s`, its default child (`Default`).
 */
import type { ApiObject, Duration } from "cdk8s";
import { Construct } from "constructs";
import type * as coreTypes from "helm-handoff";
// The ES-module package, loaded with require() (Node >= 22.12): the one implementation.
import * as core from "helm-handoff/cdk8s";
import type { ChartSource } from "./chart-source.js";
import { coreValues } from "./cluster-value.js";
import { defined } from "./defined.js";

/** What a {@link ClusterAddon} synthesizes to. */
export enum ClusterAddonOutput {
  /** The rendered objects, with Helm's ownership metadata, in apply order. */
  MANIFESTS = "Manifests",
  /** Cluster API: ConfigMaps (or resource-set Secrets) carrying the objects and a ClusterResourceSet. */
  CLUSTER_RESOURCE_SET = "ClusterResourceSet",
  /** Cluster API add-on provider for Helm (CAAPH): a HelmChartProxy; nothing is rendered. */
  HELM_CHART_PROXY = "HelmChartProxy",
}

/** The lifecycle strategy of an add-on. */
export enum Strategy {
  /** Install once (or adopt), then hand off: ClusterResourceSet `ApplyOnce`, HelmChartProxy `InstallOnce`. */
  APPLY_ONCE = "ApplyOnce",
  /** Keep the release in line with the spec: ClusterResourceSet `Reconcile`, HelmChartProxy `Continuous`. */
  RECONCILE = "Reconcile",
}

/** What to do with the chart's hooks (objects annotated `helm.sh/hook`). */
export enum HooksPolicy {
  /** Leave them out (helm runs them itself when it takes the release over). */
  DROP = "drop",
  /** Keep them as ordinary objects: `pre-*` hooks first, the others last, by hook weight. */
  INCLUDE = "include",
}

/** The ClusterResourceSet API version. */
export enum ClusterApiVersion {
  /** `addons.cluster.x-k8s.io/v1beta2`. */
  V1BETA2 = "v1beta2",
  /** `addons.cluster.x-k8s.io/v1beta1`, for older management clusters. */
  V1BETA1 = "v1beta1",
}

/** Helm options: `skipCrds` and `disableHooks` affect rendering, the rest goes into a HelmChartProxy. */
export interface InstallOptions {
  /** Wait until the release's resources are ready. @default true */
  readonly wait?: boolean;
  /** Also wait for the release's Jobs to complete (needs `wait`). @default false */
  readonly waitForJobs?: boolean;
  /** Timeout of one attempt. @default 5 minutes */
  readonly timeout?: Duration;
  /** Do not install (render) the chart's CRDs. @default false */
  readonly skipCrds?: boolean;
  /** Do not run (render) the chart's hooks. @default false */
  readonly disableHooks?: boolean;
  /** Description recorded in the release. @default helm's own */
  readonly description?: string;
}

/** The operator of a {@link LabelSelectorRequirement}. */
export enum LabelSelectorOperator {
  /** The label's value is one of `values`. */
  IN = "In",
  /** The label's value is none of `values`. */
  NOT_IN = "NotIn",
  /** The label is set. */
  EXISTS = "Exists",
  /** The label is not set. */
  DOES_NOT_EXIST = "DoesNotExist",
}

/** A set-based requirement of a {@link LabelSelector}. */
export interface LabelSelectorRequirement {
  /** Label key. */
  readonly key: string;
  /** How the key's value is compared with `values`. */
  readonly operator: LabelSelectorOperator;
  /** Values for `In` and `NotIn`. @default none */
  readonly values?: string[];
}

/** A Kubernetes label selector. */
export interface LabelSelector {
  /** Labels that must all match. @default none */
  readonly matchLabels?: { [key: string]: string };
  /** Set-based requirements, ANDed. @default none */
  readonly matchExpressions?: LabelSelectorRequirement[];
}

/** A Secret in the management cluster holding an OCI registry's credentials (a helm registry config JSON). */
export interface CredentialsSecretReference {
  /** The Secret's name. */
  readonly name: string;
  /** The key holding the registry config JSON. @default "config.json" */
  readonly key?: string;
  /** The Secret's namespace. @default the HelmChartProxy's */
  readonly namespace?: string;
}

/** A Secret in the management cluster holding a CA bundle in key `ca.crt`. */
export interface CaSecretReference {
  /** The Secret's name. */
  readonly name: string;
  /** The Secret's namespace. @default the HelmChartProxy's */
  readonly namespace?: string;
}

/** A Secret to create in every workload cluster a HelmChartProxy selects. */
export interface WorkloadSecret {
  /** The Secret's name in the workload cluster. */
  readonly name: string;
  /** Its namespace there. @default the release namespace */
  readonly namespace?: string;
  /** Its type. @default "Opaque" */
  readonly type?: string;
  /** Its data, as text. */
  readonly stringData: { [key: string]: string };
}

/** Props of {@link ClusterAddon}. */
export interface ClusterAddonProps {
  /** Where the chart comes from. */
  readonly chart: ChartSource;
  /**
   * Release name, recorded in the ownership annotations; a later takeover must use the same one.
   * @default the construct id
   */
  readonly releaseName?: string;
  /** Namespace of the release. @default "default" */
  readonly namespace?: string;
  /** Add a Namespace object for the release namespace (kept on takeover). @default false */
  readonly createNamespace?: boolean;
  /**
   * Chart values: a JSON-like map. With `ClusterAddonOutput.HELM_CHART_PROXY` a value may be a
   * `ClusterValue` (or a string holding its `toString()`), which CAAPH fills in for each Cluster.
   * @default none
   */
  readonly values?: { [key: string]: any };
  /** Paths of YAML values files, applied before `values`. @default none */
  readonly valueFiles?: string[];
  /** Helm options. @default see {@link InstallOptions} */
  readonly install?: InstallOptions;
  /** Lifecycle strategy: ClusterResourceSet `strategy`, HelmChartProxy `reconcileStrategy`. @default Strategy.APPLY_ONCE */
  readonly strategy?: Strategy;
  /** What to synthesize. @default ClusterAddonOutput.MANIFESTS */
  readonly output?: ClusterAddonOutput;
  /** Selects the Clusters (required for the two Cluster API outputs, refused for Manifests). @default none */
  readonly clusterSelector?: LabelSelector;
  /** Kubernetes version for `.Capabilities.KubeVersion`, e.g. "1.36.0". @default helm's built-in default */
  readonly kubeVersion?: string;
  /** Extra API versions for `.Capabilities.APIVersions`. @default none */
  readonly apiVersions?: string[];
  /** API version of the ClusterResourceSet. @default ClusterApiVersion.V1BETA2 */
  readonly clusterApiVersion?: ClusterApiVersion;
  /**
   * The values are sensitive: the render cache is bypassed and ClusterResourceSet carriers are
   * Secrets of type `addons.cluster.x-k8s.io/resource-set` (HelmChartProxy is refused).
   * @default false
   */
  readonly sensitive?: boolean;
  /** What to do with chart hooks. @default HooksPolicy.DROP (with a warning naming them) */
  readonly hooks?: HooksPolicy;
  /** Kinds to treat as cluster-scoped besides the built-in ones and the chart's own CRDs. @default none */
  readonly clusterScopedKinds?: string[];
  /** Namespace of the ClusterResourceSet/HelmChartProxy and their carriers. @default the cdk8s Chart's namespace, if any */
  readonly carrierNamespace?: string;
  /** HelmChartProxy, OCI charts: your Secret for `spec.credentials` (instead of a password in the chart source). @default none */
  readonly credentialsSecret?: CredentialsSecretReference;
  /** HelmChartProxy, OCI charts: your Secret for `spec.tlsConfig.caSecret` (instead of `caFile`). @default none */
  readonly caSecret?: CaSecretReference;
  /**
   * HelmChartProxy: Secrets created in every selected workload cluster by a ClusterResourceSet
   * `RELEASE-secrets` (resource-set Secret carriers); name them in `values`.
   * @default none
   */
  readonly workloadSecrets?: WorkloadSecret[];
  /** Byte budget of one ClusterResourceSet ConfigMap/Secret (at most 1 MiB). @default 921600 */
  readonly maxCarrierBytes?: number;
  /** The helm binary. @default `$HELM_HANDOFF_HELM`, else "helm" on PATH */
  readonly helmBinary?: string;
  /** Use the render cache (`${XDG_CACHE_HOME:-~/.cache}/helm-handoff/render-cache`). @default true */
  readonly renderCache?: boolean;
  /** Render twice on a cache miss and warn when the chart renders differently each time. @default true */
  readonly checkDeterminism?: boolean;
}

/** Input of {@link ClusterAddon.handoffRecord}: what only the cluster side knows. */
export interface ClusterAddonRecordInput {
  /** Cluster identity (`sha256:…` of the API server URL and CA, or your own id). */
  readonly clusterId: string;
  /** API server URL. */
  readonly server: string;
  /** When the manifests were applied, ISO 8601. @default the epoch (unknown) */
  readonly installedAt?: string;
  /** Release revision. @default 0 */
  readonly revision?: number;
  /** A secret key for the record's keyed `valuesDigest`. @default none: `valuesDigest` is "" */
  readonly valuesDigestKey?: string;
}

/**
 * The handoff record of one add-on: what was installed where, for the GitOps handoff constructs.
 * Made by {@link ClusterAddon.handoffRecord}, or read from JSON (a Pulumi stack output).
 */
export class HandoffRecord {
  /**
   * A record from its JSON form (`kind: helm-handoff.dev/HandoffRecord`, `apiVersion: v1`).
   * @param json - the parsed JSON object
   */
  public static fromJson(json: { [key: string]: any }): HandoffRecord {
    if (json?.kind !== "helm-handoff.dev/HandoffRecord" || json?.apiVersion !== "v1") {
      throw new Error(
        `record is not a helm-handoff handoff record: kind must be "helm-handoff.dev/HandoffRecord" and apiVersion "v1" (got kind ${JSON.stringify(json?.kind)}, apiVersion ${JSON.stringify(json?.apiVersion)})`,
      );
    }
    return new HandoffRecord(json as coreTypes.HandoffRecord);
  }

  /** Cluster identity. */
  public readonly clusterId: string;
  /** API server URL. */
  public readonly server: string;
  /** Release name. */
  public readonly releaseName: string;
  /** Release namespace. */
  public readonly releaseNamespace: string;
  /** The chart version installed. */
  public readonly chartVersion: string;
  /** Release revision at handoff. */
  public readonly revision: number;
  /** The strategy in force. */
  public readonly strategy: Strategy;
  /** @internal */
  public readonly _record: coreTypes.HandoffRecord;

  private constructor(record: coreTypes.HandoffRecord) {
    this._record = record;
    this.clusterId = record.cluster.id;
    this.server = record.cluster.server;
    this.releaseName = record.release.name;
    this.releaseNamespace = record.release.namespace;
    this.chartVersion = record.chart.version;
    this.revision = record.revision;
    this.strategy = record.strategy as Strategy;
  }

  /** The record's JSON form. */
  public toJson(): { [key: string]: any } {
    return JSON.parse(JSON.stringify(this._record));
  }
}

/**
 * A Helm add-on rendered at synth time into objects that a later `helm install`, Flux
 * `HelmRelease` or Argo CD `Application` of the same release adopts, or into a Cluster API carrier
 * (ClusterResourceSet, HelmChartProxy). Invalid props throw at construction with the field and the
 * fix; two add-ons with one release are reported on synth.
 */
export class ClusterAddon extends Construct {
  /** Whether `x` is a {@link ClusterAddon}. */
  public static isClusterAddon(x: any): boolean {
    return x instanceof ClusterAddon;
  }

  /** The release name. */
  public readonly releaseName: string;
  /** The release namespace. */
  public readonly namespace: string;
  /** The output synthesized. */
  public readonly output: ClusterAddonOutput;
  /** The ApiObjects added to the tree (objects, carriers or the HelmChartProxy). */
  public readonly apiObjects: ApiObject[];
  /** Whether the render came from the render cache. */
  public readonly fromCache: boolean;
  /** Objects that differed between two renders (empty when deterministic or unchecked). */
  public readonly nondeterministic: string[];
  /** The warnings raised while building. */
  public readonly warnings: string[];
  private readonly addon: core.ClusterAddon;

  /**
   * @param scope - parent (inside a cdk8s Chart)
   * @param id - construct id; the default release name
   */
  public constructor(scope: Construct, id: string, props: ClusterAddonProps) {
    super(scope, id);
    this.addon = new core.ClusterAddon(this, "Default", coreAddonProps(id, props));
    this.releaseName = this.addon.releaseName;
    this.namespace = this.addon.namespace;
    this.output = this.addon.output as ClusterAddonOutput;
    this.apiObjects = [...this.addon.apiObjects];
    this.fromCache = this.addon.fromCache;
    this.nondeterministic = [...this.addon.nondeterministic];
    this.warnings = [...this.addon.warnings];
  }

  /** The prepared objects in apply order, as JSON (empty for HelmChartProxy, which renders nothing). */
  public get objects(): { [key: string]: any }[] {
    return JSON.parse(JSON.stringify(this.addon.objects));
  }

  /** The handoff record of this add-on once its Manifests output has been applied to a cluster. */
  public handoffRecord(input: ClusterAddonRecordInput): HandoffRecord {
    return HandoffRecord.fromJson(
      this.addon.handoffRecord(
        defined({
          clusterId: input.clusterId,
          server: input.server,
          installedAt: input.installedAt,
          revision: input.revision,
          valuesDigestKey: input.valuesDigestKey,
        }) as Parameters<core.ClusterAddon["handoffRecord"]>[0],
      ),
    );
  }
}

function coreAddonProps(id: string, p: ClusterAddonProps): core.ClusterAddonProps {
  const install = p.install;
  return defined({
    chart: p.chart?._source,
    releaseName: p.releaseName ?? id,
    namespace: p.namespace,
    createNamespace: p.createNamespace,
    values: coreValues(p.values),
    valueFiles: p.valueFiles,
    install:
      install === undefined
        ? undefined
        : defined({
            wait: install.wait,
            waitForJobs: install.waitForJobs,
            timeout: install.timeout === undefined ? undefined : `${install.timeout.toMilliseconds()}ms`,
            skipCrds: install.skipCrds,
            disableHooks: install.disableHooks,
            description: install.description,
          }),
    strategy: p.strategy,
    output: p.output,
    clusterSelector:
      p.clusterSelector === undefined
        ? undefined
        : defined({
            matchLabels: p.clusterSelector.matchLabels,
            matchExpressions: p.clusterSelector.matchExpressions?.map((e) =>
              defined({ key: e.key, operator: e.operator, values: e.values }),
            ),
          }),
    kubeVersion: p.kubeVersion,
    apiVersions: p.apiVersions,
    clusterApiVersion: p.clusterApiVersion,
    sensitive: p.sensitive,
    hooks: p.hooks,
    clusterScopedKinds: p.clusterScopedKinds,
    carrierNamespace: p.carrierNamespace,
    maxCarrierBytes: p.maxCarrierBytes,
    credentialsSecret:
      p.credentialsSecret === undefined
        ? undefined
        : defined({
            name: p.credentialsSecret.name,
            key: p.credentialsSecret.key,
            namespace: p.credentialsSecret.namespace,
          }),
    caSecret:
      p.caSecret === undefined
        ? undefined
        : defined({ name: p.caSecret.name, namespace: p.caSecret.namespace }),
    workloadSecrets: p.workloadSecrets?.map((w) =>
      defined({ name: w.name, namespace: w.namespace, type: w.type, stringData: w.stringData }),
    ),
    helmBinary: p.helmBinary,
    renderCache: p.renderCache,
    checkDeterminism: p.checkDeterminism,
  }) as unknown as core.ClusterAddonProps;
}
