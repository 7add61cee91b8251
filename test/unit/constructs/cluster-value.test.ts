/**
 * `ClusterValue` (constructs/cluster-value.ts): the named references and the checked general
 * form render into CAAPH's Go template syntax in a HelmChartProxy's `valuesTemplate`, every other
 * `{{` stays escaped, and a reference where nothing fills it in (Manifests, a ClusterResourceSet,
 * a handoff record, a key) or a path CAAPH v0.6.4 does not give is a `SpecError` with the fix.
 * No helm runs: the HelmChartProxy output renders nothing, and the refusals come first.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Testing } from "cdk8s";
import { ClusterAddon, type ClusterAddonProps, ClusterValue } from "../../../constructs/index.js";
import { SpecError } from "../../../core/errors.js";
import type { KubeObject } from "../../../core/util/kube-object.js";
import { newChart, testChart } from "../../support/constructs.js";
import { docsBlock, runDocsExample } from "../../support/docs-example.js";

const REPO_CHART = { repo: "https://charts.example.org", name: "cni", version: "1.2.3" };
const SELECTOR = { matchLabels: { cni: "bootstrap" } };

/** The `valuesTemplate` of a HelmChartProxy of `values`. */
function valuesTemplate(values: Record<string, unknown>): string {
  const { chart } = newChart();
  new ClusterAddon(chart, "cni", {
    chart: REPO_CHART,
    values,
    output: "HelmChartProxy",
    clusterSelector: SELECTOR,
  });
  const [hcp] = Testing.synth(chart) as KubeObject[];
  return String((hcp?.spec as { valuesTemplate?: unknown } | undefined)?.valuesTemplate);
}

/** The SpecError of `ClusterValue.field(path)`, as field and message. */
function fieldError(path: string): { field: string; message: string } {
  try {
    ClusterValue.field(path);
  } catch (e) {
    assert.ok(e instanceof SpecError);
    return { field: e.field, message: e.message };
  }
  assert.fail(`ClusterValue.field(${JSON.stringify(path)}) was accepted`);
}

