/**
 * The shape of an add-on release as the Pulumi engine stores it: the inputs of
 * the dynamic resource, and its outputs (inputs plus what the install found).
 *
 * Everything delete and refresh need is in the outputs, since the engine hands
 * those methods nothing else.
 *
 * @module
 */

import { digestOf, isKeyedDigest } from "../core/handoff/digests.js";
import type { HandoffRecord } from "../core/handoff/record.js";
import type { ChartSource, InstallOptions, RetryPolicy, Strategy } from "../core/spec/index.js";

/** The chart reference as stored: the repository password lives in {@link ReleaseInputs.chartPassword}. */
export type StoredChartSource =
  | Omit<Extract<ChartSource, { readonly repo: string }>, "password">
  | Extract<ChartSource, { readonly path: string }>;

/** The part of the spec that ApplyOnce freezes after the first install (engine `ignoreChanges`). */
export interface StoredSpec {
  /** The chart, without the repository password. */
  readonly chart: StoredChartSource;
  /** Create the namespace when it is missing. */
  readonly createNamespace: boolean;
  /** Reconcile: take over a release this resource did not write (absent in state of older versions). */
  readonly adopt?: boolean;
  /** How helm installs and upgrades. */
  readonly install: InstallOptions;
  /** How failed attempts are retried. */
  readonly retry: RetryPolicy;
}

/** Inputs of the dynamic resource. Keys listed in {@link SECRET_KEYS} are secrets. */
export interface ReleaseInputs {
  /** kubeconfig content (secret). */
  readonly kubeconfig: string;
  /** Cluster identity: explicit, or derived from the kubeconfig's server and CA without a cluster call. */
  readonly clusterId: string;
  /** API server URL from the kubeconfig, for the handoff record. */
  readonly clusterServer: string;
  /** The lifecycle strategy. */
  readonly strategy: Strategy;
  /** The Helm release name. */
  readonly releaseName: string;
  /** The release's namespace. */
  readonly namespace: string;
  /** The part of the spec ApplyOnce freezes. */
  readonly spec: StoredSpec;
  /** Chart values merged from value files and `values` (secret). */
  readonly values: Record<string, unknown>;
  /** Chart repository password (secret); empty string when none. */
  readonly chartPassword: string;
  /**
   * The chart repository URL when it is secret (`chart.secretRepo`; the stored spec then holds
   * `repo: ""`); empty string otherwise. Absent in state written before it.
   */
  readonly chartRepo?: string;
  /**
   * Digest of everything the program asks for except the repository password (secret: an
   * unkeyed digest of secret values must never sit in plaintext state or preview output). Never
   * ignored, so a change the engine hides from ApplyOnce can still be reported as ignored in preview.
   */
  readonly desiredDigest: string;
  /** Stable id of the resource, marked on every revision it writes (see `ownershipOf`). */
  readonly ownerId: string;
  /** Readable name of the resource (project, stack, name), marked beside the id for messages. */
  readonly ownerName: string;
  /**
   * The resource's secret owner key (`core/lifecycle/ownership.ts`): its owner label is `ownerId`
   * keyed with it, and each revision it writes carries a mark only this key makes. Made by the
   * first check of a new resource, carried by every later check (so also to a replacement); absent
   * in state written before keys, whose add-on keeps the plain `ownerId` labels.
   */
  readonly ownerKey?: string;
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
  /** When the release was first deployed (ISO 8601). */
  readonly firstDeployed: string;
  /** When the release was last deployed (ISO 8601). */
  readonly lastDeployed: string;
  /** Install attempts the create needed (1 when the first one succeeded). */
  readonly attempts: number;
  /** True when create found the release already deployed and took it over without an upgrade. */
  readonly adopted: boolean;
}

/** Outputs of the dynamic resource. */
export interface ReleaseOutputs extends ReleaseInputs {
  /** What the release looked like after the last helm call (or refresh). */
  readonly status: ReleaseStatus;
  /** The handoff record of the release. */
  readonly handoff: HandoffRecord;
  /** Keyed digest of the values the live release runs with, as last read (Reconcile drift detection). */
  readonly liveValuesDigest: string;
  /**
   * The secret key of this release's value digests (`liveValuesDigest`, the handoff record's
   * `valuesDigest`), made at create and kept by every update. Absent in state written by
   * versions before it, whose digests are unkeyed (see `hasKeyedDigests`).
   */
  readonly digestKey?: string;
  /** Chart version the live release runs, as last read. */
  readonly liveChartVersion: string;
  /**
   * This instance of the resource, made at create and kept by updates: marked on every revision it
   * writes, so that a Reconcile delete leaves a release its replacement has taken over.
   */
  readonly ownerInstance: string;
}

/** Input keys that hold secrets (or an unkeyed digest of them); also passed as `additionalSecretOutputs`. */
export const SECRET_KEYS = [
  "kubeconfig",
  "values",
  "chartPassword",
  "chartRepo",
  "desiredDigest",
  "ownerKey",
] as const;

/** Every output key that is secret: the secret inputs and the digest key. */
export const SECRET_OUTPUT_KEYS = [...SECRET_KEYS, "digestKey"] as const;

/**
 * Whether stored outputs carry this version's keyed digests. State written by older versions has
 * unkeyed `sha256:` digests (and a `desiredDigest` that covered the password) in plaintext.
 */
export function hasKeyedDigests(outputs: Partial<Pick<ReleaseOutputs, "digestKey" | "handoff">>): boolean {
  return typeof outputs.digestKey === "string" && isKeyedDigest(outputs.handoff?.valuesDigest);
}

/**
 * The digest of everything the program asks for but the repository password: kept secret, since
 * an unkeyed digest of the values must not be readable in state or preview. A password change is
 * seen by comparing the password itself (Reconcile).
 */
export function desiredDigestOf(
  spec: StoredSpec,
  values: Record<string, unknown>,
  namespace: string,
  releaseName: string,
): string {
  return digestOf({ s: spec, v: values, ns: namespace, releaseName });
}

/** The resource id: cluster, namespace and release name. */
export function releaseId(inputs: Pick<ReleaseInputs, "clusterId" | "namespace" | "releaseName">): string {
  return `${inputs.clusterId}/${inputs.namespace}/${inputs.releaseName}`;
}
