/**
 * `helm-handoff/gitops`: the GitOps handoff objects built from a {@link HandoffRecord}, as plain
 * functions returning plain Kubernetes objects, usable from a Pulumi program (with
 * `@pulumi/kubernetes`) or anywhere else without cdk8s (the cdk8s constructs around them are in
 * `helm-handoff/cdk8s`), {@link verifyHandoff}: whether GitOps really took the release over, and
 * {@link fleetStatus}: the same across every workload cluster of a Cluster API management cluster.
 *
 * - Flux: a `HelmRepository` (https) or `OCIRepository` (oci://) source and a
 *   `HelmRelease` (helm.toolkit.fluxcd.io/v2) whose `releaseName`, `targetNamespace` and
 *   `storageNamespace` are set explicitly to the recorded release. helm-controller finds the
 *   release in storage and takes it over by upgrading it (revision N+1, with the HelmRelease's
 *   values only); a failed takeover upgrade rolls back, never uninstalls.
 * - Argo CD: an `Application` (argoproj.io/v1alpha1) rendering the same chart with the same
 *   `helm.releaseName` (`helm template`), synced once on creation with server-side apply over the
 *   live objects. Argo CD never reads or writes Helm's storage: the release stays at the
 *   bootstrapped revision there (see `retireHelmStorage`).
 *
 * @module
 */
import { SpecError } from "../errors.js";
import type { KubeObject } from "../util/kube-object.js";
import type { HandoffRecord } from "./record.js";

export { type ErrorCode, HelmHandoffError } from "../errors.js";
export type { Strategy } from "../spec/types.js";
export type { KubeMetadata, KubeObject } from "../util/kube-object.js";
export { type FleetStatus, type FleetStatusOptions, type FleetVerdict, fleetStatus } from "./fleet.js";
export type { HandoffState, HandoffStatus, ObjectCounts, ReleaseOwnerNow } from "./judge.js";
export type { HandoffChartSource, HandoffRecord } from "./record.js";
export { type RetiredStorage, RetireRefusedError, retireHelmStorage } from "./retire.js";
export { type VerifyHandoffOptions, verifyHandoff, WrongClusterError } from "./verify.js";

/** The media type of a Helm chart's content layer in an OCI artifact. */
export const HELM_CHART_LAYER_MEDIA_TYPE = "application/vnd.cncf.helm.chart.content.v1.tar+gzip";

/** Options of the Flux handoff objects. */
export interface FluxHandoffOptions {
  /** Name of the HelmRelease and of its source. @default the release name */
  readonly name?: string;
  /** Namespace of the Flux objects. @default "flux-system" */
  readonly namespace?: string;
  /** Reconcile interval of the HelmRelease and the source. @default "10m" */
  readonly interval?: string;
  /**
   * Values for the HelmRelease (the record holds only their digest). Flux takes the release over by
   * upgrading it with exactly these values (it resets the installed ones), so pass the values that
   * were installed, or the takeover changes the add-on (to chart defaults when none are given).
   * Secret values belong in {@link FluxHandoffOptions.valuesFrom}, not here: these are written
   * into the HelmRelease in plain text. @default none
   */
  readonly values?: Readonly<Record<string, unknown>>;
  /**
   * Values read by helm-controller from Secrets or ConfigMaps in the HelmRelease's namespace
   * (`spec.valuesFrom`, merged before {@link FluxHandoffOptions.values}): how secret values reach
   * the release without being written into a CR. @default none
   */
  readonly valuesFrom?: readonly FluxValuesReference[];
}

/** One `spec.valuesFrom` entry of a HelmRelease. */
export interface FluxValuesReference {
  /** `Secret` or `ConfigMap`. */
  readonly kind: "Secret" | "ConfigMap";
  /** Its name, in the HelmRelease's namespace. */
  readonly name: string;
  /** The key holding a values YAML (or, with `targetPath`, one value). @default "values.yaml" */
  readonly valuesKey?: string;
  /** Where the value goes (`a.b.c`), for a key holding one value. @default the key is a values YAML merged at the root */
  readonly targetPath?: string;
}

/** Options of the Argo CD handoff Application. */
export interface ArgoCdHandoffOptions {
  /** Name of the Application. @default the release name */
  readonly name?: string;
  /** Namespace of the Application (Argo CD's own). @default "argocd" */
  readonly namespace?: string;
  /** Argo CD project. @default "default" */
  readonly project?: string;
  /** Destination API server as Argo CD knows it. @default "https://kubernetes.default.svc" (in-cluster) */
  readonly destinationServer?: string;
  /**
   * Values for the render (the record holds only their digest), written into the Application in
   * plain text: Argo CD has no way to read Helm values from a Secret, so keep secret values out
   * (charts usually take an existing Secret's name instead). @default none
   */
  readonly values?: Readonly<Record<string, unknown>>;
  /**
   * Automated sync: `true` syncs when the desired state changes, without `selfHeal` (which
   * re-applies a chart that renders differently each time, `randAlphaNum`, `genCA`, forever) and
   * without `prune`; an object turns either on explicitly. @default false
   */
  readonly automated?:
    | boolean
    | {
        /** Re-apply when the live objects drift (and, for charts rendering differently each time, forever). @default false */
        readonly selfHeal?: boolean;
        /** Delete live objects the render no longer has. @default false */
        readonly prune?: boolean;
      };
  /**
   * Ask for one sync when the Application is created (its `operation` field), so that Argo CD
   * writes its tracking mark on every object: objects Helm installed can show "Synced" at once
   * without Argo CD having taken them over, and without automated sync nothing else would sync.
   * Argo CD clears the field after the sync; a tool that re-applies the Application (e.g. an
   * app-of-apps with selfHeal) would ask again each time: turn it off there. @default true
   */
  readonly syncOnCreate?: boolean;
}

