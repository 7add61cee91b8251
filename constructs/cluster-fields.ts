/**
 * The fields of a Cluster API `Cluster` (`cluster.x-k8s.io/v1beta2`, the version CAAPH v0.6.4
 * reads and gives `valuesTemplate`) under `spec` and `status`, from the schema of the CRD of
 * Cluster API v1.14.2 (`core/config/crd/bases/cluster.x-k8s.io_clusters.yaml`), for checking the
 * paths of `ClusterValue.field`. {@link fieldTreeOf} makes the table from a CRD's schema; the e2e
 * suite `test/e2e/capi/fleet-values.test.ts` compares it with the CRD the toolchain installs.
 *
 * @module
 */

/**
 * A field: `true` a single value, `"list"` a list of single values, `"map"` a map of single
 * values, `"any"` anything below (free-form), a tree of named fields, or a list of such (`[node]`).
 */
export type FieldNode = true | "list" | "map" | "any" | FieldTree | readonly [FieldNode];

/** Named fields. */
export interface FieldTree {
  readonly [name: string]: FieldNode;
}

/** The table of an OpenAPI v3 schema (a CRD version's `openAPIV3Schema`). */
export function fieldTreeOf(schema: Readonly<Record<string, unknown>>): FieldNode {
  if (schema["x-kubernetes-preserve-unknown-fields"] === true) return "any";
  if (schema.type === "array") {
    const item = fieldTreeOf((schema.items ?? {}) as Record<string, unknown>);
    return item === true ? "list" : [item];
  }
  if (schema.type === "object") {
    const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
    if (properties !== undefined) {
      const out: Record<string, FieldNode> = {};
      for (const [k, p] of Object.entries(properties)) out[k] = fieldTreeOf(p);
      return out;
    }
    return schema.additionalProperties !== undefined ? "map" : "any";
  }
  return true;
}

/** `spec` and `status` of a v1beta2 `Cluster`. */
export const CLUSTER_FIELDS: FieldTree = JSON.parse(
  '{"spec":{"availabilityGates":[{"conditionType":true,"polarity":true}],"clusterNetwork":{"apiServerPort":true,"pods":{"cidrBlocks":"list"},"serviceDomain":true,"services":{"cidrBlocks":"list"}},"controlPlaneEndpoint":{"host":true,"port":true},"controlPlaneRef":{"apiGroup":true,"kind":true,"name":true},"infrastructureRef":{"apiGroup":true,"kind":true,"name":true},"paused":true,"topology":{"classRef":{"name":true,"namespace":true},"controlPlane":{"deletion":{"nodeDeletionTimeoutSeconds":true,"nodeDrainTimeoutSeconds":true,"nodeVolumeDetachTimeoutSeconds":true},"healthCheck":{"checks":{"nodeStartupTimeoutSeconds":true,"unhealthyMachineConditions":[{"status":true,"timeoutSeconds":true,"type":true}],"unhealthyNodeConditions":[{"status":true,"timeoutSeconds":true,"type":true}]},"enabled":true,"remediation":{"templateRef":{"apiVersion":true,"kind":true,"name":true},"triggerIf":{"unhealthyInRange":true,"unhealthyLessThanOrEqualTo":true}}},"metadata":{"annotations":"map","labels":"map"},"readinessGates":[{"conditionType":true,"polarity":true}],"replicas":true,"rollout":{"after":true},"taints":[{"effect":true,"key":true,"propagation":true,"value":true}],"variables":{"overrides":[{"name":true,"value":"any"}]}},"variables":[{"name":true,"value":"any"}],"version":true,"workers":{"machineDeployments":[{"class":true,"deletion":{"nodeDeletionTimeoutSeconds":true,"nodeDrainTimeoutSeconds":true,"nodeVolumeDetachTimeoutSeconds":true,"order":true},"failureDomain":true,"healthCheck":{"checks":{"nodeStartupTimeoutSeconds":true,"unhealthyMachineConditions":[{"status":true,"timeoutSeconds":true,"type":true}],"unhealthyNodeConditions":[{"status":true,"timeoutSeconds":true,"type":true}]},"enabled":true,"remediation":{"maxInFlight":true,"templateRef":{"apiVersion":true,"kind":true,"name":true},"triggerIf":{"unhealthyInRange":true,"unhealthyLessThanOrEqualTo":true}}},"metadata":{"annotations":"map","labels":"map"},"minReadySeconds":true,"name":true,"readinessGates":[{"conditionType":true,"polarity":true}],"replicas":true,"rollout":{"after":true,"strategy":{"rollingUpdate":{"maxSurge":true,"maxUnavailable":true},"type":true}},"taints":[{"effect":true,"key":true,"propagation":true,"value":true}],"variables":{"overrides":[{"name":true,"value":"any"}]}}],"machinePools":[{"class":true,"deletion":{"nodeDeletionTimeoutSeconds":true,"nodeDrainTimeoutSeconds":true,"nodeVolumeDetachTimeoutSeconds":true},"failureDomains":"list","metadata":{"annotations":"map","labels":"map"},"minReadySeconds":true,"name":true,"replicas":true,"taints":[{"effect":true,"key":true,"propagation":true,"value":true}],"variables":{"overrides":[{"name":true,"value":"any"}]}}]}}},"status":{"conditions":[{"lastTransitionTime":true,"message":true,"observedGeneration":true,"reason":true,"status":true,"type":true}],"controlPlane":{"availableReplicas":true,"desiredReplicas":true,"readyReplicas":true,"replicas":true,"upToDateReplicas":true,"upgradePlan":[{"version":true}],"versions":[{"replicas":true,"version":true}]},"deprecated":{"v1beta1":{"conditions":[{"lastTransitionTime":true,"message":true,"reason":true,"severity":true,"status":true,"type":true}],"failureMessage":true,"failureReason":true}},"failureDomains":[{"attributes":"map","controlPlane":true,"name":true}],"initialization":{"controlPlaneInitialized":true,"infrastructureProvisioned":true},"observedGeneration":true,"phase":true,"workers":{"availableReplicas":true,"desiredReplicas":true,"readyReplicas":true,"replicas":true,"upToDateReplicas":true,"upgradePlan":[{"version":true}],"versions":[{"replicas":true,"version":true}]}}}',
) as FieldTree;
