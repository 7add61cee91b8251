/**
 * The cdk8s `ClusterAddon` construct.
 *
 * @module
 */
import { ApiObject, Chart, JsonPatch } from "cdk8s";
import { Construct, type IConstruct } from "constructs";
import { SpecError } from "../core/errors.js";
import { type HandoffRecord, makeHandoffRecord } from "../core/handoff/record.js";
import { localChartMeta } from "../core/spec/chart-facts.js";
import {
  type AddonSpec,
  type InstallOptions,
  type ResolvedSpec,
  type Strategy,
  validateSpec,
} from "../core/spec/index.js";
import { effectiveValues } from "../core/spec/values.js";
import type { KubeObject } from "../core/util/kube-object.js";
import { clusterResourceSetObjects, isEmptySelector, type LabelSelector } from "./cluster-resource-set.js";
import { type ClusterValueUse, collectClusterValues, refuseClusterValues } from "./cluster-value.js";
import { helmChartProxyObjects, refuseProxyOnlyProps } from "./helm-chart-proxy.js";
import { CLUSTER_SCOPED_KINDS, HOOKS_POLICIES, prepareObjects } from "./manifest.js";
import { renderChart } from "./render.js";
import { workloadSecretObjects } from "./workload-secrets.js";

/** What a {@link ClusterAddon} synthesizes to (a literal union on the props, not a public name). */
export type ClusterAddonOutput = NonNullable<ClusterAddonProps["output"]>;

/** The outputs, see {@link ClusterAddonProps.output}. */
export const CLUSTER_ADDON_OUTPUTS: readonly ClusterAddonOutput[] = [
  "Manifests",
  "ClusterResourceSet",
  "HelmChartProxy",
];

