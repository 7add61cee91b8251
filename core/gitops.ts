/**
 * `helm-handoff/gitops`: the GitOps handoff objects built from a {@link HandoffRecord}, as plain
 * functions returning plain Kubernetes objects, usable from a Pulumi program (with
 * `@pulumi/kubernetes`) or anywhere else without cdk8s (the cdk8s constructs around them are in
 * `helm-handoff/cdk8s`).
 *
 * - Flux: a `HelmRepository` (https) or `OCIRepository` (oci://) source and a
 *   `HelmRelease` (helm.toolkit.fluxcd.io/v2) whose `releaseName`, `targetNamespace` and
 *   `storageNamespace` are set explicitly to the recorded release, so Flux finds the release in
 *   storage and adopts it (an upgrade) instead of installing a second one.
 * - Argo CD: an `Application` (argoproj.io/v1alpha1) rendering the same chart with the same
 *   `helm.releaseName`, synced with server-side apply.
 *
 * @module
 */
import { SpecError } from "./errors.js";
import type { HandoffRecord } from "./handoff.js";
import type { KubeObject } from "./objects.js";

export type { HandoffRecord } from "./handoff.js";
export type { KubeMetadata, KubeObject } from "./objects.js";

/** The media type of a Helm chart's content layer in an OCI artifact. */
export const HELM_CHART_LAYER_MEDIA_TYPE = "application/vnd.cncf.helm.chart.content.v1.tar+gzip";

/** Options of the Flux handoff objects. */
export interface FluxHandoffOptions {
  /** Name of the HelmRelease and of its source. @default - the release name */
  readonly name?: string;
  /** Namespace of the Flux objects. @default - "flux-system" */
  readonly namespace?: string;
  /** Reconcile interval of the HelmRelease and the source. @default - "10m" */
  readonly interval?: string;
  /**
   * Values for the HelmRelease (the record holds only their digest); pass the same values that
   * were installed, or Flux's first upgrade changes the release. @default - none
   */
  readonly values?: Readonly<Record<string, unknown>>;
}

/** Options of the Argo CD handoff Application. */
export interface ArgoCdHandoffOptions {
  /** Name of the Application. @default - the release name */
  readonly name?: string;
  /** Namespace of the Application (Argo CD's own). @default - "argocd" */
  readonly namespace?: string;
  /** Argo CD project. @default - "default" */
  readonly project?: string;
  /** Destination API server as Argo CD knows it. @default - "https://kubernetes.default.svc" (in-cluster) */
  readonly destinationServer?: string;
  /** Values for the render (the record holds only their digest). @default - none */
  readonly values?: Readonly<Record<string, unknown>>;
  /** Turn on automated sync (without prune). @default - false */
  readonly automated?: boolean;
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
        ref: { tag: record.chart.version },
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
      ...(options.values !== undefined ? { values: options.values } : {}),
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
        ...(options.automated ? { automated: { prune: false, selfHeal: true } } : {}),
        syncOptions: ["ServerSideApply=true"],
      },
    },
  };
}
