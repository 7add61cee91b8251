/**
 * Delete: ApplyOnce leaves the release on the cluster with no cluster call. Reconcile runs
 * `helm uninstall` of a release whose current revision this resource wrote (not found counts as
 * done); one someone else wrote since (GitOps, a person), another stack's, or one this resource's
 * replacement took over is left as it is, with a line saying whose it is (`removeRelease`).
 * A cluster that does not answer within {@link DELETE_REACH_DEADLINE} is taken as gone (replaced
 * or deleted): the release is dropped from state with a warning line, so a destroy never hangs on
 * a cluster that no longer exists. Any other failure, or the add-on's deadline, fails the delete
 * and the release stays in state.
 *
 * @module
 */
import { DeadlineExceededError } from "../../core/errors.js";
import { mayCallHelm } from "../../core/lifecycle/strategy.js";
import { Duration } from "../../core/spec/duration.js";
import { validateSpec } from "../../core/spec/index.js";
import { progressLine } from "../process/progress.js";
import { ownerOf, toSpec } from "../state/decode.js";
import type { ReleaseOutputs } from "../state/shape.js";

/** How long Reconcile's delete waits for an unreachable cluster before leaving the release be. */
const DELETE_REACH_DEADLINE = Duration.seconds(30);

/** Deletes release `_id`, whose stored outputs are `props`. */
export async function remove(_id: string, props: ReleaseOutputs): Promise<void> {
  if (!mayCallHelm(props.strategy, "delete")) {
    progressLine(props.releaseName, "ApplyOnce: the release stays on the cluster (no helm call)");
    return;
  }
  const helm = await import("./helm.js");
  try {
    await helm.waitForApiServer(props.kubeconfig, { deadline: DELETE_REACH_DEADLINE });
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
  await helm.removeRelease(helm.runnerFor(props, "delete"), props.releaseName, props.namespace, {
    owner: ownerOf(props, props.ownerInstance),
    onProgress: (p) => progressLine(props.releaseName, `Reconcile delete: ${p.message}`),
    timeout: spec.install.timeout,
    deadline: spec.retry.deadline,
  });
}
