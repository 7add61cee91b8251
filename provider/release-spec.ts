/**
 * The outputs a release resource stores, made from its inputs and what helm reported: shared by
 * the steps that call helm (`helm-steps.ts`) and ApplyOnce's update, which calls none. Light on
 * purpose (no helm runner, no Kubernetes client): `crud.ts` loads it for every step.
 *
 * @module
 */

import { keyedValuesDigest, newDigestKey } from "../core/handoff/digests.js";
import { makeHandoffRecord } from "../core/handoff/record.js";
import { keyedOwnerId, type ReleaseOwner } from "../core/lifecycle/ownership.js";
import type { AddonSpec } from "../core/spec/index.js";
import type { ReleaseInputs, ReleaseOutputs, ReleaseStatus } from "./stored-release.js";

/** The add-on spec the core understands, rebuilt from the stored inputs. */
export function toSpec(inputs: ReleaseInputs): AddonSpec {
  const stored = inputs.spec.chart;
  const chart =
    "path" in stored
      ? stored
      : {
          ...stored,
          ...(stored.secretRepo === true ? { repo: inputs.chartRepo ?? "" } : {}),
          ...(inputs.chartPassword ? { password: inputs.chartPassword } : {}),
        };
  return {
    chart,
    releaseName: inputs.releaseName,
    namespace: inputs.namespace,
    createNamespace: inputs.spec.createNamespace,
    ...(inputs.spec.adopt !== undefined ? { adopt: inputs.spec.adopt } : {}),
    values: inputs.values,
    install: inputs.spec.install,
    retry: inputs.spec.retry,
    strategy: inputs.strategy,
  };
}

/** The digest key stored in `outputs`, or a new one for a release that has none (create, or state of an older version). */
export function digestKeyOf(outputs: Partial<Pick<ReleaseOutputs, "digestKey">> | undefined): string {
  return typeof outputs?.digestKey === "string" ? outputs.digestKey : newDigestKey();
}

/** The stored outputs: inputs, status, keyed digests and the handoff record. */
export function outputsOf(
  inputs: ReleaseInputs,
  status: ReleaseStatus,
  liveValues: Record<string, unknown>,
  digestKey: string,
  ownerInstance: string,
): ReleaseOutputs {
  const spec = toSpec(inputs);
  return {
    ...inputs,
    status,
    digestKey,
    ownerInstance,
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

/** Who writes for this resource: its owner id (keyed when it has a key) and name, and its instance. */
export function ownerOf(inputs: ReleaseInputs, ownerInstance: string): ReleaseOwner {
  const key = inputs.ownerKey;
  return key === undefined
    ? { id: inputs.ownerId, name: inputs.ownerName, instance: ownerInstance }
    : { id: keyedOwnerId(key, inputs.ownerId), key, name: inputs.ownerName, instance: ownerInstance };
}
