/**
 * The objects that make a local cluster a Cluster API workload cluster of a local management
 * cluster, as pure functions: two stand-in provider CRDs (`LocalInfraCluster`, group
 * `infrastructure.cluster.x-k8s.io`, and `LocalControlPlane`, group `controlplane.cluster.x-k8s.io`,
 * labelled with the contract version the way Cluster API's own tests label their generic test
 * providers), one object of each per workload cluster, the `<cluster>-kubeconfig` Secret and the
 * `Cluster` itself, and the status each stand-in reports. They stand in for a real infrastructure
 * and control-plane provider: nothing provisions anything, the workload cluster already runs, and
 * the stand-ins only say so (infrastructure provisioned, control plane initialized), which is what
 * the Cluster controller, the cluster cache, ClusterResourceSet and CAAPH wait for.
 *
 * @module
 */
import type { Manifest } from "../host.js";

/** The Cluster API contract version the stand-in CRDs declare, and the API version of every object here. */
export const CAPI_CONTRACT = "v1beta2";
/** The group of Cluster API's core objects (`Cluster`). */
export const CLUSTER_GROUP = "cluster.x-k8s.io";
/** The stand-in infrastructure provider's group. */
export const INFRA_GROUP = "infrastructure.cluster.x-k8s.io";
/** The stand-in control-plane provider's group. */
export const CONTROL_PLANE_GROUP = "controlplane.cluster.x-k8s.io";

/** A namespaced kind as created here: group, kind and plural. */
interface Kind {
  readonly group: string;
  readonly kind: string;
  readonly plural: string;
}

const INFRA: Kind = { group: INFRA_GROUP, kind: "LocalInfraCluster", plural: "localinfraclusters" };
const CONTROL_PLANE: Kind = {
  group: CONTROL_PLANE_GROUP,
  kind: "LocalControlPlane",
  plural: "localcontrolplanes",
};
const CLUSTER: Kind = { group: CLUSTER_GROUP, kind: "Cluster", plural: "clusters" };

/** A stand-in provider CRD: namespaced, one version with a status subresource, any fields. */
function standInCrd({ group, kind, plural }: Kind): Manifest {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: {
      name: `${plural}.${group}`,
      // Cluster API finds the version of a provider's objects for its contract by this label.
      labels: { [`${CLUSTER_GROUP}/${CAPI_CONTRACT}`]: CAPI_CONTRACT },
    },
    spec: {
      group,
      scope: "Namespaced",
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() },
      versions: [
        {
          name: CAPI_CONTRACT,
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        },
      ],
    },
  };
}

/** The two stand-in provider CRDs. */
export function standInCrds(): Manifest[] {
  return [standInCrd(INFRA), standInCrd(CONTROL_PLANE)];
}

/** The REST path of a namespaced object of one of the kinds here (or of its collection without `name`). */
function kindPath(kind: Kind, namespace: string, name?: string): string {
  return `/apis/${kind.group}/${CAPI_CONTRACT}/namespaces/${namespace}/${kind.plural}${name ? `/${name}` : ""}`;
}

/** The REST path of a `Cluster` (or of the namespace's Clusters without `name`). */
export const clusterPath = (namespace: string, name?: string): string => kindPath(CLUSTER, namespace, name);

/** Where a workload cluster's API server is, as Cluster API records it. */
export interface Endpoint {
  readonly host: string;
  readonly port: number;
}

/** The API server endpoint of a `https://HOST:PORT` URL. */
export function endpointOf(server: string): Endpoint {
  const url = new URL(server);
  return { host: url.hostname, port: Number(url.port) };
}

/** One object to create at `path`, and the status to write to it afterwards (if any). */
export interface Registration {
  readonly path: string;
  readonly object: Manifest;
  readonly status?: Record<string, unknown>;
}

/** What registers one workload cluster. */
export interface WorkloadClusterSpec {
  /** The `Cluster`'s name (also of its stand-in objects, and the Secret's prefix). */
  readonly name: string;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  /** The workload cluster's API server URL. */
  readonly server: string;
  /** The workload cluster's admin kubeconfig (YAML). */
  readonly kubeconfig: string;
}

/**
 * The objects that register one workload cluster, in creation order: the stand-in infrastructure
 * and control-plane objects (each with the status it reports), the `<name>-kubeconfig` Secret (key
 * `value`, labelled with the cluster name, as Cluster API's kubeconfig Secrets are) and the `Cluster`.
 */
export function registrationObjects(spec: WorkloadClusterSpec): Registration[] {
  const { name, namespace } = spec;
  const controlPlaneEndpoint = endpointOf(spec.server);
  const meta = { name, namespace };
  const ref = (kind: Kind) => ({ apiGroup: kind.group, kind: kind.kind, name });
  const object = (kind: Kind, spec: Record<string, unknown>): Manifest => ({
    apiVersion: `${kind.group}/${CAPI_CONTRACT}`,
    kind: kind.kind,
    metadata: meta,
    spec,
  });
  return [
    {
      path: kindPath(INFRA, namespace),
      object: object(INFRA, { controlPlaneEndpoint }),
      status: { initialization: { provisioned: true } },
    },
    {
      path: kindPath(CONTROL_PLANE, namespace),
      object: object(CONTROL_PLANE, { controlPlaneEndpoint }),
      status: { initialization: { controlPlaneInitialized: true } },
    },
    {
      path: `/api/v1/namespaces/${namespace}/secrets`,
      object: {
        apiVersion: "v1",
        kind: "Secret",
        metadata: {
          name: `${name}-kubeconfig`,
          namespace,
          labels: { [`${CLUSTER_GROUP}/cluster-name`]: name },
        },
        type: `${CLUSTER_GROUP}/secret`,
        data: { value: Buffer.from(spec.kubeconfig, "utf8").toString("base64") },
      },
    },
    {
      path: kindPath(CLUSTER, namespace),
      object: {
        apiVersion: `${CLUSTER_GROUP}/${CAPI_CONTRACT}`,
        kind: "Cluster",
        metadata: { ...meta, labels: { ...spec.labels } },
        spec: { controlPlaneEndpoint, infrastructureRef: ref(INFRA), controlPlaneRef: ref(CONTROL_PLANE) },
      },
    },
  ];
}

/** The parts of a `Cluster`'s status that say whether Cluster API can reach it. */
export interface ClusterStatus {
  readonly status?: {
    readonly phase?: string;
    readonly initialization?: {
      readonly infrastructureProvisioned?: boolean;
      readonly controlPlaneInitialized?: boolean;
    };
    readonly conditions?: readonly { readonly type: string; readonly status: string }[];
  };
}

/**
 * Whether a `Cluster` is as far as the add-on controllers need: infrastructure provisioned, control
 * plane initialized, and the cluster cache connected (`RemoteConnectionProbe` True).
 */
export function clusterConnected(cluster: ClusterStatus): boolean {
  const init = cluster.status?.initialization;
  const probe = cluster.status?.conditions?.find((c) => c.type === "RemoteConnectionProbe");
  return (
    init?.infrastructureProvisioned === true &&
    init.controlPlaneInitialized === true &&
    probe?.status === "True"
  );
}

/** A one-line description of a `Cluster`'s status, for a timeout message. */
export function describeClusterStatus(cluster: ClusterStatus): string {
  const s = cluster.status;
  const conditions = (s?.conditions ?? []).map((c) => `${c.type}=${c.status}`).join(", ");
  return `phase ${s?.phase ?? "none"}, initialization ${JSON.stringify(s?.initialization ?? {})}, conditions: ${conditions || "none"}`;
}
