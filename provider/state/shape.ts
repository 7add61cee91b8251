/**
 * The shape of an add-on in the Pulumi state: the inputs its release resource stores
 * ({@link ReleaseInputs}) and its outputs (the inputs plus what helm reported). Everything refresh
 * and delete need is in the outputs, since the engine hands those steps nothing else. The names:
 * `ClusterAddonArgs` is what a program writes, `ReleaseInputs` what the engine stores, and
 * `AddonSpec` (core's) what to install, decoded from the inputs (`decode.ts`).
 *
 * @module
 */

import type { HandoffRecord } from "../../core/handoff/record.js";
import type { ChartSource, InstallOptions, RetryPolicy, Strategy } from "../../core/spec/index.js";

/** The chart as stored: its password is {@link ReleaseInputs.chartPassword}, a secret URL {@link ReleaseInputs.chartRepo}. */
export type StoredChartSource =
  | Omit<Extract<ChartSource, { readonly repo: string }>, "password">
  | Extract<ChartSource, { readonly path: string }>;

/** The input `spec`: the chart and how helm installs it, with their defaults. */
export interface StoredSpec {
  /** The chart, without its password. */
  readonly chart: StoredChartSource;
  /** Create the namespace when it is missing. */
  readonly createNamespace: boolean;
  /** Reconcile: take over a release this resource did not write. */
  readonly adopt: boolean;
  /** How helm installs and upgrades. */
  readonly install: InstallOptions;
  /** How failed attempts are retried. */
  readonly retry: RetryPolicy;
}

/** The stored inputs. Keys listed in {@link SECRET_KEYS} are secrets. */
export interface ReleaseInputs {
  /** kubeconfig content. */
  readonly kubeconfig: string;
  /** Explicit, or derived from the kubeconfig's server and CA without a cluster call. */
  readonly clusterId: string;
  /** The kubeconfig's API server URL, for the handoff record. */
  readonly clusterServer: string;
  /** The lifecycle strategy. */
  readonly strategy: Strategy;
  /** The Helm release name. */
  readonly releaseName: string;
  /** The release's namespace. */
  readonly namespace: string;
  /** The chart and how helm installs it. */
  readonly spec: StoredSpec;
  /** Values files merged under `values`. */
  readonly values: Record<string, unknown>;
  /** The repository password; `""` when none. */
  readonly chartPassword: string;
  /** The repository URL when `chart.secretRepo` (the spec then holds `repo: ""`); `""` otherwise. */
  readonly chartRepo: string;
  /**
   * Digest of everything the program asks for but the password, so that a change ApplyOnce
   * ignores can still be reported in preview. Secret: an unkeyed digest of secret values.
   */
  readonly desiredDigest: string;
  /** Stable id of the resource, marked on every revision it writes (`ownershipOf`). */
  readonly ownerId: string;
  /** Project, stack and name, marked beside the id for messages. */
  readonly ownerName: string;
  /**
   * The secret owner key (`core/lifecycle/ownership.ts`), made by the check of a new resource and
   * carried by every later check, also to a replacement.
   */
  readonly ownerKey: string;
}

/** What the release looked like after the last helm call (or refresh). */
export interface ReleaseStatus {
  /** Release revision (1 after the first install). */
  readonly revision: number;
  /** Helm's status of the release, e.g. `deployed`. */
  readonly status: string;
  /** Chart name. */
  readonly chart: string;
  /** Chart version. */
  readonly chartVersion: string;
  /** The chart's app version. */
  readonly appVersion: string;
  /** ISO 8601. */
  readonly firstDeployed: string;
  /** ISO 8601. */
  readonly lastDeployed: string;
  /** Install attempts the create needed (1 when the first one succeeded). */
  readonly attempts: number;
  /** True when create found the release deployed and took it over without an upgrade. */
  readonly adopted: boolean;
}

/** The stored outputs. */
export interface ReleaseOutputs extends ReleaseInputs {
  /** What the release looked like after the last helm call (or refresh). */
  readonly status: ReleaseStatus;
  /** The handoff record of the release. */
  readonly handoff: HandoffRecord;
  /** Keyed digest of the values the live release runs, as last read (Reconcile's drift). */
  readonly liveValuesDigest: string;
  /** The secret key of this release's value digests, made at create and kept by every update. */
  readonly digestKey: string;
  /** Chart version the live release runs, as last read. */
  readonly liveChartVersion: string;
  /**
   * This instance of the resource, made at create and kept by updates: marked on every revision it
   * writes, so that a Reconcile delete leaves a release its replacement has taken over.
   */
  readonly ownerInstance: string;
}

/** Input keys that hold secrets (or an unkeyed digest of them). */
export const SECRET_KEYS = [
  "kubeconfig",
  "values",
  "chartPassword",
  "chartRepo",
  "desiredDigest",
  "ownerKey",
] as const;

/** Every output key that is secret: the secret inputs and the digest key (`additionalSecretOutputs`). */
export const SECRET_OUTPUT_KEYS = [...SECRET_KEYS, "digestKey"] as const;

/** The resource id: cluster, namespace and release name. */
export function releaseId(inputs: Pick<ReleaseInputs, "clusterId" | "namespace" | "releaseName">): string {
  return `${inputs.clusterId}/${inputs.namespace}/${inputs.releaseName}`;
}