/** Props of {@link ClusterAddon}: the shared add-on spec plus cdk8s and Cluster API options. */
export interface ClusterAddonProps extends Pick<AddonSpec, "chart" | "namespace" | "valueFiles"> {
  /**
   * Release name, used for rendering and recorded in the ownership annotations; a later
   * Helm/Flux/Argo CD takeover must use the same one.
   * @default the construct id (never a hashed name)
   */
  readonly releaseName?: string;
  /** Add a Namespace object for the release namespace (kept on takeover). @default false */
  readonly createNamespace?: boolean;
  /**
   * Chart values. With output "HelmChartProxy" a value may be a `ClusterValue` (or a string
   * holding one), which CAAPH fills in for each Cluster.
   * @default {}
   */
  readonly values?: Record<string, unknown>;
  /** Helm options (`skipCrds` and `disableHooks` affect rendering; the rest is used by HelmChartProxy). @default see InstallOptions */
  readonly install?: InstallOptions;
  /** Lifecycle strategy: ClusterResourceSet `strategy`, HelmChartProxy `reconcileStrategy`. @default "ApplyOnce" */
  readonly strategy?: Strategy;
  /** What to synthesize. @default "Manifests" */
  readonly output?: "Manifests" | "ClusterResourceSet" | "HelmChartProxy";
  /** Selects the Clusters (required for the ClusterResourceSet and HelmChartProxy outputs). @default none */
  readonly clusterSelector?: LabelSelector;
  /** Kubernetes version for `.Capabilities.KubeVersion`, e.g. "1.36.0". @default helm's built-in default */
  readonly kubeVersion?: string;
  /** Extra API versions for `.Capabilities.APIVersions`, e.g. "monitoring.coreos.com/v1". @default none */
  readonly apiVersions?: readonly string[];
  /** API version of the ClusterResourceSet. @default "v1beta2" */
  readonly clusterApiVersion?: "v1beta2" | "v1beta1";
  /**
   * The values are sensitive: the render cache is bypassed and the ClusterResourceSet carries the
   * objects in Secrets of type `addons.cluster.x-k8s.io/resource-set` instead of ConfigMaps
   * (HelmChartProxy is refused: it has the values in plain text). A render that contains a Secret
   * is handled so whatever this says.
   * @default false
   */
  readonly sensitive?: boolean;
  /**
   * What to do with chart hooks: `"drop"` leaves them out, `"include"` renders them as plain objects.
   * @default "drop"
   */
  readonly hooks?: "drop" | "include";
  /** Kinds to treat as cluster-scoped besides the built-in ones and the chart's own CRDs. @default none */
  readonly clusterScopedKinds?: readonly string[];
  /** Namespace of the ClusterResourceSet/HelmChartProxy and carriers (where the Clusters are). @default unset (the cdk8s Chart's namespace, if any) */
  readonly carrierNamespace?: string;
  /**
   * HelmChartProxy, `oci://` charts: a Secret already in the management cluster holding the
   * registry's credentials (a helm registry config JSON), for `spec.credentials`; instead of
   * `chart.username`/`chart.password`, which make the construct emit such a Secret itself.
   * @default none
   */
  readonly credentialsSecret?: {
    /** The Secret's name. */
    readonly name: string;
    /** The key holding the registry config JSON (`{"auths": {"HOST": {"auth": "…"}}}`). @default "config.json" */
    readonly key?: string;
    /** The Secret's namespace. @default the HelmChartProxy's */
    readonly namespace?: string;
  };
  /**
   * HelmChartProxy, `oci://` charts: a Secret already in the management cluster holding the
   * registry's CA in key `ca.crt`, for `spec.tlsConfig.caSecret`; instead of `chart.caFile`,
   * which makes the construct emit such a Secret itself.
   * @default none
   */
  readonly caSecret?: {
    /** The Secret's name. */
    readonly name: string;
    /** The Secret's namespace. @default the HelmChartProxy's */
    readonly namespace?: string;
  };
  /**
   * HelmChartProxy: Secrets the chart needs in every selected workload cluster (a Git deploy key,
   * a repository token), which the proxy's plain-text values cannot carry. They travel in
   * resource-set Secret carriers of a ClusterResourceSet `RELEASE-secrets` with the same selector
   * (so the synth output holds them, as a sensitive ClusterResourceSet does) and are created in
   * each workload cluster before or while the chart installs; name them in `values`
   * (`existingSecret`-style).
   * @default none
   */
  readonly workloadSecrets?: readonly {
    /** The Secret's name in the workload cluster. */
    readonly name: string;
    /** Its namespace there. @default the release namespace */
    readonly namespace?: string;
    /** Its type. @default "Opaque" */
    readonly type?: string;
    /** Its data, as text (never shown in a message). */
    readonly stringData: Readonly<Record<string, string>>;
  }[];
  /** Byte budget of one ClusterResourceSet ConfigMap/Secret. @default 900 KiB */
  readonly maxCarrierBytes?: number;
  /** The helm binary (a path, or a name looked up on PATH). @default `$HELM_HANDOFF_HELM`, else "helm" on PATH */
  readonly helmBinary?: string;
  /** Use the render cache (`${XDG_CACHE_HOME:-~/.cache}/helm-handoff/render-cache`). @default true */
  readonly renderCache?: boolean;
  /** Render twice on a cache miss and warn when the chart renders differently each time. @default true */
  readonly checkDeterminism?: boolean;
}

const METADATA_WARNING = "helm-handoff:warning";

/**
 * A Helm add-on rendered at synth time into objects that a later `helm install`, Flux
 * `HelmRelease` or CAAPH install of the same release adopts, or into a Cluster API carrier
 * (ClusterResourceSet, HelmChartProxy).
 *
 * Rendering is `helm template` (synchronously, through the render cache) with CRDs included,
 * tests skipped and hooks handled by {@link ClusterAddonProps.hooks}. The spec is validated
 * eagerly ({@link SpecError} at construction); conflicts between add-ons are reported by
 * `node.validate()` (cdk8s runs it on synth). Warnings (a chart that renders differently each
 * time, dropped hooks) are added as node metadata of type `helm-handoff:warning`, listed in
 * {@link ClusterAddon.warnings} and emitted as process warnings.
 */
