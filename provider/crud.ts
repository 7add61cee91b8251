/**
 * The release's check/diff/create/read/update/delete, the one implementation both hosts run: the
 * provider source stored in a Node.js program's state (`PROVIDER_SOURCE`) loads it at call time as
 * `helm-handoff/pulumi/dynamic`, and the package's provider (`helmHandoffProvider`) imports it.
 *
 * Frozen contract: the package export `helm-handoff/pulumi/dynamic` maps to this module, and the
 * provider source already stored in users' states calls exactly `check`, `diff`, `create`,
 * `read`, `update` and `remove` with the engine's arguments. Keep the export path and these six
 * functions' signatures (docs/api/helm-handoff-pulumi-dynamic.api.md); add, never rename. The
 * types they name are exported with them, types only.
 *
 * Contract kept here (Pulumi's dynamic providers):
 * - a failed create leaves nothing installed and throws (nothing is recorded);
 * - a failed delete throws, so the release is still recorded as existing;
 * - which helm calls each step may make is the strategy table's (`STRATEGY_TABLE`):
 *   every runner made for a step is limited to the calls the table allows for its strategy and
 *   step, so ApplyOnce never calls helm after the first success: diff reports no change, update
 *   and delete are no-ops, read returns the state as it is.
 *
 * What loads: this module is light (validation, digests, the handoff record). The steps that
 * call helm or the API server live in `helm-steps.ts`, imported on first use, and Reconcile's
 * diff imports the upgrade rule: a handed-off stack's `up` loads neither.
 *
 * Progress goes to stderr as plain lines: the engine passes those through to
 * `pulumi up`'s output, structured `pulumi.log` does not flow from here.
 *
 * @module
 */

import { createHmac } from "node:crypto";
import type * as pulumi from "@pulumi/pulumi";
import { SpecError } from "../core/errors.js";
import { keyedValuesDigest, valuesFingerprint } from "../core/handoff/digests.js";
import { mayCallHelm, STRATEGY_TABLE } from "../core/lifecycle/strategy.js";
import { validateSpec } from "../core/spec/index.js";
import { keepCompileCache } from "./process-edge.js";
import { progressLine } from "./progress.js";
import { digestKeyOf, outputsOf, toSpec } from "./release-spec.js";
import {
  desiredDigestOf,
  hasKeyedDigests,
  type ReleaseInputs,
  type ReleaseOutputs,
} from "./stored-release.js";

// Only provider processes load this module (Pulumi's dynamic provider host, the package's plugin):
// keep what they compile (the stored provider source turned the cache on before loading us).
keepCompileCache();

export type {
  ChartSource,
  Duration,
  DurationInput,
  HandoffChartSource,
  HandoffRecord,
  InstallOptions,
  PathChartSource,
  RepoChartSource,
  RetryPolicy,
  Strategy,
} from "../core/index.js";
export type {
  ReleaseInputs,
  ReleaseOutputs,
  ReleaseStatus,
  StoredChartSource,
  StoredSpec,
} from "./stored-release.js";

/** The inputs of an add-on as Pulumi's dynamic provider host passes them. */
export type Inputs = ReleaseInputs & Record<string, unknown>;
/** The outputs of an add-on as Pulumi's dynamic provider host stores them. */
export type Outputs = ReleaseOutputs & Record<string, unknown>;

/** The steps that call helm, loaded on first use. */
function helmSteps(): Promise<typeof import("./helm-steps.js")> {
  return import("./helm-steps.js");
}

/** Starts loading the helm steps and, when the kubeconfig needs it, `@kubernetes/client-node`. Never fails. */
function preloadForCreate(kubeconfig: unknown): void {
  helmSteps().catch(() => undefined);
  if (typeof kubeconfig !== "string") return;
  import("../core/cluster/client.js").then((m) => m.preloadKubeClient(kubeconfig)).catch(() => undefined);
}

/**
 * Validates the inputs without touching a cluster (failures name the property). An ApplyOnce
 * add-on after its install keeps its frozen inputs as stored ({@link handedOffInputs}).
 */
