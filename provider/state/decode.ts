/**
 * From the stored state back to what the core understands: the add-on spec ({@link toSpec}), the
 * owner every write is marked with ({@link ownerOf}), and the outputs a step stores from its
 * inputs and what helm reported ({@link outputsOf}). Light on purpose (no helm runner, no
 * Kubernetes client): every step loads it.
 *
 * @module
 */

import { keyedValuesDigest } from "../../core/handoff/digests.js";
import { makeHandoffRecord } from "../../core/handoff/record.js";
import type { ReleaseInfo } from "../../core/helm/types.js";
import { keyedOwnerId, type ReleaseOwner } from "../../core/lifecycle/ownership.js";
import type { AddonSpec } from "../../core/spec/index.js";
import type { ReleaseInputs, ReleaseOutputs, ReleaseStatus } from "./shape.js";

/** The add-on spec the core understands, rebuilt from the stored inputs. */
export function toSpec(inputs: ReleaseInputs): AddonSpec {
  const stored = inputs.spec.chart;
  const chart =
    "path" in stored
      ? stored
      : {
          ...stored,
          ...(stored.secretRepo === true ? { repo: inputs.chartRepo } : {}),
          ...(inputs.chartPassword ? { password: inputs.chartPassword } : {}),
        };
  return {
    chart,
    releaseName: inputs.releaseName,
    namespace: inputs.namespace,
    createNamespace: inputs.spec.createNamespace,
    adopt: inputs.spec.adopt,
    values: inputs.values,
    install: inputs.spec.install,
    retry: inputs.spec.retry,
    strategy: inputs.strategy,
  };
}

/** Who writes for this resource: its keyed owner id and name, and its instance. */
export function ownerOf(inputs: ReleaseInputs, ownerInstance: string): ReleaseOwner {
  const key = inputs.ownerKey;
  return { id: keyedOwnerId(key, inputs.ownerId), key, name: inputs.ownerName, instance: ownerInstance };
}

/** The stored status of a release helm reported. */
export function statusOf(release: ReleaseInfo, attempts: number, adopted: boolean): ReleaseStatus {
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
