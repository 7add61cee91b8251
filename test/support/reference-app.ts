/**
 * The reference cdk8s app the jsii tests compare languages on: `referenceApp` with the TypeScript
 * constructs, the same app in Python (`REFERENCE_APP_PY`), and the test charts both read from the
 * project's `./charts/`. A Python or Java app given the same props must write the same files, byte
 * for byte. Test-only code.
 *
 * @module
 */
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { App, Chart, Duration } from "cdk8s";
import { ArgoCdHandoff, ClusterAddon, type ClusterAddonProps, FluxHandoff } from "../../constructs/index.js";
import { chartPath } from "./charts.js";

/** The test charts the apps use, copied to `./charts/NAME` of a project, as an app keeps its charts. */
export const APP_CHARTS = ["schema", "hook", "workload", "big", "random"] as const;

/** Copies {@link APP_CHARTS} into the project `dir`. */
export async function copyTestCharts(dir: string): Promise<void> {
  for (const name of APP_CHARTS) await cp(chartPath(name), join(dir, "charts", name), { recursive: true });
}

/**
 * The app that the Python and Java apps of the tests mirror, with the TypeScript constructs:
 * Manifests (a namespace, values, hooks included, capabilities), a chunked ClusterResourceSet
 * (Reconcile, a selector with an expression, v1beta1, a carrier namespace) and a HelmChartProxy of
 * an OCI chart (install options, a literal `{{`) with its Flux and Argo CD handoff. Synthesized
 * into `outdir`; the charts are under `dir` (see {@link copyTestCharts}).
 */
export function referenceApp(dir: string, outdir: string): void {
  const app = new App({ outdir });
  const manifests = new Chart(app, "manifests");
  new ClusterAddon(manifests, "cni", {
    chart: { path: join(dir, "charts/schema") },
    namespace: "kube-system",
    createNamespace: true,
    values: { replicas: 2, mode: "b" },
  });
  new ClusterAddon(manifests, "hooked", {
    chart: { path: join(dir, "charts/hook") },
    releaseName: "hooks",
    hooks: "include",
    kubeVersion: "1.36.0",
    apiVersions: ["monitoring.coreos.com/v1"],
  });
  const carriers = new Chart(app, "carriers");
  new ClusterAddon(carriers, "workload", {
    chart: { path: join(dir, "charts/workload") },
    namespace: "apps",
    values: { replicaCount: 3, podLabels: { tier: "bootstrap" }, message: "hello" },
    strategy: "Reconcile",
    output: "ClusterResourceSet",
    clusterSelector: {
      matchLabels: { cni: "bootstrap" },
      matchExpressions: [{ key: "env", operator: "In", values: ["prod", "staging"] }],
    },
    clusterApiVersion: "v1beta1",
    carrierNamespace: "fleet",
    maxCarrierBytes: 2048,
  });
  const proxy = new Chart(app, "proxy");
  const cni = new ClusterAddon(proxy, "cni", {
    chart: { repo: "oci://registry.example.org/charts", name: "cni", version: "1.2.3" },
    namespace: "kube-system",
    values: { ipam: { mode: "kubernetes" }, banner: "{{ not a template }}", mtu: 1450.5 },
    install: { wait: false, timeout: `${Duration.minutes(10).toSeconds()}s`, skipCrds: true },
    output: "HelmChartProxy",
    clusterSelector: { matchLabels: { cni: "bootstrap" } },
  } satisfies ClusterAddonProps);
  const record = cni.handoffRecord({
    clusterId: "sha256:0123",
    server: "https://10.0.0.1:6443",
    revision: 1,
    installedAt: "2026-12-05T10:00:00.000Z",
  });
  new FluxHandoff(proxy, "flux", {
    record,
    interval: "5m",
    values: { ipam: { mode: "kubernetes" } },
    valuesFrom: [{ kind: "Secret", name: "cni-secret-values" }],
  });
  new ArgoCdHandoff(proxy, "argocd", {
    record,
    project: "platform",
    automated: { selfHeal: true },
    syncOnCreate: false,
  });
  app.synth();
}