export async function check(olds: Inputs, news: Inputs): Promise<pulumi.dynamic.CheckResult> {
  // No old inputs: a new resource, about to be created. Load what its create needs while the
  // engine plans (an existing ApplyOnce add-on never needs it).
  const created = Object.keys(olds).length === 0;
  if (created) preloadForCreate(news.kubeconfig);
  try {
    validateSpec(toSpec(news));
  } catch (err) {
    if (err instanceof SpecError) {
      return { failures: [{ property: err.field.split(".")[0] ?? err.field, reason: err.message }] };
    }
    throw err;
  }
  return { inputs: withOwnerKey(olds, created ? news : handedOffInputs(olds, news)) };
}

/**
 * The owner keys of existing resources this provider process has checked, by plain owner id
 * (`null`: state written before keys). The engine checks a replacement a second time without its
 * predecessor's inputs (so that defaults are made anew), always after checking it with them: the
 * replacement takes its predecessor's key from here, and with it the predecessor's release.
 */
const checkedOwnerKeys = new Map<string, string | null>();

/**
 * The owner key of a new resource: HMAC-SHA256 under its kubeconfig (a secret only those who may
 * administer the cluster hold) of its plain owner id. Made again the same by a create that retries
 * after one killed before its state was saved, so it recognizes the release that one left; kept
 * in the state from then on (a rotated kubeconfig changes nothing).
 */
function newOwnerKey(kubeconfig: string, plainOwnerId: string): string {
  return createHmac("sha256", Buffer.from(kubeconfig, "utf8"))
    .update(`helm-handoff owner key\0${plainOwnerId}`)
    .digest("base64url");
}

/**
 * `inputs` with the resource's owner key: the stored one of an existing resource (also for its
 * replacement, see {@link checkedOwnerKeys}), else a new one ({@link newOwnerKey}). State written
 * before keys stays without one (its add-on keeps the plain labels it wrote its release with).
 */
function withOwnerKey(olds: Inputs, inputs: Inputs): Inputs {
  const { ownerKey: _program, ...rest } = inputs;
  let key: string | null;
  if (Object.keys(olds).length > 0) {
    key = typeof olds.ownerKey === "string" ? olds.ownerKey : null;
    checkedOwnerKeys.set(olds.ownerId, key);
  } else {
    const predecessor = checkedOwnerKeys.get(inputs.ownerId);
    key = predecessor !== undefined ? predecessor : newOwnerKey(String(inputs.kubeconfig), inputs.ownerId);
  }
  return (key !== null ? { ...rest, ownerKey: key } : rest) as Inputs;
}

/**
 * The inputs of an installed ApplyOnce add-on: those the strategy table freezes
 * (`STRATEGY_TABLE`) and the digest of the desired spec stay as stored, and a changed
 * spec is reported as ignored. So a handed-off add-on's stored state does not change when the
 * program's spec does, and the engine writes no checkpoint for it: a steady `up` of many add-ons
 * costs per add-on what an unchanged resource costs. A Node.js program's engine options
 * (`ignoreChanges`) freeze the same inputs before this; the package's provider has only this.
 * Not frozen: another cluster (its replacement installs the spec as it is now), a change of
 * strategy, and a stored digest this version would not make (state of an older version,
 * rewritten once).
 */
function handedOffInputs(olds: Inputs, news: Inputs): Inputs {
  if (olds.strategy !== "ApplyOnce" || news.strategy !== "ApplyOnce" || olds.clusterId !== news.clusterId) {
    return news;
  }
  if (olds.desiredDigest !== desiredDigestOf(olds.spec, olds.values, olds.namespace, olds.releaseName)) {
    return news;
  }
  if (olds.desiredDigest !== news.desiredDigest) {
    progressLine(
      news.releaseName,
      `ApplyOnce: the spec changed but is ignored after handoff (release ${olds.namespace}/${olds.releaseName})`,
    );
  }
  // (An input the stored state predates keeps the program's value.)
  const frozen = [...STRATEGY_TABLE.ApplyOnce.frozenInputs, "desiredDigest"]
    .filter((key) => olds[key] !== undefined)
    .map((key) => [key, olds[key]]);
  return { ...news, ...Object.fromEntries(frozen) };
}