export class ClusterAddon extends Construct {
  /** The release name. */
  public readonly releaseName: string;
  /** The release namespace. */
  public readonly namespace: string;
  /** The output synthesized. */
  public readonly output: "Manifests" | "ClusterResourceSet" | "HelmChartProxy";
  /** The prepared objects in apply order (empty for HelmChartProxy, which renders nothing). */
  public readonly objects: readonly KubeObject[];
  /** The ApiObjects added to the tree (objects, carriers, or the HelmChartProxy after the Secrets it references). */
  public readonly apiObjects: readonly ApiObject[];
  /** Whether the render came from the cache. */
  public readonly fromCache: boolean;
  /** Objects that differed between two renders (empty when deterministic or unchecked). */
  public readonly nondeterministic: readonly string[];
  /** The warnings raised while building. */
  public readonly warnings: readonly string[];
  private readonly spec: ResolvedSpec;
  private readonly clusterValues: readonly ClusterValueUse[];

  /**
   * @param scope - parent (inside a cdk8s Chart)
   * @param id - construct id; the default release name
   * @param props - see {@link ClusterAddonProps}
   * @throws SpecError for an invalid spec or prop
   */
  public constructor(scope: Construct, id: string, props: ClusterAddonProps) {
    super(scope, id);
    const collected = collectClusterValues(props.values ?? {});
    const spec = validateSpec({
      ...props,
      ...(props.values !== undefined ? { values: collected.values } : {}),
      releaseName: props.releaseName ?? id,
    });
    this.spec = spec;
    this.releaseName = spec.releaseName;
    this.namespace = spec.namespace;
    const output = validateProps(props);
    this.output = output;
    refuseClusterValues(collected.uses, output);
    this.clusterValues = collected.uses;
    const warnings: string[] = [];
    const chartNamespace = Chart.of(this).namespace;
    const carrierNamespace = props.carrierNamespace;
    let objects: KubeObject[] = [];
    let toAdd: KubeObject[];
    let fromCache = false;
    let nondeterministic: readonly string[] = [];
    if (output === "HelmChartProxy") {
      const secrets = workloadSecretObjects(props.workloadSecrets ?? [], {
        releaseName: spec.releaseName,
        releaseNamespace: spec.namespace,
        createNamespace: spec.createNamespace,
        namespace: carrierNamespace,
        clusterSelector: props.clusterSelector ?? {},
        strategy: spec.strategy,
        apiVersion: props.clusterApiVersion,
      });
      toAdd = [
        ...secrets,
        ...helmChartProxyObjects(spec, {
          name: spec.releaseName,
          ...(carrierNamespace !== undefined ? { namespace: carrierNamespace } : {}),
          clusterSelector: props.clusterSelector ?? {},
          values: effectiveValues(spec),
          credentialsSecret: props.credentialsSecret,
          caSecret: props.caSecret,
        }),
      ];
    } else {
      const rendered = renderChart(spec, {
        ...(props.kubeVersion !== undefined ? { kubeVersion: props.kubeVersion } : {}),
        ...(props.apiVersions !== undefined ? { apiVersions: props.apiVersions } : {}),
        ...(props.helmBinary !== undefined ? { helmBinary: props.helmBinary } : {}),
        cache: props.renderCache ?? true,
        checkDeterminism: props.checkDeterminism ?? true,
        sensitive: props.sensitive ?? false,
      });
      fromCache = rendered.fromCache;
      nondeterministic = rendered.nondeterministic;
      if (nondeterministic.length > 0) {
        warnings.push(
          `chart of release "${spec.releaseName}" renders differently each time (${nondeterministic.join(", ")}): ` +
            "a later Helm, Flux or Argo CD render will not match these manifests; set those values explicitly (e.g. generated passwords or certificates)",
        );
      }
      const prepared = prepareObjects(rendered.manifest, {
        releaseName: spec.releaseName,
        namespace: spec.namespace,
        hooks: props.hooks ?? "drop",
        createNamespace: spec.createNamespace,
        ...(props.clusterScopedKinds !== undefined ? { clusterScopedKinds: props.clusterScopedKinds } : {}),
      });
      objects = [...prepared.objects];
      if (prepared.droppedHooks.length > 0 && props.hooks === undefined) {
        warnings.push(
          `chart hooks of release "${spec.releaseName}" were left out (${prepared.droppedHooks.join(", ")}): helm runs them on takeover; set hooks: "include" to apply them now, or hooks: "drop" to silence this`,
        );
      }
      toAdd =
        output === "Manifests"
          ? objects
          : clusterResourceSetObjects(objects, {
              name: spec.releaseName,
              ...(carrierNamespace !== undefined ? { namespace: carrierNamespace } : {}),
              clusterSelector: props.clusterSelector ?? {},
              strategy: spec.strategy,
              apiVersion: props.clusterApiVersion ?? "v1beta2",
              sensitive: (props.sensitive ?? false) || rendered.containsSecret,
              ...(props.maxCarrierBytes !== undefined ? { maxBytes: props.maxCarrierBytes } : {}),
            });
    }
    const clusterScoped = clusterScopedKindsOf(objects, props.clusterScopedKinds);
    this.apiObjects = toAdd.map((o, i) => {
      const api = new ApiObject(this, objectId(i, o), { ...o });
      // cdk8s puts the Chart's namespace on every object without one: not on cluster-scoped kinds
      if (output === "Manifests" && chartNamespace !== undefined && clusterScoped.has(o.kind)) {
        api.addJsonPatch(JsonPatch.remove("/metadata/namespace"));
      }
      return api;
    });
    this.objects = objects;
    this.fromCache = fromCache;
    this.nondeterministic = nondeterministic;
    this.warnings = warnings;
    for (const w of warnings) {
      this.node.addMetadata(METADATA_WARNING, w);
      process.emitWarning(w, { code: "HELM_HANDOFF_SYNTH" });
    }
    this.node.addValidation({ validate: () => this.validateUnique() });
  }

