/**
 * Per-cluster values on the real CAAPH: a local management cluster runs the Cluster API core
 * manager v1.14.2 and CAAPH v0.6.4 (built by the toolchain) with two workload clusters whose
 * `Cluster` objects differ in name, a label, the pod CIDR and the control-plane endpoint (each
 * workload cluster's own API server). One HelmChartProxy, synthesized from a `ClusterAddon` whose
 * values hold `ClusterValue` references, is server-side applied as a user would; each workload
 * cluster's release must then hold its own Cluster's fields (`helm get values`), and a literal
 * `{{` in another value must arrive exactly. The table `ClusterValue.field` checks paths against
 * is compared with the Cluster CRD the managers run with. Then a private chart: an OCI registry
 * (the toolchain's `registry` behind a front that serves TLS with our own CA and requires a
 * password), installed into both workload clusters from the synthesized Secrets and proxy alone.
 * Last, a secret for the fleet (`workloadSecrets`): a chart that fails without its Secret, which a
 * ClusterResourceSet carries into each workload cluster while CAAPH's InstallOnce install retries;
 * the secret must be in no HelmChartProxy, HelmReleaseProxy, event or manager log.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { parseAllDocuments } from "yaml";
import { CLUSTER_FIELDS, fieldTreeOf } from "../../../constructs/cluster-fields.js";
import { ClusterAddon, ClusterValue } from "../../../constructs/index.js";
import { generatePki } from "../../../local-cluster/control-plane/certs.js";
import { findCapiBinaries } from "../../../local-cluster/controllers/capi/managers.js";
import { endpointOf } from "../../../local-cluster/controllers/capi/objects.js";
import type { CapiWorkloadCluster } from "../../../local-cluster/index.js";
import { type LiveRelease, liveRelease } from "../../support/addon.js";
import { skipUnlessBuilt } from "../../support/binaries.js";
import {
  applyAll,
  GATED_CHART_FILES,
  list,
  proxyPath,
  read,
  releaseProxies,
  remove,
  resourceSetPath,
  synth,
  updateCluster,
} from "../../support/capi.js";
import { packageCharts } from "../../support/charts.js";
import { clusterSuite } from "../../support/cluster.js";
import { isolateCache, writeChart } from "../../support/constructs.js";
import { runDocsExample } from "../../support/docs-example.js";
import { getObject, waitFor } from "../../support/gitops.js";
import { type RegistryFront, startRegistryFront } from "../../support/registry-front.js";
import {
  type HttpChartRepo,
  type OciRegistry,
  startHttpChartRepo,
  startOciRegistry,
} from "../../support/repos.js";

/** Where the Clusters and the proxy live. */
const NS = "default";
/** The labels every workload cluster is registered with; the proxy selects `fleet`, the docs' example `cni`. */
const LABELS = { fleet: "values", cni: "cilium" };
/** What makes each Cluster different besides its name and endpoint: a label and the pod CIDR. */
const DIFFERENCES = [
  { region: "eu-1", pods: "10.10.0.0/16" },
  { region: "us-2", pods: "10.20.0.0/16" },
];
/** The registry front's password (the construct is given it; it must reach no HelmChartProxy). */
const REGISTRY_USER = { username: "robot", password: "fleet-pass-8812" };
/** The fleet's secret (a Git deploy key): only the ClusterResourceSet's carrier may hold it. */
const DEPLOY_KEY =
  "-----BEGIN OPENSSH PRIVATE KEY-----\nfleet-deploy-key-7741\n-----END OPENSSH PRIVATE KEY-----\n";
/** A chart of one ConfigMap, which takes any values. */
const NOTE_CHART = {
  "values.yaml": "message: default\n",
  "templates/configmap.yaml": [
    "apiVersion: v1",
    "kind: ConfigMap",
    "metadata:",
    "  name: {{ .Release.Name }}-note",
    "data:",
    "  message: {{ .Values.message | quote }}",
    "",
  ].join("\n"),
};

