/**
 * The dynamic provider's implementation, loaded by the thin serialized provider
 * (see resource.ts) at call time as `helm-handoff/pulumi/dynamic`.
 *
 * Contract kept here (Pulumi's dynamic providers):
 * - a failed create leaves nothing installed and throws (nothing is recorded);
 * - a failed delete throws, so the release is still recorded as existing;
 * - which helm calls each step may make is the strategy table's (`core/lifecycle/strategy.ts`):
 *   every runner made here is limited to the calls the table allows for its strategy and step,
 *   so ApplyOnce never calls helm after the first success: diff reports no change, update and
 *   delete are no-ops, read returns the state as it is.
 *
 * Progress goes to stderr as plain lines: the engine passes those through to
 * `pulumi up`'s output, structured `pulumi.log` does not flow from here.
 *
 * Concurrency: the engine runs every create/update/delete/read of a stack in this one
 * process (up to `pulumi up --parallel` at once, by default 4 per CPU). Helm calls are bounded
 * per process by a semaphore: at most {@link DEFAULT_MAX_CONCURRENCY} (8) helm-running calls at
 * once, overridable with the environment variable `HELM_HANDOFF_MAX_CONCURRENCY` (an integer
 * >= 1) given to `pulumi up`. A slot is held only while helm runs (one helm process per slot),
 * not while an add-on waits for its API server or backs off between attempts, so add-ons waiting
 * for a late cluster never hold up the others.
 *
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import { kubeSystemUid } from "../core/cluster-uid.js";
import { Duration } from "../core/duration.js";
import { DeadlineExceededError, SpecError } from "../core/errors.js";
import { makeHandoffRecord, valuesDigest } from "../core/handoff.js";
import { HelmRunner, type ReleaseInfo } from "../core/helm/index.js";
import { ensureRelease, removeRelease } from "../core/install.js";
import { keyedValuesDigest, newDigestKey } from "../core/keyed-digest.js";
import { preloadKubeClient } from "../core/kube-client.js";
import { helmPolicy, type LifecycleStep, mayCallHelm } from "../core/lifecycle/strategy.js";
import { desiredRelease, needsUpgrade } from "../core/lifecycle/upgrade.js";
import { waitForApiServer } from "../core/readiness.js";
import { Semaphore } from "../core/semaphore.js";
import { type AddonSpec, validateSpec } from "../core/spec.js";
import { progressLine } from "./progress.js";
import { recordRelease, uninstallVerdict } from "./same-cluster.js";
import {
  hasKeyedDigests,
  type ReleaseInputs,
  type ReleaseOutputs,
  type ReleaseStatus,
  releaseId,
} from "./state.js";

type Inputs = ReleaseInputs & Record<string, unknown>;
type Outputs = ReleaseOutputs & Record<string, unknown>;

/** The add-on spec the core understands, rebuilt from the stored inputs. */
function toSpec(inputs: ReleaseInputs): AddonSpec {
  const chart =
    "path" in inputs.spec.chart
      ? inputs.spec.chart
      : { ...inputs.spec.chart, ...(inputs.chartPassword ? { password: inputs.chartPassword } : {}) };
  return {
    chart,
    releaseName: inputs.releaseName,
    namespace: inputs.namespace,
    createNamespace: inputs.spec.createNamespace,
    values: inputs.values,
    install: inputs.spec.install,
    retry: inputs.spec.retry,
    strategy: inputs.strategy,
  };
}

/** Validates the inputs without touching a cluster; failures name the property. */
export async function check(olds: Inputs, news: Inputs): Promise<pulumi.dynamic.CheckResult> {
  // No old inputs: a new resource, about to be created. Its create talks to the cluster through
  // client-node, so load it while the engine plans (an existing ApplyOnce add-on never needs it).
  if (Object.keys(olds).length === 0) preloadKubeClient();
  try {
    validateSpec(toSpec(news));
  } catch (err) {
    if (err instanceof SpecError) {
      return { failures: [{ property: err.field.split(".")[0] ?? err.field, reason: err.message }] };
    }
    throw err;
  }
  return { inputs: news };
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
    if (olds.desiredDigest !== news.desiredDigest) {
      progressLine(
        news.releaseName,
        `ApplyOnce: the spec changed but is ignored after handoff (release ${olds.namespace}/${olds.releaseName}, revision ${olds.status.revision})`,
      );
    }
    // Reconcile -> ApplyOnce records the handoff (no helm call); anything else is a no-op.
    return strategyChanged ? { changes: true, replaces: [] } : { changes: false };
  }
  // Reconcile: compare the desired spec with what the release runs (after refresh: live values),
  // by the same rule ensureRelease upgrades by.
  const drift = reconcileDrift(olds, news);
  const changed =
    strategyChanged ||
    olds.releaseName !== news.releaseName ||
    olds.namespace !== news.namespace ||
    olds.desiredDigest !== news.desiredDigest ||
    olds.chartPassword !== news.chartPassword ||
    legacy ||
    drift.length > 0;
  const renamed = olds.releaseName !== news.releaseName || olds.namespace !== news.namespace;
  return { changes: changed, replaces: renamed ? ["releaseName"] : [], deleteBeforeReplace: false };
}

