/**
 * The steps of the release lifecycle that may call helm or the API server: create, and
 * Reconcile's refresh, update and delete. `dynamic.ts` loads this module only when such a step
 * runs, so a `pulumi up` in which every add-on is handed off (ApplyOnce) never loads the helm
 * runner, YAML or the Kubernetes client.
 *
 * Concurrency: the engine runs every create/update/delete/read of a stack in one provider
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
import { DeadlineExceededError } from "../core/errors.js";
import { HelmRunner, type ReleaseInfo } from "../core/helm/index.js";
import { ensureRelease, removeRelease } from "../core/install.js";
import { keyedValuesDigest, newDigestKey } from "../core/keyed-digest.js";
import { helmPolicy, type LifecycleStep } from "../core/lifecycle/strategy.js";
import { waitForApiServer } from "../core/readiness.js";
import { Semaphore } from "../core/semaphore.js";
import { validateSpec } from "../core/spec.js";
import { digestKeyOf, outputsOf, toSpec, withUid } from "./outputs.js";
import { progressLine } from "./progress.js";
import { recordRelease, uninstallVerdict } from "./same-cluster.js";
import { type ReleaseInputs, type ReleaseOutputs, type ReleaseStatus, releaseId } from "./state.js";

type Inputs = ReleaseInputs & Record<string, unknown>;
type Outputs = ReleaseOutputs & Record<string, unknown>;

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
export async function createRelease(inputs: Inputs): Promise<pulumi.dynamic.CreateResult> {
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

/** Reconcile's refresh: reads the live release (drift shows in the next diff). ApplyOnce's read never gets here (dynamic.ts). */
export async function readLive(id: string, props: Outputs): Promise<pulumi.dynamic.ReadResult> {
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

/** Reconcile: upgrades the release to the spec (same rule as a create). */
export async function upgradeRelease(olds: Outputs, news: Inputs): Promise<pulumi.dynamic.UpdateResult> {
  const spec = validateSpec(toSpec(news));
  const runner = runnerFor(news, "update");
  const result = await ensureRelease(runner, spec, {
    expectExisting: true,
    onProgress: (p) => progressLine(news.releaseName, p.message),
  });
  const status = statusOf(result.release, olds.status.attempts, olds.status.adopted);
  return { outs: withUid(outputsOf(news, status, news.values, digestKeyOf(olds)), olds.clusterUid) };
}

/** How long Reconcile's delete waits for an unreachable cluster before leaving the release be. */
const DELETE_REACH_DEADLINE = Duration.seconds(30);

/**
 * Reconcile's delete: `helm uninstall` (not found counts as done).
 * A cluster that does not answer within 30 s is taken as gone (replaced or deleted): the release
 * is dropped from state with a warning line, so a destroy or a cluster replacement never hangs
 * on a cluster that no longer exists. Any other failure fails the delete (the release stays in state).
 * Before uninstalling, the cluster's kube-system UID is compared with the one recorded at create
 * (`same-cluster.ts`): a release its replacement took over on the same cluster, or a kubeconfig that
 * now reaches another cluster, is left as it is.
 */
export async function uninstallRelease(props: Outputs): Promise<void> {
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
