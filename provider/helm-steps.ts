/**
 * The steps of the release lifecycle that may call helm or the API server: create, and
 * Reconcile's refresh, update and delete. `crud.ts` loads this module only when such a step
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

import { randomBytes } from "node:crypto";
import type * as pulumi from "@pulumi/pulumi";
import { waitForApiServer } from "../core/cluster/readiness.js";
import { DeadlineExceededError, isRetryableFailure } from "../core/errors.js";
import { keyedValuesDigest, newDigestKey } from "../core/handoff/digests.js";
import { HelmRunner, type ReleaseInfo } from "../core/helm/index.js";
import { ensureRelease } from "../core/lifecycle/ensure.js";
import { removeRelease } from "../core/lifecycle/remove.js";
import { helmPolicy, type LifecycleStep } from "../core/lifecycle/strategy.js";
import { Duration } from "../core/spec/duration.js";
import { validateSpec } from "../core/spec/index.js";
import { retry } from "../core/util/retry.js";
import { Semaphore } from "../core/util/semaphore.js";
import { progressLine } from "./progress.js";
import { digestKeyOf, outputsOf, ownerOf, toSpec } from "./release-spec.js";
import { type ReleaseInputs, type ReleaseOutputs, type ReleaseStatus, releaseId } from "./stored-release.js";

type Inputs = ReleaseInputs & Record<string, unknown>;
type Outputs = ReleaseOutputs & Record<string, unknown>;

function statusOf(release: ReleaseInfo, attempts: number, adopted: boolean): ReleaseStatus {
  return {
    revision: release.revision,
    status: release.status,
    chart: release.chart,
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
  // A new instance: a replacement marks the release it takes over, so its predecessor's delete leaves it.
  const instance = randomBytes(8).toString("hex");
  const result = await ensureRelease(runner, spec, {
    owner: ownerOf(inputs, instance),
    onProgress: (p) => progressLine(inputs.releaseName, p.message),
  });
  const status = statusOf(result.release, result.attempts, result.adopted);
  return { id: releaseId(inputs), outs: outputsOf(inputs, status, inputs.values, newDigestKey(), instance) };
}

/**
 * Reconcile's refresh: reads the live release (drift shows in the next diff), retrying transient
 * failures within the add-on's `retry` policy like every other step. ApplyOnce's read never gets
 * here (crud.ts).
 */
export async function readLive(id: string, props: Outputs): Promise<pulumi.dynamic.ReadResult> {
  const runner = runnerFor(props, "read");
  const { retry: policy } = validateSpec(toSpec(props));
  const where = `${props.namespace}/${props.releaseName}`;
  const read = await retry(
    async () => {
      const found = await runner.status(props.releaseName, props.namespace);
      return found && { live: found, values: await runner.getValues(props.releaseName, props.namespace) };
    },
    {
      ...policy,
      isRetryable: isRetryableFailure,
      what: `read of release ${where}`,
      onRetry: (info) =>
        progressLine(
          props.releaseName,
          `refresh: read failed (${firstLine(info.error)}); retrying in ${info.delay}`,
        ),
    },
  );
  if (!read) {
    progressLine(props.releaseName, "Reconcile: release not found on refresh; the next up reinstalls it");
    return {};
  }
  const { live, values: liveValues } = read;
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
    owner: ownerOf(news, olds.ownerInstance),
    expectExisting: true,
    onProgress: (p) => progressLine(news.releaseName, p.message),
  });
  const status = statusOf(result.release, olds.status.attempts, olds.status.adopted);
  return { outs: outputsOf(news, status, news.values, digestKeyOf(olds), olds.ownerInstance) };
}

/** How long Reconcile's delete waits for an unreachable cluster before leaving the release be. */
const DELETE_REACH_DEADLINE = Duration.seconds(30);

/**
 * Reconcile's delete: `helm uninstall` of a release whose current revision this resource wrote
 * (not found counts as done). A release someone else wrote since (GitOps took it over, a person
 * upgraded it), another stack's, or one this resource's replacement has taken over (same cluster
 * under a new address) is left as it is, with a line saying whose it is (`removeRelease`).
 * A cluster that does not answer within 30 s is taken as gone (replaced or deleted): the release
 * is dropped from state with a warning line, so a destroy or a cluster replacement never hangs
 * on a cluster that no longer exists. Transient failures after that are retried within the add-on's
 * `retry.deadline` (each uninstall within `install.timeout`); any other failure, or the deadline,
 * fails the delete (the release stays in state).
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
  // The add-on's own bounds: each uninstall within install.timeout, all of it within retry.deadline.
  const spec = validateSpec(toSpec(props));
  await removeRelease(runnerFor(props, "delete"), props.releaseName, props.namespace, {
    owner: ownerOf(props, props.ownerInstance),
    onProgress: (p) => progressLine(props.releaseName, `Reconcile delete: ${p.message}`),
    timeout: spec.install.timeout,
    deadline: spec.retry.deadline,
  });
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n", 1)[0] ?? "";
}