/** Why a Reconcile release differs from `news` (see `needsUpgrade`); an unreadable spec (unknown in preview) counts as a change. */
function reconcileDrift(olds: Outputs, news: Inputs): string[] {
  // The live digest was stored keyed under olds.digestKey, or unkeyed by an older version.
  const key = olds.digestKey;
  const digest =
    typeof key === "string"
      ? (v: Readonly<Record<string, unknown>>) => keyedValuesDigest(v, key)
      : valuesDigest;
  try {
    return needsUpgrade(desiredRelease(validateSpec(toSpec(news)), digest), {
      chartName: olds.status.chart,
      chartVersion: olds.liveChartVersion,
      valuesDigest: olds.liveValuesDigest,
    });
  } catch {
    return ["spec"];
  }
}

function statusOf(release: ReleaseInfo, attempts: number, adopted: boolean): ReleaseStatus {
  return {
    revision: release.revision,
    status: release.status,
    chart: release.chartName,
    chartVersion: release.chartVersion,
    appVersion: release.appVersion,
    firstDeployed: release.firstDeployed,
    lastDeployed: release.lastDeployed,
    attempts,
    adopted,
  };
}

/** The digest key stored in `outputs`, or a new one for a release that has none (create, or state of an older version). */
function digestKeyOf(outputs: Partial<Pick<ReleaseOutputs, "digestKey">> | undefined): string {
  return typeof outputs?.digestKey === "string" ? outputs.digestKey : newDigestKey();
}

function outputsOf(
  inputs: ReleaseInputs,
  status: ReleaseStatus,
  liveValues: Record<string, unknown>,
  digestKey: string,
): ReleaseOutputs {
  const spec = toSpec(inputs);
  return {
    ...inputs,
    status,
    digestKey,
    liveValuesDigest: keyedValuesDigest(liveValues, digestKey),
    liveChartVersion: status.chartVersion,
    handoff: makeHandoffRecord({
      clusterId: inputs.clusterId,
      server: inputs.clusterServer,
      releaseName: inputs.releaseName,
      namespace: inputs.namespace,
      chart: spec.chart,
      chartVersion: status.chartVersion,
      values: inputs.values,
      valuesDigestKey: digestKey,
      revision: status.revision,
      strategy: inputs.strategy,
      installedAt: status.lastDeployed,
      adopted: status.adopted,
    }),
  };
}

/** Helm-running calls at once in one provider process when `HELM_HANDOFF_MAX_CONCURRENCY` is not set. */
export const DEFAULT_MAX_CONCURRENCY = 8;

/**
 * The bound on helm-running calls in this process: `HELM_HANDOFF_MAX_CONCURRENCY` when it is an
 * integer >= 1, else {@link DEFAULT_MAX_CONCURRENCY} (an invalid value is reported on stderr).
 */
export function maxConcurrency(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.HELM_HANDOFF_MAX_CONCURRENCY?.trim();
  if (raw === undefined || raw === "") return DEFAULT_MAX_CONCURRENCY;
  const n = Number(raw);
  if (Number.isInteger(n) && n >= 1) return n;
  progressLine(
    "helm-handoff",
    `warning: HELM_HANDOFF_MAX_CONCURRENCY=${JSON.stringify(raw)} is not an integer >= 1; using ${DEFAULT_MAX_CONCURRENCY}`,
  );
  return DEFAULT_MAX_CONCURRENCY;
}

/** The slots shared by every runner of this provider process, sized on first use. */
let sharedSlots: Semaphore | undefined;

function helmSlots(): Semaphore {
  sharedSlots ??= new Semaphore(maxConcurrency());
  return sharedSlots;
}

function runnerFor(inputs: ReleaseInputs, step: LifecycleStep): HelmRunner {
  // Values are registered by the runner itself, per call (Redactor.addValues).
  const secrets = [inputs.kubeconfig, inputs.chartPassword].filter((s) => s.length > 0);
  return new HelmRunner({
    kubeconfig: inputs.kubeconfig,
    policy: helmPolicy(inputs.strategy, step),
    slots: helmSlots(),
    secrets,
    onOutput: (line) => progressLine(inputs.releaseName, line),
  });
}