/** {@link referenceApp} in Python (`main.py` of test/e2e/cdk8s/python-app.test.ts): every output, every prop kind, the handoff constructs. */
export const REFERENCE_APP_PY = `#!/usr/bin/env python
from constructs import Construct
from cdk8s import App, Chart, Duration

from helm_handoff_cdk8s import (
    ArgoCdAutomatedSync,
    ArgoCdHandoff,
    ChartSource,
    ClusterAddon,
    ClusterAddonOutput,
    ClusterApiVersion,
    FluxHandoff,
    FluxValuesKind,
    FluxValuesReference,
    HandoffRecord,
    HooksPolicy,
    InstallOptions,
    LabelSelector,
    LabelSelectorOperator,
    LabelSelectorRequirement,
    Strategy,
)


class Manifests(Chart):
    def __init__(self, scope: Construct, id: str):
        super().__init__(scope, id)
        ClusterAddon(self, "cni",
            chart=ChartSource.from_path("./charts/schema"),
            namespace="kube-system",
            create_namespace=True,
            values={"replicas": 2, "mode": "b"})
        ClusterAddon(self, "hooked",
            chart=ChartSource.from_path("./charts/hook"),
            release_name="hooks",
            hooks=HooksPolicy.INCLUDE,
            kube_version="1.36.0",
            api_versions=["monitoring.coreos.com/v1"])


class Carriers(Chart):
    def __init__(self, scope: Construct, id: str):
        super().__init__(scope, id)
        ClusterAddon(self, "workload",
            chart=ChartSource.from_path("./charts/workload"),
            namespace="apps",
            values={"replicaCount": 3, "podLabels": {"tier": "bootstrap"}, "message": "hello"},
            strategy=Strategy.RECONCILE,
            output=ClusterAddonOutput.CLUSTER_RESOURCE_SET,
            cluster_selector=LabelSelector(
                match_labels={"cni": "bootstrap"},
                match_expressions=[LabelSelectorRequirement(
                    key="env", operator=LabelSelectorOperator.IN, values=["prod", "staging"])]),
            cluster_api_version=ClusterApiVersion.V1BETA1,
            carrier_namespace="fleet",
            max_carrier_bytes=2048)


class Proxy(Chart):
    def __init__(self, scope: Construct, id: str):
        super().__init__(scope, id)
        cni = ClusterAddon(self, "cni",
            chart=ChartSource.from_oci("registry.example.org/charts", "cni", version="1.2.3"),
            namespace="kube-system",
            values={"ipam": {"mode": "kubernetes"}, "banner": "{{ not a template }}", "mtu": 1450.5},
            install=InstallOptions(wait=False, timeout=Duration.minutes(10), skip_crds=True),
            output=ClusterAddonOutput.HELM_CHART_PROXY,
            cluster_selector=LabelSelector(match_labels={"cni": "bootstrap"}))
        record = cni.handoff_record(cluster_id="sha256:0123", server="https://10.0.0.1:6443",
                                    revision=1, installed_at="2026-12-05T10:00:00.000Z")
        FluxHandoff(self, "flux", record=record, interval="5m",
            values={"ipam": {"mode": "kubernetes"}},
            values_from=[FluxValuesReference(kind=FluxValuesKind.SECRET, name="cni-secret-values")])
        # a record read back from its JSON form (as from a Pulumi stack output) is the same record
        assert HandoffRecord.from_json(record.to_json()).to_json() == record.to_json()
        assert (record.release_name, record.revision, record.strategy) == ("cni", 1, Strategy.APPLY_ONCE)
        ArgoCdHandoff(self, "argocd", record=HandoffRecord.from_json(record.to_json()), project="platform",
            automated=ArgoCdAutomatedSync(self_heal=True), sync_on_create=False)


app = App()
Manifests(app, "manifests")
Carriers(app, "carriers")
Proxy(app, "proxy")
app.synth()
`;