/** Decides what a change means, by strategy. */
export async function diff(_id: string, olds: Outputs, news: Inputs): Promise<pulumi.dynamic.DiffResult> {
  const replaces: string[] = [];
  if (olds.clusterId !== news.clusterId) replaces.push("clusterId");
  if (replaces.length > 0) {
    return { changes: true, replaces, deleteBeforeReplace: false };
  }
  const strategyChanged = olds.strategy !== news.strategy;
  // State from an older version holds unkeyed digests in plaintext: an update rewrites them
  // (ApplyOnce's update makes no helm call), and its desiredDigest (which covered the password)
  // cannot be compared with ours.
  const legacy = !hasKeyedDigests(olds);
  if (news.strategy === "ApplyOnce") {
    if (legacy) {
      progressLine(
        news.releaseName,
        "state written by an older helm-handoff: rewriting its stored digests (no helm call)",
      );
      return { changes: true, replaces: [] };
    }
    // Reconcile -> ApplyOnce records the handoff (no helm call); anything else is a no-op.
    return strategyChanged ? { changes: true, replaces: [] } : { changes: false };
  }
  // Reconcile: compare the desired spec with what the release runs (after refresh: live values),
  // by the same rule ensureRelease upgrades by.
  const drift = await reconcileDrift(olds, news);
  const changed =
    strategyChanged ||
    olds.releaseName !== news.releaseName ||
    olds.namespace !== news.namespace ||
    olds.desiredDigest !== news.desiredDigest ||
    olds.chartPassword !== news.chartPassword ||
    (olds.chartRepo ?? "") !== (news.chartRepo ?? "") ||
    legacy ||
    drift.length > 0;
  // The engine is told the field that moved the release.
  const moved = (["releaseName", "namespace"] as const).filter((key) => olds[key] !== news[key]);
  return { changes: changed, replaces: moved, deleteBeforeReplace: false };
}

/** Why a Reconcile release differs from `news` (see `needsUpgrade`); an unreadable spec (unknown in preview) counts as a change. */
async function reconcileDrift(olds: Outputs, news: Inputs): Promise<string[]> {
  const { desiredRelease, needsUpgrade } = await import("../core/lifecycle/upgrade.js");
  // The live digest was stored keyed under olds.digestKey, or unkeyed by an older version.
  const key = olds.digestKey;
  const digest =
    typeof key === "string"
      ? (v: Readonly<Record<string, unknown>>) => keyedValuesDigest(v, key)
      : valuesFingerprint;
  try {
    return needsUpgrade(desiredRelease(validateSpec(toSpec(news)), digest), {
      chart: olds.status.chart,
      chartVersion: olds.liveChartVersion,
      valuesDigest: olds.liveValuesDigest,
    });
  } catch {
    return ["spec"];
  }
}

/** Installs the release (retrying transient failures until the deadline), or adopts it. */
export async function create(inputs: Inputs): Promise<pulumi.dynamic.CreateResult> {
  return (await helmSteps()).createRelease(inputs);
}

/** Refresh. ApplyOnce: no cluster call. Reconcile: reads the live release (drift shows in the next diff). */
export async function read(id: string, props?: Outputs): Promise<pulumi.dynamic.ReadResult> {
  if (!props || !mayCallHelm(props.strategy, "read")) return { id, props: props ?? {} };
  return (await helmSteps()).readLive(id, props);
}

/** ApplyOnce: records the new inputs (handoff), no helm call. Reconcile: upgrades to the spec. */
export async function update(_id: string, olds: Outputs, news: Inputs): Promise<pulumi.dynamic.UpdateResult> {
  if (!mayCallHelm(news.strategy, "update")) {
    progressLine(news.releaseName, "ApplyOnce: handed off; no helm call");
    const kept = { ...olds.status };
    return { outs: outputsOf({ ...news }, kept, news.values, digestKeyOf(olds), olds.ownerInstance) };
  }
  return (await helmSteps()).upgradeRelease(olds, news);
}

/** ApplyOnce: no-op, no cluster call. Reconcile: `helm uninstall`, see `uninstallRelease`. */
export async function remove(_id: string, props: Outputs): Promise<void> {
  if (!mayCallHelm(props.strategy, "delete")) {
    progressLine(props.releaseName, "ApplyOnce: the release stays on the cluster (no helm call)");
    return;
  }
  await (await helmSteps()).uninstallRelease(props);
}
