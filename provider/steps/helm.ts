/**
 * The helm half of the steps, which each step imports only when it calls helm: a helm runner per
 * step, limited to the calls the strategy table allows, and the bound on helm processes at once.
 *
 * Concurrency: the engine runs every step of a stack in one provider process (up to
 * `pulumi up --parallel` at once). At most {@link DEFAULT_MAX_CONCURRENCY} helm processes run at
 * once per provider process, or `HELM_HANDOFF_MAX_CONCURRENCY` (an integer >= 1) given to
 * `pulumi up`. A slot is held only while helm runs, not while an add-on waits for its API server
 * or backs off, so add-ons waiting for a late cluster never hold up the others.
 *
 * @module
 */

import { HelmRunner } from "../../core/helm/index.js";
import { helmPolicy, type LifecycleStep } from "../../core/lifecycle/strategy.js";
import { Semaphore } from "../../core/util/semaphore.js";
import { progressLine } from "../process/progress.js";
import type { ReleaseInputs } from "../state/shape.js";

export { waitForApiServer } from "../../core/cluster/readiness.js";
export { ensureRelease } from "../../core/lifecycle/ensure.js";
export { removeRelease } from "../../core/lifecycle/remove.js";

/** Helm processes at once in one provider process when `HELM_HANDOFF_MAX_CONCURRENCY` is not set. */
export const DEFAULT_MAX_CONCURRENCY = 8;

/**
 * The bound on helm processes in this process: `HELM_HANDOFF_MAX_CONCURRENCY` when it is an
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

/** The slots shared by every runner of this process, sized on first use. */
let sharedSlots: Semaphore | undefined;

/** The runner of `step` for this add-on: its strategy's calls only, its secrets redacted. */
export function runnerFor(inputs: ReleaseInputs, step: LifecycleStep): HelmRunner {
  sharedSlots ??= new Semaphore(maxConcurrency());
  // Values are registered by the runner itself, per call (Redactor.addValues).
  const secrets = [inputs.kubeconfig, inputs.chartPassword].filter((s) => s.length > 0);
  return new HelmRunner({
    kubeconfig: inputs.kubeconfig,
    policy: helmPolicy(inputs.strategy, step),
    slots: sharedSlots,
    secrets,
    onOutput: (line) => progressLine(inputs.releaseName, line),
  });
}