  /** Whether `x` is a {@link ClusterAddon}. */
  public static isClusterAddon(x: unknown): x is ClusterAddon {
    return x instanceof ClusterAddon;
  }

  /**
   * The handoff record of this add-on once its output has been applied to a cluster, for the
   * GitOps handoff objects (`fluxHandoffObjects`, `argoCdApplicationObject`).
   * @param input - what only the cluster side knows
   */
  public handoffRecord(input: {
    /** Cluster identity (see `clusterIdentityFromKubeconfig`). */
    readonly clusterId: string;
    /** API server URL. */
    readonly server: string;
    /** When the manifests were applied. @default the epoch (unknown) */
    readonly installedAt?: string | Date;
    /** Release revision. @default 0 (applied manifests, no Helm release yet) */
    readonly revision?: number;
    /**
     * A secret key (see `newDigestKey`) for the record's keyed `valuesDigest`; keep it out of the
     * synthesized output. @default none: the record's `valuesDigest` is `""`
     */
    readonly valuesDigestKey?: string;
  }): HandoffRecord {
    const use = this.clusterValues[0];
    if (use !== undefined) {
      throw new SpecError(
        use.at,
        `${use.at} holds ClusterValue ${use.values[0]?.path}, which differs from Cluster to Cluster: a handoff record names the values of one cluster; give the value itself in the add-on whose record you hand off`,
      );
    }
    return makeHandoffRecord({
      clusterId: input.clusterId,
      server: input.server,
      releaseName: this.spec.releaseName,
      namespace: this.spec.namespace,
      chart: this.spec.chart,
      chartVersion: chartVersionOf(this.spec, this.objects),
      values: effectiveValues(this.spec),
      ...(input.valuesDigestKey === undefined ? {} : { valuesDigestKey: input.valuesDigestKey }),
      revision: input.revision ?? 0,
      strategy: this.spec.strategy,
      installedAt: input.installedAt ?? new Date(0),
    });
  }

  private validateUnique(): string[] {
    const root = this.node.root;
    const same = root.node
      .findAll()
      .filter(
        (c: IConstruct): c is ClusterAddon =>
          c instanceof ClusterAddon &&
          c !== this &&
          c.releaseName === this.releaseName &&
          c.namespace === this.namespace &&
          c.output === this.output,
      );
    if (same.length === 0) return [];
    return [
      `release "${this.namespace}/${this.releaseName}" is also defined by ${same.map((c) => c.node.path).join(", ")}: ` +
        "two add-ons with one release name and namespace would fight over the same objects; give each a distinct releaseName",
    ];
  }
}