describe("per-cluster values through one HelmChartProxy on the real CAAPH", {
  skip: skipUnlessBuilt(["capi-manager", "caaph-manager", "kube-apiserver", "registry"]),
  timeout: 900_000,
}, () => {
  const suite = clusterSuite({ name: "capi-fleet", capi: { workloadClusters: 2, labels: LABELS } });
  let repo: HttpChartRepo;
  let noteChart: string;
  let ciliumChart: string;
  let gateChart: string;
  let cache: ReturnType<typeof isolateCache>;
  let registry: OciRegistry;
  let front: RegistryFront;
  let caFile: string;
  const mgmt = () => suite.cluster;
  const workloads = (): readonly CapiWorkloadCluster[] => mgmt().capi?.clusters ?? [];

  before(async () => {
    cache = isolateCache();
    noteChart = writeChart("note", NOTE_CHART);
    // A stand-in for the chart the docs' example names: it takes any values.
    ciliumChart = writeChart("cilium", {
      ...NOTE_CHART,
      "Chart.yaml": "apiVersion: v2\nname: cilium\nversion: 1.18.4\n",
    });
    gateChart = writeChart("gate", GATED_CHART_FILES);
    repo = await startHttpChartRepo({ charts: [noteChart, ciliumChart, gateChart] });
    const [reg, pki, packaged] = await Promise.all([
      startOciRegistry(),
      generatePki(join(await mkdtemp(join(tmpdir(), "hh-fleet-registry-")), "pki"), "registry"),
      packageCharts({ charts: [noteChart] }),
    ]);
    registry = reg;
    await registry.push(packaged.path("note"));
    await packaged.remove();
    caFile = pki.caCert;
    front = await startRegistryFront({
      backend: registry.host,
      tls: { cert: pki.servingCert, key: pki.servingKey },
      credentials: REGISTRY_USER,
    });
    assert.equal(workloads().length, 2);
    for (const [i, c] of workloads().entries()) {
      const d = DIFFERENCES[i];
      assert.ok(d);
      await updateCluster(mgmt(), NS, c.name, (live) => ({
        ...live,
        metadata: { ...live.metadata, labels: { ...LABELS, region: d.region } },
        spec: {
          ...live.spec,
          clusterNetwork: { pods: { cidrBlocks: [d.pods] }, services: { cidrBlocks: [`10.9${i}.0.0/16`] } },
        },
      }));
    }
  });
  after(async () => {
    await Promise.allSettled([repo?.close(), front?.close(), registry?.close()]);
    if (caFile) rmSync(dirname(dirname(caFile)), { recursive: true, force: true });
    for (const c of [noteChart, ciliumChart, gateChart])
      if (c) rmSync(dirname(c), { recursive: true, force: true });
    cache?.restore();
  });

  /** The release `name` in `namespace` of `c` once deployed (CAAPH's status of it in a timeout message). */
  const deployed = (c: CapiWorkloadCluster, name: string, namespace: string): Promise<LiveRelease> =>
    waitFor(
      `release ${name} deployed in ${c.name}`,
      async () => {
        const r = await liveRelease(c.local, name, namespace);
        return r?.status === "deployed" ? r : undefined;
      },
      180_000,
      async () =>
        `${JSON.stringify((await releaseProxies(mgmt(), NS, name)).get(c.name)?.status)}; ${mgmt().logDir}/caaph-manager.log`,
    );
  const removeProxy = async (name: string) => {
    await remove(mgmt(), proxyPath(NS, name));
    await waitFor(`the proxy ${name} to be gone`, async () =>
      (await read(mgmt(), proxyPath(NS, name))) === undefined ? true : undefined,
    );
  };

  test("the Cluster fields ClusterValue.field accepts are those of the v1beta2 Cluster CRD the managers run with", () => {
    const file = findCapiBinaries().crdFiles.find((f) => f.endsWith("cluster.x-k8s.io_clusters.yaml"));
    assert.ok(file, "the Cluster CRD is in the toolchain");
    const crd = parseAllDocuments(readFileSync(file, "utf8"))[0]?.toJS() as {
      spec: { versions: { name: string; schema: { openAPIV3Schema: Record<string, unknown> } }[] };
    };
    const v1beta2 = crd.spec.versions.find((v) => v.name === "v1beta2");
    assert.ok(v1beta2);
    const {
      apiVersion: _a,
      kind: _k,
      metadata: _m,
      ...fields
    } = fieldTreeOf(v1beta2.schema.openAPIV3Schema) as Record<string, unknown>;
    assert.deepEqual(fields, CLUSTER_FIELDS);
  });

  test("one HelmChartProxy gives each workload cluster's release its own Cluster's name, label, pod CIDR and endpoint, and a literal {{ exactly", async () => {
    const values = {
      message: "{{ not-a-template }} 100%",
      cluster: {
        name: ClusterValue.clusterName(),
        namespace: ClusterValue.clusterNamespace(),
        region: ClusterValue.clusterLabel("region"),
        id: `mesh-${ClusterValue.clusterName()}-${ClusterValue.clusterLabel("region")}`,
        missing: ClusterValue.clusterAnnotation("example.org/not-set"),
      },
      ipam: {
        pools: [{ cidr: ClusterValue.field("Cluster.spec.clusterNetwork.pods.cidrBlocks[0]") }],
        podCidrBlocks: ClusterValue.podCidrBlocks(),
        serviceCidrBlocks: ClusterValue.serviceCidrBlocks(),
      },
      k8sServiceHost: ClusterValue.controlPlaneHost(),
      k8sServicePort: ClusterValue.controlPlanePort(),
      controlPlane: ClusterValue.field("ControlPlane.metadata.name"),
      infraPort: ClusterValue.field("InfraCluster.spec.controlPlaneEndpoint.port"),
    };
    const objects = synth((chart) => {
      new ClusterAddon(chart, "fleet", {
        chart: { repo: repo.url, name: "note", version: "0.1.0" },
        namespace: "addons",
        createNamespace: true,
        values,
        output: "HelmChartProxy",
        carrierNamespace: NS,
        clusterSelector: { matchLabels: LABELS },
      });
    });
    assert.deepEqual(
      objects.map((o) => o.kind),
      ["HelmChartProxy"],
    );
    await applyAll(mgmt(), objects);
    for (const [i, c] of workloads().entries()) {
      const d = DIFFERENCES[i];
      assert.ok(d);
      const r = await deployed(c, "fleet", "addons");
      const endpoint = endpointOf(c.local.server);
      assert.deepEqual(r.values, {
        message: "{{ not-a-template }} 100%",
        cluster: {
          name: c.name,
          namespace: NS,
          region: d.region,
          id: `mesh-${c.name}-${d.region}`,
          missing: null,
        },
        ipam: {
          pools: [{ cidr: d.pods }],
          podCidrBlocks: [d.pods],
          serviceCidrBlocks: [`10.9${i}.0.0/16`],
        },
        k8sServiceHost: endpoint.host,
        k8sServicePort: endpoint.port,
        controlPlane: c.name,
        infraPort: endpoint.port,
      });
    }
    const [first, second] = workloads();
    assert.ok(first && second);
    assert.notEqual(endpointOf(first.local.server).port, endpointOf(second.local.server).port);
    await removeProxy("fleet");
  });

  test("the per-cluster values example of docs/cdk8s.md, run as written, installs each Cluster's own endpoint and name", async () => {
    const objects = await runDocsExample("### Per-cluster values", { CILIUM_REPO: repo.url });
    assert.deepEqual(
      objects.map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`),
      ["HelmChartProxy default/cilium"],
    );
    await applyAll(mgmt(), objects);
    for (const [i, c] of workloads().entries()) {
      const d = DIFFERENCES[i];
      assert.ok(d);
      const endpoint = endpointOf(c.local.server);
      assert.deepEqual((await deployed(c, "cilium", "kube-system")).values, {
        kubeProxyReplacement: true,
        k8sServiceHost: endpoint.host,
        k8sServicePort: endpoint.port,
        cluster: { name: c.name },
        ipam: { mode: "cluster-pool", operator: { clusterPoolIPv4PodCIDRList: [d.pods] } },
        extraConfig: { "fleet-region": d.region },
        podAnnotations: { "example.org/mesh-id": `mesh-${c.name}` },
      });
    }
    await removeProxy("cilium");
  });

  test("a chart from an OCI registry with a password and our own CA installs from the synthesized Secrets and proxy alone", async () => {
    const objects = synth((chart) => {
      new ClusterAddon(chart, "private", {
        chart: { repo: front.url, name: "note", version: "0.1.0", ...REGISTRY_USER, caFile },
        namespace: "addons",
        createNamespace: true,
        values: { message: "from the private registry" },
        output: "HelmChartProxy",
        carrierNamespace: NS,
        clusterSelector: { matchLabels: LABELS },
      });
    });
    assert.deepEqual(
      objects.map((o) => `${o.kind} ${o.metadata.name}`),
      ["Secret private-registry-credentials", "Secret private-ca", "HelmChartProxy private"],
    );
    const basic = `Basic ${Buffer.from(`${REGISTRY_USER.username}:${REGISTRY_USER.password}`).toString("base64")}`;
    const secretTexts = [REGISTRY_USER.password, basic.slice("Basic ".length)];
    const hcp = JSON.stringify(objects[2]);
    for (const t of secretTexts) assert.equal(hcp.includes(t), false);
    const sentBefore = front.authorizations().length;
    await applyAll(mgmt(), objects);
    for (const c of workloads()) {
      assert.deepEqual((await deployed(c, "private", "addons")).values, {
        message: "from the private registry",
      });
    }
    assert.ok(
      front.authorizations().slice(sentBefore).includes(basic),
      "CAAPH sent the password to the registry",
    );
    const proxies = JSON.stringify([...(await releaseProxies(mgmt(), NS, "private")).values()]);
    const proxy = JSON.stringify(await read(mgmt(), proxyPath(NS, "private")));
    for (const t of secretTexts) {
      assert.equal(proxies.includes(t), false, "no HelmReleaseProxy holds the password");
      assert.equal(proxy.includes(t), false, "the HelmChartProxy does not hold the password");
    }
    await removeProxy("private");
  });

  test("a secret for the fleet: the chart fails without it, and once the ClusterResourceSet carries it in, the InstallOnce install converges in every cluster; it is in no proxy, event or manager log", async () => {
    const objects = synth((chart) => {
      new ClusterAddon(chart, "gated", {
        chart: { repo: repo.url, name: "gate", version: "0.1.0" },
        namespace: "gitops",
        createNamespace: true,
        values: { existingSecret: "deploy-key" },
        workloadSecrets: [{ name: "deploy-key", stringData: { identity: DEPLOY_KEY } }],
        output: "HelmChartProxy",
        carrierNamespace: NS,
        clusterSelector: { matchLabels: LABELS },
      });
    });
    assert.deepEqual(
      objects.map((o) => `${o.kind} ${o.metadata.name}`),
      ["Secret gated-secrets-000", "ClusterResourceSet gated-secrets", "HelmChartProxy gated"],
    );
    const secretTexts = ["fleet-deploy-key-7741", Buffer.from(DEPLOY_KEY).toString("base64")];
    // The proxy alone: every install fails on the missing Secret.
    await applyAll(
      mgmt(),
      objects.filter((o) => o.kind === "HelmChartProxy"),
    );
    for (const c of workloads()) {
      await waitFor(`the install of gated to fail on the missing Secret in ${c.name}`, async () => {
        const status = JSON.stringify((await releaseProxies(mgmt(), NS, "gated")).get(c.name)?.status ?? {});
        return status.includes("Secret gitops/deploy-key not found") ? true : undefined;
      });
      assert.equal((await liveRelease(c.local, "gated", "gitops"))?.status, undefined);
    }
    // The ClusterResourceSet carries the Secret in; CAAPH's retries install the chart.
    await applyAll(
      mgmt(),
      objects.filter((o) => o.kind !== "HelmChartProxy"),
    );
    for (const c of workloads()) {
      assert.deepEqual((await deployed(c, "gated", "gitops")).values, { existingSecret: "deploy-key" });
      const secret = await getObject(c.local, "v1", "Secret", "gitops", "deploy-key");
      assert.deepEqual(secret?.data, { identity: Buffer.from(DEPLOY_KEY).toString("base64") });
      assert.deepEqual((await getObject(c.local, "v1", "ConfigMap", "gitops", "gated-gate"))?.data, {
        keys: "identity",
        note: "",
      });
    }
    const management = [
      JSON.stringify(await read(mgmt(), proxyPath(NS, "gated"))),
      JSON.stringify([...(await releaseProxies(mgmt(), NS, "gated")).values()]),
      JSON.stringify(await list(mgmt(), "/api/v1/events")),
      readFileSync(join(mgmt().logDir, "caaph-manager.log"), "utf8"),
      readFileSync(join(mgmt().logDir, "capi-manager.log"), "utf8"),
    ];
    for (const [i, text] of management.entries()) {
      for (const t of secretTexts) assert.equal(text.includes(t), false, `place ${i} holds the secret`);
    }
    await removeProxy("gated");
    await remove(mgmt(), resourceSetPath(NS, "gated-secrets"));
  });
});
