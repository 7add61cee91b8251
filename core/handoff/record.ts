/**
 * The handoff record: what was installed where, for stack exports and the GitOps side.
 *
 * @module
 */
import type { ChartSource, Strategy } from "../spec/index.js";
import { keyedValuesDigest } from "./digests.js";

/** The chart source as recorded: repository and name, or path. Credentials are never recorded. */
export type HandoffChartSource =
  | {
      /** Repository URL (`https://…`, `http://…` or `oci://…`); `""` when it is secret. */
      readonly repo: string;
      /** Chart name in the repository. */
      readonly name: string;
      /** The URL is secret (`chart.secretRepo`) and left out. @default absent: the URL is recorded */
      readonly secretRepo?: true;
    }
  | {
      /** Local chart directory or archive. */
      readonly path: string;
    };

/**
 * A JSON-serializable record of one add-on handed off to a cluster.
 *
 * Versioned by `kind`/`apiVersion`; fields are only added in a compatible way within `v1`.
 */
export interface HandoffRecord {
  /** Always `"helm-handoff.dev/HandoffRecord"`. */
  readonly kind: "helm-handoff.dev/HandoffRecord";
  /** Always `"v1"`. */
  readonly apiVersion: "v1";
  /** The cluster: identity (`sha256:…` or the user's explicit id) and API server URL. */
  readonly cluster: {
    /** Cluster identity: `sha256:…` of the API server URL and CA, or the user's explicit id. */
    readonly id: string;
    /** API server URL from the kubeconfig. */
    readonly server: string;
  };
  /**
   * The release. `storageNamespace` is where Helm keeps its release Secret
   * (`sh.helm.release.v1.NAME.vN`), equal to `namespace`.
   */
  readonly release: {
    /** Release name. */
    readonly name: string;
    /** Namespace the release's objects go to. */
    readonly namespace: string;
    /** Namespace of Helm's release Secrets. */
    readonly storageNamespace: string;
  };
  /** The chart: its source and the version actually installed. */
  readonly chart: {
    /** Where the chart came from (never with credentials). */
    readonly source: HandoffChartSource;
    /** The chart version installed. */
    readonly version: string;
  };
  /**
   * `hmac-sha256:…` of the values under the release's secret digest key (see `keyedValuesDigest`),
   * or `""` when no key was given. Without the key nobody can test guesses of the (secret) values
   * against it; the key stays the same for the life of the release, so a changed digest means
   * changed values. Never an unkeyed hash of the values.
   */
  readonly valuesDigest: string;
  /** Release revision at handoff. */
  readonly revision: number;
  /** The strategy in force. */
  readonly strategy: Strategy;
  /** When the release was installed (or last deployed), ISO 8601. */
  readonly installedAt: string;
  /** True when the release was found deployed and adopted rather than installed. */
  readonly adopted: boolean;
}

/** Input of {@link makeHandoffRecord}. */
export interface HandoffRecordInput {
  /** Cluster identity. */
  readonly clusterId: string;
  /** API server URL. */
  readonly server: string;
  /** Release name. */
  readonly releaseName: string;
  /** Release namespace. */
  readonly namespace: string;
  /** The chart source (credentials are dropped). */
  readonly chart: ChartSource;
  /** The chart version installed. */
  readonly chartVersion: string;
  /** The values (only their keyed digest is recorded, and only with {@link HandoffRecordInput.valuesDigestKey}). @default {} */
  readonly values?: Readonly<Record<string, unknown>>;
  /** The secret key of the values digest (see `newDigestKey`). @default none: `valuesDigest` is `""` */
  readonly valuesDigestKey?: string;
  /** Release revision. */
  readonly revision: number;
  /** Strategy. */
  readonly strategy: Strategy;
  /** Install time (ISO 8601 string or Date). */
  readonly installedAt: string | Date;
  /** Whether the release was adopted. @default false */
  readonly adopted?: boolean;
}

/** Builds a {@link HandoffRecord}; credentials in the chart source are never copied. */
export function makeHandoffRecord(input: HandoffRecordInput): HandoffRecord {
  const c = input.chart;
  const source: HandoffChartSource =
    "path" in c
      ? { path: c.path }
      : c.secretRepo === true
        ? { repo: "", name: c.name, secretRepo: true }
        : { repo: c.repo, name: c.name };
  return {
    kind: "helm-handoff.dev/HandoffRecord",
    apiVersion: "v1",
    cluster: { id: input.clusterId, server: input.server },
    release: { name: input.releaseName, namespace: input.namespace, storageNamespace: input.namespace },
    chart: { source, version: input.chartVersion },
    valuesDigest:
      input.valuesDigestKey === undefined ? "" : keyedValuesDigest(input.values, input.valuesDigestKey),
    revision: input.revision,
    strategy: input.strategy,
    installedAt: input.installedAt instanceof Date ? input.installedAt.toISOString() : input.installedAt,
    adopted: input.adopted ?? false,
  };
}

/** A release named `NS/NAME`, or undefined when `given` is not of that form. */
export function splitRelease(
  given: string,
): { readonly namespace: string; readonly name: string } | undefined {
  const [namespace, name, ...rest] = given.split("/");
  return namespace && name && rest.length === 0 ? { namespace, name } : undefined;
}

/**
 * The record of a release known by name (a `--release NS/NAME`, a Cluster API carrier's release):
 * ApplyOnce, installed at an unknown time, the chart and version when known, revision 0 unless
 * given (no Helm storage at bootstrap, as a cdk8s Manifests output leaves it), no values.
 */
export function namedReleaseRecord(input: {
  readonly clusterId: string;
  readonly server: string;
  readonly namespace: string;
  readonly releaseName: string;
  readonly chart?: ChartSource;
  readonly chartVersion?: string;
  readonly revision?: number;
}): HandoffRecord {
  return makeHandoffRecord({
    ...input,
    chart: input.chart ?? { path: "" },
    chartVersion: input.chartVersion ?? "",
    revision: input.revision ?? 0,
    strategy: "ApplyOnce",
    installedAt: new Date(0),
  });
}