function validateProps(props: ClusterAddonProps): ClusterAddonOutput {
  const output = props.output ?? "Manifests";
  if (!CLUSTER_ADDON_OUTPUTS.includes(output)) {
    throw new SpecError(
      "output",
      `output ${JSON.stringify(output)} is invalid: must be one of ${CLUSTER_ADDON_OUTPUTS.map((o) => JSON.stringify(o)).join(", ")}`,
    );
  }
  if (props.hooks !== undefined && !HOOKS_POLICIES.includes(props.hooks)) {
    throw new SpecError(
      "hooks",
      `hooks ${JSON.stringify(props.hooks)} is invalid: must be one of ${HOOKS_POLICIES.map((o) => JSON.stringify(o)).join(", ")}`,
    );
  }
  if (props.clusterApiVersion !== undefined && !["v1beta2", "v1beta1"].includes(props.clusterApiVersion)) {
    throw new SpecError(
      "clusterApiVersion",
      `clusterApiVersion ${JSON.stringify(props.clusterApiVersion)} is invalid: must be "v1beta2" or "v1beta1"`,
    );
  }
  if (output !== "Manifests" && isEmptySelector(props.clusterSelector)) {
    throw new SpecError(
      "clusterSelector",
      `clusterSelector is required with output "${output}": give matchLabels or matchExpressions selecting the Clusters, e.g. { matchLabels: { cni: "bootstrap" } }`,
    );
  }
  if (output === "Manifests" && props.clusterSelector !== undefined) {
    throw new SpecError(
      "clusterSelector",
      'clusterSelector only applies to the outputs "ClusterResourceSet" and "HelmChartProxy"',
    );
  }
  refuseProxyOnlyProps(props, output);
  if (output === "HelmChartProxy" && props.sensitive) {
    throw new SpecError(
      "sensitive",
      'sensitive values cannot go into a HelmChartProxy (its valuesTemplate is plain text in the management cluster): use output "ClusterResourceSet", which carries them in Secrets',
    );
  }
  if (
    props.maxCarrierBytes !== undefined &&
    !(props.maxCarrierBytes > 0 && props.maxCarrierBytes <= 1048576)
  ) {
    throw new SpecError(
      "maxCarrierBytes",
      `maxCarrierBytes ${props.maxCarrierBytes} is invalid: must be between 1 and 1048576 (Cluster API's limit per ConfigMap/Secret)`,
    );
  }
  return output;
}

function clusterScopedKindsOf(objects: readonly KubeObject[], extra?: readonly string[]): Set<string> {
  const out = new Set([...CLUSTER_SCOPED_KINDS, ...(extra ?? [])]);
  for (const o of objects) {
    const spec = o.spec as { scope?: unknown; names?: { kind?: unknown } } | undefined;
    if (
      o.kind === "CustomResourceDefinition" &&
      spec?.scope === "Cluster" &&
      typeof spec.names?.kind === "string"
    )
      out.add(spec.names.kind);
  }
  return out;
}

function objectId(i: number, o: KubeObject): string {
  const slug = `${o.kind}-${o.metadata.namespace ?? ""}-${o.metadata.name ?? ""}`.replace(
    /[^A-Za-z0-9.-]+/g,
    "-",
  );
  return `${String(i).padStart(4, "0")}-${slug}`;
}

function chartVersionOf(spec: ResolvedSpec, objects: readonly KubeObject[]): string {
  const c = spec.chart;
  if (c.kind !== "path") return c.version ?? "";
  const fromChartYaml = localChartMeta(c.path).version;
  if (fromChartYaml !== undefined) return fromChartYaml;
  for (const o of objects) {
    const label = o.metadata.labels?.["helm.sh/chart"];
    const v = label === undefined ? undefined : /-(v?\d+\.\d+\.\d+.*)$/.exec(label)?.[1];
    if (v !== undefined) return v;
  }
  return "";
}