interface RepoSource {
  readonly repo: string;
  readonly name: string;
}

function repoSource(record: HandoffRecord, who: string): RepoSource {
  const s = record.chart.source;
  if ("path" in s) {
    throw new SpecError(
      "chart",
      `a local chart (${s.path}) cannot be handed off to ${who}: publish it to an https:// or oci:// repository and record that source`,
    );
  }
  if (s.secretRepo === true) {
    throw new SpecError(
      "chart.source.repo",
      `the chart's repository URL is secret (chart.secretRepo), so the record leaves it out: write the ${who} source yourself, keeping the URL in a Secret`,
    );
  }
  return s;
}

function isOci(repo: string): boolean {
  return /^oci:\/\//i.test(repo);
}

function fluxMeta(record: HandoffRecord, options: FluxHandoffOptions) {
  return { name: options.name ?? record.release.name, namespace: options.namespace ?? "flux-system" };
}

/**
 * The Flux source of the recorded chart: an `OCIRepository` (source.toolkit.fluxcd.io/v1) for
 * `oci://` charts, pinned to the recorded version as tag, else a `HelmRepository`.
 * @throws SpecError for a local chart
 */
export function fluxSourceObject(record: HandoffRecord, options: FluxHandoffOptions = {}): KubeObject {
  const src = repoSource(record, "Flux");
  const metadata = fluxMeta(record, options);
  const interval = options.interval ?? "10m";
  if (isOci(src.repo)) {
    return {
      apiVersion: "source.toolkit.fluxcd.io/v1",
      kind: "OCIRepository",
      metadata,
      spec: {
        interval,
        url: `${src.repo}/${src.name}`,
        // OCI tags cannot hold "+": helm push writes a version's "+" as "_".
        ref: { tag: record.chart.version.replaceAll("+", "_") },
        layerSelector: { mediaType: HELM_CHART_LAYER_MEDIA_TYPE, operation: "copy" },
      },
    };
  }
  return {
    apiVersion: "source.toolkit.fluxcd.io/v1",
    kind: "HelmRepository",
    metadata,
    spec: { interval, url: src.repo },
  };
}

/**
 * The Flux `HelmRelease` (helm.toolkit.fluxcd.io/v2) that takes the recorded release over:
 * `releaseName`, `targetNamespace` and `storageNamespace` set to the recorded release.
 * @throws SpecError for a local chart
 */
export function fluxHelmReleaseObject(record: HandoffRecord, options: FluxHandoffOptions = {}): KubeObject {
  const src = repoSource(record, "Flux");
  const metadata = fluxMeta(record, options);
  const chart = isOci(src.repo)
    ? { chartRef: { kind: "OCIRepository", name: metadata.name } }
    : {
        chart: {
          spec: {
            chart: src.name,
            version: record.chart.version,
            sourceRef: { kind: "HelmRepository", name: metadata.name },
          },
        },
      };
  return {
    apiVersion: "helm.toolkit.fluxcd.io/v2",
    kind: "HelmRelease",
    metadata,
    spec: {
      interval: options.interval ?? "10m",
      ...chart,
      releaseName: record.release.name,
      targetNamespace: record.release.namespace,
      storageNamespace: record.release.storageNamespace,
      ...(options.valuesFrom !== undefined && options.valuesFrom.length > 0
        ? { valuesFrom: options.valuesFrom.map((v) => ({ ...v })) }
        : {}),
      ...(options.values !== undefined ? { values: options.values } : {}),
      // The takeover is an upgrade; if it fails, roll back, never uninstall the add-on just taken
      // over (with Flux's history cleared the rollback finds no target and stalls: nothing is removed).
      upgrade: { remediation: { strategy: "rollback" } },
    },
  };
}

/** The Flux source and HelmRelease, in apply order. */
export function fluxHandoffObjects(record: HandoffRecord, options: FluxHandoffOptions = {}): KubeObject[] {
  return [fluxSourceObject(record, options), fluxHelmReleaseObject(record, options)];
}

/**
 * The Argo CD `Application` that renders the recorded chart with the same release name
 * (`spec.source.helm.releaseName`) into the release namespace, synced with
 * `ServerSideApply=true`. OCI repositories are written without `oci://`, as Argo CD expects.
 * @throws SpecError for a local chart
 */
export function argoCdApplicationObject(
  record: HandoffRecord,
  options: ArgoCdHandoffOptions = {},
): KubeObject {
  const src = repoSource(record, "Argo CD");
  const repoURL = isOci(src.repo) ? src.repo.replace(/^oci:\/\//i, "") : src.repo;
  const a = options.automated;
  const automated =
    a === undefined || a === false
      ? undefined
      : {
          prune: a === true ? false : (a.prune ?? false),
          selfHeal: a === true ? false : (a.selfHeal ?? false),
        };
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: { name: options.name ?? record.release.name, namespace: options.namespace ?? "argocd" },
    spec: {
      project: options.project ?? "default",
      source: {
        repoURL,
        chart: src.name,
        targetRevision: record.chart.version,
        helm: {
          releaseName: record.release.name,
          ...(options.values !== undefined ? { valuesObject: options.values } : {}),
        },
      },
      destination: {
        server: options.destinationServer ?? "https://kubernetes.default.svc",
        namespace: record.release.namespace,
      },
      syncPolicy: {
        ...(automated !== undefined ? { automated } : {}),
        syncOptions: ["ServerSideApply=true"],
      },
    },
    ...(options.syncOnCreate === false
      ? {}
      : {
          operation: {
            initiatedBy: { username: "helm-handoff" },
            sync: { syncOptions: ["ServerSideApply=true"] },
          },
        }),
  };
}
