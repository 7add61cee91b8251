/**
 * The objects that register a local workload cluster with a local Cluster API management cluster
 * (local-cluster/controllers/capi/objects.ts): the stand-in provider CRDs, the objects per cluster and the
 * status they report, and when a `Cluster` counts as connected. The real controllers' view of them
 * is tested in test/e2e/capi/carriers.test.ts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  clusterConnected,
  describeClusterStatus,
  endpointOf,
  registrationObjects,
  standInCrds,
} from "../../../../../local-cluster/controllers/capi/objects.js";

test("the stand-in provider CRDs are namespaced, have a status subresource and carry the v1beta2 contract label", () => {
  const crds = standInCrds();
  assert.deepEqual(
    crds.map((c) => c.metadata.name),
    [
      "localinfraclusters.infrastructure.cluster.x-k8s.io",
      "localcontrolplanes.controlplane.cluster.x-k8s.io",
    ],
  );
  for (const crd of crds) {
    assert.deepEqual(crd.metadata.labels, { "cluster.x-k8s.io/v1beta2": "v1beta2" });
    const spec = crd.spec as { scope: string; versions: { name: string; subresources: unknown }[] };
    assert.equal(spec.scope, "Namespaced");
    assert.deepEqual(
      spec.versions.map((v) => [v.name, v.subresources]),
      [["v1beta2", { status: {} }]],
    );
  }
});

test("a workload cluster is registered by its infrastructure and control-plane stand-ins, its kubeconfig Secret and a Cluster naming them", () => {
  const objects = registrationObjects({
    name: "workload-1",
    namespace: "fleet",
    labels: { env: "test" },
    server: "https://127.0.0.1:6443",
    kubeconfig: "apiVersion: v1\n",
  });
  assert.deepEqual(
    objects.map((o) => [o.path, o.object.kind, o.status]),
    [
      [
        "/apis/infrastructure.cluster.x-k8s.io/v1beta2/namespaces/fleet/localinfraclusters",
        "LocalInfraCluster",
        { initialization: { provisioned: true } },
      ],
      [
        "/apis/controlplane.cluster.x-k8s.io/v1beta2/namespaces/fleet/localcontrolplanes",
        "LocalControlPlane",
        { initialization: { controlPlaneInitialized: true } },
      ],
      ["/api/v1/namespaces/fleet/secrets", "Secret", undefined],
      ["/apis/cluster.x-k8s.io/v1beta2/namespaces/fleet/clusters", "Cluster", undefined],
    ],
  );
  const [, , secret, cluster] = objects.map((o) => o.object);
  assert.deepEqual(secret?.metadata, {
    name: "workload-1-kubeconfig",
    namespace: "fleet",
    labels: { "cluster.x-k8s.io/cluster-name": "workload-1" },
  });
  assert.equal(secret?.type, "cluster.x-k8s.io/secret");
  assert.deepEqual(secret?.data, { value: Buffer.from("apiVersion: v1\n").toString("base64") });
  assert.deepEqual(cluster?.metadata, { name: "workload-1", namespace: "fleet", labels: { env: "test" } });
  assert.deepEqual(cluster?.spec, {
    controlPlaneEndpoint: { host: "127.0.0.1", port: 6443 },
    infrastructureRef: {
      apiGroup: "infrastructure.cluster.x-k8s.io",
      kind: "LocalInfraCluster",
      name: "workload-1",
    },
    controlPlaneRef: {
      apiGroup: "controlplane.cluster.x-k8s.io",
      kind: "LocalControlPlane",
      name: "workload-1",
    },
  });
  assert.deepEqual(endpointOf("https://localhost:8443"), { host: "localhost", port: 8443 });
});

test("a Cluster counts as connected only when provisioned, initialized and probed", () => {
  const status = (probe: string, initialized = true) => ({
    status: {
      phase: "Provisioned",
      initialization: { infrastructureProvisioned: true, controlPlaneInitialized: initialized },
      conditions: [{ type: "RemoteConnectionProbe", status: probe }],
    },
  });
  assert.equal(clusterConnected(status("True")), true);
  assert.equal(clusterConnected(status("False")), false);
  assert.equal(clusterConnected(status("True", false)), false);
  assert.equal(clusterConnected({}), false);
  assert.equal(
    describeClusterStatus(status("False")),
    'phase Provisioned, initialization {"infrastructureProvisioned":true,"controlPlaneInitialized":true}, conditions: RemoteConnectionProbe=False',
  );
  assert.equal(describeClusterStatus({}), "phase none, initialization {}, conditions: none");
});