describe("ClusterValue", () => {
  it("renders each named reference as a Go template action over the Cluster, piped to toJson", () => {
    const values = {
      cluster: { name: ClusterValue.clusterName(), namespace: ClusterValue.clusterNamespace() },
      pods: ClusterValue.podCidrBlocks(),
      services: ClusterValue.serviceCidrBlocks(),
      k8sServiceHost: ClusterValue.controlPlaneHost(),
      k8sServicePort: ClusterValue.controlPlanePort(),
      region: ClusterValue.clusterLabel("topology.example.org/region"),
      owner: ClusterValue.clusterAnnotation("owner"),
    };
    assert.equal(
      valuesTemplate(values),
      [
        "cluster:",
        "  name: {{ .Cluster.metadata.name | toJson }}",
        "  namespace: {{ .Cluster.metadata.namespace | toJson }}",
        "k8sServiceHost: {{ .Cluster.spec.controlPlaneEndpoint.host | toJson }}",
        "k8sServicePort: {{ .Cluster.spec.controlPlaneEndpoint.port | toJson }}",
        'owner: {{ index (.Cluster.metadata.annotations | default dict) "owner" | toJson }}',
        "pods: {{ .Cluster.spec.clusterNetwork.pods.cidrBlocks | toJson }}",
        'region: {{ index (.Cluster.metadata.labels | default dict) "topology.example.org/region" | toJson }}',
        "services: {{ .Cluster.spec.clusterNetwork.services.cidrBlocks | toJson }}",
        "",
      ].join("\n"),
    );
  });

  it("keeps every literal {{ escaped exactly as before, next to the references", () => {
    assert.equal(
      valuesTemplate({ tpl: "{{ .Cluster }}", name: ClusterValue.clusterName(), list: ["{{a}}", 1] }),
      [
        'list:\n  - "{{ "{{" }}a}}"\n  - 1',
        "name: {{ .Cluster.metadata.name | toJson }}",
        'tpl: "{{ "{{" }} .Cluster }}"',
        "",
      ].join("\n"),
    );
  });

  it("renders a string holding references as printf over them, with % and {{ in its text kept literal", () => {
    const name = ClusterValue.clusterName();
    const region = ClusterValue.clusterLabel("example.org/region");
    assert.equal(
      valuesTemplate({ id: `{{x}} ${name}.${region} 100%` }),
      'id: {{ printf "{{x}} %v.%v 100%%" .Cluster.metadata.name (index (.Cluster.metadata.labels | default dict) "example.org/region") | toJson }}\n',
    );
  });

  it("puts references inside lists and list items", () => {
    assert.equal(
      valuesTemplate({
        pools: [{ cidr: ClusterValue.field("Cluster.spec.clusterNetwork.pods.cidrBlocks[0]") }],
      }),
      "pools:\n  - cidr: {{ index .Cluster.spec.clusterNetwork.pods.cidrBlocks 0 | toJson }}\n",
    );
  });

  it("takes a general path under Cluster, ControlPlane and InfraCluster and names it canonically", () => {
    const cases: [string, string, string][] = [
      ["Cluster.spec.topology.version", "Cluster.spec.topology.version", ".Cluster.spec.topology.version"],
      [
        "Cluster.status.conditions[0].type",
        "Cluster.status.conditions[0].type",
        'index .Cluster.status.conditions 0 "type"',
      ],
      [
        'Cluster.metadata["labels"]["a/b"]',
        'Cluster.metadata.labels["a/b"]',
        'index (.Cluster.metadata.labels | default dict) "a/b"',
      ],
      ["ControlPlane.spec.replicas", "ControlPlane.spec.replicas", ".ControlPlane.spec.replicas"],
      ["InfraCluster.status.ready", "InfraCluster.status.ready", ".InfraCluster.status.ready"],
      ["InfraCluster.metadata.name", "InfraCluster.metadata.name", ".InfraCluster.metadata.name"],
    ];
    for (const [path, canonical, expression] of cases) {
      const v = ClusterValue.field(path);
      assert.deepEqual([v.path, v.expression], [canonical, expression], path);
      assert.ok(ClusterValue.isClusterValue(v));
    }
    assert.equal(ClusterValue.isClusterValue("Cluster.metadata.name"), false);
  });

  it("refuses a path of an object CAAPH does not give valuesTemplate", () => {
    assert.deepEqual(fieldError("Machine.spec.version"), {
      field: "ClusterValue.field",
      message:
        'ClusterValue.field("Machine.spec.version") is invalid: CAAPH v0.6.4 gives valuesTemplate only Cluster, ControlPlane, InfraCluster: start the path with one of them, e.g. "Cluster.metadata.name"',
    });
  });

  it("refuses a field the v1beta2 Cluster does not have, listing the ones it has there", () => {
    assert.equal(
      fieldError("Cluster.spec.clusterNetwork.podCidr").message,
      'ClusterValue.field("Cluster.spec.clusterNetwork.podCidr") is invalid: Cluster.spec.clusterNetwork has no field .podCidr in the Cluster API v1beta2 schema; its fields are apiServerPort, pods, serviceDomain, services',
    );
    assert.equal(
      fieldError("ControlPlane.replicas").message,
      'ClusterValue.field("ControlPlane.replicas") is invalid: ControlPlane has no field .replicas (the provider\'s object: any field below spec and status is taken); its fields are apiVersion, kind, metadata, spec, status',
    );
  });

  it("refuses a list read without an index, a map without a key, a field below a single value and a path it cannot read", () => {
    assert.equal(
      fieldError("Cluster.spec.clusterNetwork.pods.cidrBlocks.first").message,
      'ClusterValue.field("Cluster.spec.clusterNetwork.pods.cidrBlocks.first") is invalid: Cluster.spec.clusterNetwork.pods.cidrBlocks is a list: give an index, e.g. Cluster.spec.clusterNetwork.pods.cidrBlocks[0]',
    );
    assert.equal(
      fieldError("Cluster.metadata.labels[0]").message,
      'ClusterValue.field("Cluster.metadata.labels[0]") is invalid: Cluster.metadata.labels is a map: give a key, e.g. Cluster.metadata.labels["key"]',
    );
    assert.equal(
      fieldError("Cluster.metadata.name.first").message,
      'ClusterValue.field("Cluster.metadata.name.first") is invalid: Cluster.metadata.name is a single value: it has no field .first',
    );
    assert.equal(
      fieldError("Cluster.spec..paused").message,
      'ClusterValue.field("Cluster.spec..paused") is invalid: cannot read it after "Cluster.spec": write .field, [0] or ["key"] after the object, e.g. Cluster.metadata.labels["region"]',
    );
  });

  /** The SpecError of a ClusterAddon built with `props`, as field and message. */
  const addonError = (props: Partial<ClusterAddonProps>): { field: string; message: string } => {
    const { chart } = newChart();
    try {
      new ClusterAddon(chart, "cni", { chart: { path: testChart("workload") }, ...props });
    } catch (e) {
      assert.ok(e instanceof SpecError);
      return { field: e.field, message: e.message };
    }
    assert.fail("the add-on was built");
  };

  it("refuses a reference in the Manifests output, naming the value and the output that works", () => {
    assert.deepEqual(addonError({ values: { net: { cidr: [ClusterValue.podCidrBlocks()] } } }), {
      field: "values.net.cidr[0]",
      message:
        'values.net.cidr[0] holds ClusterValue Cluster.spec.clusterNetwork.pods.cidrBlocks: output "Manifests" has no Cluster to read it from; use output "HelmChartProxy" (CAAPH fills it in for each Cluster), or give the value itself',
    });
  });

  it("refuses a reference in a ClusterResourceSet, which applies the same objects to every Cluster", () => {
    const props = {
      values: { "mesh-id": `mesh-${ClusterValue.clusterName()}` },
      output: "ClusterResourceSet" as const,
      clusterSelector: SELECTOR,
    };
    assert.deepEqual(addonError(props), {
      field: 'values["mesh-id"]',
      message:
        'values["mesh-id"] holds ClusterValue Cluster.metadata.name: a ClusterResourceSet applies the same objects, rendered once at synth, to every Cluster; use output "HelmChartProxy" (CAAPH fills it in for each Cluster), or give the value itself',
    });
  });

  it("refuses a reference in a key, which CAAPH does not fill in", () => {
    const key = `${ClusterValue.clusterName()}`;
    const props = {
      chart: REPO_CHART,
      values: { [key]: 1 },
      output: "HelmChartProxy" as const,
      clusterSelector: SELECTOR,
    };
    assert.deepEqual(addonError(props), {
      field: `values[${JSON.stringify(key)}]`,
      message: `values[${JSON.stringify(key)}] has a ClusterValue in its key: only values are filled in per Cluster; use a fixed key`,
    });
  });

  it("refuses the handoff record of an add-on with references, whose values differ per Cluster", () => {
    const { chart } = newChart();
    const addon = new ClusterAddon(chart, "cni", {
      chart: REPO_CHART,
      values: { name: ClusterValue.clusterName() },
      output: "HelmChartProxy",
      clusterSelector: SELECTOR,
    });
    assert.throws(() => addon.handoffRecord({ clusterId: "id", server: "https://127.0.0.1:6443" }), {
      name: "SpecError",
      message:
        "values.name holds ClusterValue Cluster.metadata.name, which differs from Cluster to Cluster: a handoff record names the values of one cluster; give the value itself in the add-on whose record you hand off",
    });
  });

  it("the per-cluster values example of docs/cdk8s.md synthesizes the valuesTemplate the docs show", async () => {
    const [hcp, ...rest] = await runDocsExample("### Per-cluster values");
    assert.deepEqual(rest, []);
    assert.equal(hcp?.kind, "HelmChartProxy");
    const spec = hcp?.spec as { valuesTemplate?: unknown; repoURL?: unknown } | undefined;
    assert.equal(spec?.repoURL, "https://helm.cilium.io");
    assert.equal(
      spec?.valuesTemplate,
      await docsBlock("The HelmChartProxy's `valuesTemplate` then reads (sorted keys, as always):", "yaml"),
    );
  });
});