/** Installs the release (retrying transient failures until the deadline), or adopts it. */
export async function create(inputs: Inputs): Promise<pulumi.dynamic.CreateResult> {
  const spec = validateSpec(toSpec(inputs));
  const runner = runnerFor(inputs, "create");
  // The kube-system UID is read once the API server answers, while helm installs.
  let uid: Promise<string | undefined> | undefined;
  const result = await ensureRelease(runner, spec, {
    onProgress: (p) => {
      progressLine(inputs.releaseName, p.message);
      if (p.phase !== "waiting-for-api-server") {
        uid ??= kubeSystemUid(inputs.kubeconfig).catch(() => undefined);
      }
    },
  });
  const status = statusOf(result.release, result.attempts, result.adopted);
  const clusterUid = await (uid ?? kubeSystemUid(inputs.kubeconfig));
  recordRelease(clusterUid, inputs.namespace, inputs.releaseName);
  const outs = outputsOf(inputs, status, inputs.values, newDigestKey());
  return { id: releaseId(inputs), outs: clusterUid !== undefined ? { ...outs, clusterUid } : outs };
}

/** Refresh. ApplyOnce: no cluster call. Reconcile: reads the live release (drift shows in the next diff). */
export async function read(id: string, props?: Outputs): Promise<pulumi.dynamic.ReadResult> {
  if (!props || !mayCallHelm(props.strategy, "read")) return { id, props: props ?? {} };
  const runner = runnerFor(props, "read");
  const live = await runner.status(props.releaseName, props.namespace);
  if (!live) {
    progressLine(props.releaseName, "Reconcile: release not found on refresh; the next up reinstalls it");
    return {};
  }
  const liveValues = await runner.getValues(props.releaseName, props.namespace);
  const digestKey = digestKeyOf(props);
  return {
    id,
    props: {
      ...props,
      status: statusOf(live, props.status.attempts, props.status.adopted),
      digestKey,
      liveValuesDigest: keyedValuesDigest(liveValues, digestKey),
      liveChartVersion: live.chartVersion,
    },
  };
}

/** ApplyOnce: records the new inputs (handoff), no helm call. Reconcile: upgrades to the spec. */
export async function update(_id: string, olds: Outputs, news: Inputs): Promise<pulumi.dynamic.UpdateResult> {
  if (!mayCallHelm(news.strategy, "update")) {
    progressLine(news.releaseName, "ApplyOnce: handed off; no helm call");
    const kept = { ...olds.status };
    return { outs: withUid(outputsOf({ ...news }, kept, news.values, digestKeyOf(olds)), olds.clusterUid) };
  }
  const spec = validateSpec(toSpec(news));
  const runner = runnerFor(news, "update");
  const result = await ensureRelease(runner, spec, {
    expectExisting: true,
    onProgress: (p) => progressLine(news.releaseName, p.message),
  });
  const status = statusOf(result.release, olds.status.attempts, olds.status.adopted);
  return { outs: withUid(outputsOf(news, status, news.values, digestKeyOf(olds)), olds.clusterUid) };
}

/** `outs` with the kube-system UID recorded at create, kept across updates (same cluster: same resource id). */
function withUid(outs: ReleaseOutputs, clusterUid: string | undefined): ReleaseOutputs {
  return clusterUid !== undefined ? { ...outs, clusterUid } : outs;
}

/** How long Reconcile's delete waits for an unreachable cluster before leaving the release be. */
const DELETE_REACH_DEADLINE = Duration.seconds(30);

/**
 * ApplyOnce: no-op, no cluster call. Reconcile: `helm uninstall` (not found counts as done).
 * A cluster that does not answer within 30 s is taken as gone (replaced or deleted): the release
 * is dropped from state with a warning line, so a destroy or a cluster replacement never hangs
 * on a cluster that no longer exists. Any other failure fails the delete (the release stays in state).
 * Before uninstalling, the cluster's kube-system UID is compared with the one recorded at create
 * (`same-cluster.ts`): a release its replacement took over on the same cluster, or a kubeconfig that
 * now reaches another cluster, is left as it is.
 */
export async function remove(_id: string, props: Outputs): Promise<void> {
  if (!mayCallHelm(props.strategy, "delete")) {
    progressLine(props.releaseName, "ApplyOnce: the release stays on the cluster (no helm call)");
    return;
  }
  try {
    await waitForApiServer(props.kubeconfig, { deadline: DELETE_REACH_DEADLINE });
  } catch (err) {
    if (!(err instanceof DeadlineExceededError)) throw err;
    progressLine(
      props.releaseName,
      `warning: cluster ${props.clusterServer} unreachable for ${DELETE_REACH_DEADLINE}; leaving release ${props.namespace}/${props.releaseName} as it is and dropping it from state`,
    );
    return;
  }
  const verdict = uninstallVerdict(
    props.clusterUid,
    props.clusterUid !== undefined ? await kubeSystemUid(props.kubeconfig) : undefined,
    props.namespace,
    props.releaseName,
  );
  if (!verdict.uninstall) {
    progressLine(props.releaseName, `Reconcile delete: ${verdict.reason}`);
    return;
  }
  await removeRelease(runnerFor(props, "delete"), props.releaseName, props.namespace, {
    onProgress: (p) => progressLine(props.releaseName, p.message),
  });
}
