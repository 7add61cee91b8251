/**
 * Read (refresh): ApplyOnce returns the state as it is, with no cluster call. Reconcile reads the
 * live release, retrying transient failures within the add-on's `retry` policy, so drift shows in
 * the next diff; a release that is gone is dropped from state, and the next `up` reinstalls it.
 *
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import { isRetryableFailure } from "../../core/errors.js";
import { keyedValuesDigest } from "../../core/handoff/digests.js";
import { mayCallHelm } from "../../core/lifecycle/strategy.js";
import { validateSpec } from "../../core/spec/index.js";
import { retry } from "../../core/util/retry.js";
import { progressLine } from "../process/progress.js";
import { statusOf, toSpec } from "../state/decode.js";
import type { ReleaseOutputs } from "../state/shape.js";

/** Refreshes the stored outputs `props` of release `id`. */
export async function read(id: string, props?: ReleaseOutputs): Promise<pulumi.dynamic.ReadResult> {
  if (!props || !mayCallHelm(props.strategy, "read")) return { id, props: props ?? {} };
  const runner = (await import("./helm.js")).runnerFor(props, "read");
  const { retry: policy } = validateSpec(toSpec(props));
  const found = await retry(
    async () => {
      const live = await runner.status(props.releaseName, props.namespace);
      return live && { live, values: await runner.getValues(props.releaseName, props.namespace) };
    },
    {
      ...policy,
      isRetryable: isRetryableFailure,
      what: `read of release ${props.namespace}/${props.releaseName}`,
      onRetry: (info) =>
        progressLine(
          props.releaseName,
          `refresh: read failed (${firstLine(info.error)}); retrying in ${info.delay}`,
        ),
    },
  );
  if (!found) {
    progressLine(props.releaseName, "Reconcile: release not found on refresh; the next up reinstalls it");
    return {};
  }
  return {
    id,
    props: {
      ...props,
      status: statusOf(found.live, props.status.attempts, props.status.adopted),
      liveValuesDigest: keyedValuesDigest(found.values, props.digestKey),
      liveChartVersion: found.live.chartVersion,
    },
  };
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n", 1)[0] ?? "";
}
