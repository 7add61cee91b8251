import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Testing } from "cdk8s";
import { parseAllDocuments } from "yaml";
import { RESOURCE_SET_SECRET_TYPE } from "../../../constructs/cluster-resource-set.js";
import { ClusterAddon } from "../../../constructs/index.js";
import { manifestContainsSecret } from "../../../constructs/render.js";
import { SpecError } from "../../../core/errors.js";
import type { KubeObject } from "../../../core/util/kube-object.js";
import { isolateCache, newChart, testChart, writeChart } from "../../support/constructs.js";
import { createHelmSpy, type HelmSpy } from "../../support/helm-spy.js";

function synthObjects(chart: Parameters<typeof Testing.synth>[0]): KubeObject[] {
  return Testing.synth(chart) as KubeObject[];
}

const KEEP = {
  "helm.sh/resource-policy": "keep",
  "argocd.argoproj.io/sync-options": "Delete=false",
  "kustomize.toolkit.fluxcd.io/prune": "disabled",
};

describe("ClusterAddon", () => {
  let cache: ReturnType<typeof isolateCache>;
  // Every helm the constructs run is the spy (through HELM_HANDOFF_HELM), so a test counts them.
  let spy: HelmSpy;
  const savedHelm = process.env.HELM_HANDOFF_HELM;
  before(async () => {
    spy = await createHelmSpy(); // first: it finds the real helm in the toolchain's cache dir
    cache = isolateCache();
    process.env.HELM_HANDOFF_HELM = spy.binary;
  });
  after(async () => {
    cache.restore();
    if (savedHelm === undefined) delete process.env.HELM_HANDOFF_HELM;
    else process.env.HELM_HANDOFF_HELM = savedHelm;
    await spy.remove();
  });
  /** `helm template` runs since the spy's last reset. */
  const templateRuns = async () => (await spy.calls()).filter((argv) => argv.startsWith("template ")).length;

  it("renders the Manifests output with Helm's ownership metadata and explicit namespaces", () => {
    const { chart } = newChart();
    new ClusterAddon(chart, "hooky", {
      chart: { path: testChart("hook") },
      namespace: "apps",
      createNamespace: true,
      hooks: "drop",
    });
    const objs = synthObjects(chart);
    assert.deepEqual(
      objs.map((o) => `${o.kind} ${o.metadata.namespace ?? ""}/${o.metadata.name}`),
      ["Namespace /apps", "ConfigMap apps/hooky-hook"],
    );
    const cm = objs[1];
    assert.equal(cm?.metadata.labels?.["app.kubernetes.io/managed-by"], "Helm");
    assert.equal(cm?.metadata.annotations?.["meta.helm.sh/release-name"], "hooky");
    assert.equal(cm?.metadata.annotations?.["meta.helm.sh/release-namespace"], "apps");
    assert.deepEqual(objs[0]?.metadata.annotations, KEEP);
  });

  it("puts CRDs first and marks them to be kept", () => {
    const { chart } = newChart();
    new ClusterAddon(chart, "crds", { chart: { path: testChart("crds-only") }, namespace: "kube-system" });
    const [crd] = synthObjects(chart);
    assert.equal(crd?.kind, "CustomResourceDefinition");
    assert.equal(crd?.metadata.namespace, undefined);
    assert.deepEqual(
      Object.fromEntries(Object.entries(crd?.metadata.annotations ?? {}).filter(([k]) => k in KEEP)),
      KEEP,
    );
  });

  it("includes hooks before the regular objects when asked to, without ownership metadata", () => {
    const { chart } = newChart();
    new ClusterAddon(chart, "hooky", { chart: { path: testChart("hook") }, hooks: "include" });
    const objs = synthObjects(chart);
    assert.deepEqual(
      objs.map((o) => o.kind),
      ["Job", "ConfigMap"],
    );
    assert.equal(objs[0]?.metadata.annotations?.["meta.helm.sh/release-name"], undefined);
    assert.equal(objs[0]?.metadata.annotations?.["helm.sh/hook"], "pre-install");
  });

  it("warns when hooks are dropped by default", () => {
    const { chart } = newChart();
    const addon = new ClusterAddon(chart, "hooky", { chart: { path: testChart("hook") } });
    assert.deepEqual(addon.warnings, [
      'chart hooks of release "hooky" were left out (Job default/hooky-pre-install): helm runs them on takeover; set hooks: "include" to apply them now, or hooks: "drop" to silence this',
    ]);
    assert.deepEqual(
      addon.node.metadata.filter((m) => m.type === "helm-handoff:warning").map((m) => m.data),
      addon.warnings,
    );
  });

  it("defaults the release name to the construct id", () => {
    const { chart } = newChart();
    const addon = new ClusterAddon(chart, "my-config", { chart: { path: testChart("schema") } });
    assert.equal(addon.releaseName, "my-config");
    assert.equal(synthObjects(chart)[0]?.metadata.name, "my-config-schema");
  });

  it("rejects an invalid spec at construction with the core's SpecError", () => {
    const { chart } = newChart();
    assert.throws(
      () => new ClusterAddon(chart, "Bad_Name", { chart: { path: testChart("schema") } }),
      (e: unknown) =>
        e instanceof SpecError &&
        e.field === "releaseName" &&
        e.message ===
          'releaseName "Bad_Name" is invalid: must be a lowercase DNS-1123 name of at most 53 characters (helm\'s limit), e.g. "bad-name"',
    );
    assert.throws(
      () =>
        new ClusterAddon(chart, "crs", {
          chart: { path: testChart("schema") },
          output: "ClusterResourceSet",
        }),
      {
        name: "SpecError",
        message:
          'clusterSelector is required with output "ClusterResourceSet": give matchLabels or matchExpressions selecting the Clusters, e.g. { matchLabels: { cni: "bootstrap" } }',
      },
    );
  });

  it("reports two add-ons with one release through node validation", () => {
    const { app, chart } = newChart();
    new ClusterAddon(chart, "one", { chart: { path: testChart("schema") }, releaseName: "same" });
    new ClusterAddon(chart, "two", { chart: { path: testChart("schema") }, releaseName: "same" });
    assert.throws(() => app.synth(), /release "default\/same" is also defined by test\/two/);
  });

  it("packs the ClusterResourceSet output into ConfigMaps with the strategy and selector", () => {
    const { chart } = newChart();
    new ClusterAddon(chart, "cfg", {
      chart: { path: testChart("workload") },
      namespace: "apps",
      createNamespace: true,
      strategy: "Reconcile",
      output: "ClusterResourceSet",
      clusterSelector: { matchLabels: { cni: "bootstrap" } },
    });
    const objs = synthObjects(chart);
    const crs = objs.find((o) => o.kind === "ClusterResourceSet");
    assert.equal(crs?.apiVersion, "addons.cluster.x-k8s.io/v1beta2");
    assert.deepEqual(crs?.spec, {
      clusterSelector: { matchLabels: { cni: "bootstrap" } },
      strategy: "Reconcile",
      resources: [{ name: "cfg-000", kind: "ConfigMap" }],
    });
    const cm = objs.find((o) => o.kind === "ConfigMap" && o.metadata.name === "cfg-000");
    const keys = Object.keys((cm?.data ?? {}) as Record<string, string>);
    assert.deepEqual(keys, [
      "0000-namespace-apps.yaml",
      "0001-configmap-apps-cfg-config.yaml",
      "0002-daemonset-apps-cfg-ds.yaml",
      "0003-deployment-apps-cfg-deploy.yaml",
    ]);
  });

  it("uses resource-set Secrets when the values are sensitive, and v1beta1 on request", () => {
    const { chart } = newChart();
    new ClusterAddon(chart, "cfg", {
      chart: { path: testChart("schema") },
      values: { replicas: 2 },
      sensitive: true,
      output: "ClusterResourceSet",
      clusterApiVersion: "v1beta1",
      clusterSelector: { matchLabels: { a: "b" } },
    });
    const objs = synthObjects(chart);
    const secret = objs.find((o) => o.kind === "Secret");
    assert.equal(secret?.type, RESOURCE_SET_SECRET_TYPE);
    const data = secret?.data as Record<string, string>;
    const text = Buffer.from(Object.values(data)[0] ?? "", "base64").toString();
    assert.match(text, /kind: ConfigMap/);
    const crs = objs.find((o) => o.kind === "ClusterResourceSet");
    assert.equal(crs?.apiVersion, "addons.cluster.x-k8s.io/v1beta1");
    assert.deepEqual((crs?.spec as { resources: unknown } | undefined)?.resources, [
      { name: "cfg-000", kind: "Secret" },
    ]);
  });

  it("maps the spec to a HelmChartProxy without running helm", async () => {
    const { chart } = newChart();
    await spy.reset();
    new ClusterAddon(chart, "cni", {
      chart: { repo: "https://charts.example.org", name: "cni", version: "1.2.3" },
      namespace: "kube-system",
      values: { ipam: { mode: "kubernetes" }, tpl: "{{ .Cluster }}" },
      strategy: "ApplyOnce",
      install: { timeout: "10m", waitForJobs: true },
      output: "HelmChartProxy",
      clusterSelector: { matchLabels: { cni: "bootstrap" } },
    });
    assert.deepEqual(await spy.calls(), []);
    const [hcp] = synthObjects(chart);
    assert.equal(hcp?.apiVersion, "addons.cluster.x-k8s.io/v1alpha1");
    assert.deepEqual(hcp?.spec, {
      chartName: "cni",
      clusterSelector: { matchLabels: { cni: "bootstrap" } },
      namespace: "kube-system",
      options: {
        disableHooks: false,
        install: { createNamespace: false },
        skipCRDs: false,
        timeout: "600s",
        wait: true,
        waitForJobs: true,
      },
      reconcileStrategy: "InstallOnce",
      releaseName: "cni",
      repoURL: "https://charts.example.org",
      valuesTemplate: 'ipam:\n  mode: kubernetes\ntpl: "{{ "{{" }} .Cluster }}"\n',
      version: "1.2.3",
    });
  });

  it("refuses sensitive values in a HelmChartProxy", () => {
    const { chart } = newChart();
    assert.throws(
      () =>
        new ClusterAddon(chart, "cni", {
          chart: { repo: "https://charts.example.org", name: "cni", version: "1.2.3" },
          sensitive: true,
          output: "HelmChartProxy",
          clusterSelector: { matchLabels: { a: "b" } },
        }),
      {
        message:
          'sensitive values cannot go into a HelmChartProxy (its valuesTemplate is plain text in the management cluster): use output "ClusterResourceSet", which carries them in Secrets',
      },
    );
  });

  it("synthesizes byte-identical output twice", () => {
    const render = () => {
      const { app, chart } = newChart();
      new ClusterAddon(chart, "w", { chart: { path: testChart("workload") }, namespace: "apps" });
      new ClusterAddon(chart, "c", {
        chart: { path: testChart("big") },
        output: "ClusterResourceSet",
        clusterSelector: { matchLabels: { a: "b" } },
      });
      return app.synthYaml();
    };
    assert.equal(render(), render());
  });

  it("runs helm zero times on a second synth with nothing changed", async () => {
    const make = () => {
      const { chart } = newChart();
      return new ClusterAddon(chart, "w", {
        chart: { path: testChart("workload") },
        values: { replicaCount: 3 },
      });
    };
    const first = make();
    await spy.reset();
    const second = make();
    assert.deepEqual(await spy.calls(), []);
    assert.equal(second.fromCache, true);
    assert.deepEqual(second.objects, first.objects);
    const { chart } = newChart();
    new ClusterAddon(chart, "w", { chart: { path: testChart("workload") }, values: { replicaCount: 4 } });
    assert.equal(await templateRuns(), 2, "changed values render again (twice: determinism check)");
  });

  it("warns when a chart renders differently each time, also from the cache", () => {
    // a ConfigMap: a render with a Secret is never cached (see the next tests)
    const path = writeChart("rand", {
      "templates/configmap.yaml":
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-id\ndata:\n  id: {{ randAlphaNum 16 | quote }}\n",
    });
    const expected =
      'chart of release "r" renders differently each time (ConfigMap r-id): a later Helm, Flux or Argo CD render will not match these manifests; set those values explicitly (e.g. generated passwords or certificates)';
    for (let i = 0; i < 2; i++) {
      const { chart } = newChart();
      const addon = new ClusterAddon(chart, "r", { chart: { path } });
      assert.deepEqual(addon.warnings, [expected]);
      assert.equal(addon.fromCache, i === 1);
    }
  });

  /** The render cache entries (file name → content) whose content includes `text`. */
  function entriesWith(text: string): Record<string, string> {
    const dir = join(cache.dir, "helm-handoff", "render-cache", "entries");
    const out: Record<string, string> = {};
    for (const f of existsSync(dir) ? readdirSync(dir) : []) {
      const content = readFileSync(join(dir, f), "utf8");
      if (content.includes(text)) out[f] = content;
    }
    return out;
  }

  it("bypasses the render cache when the values are sensitive: every synth runs helm and nothing is stored", async () => {
    const runs: number[] = [];
    for (let i = 0; i < 2; i++) {
      const { chart } = newChart();
      await spy.reset();
      const addon = new ClusterAddon(chart, "sens-cache", {
        chart: { path: testChart("schema") },
        values: { replicas: 7, mode: "b" },
        sensitive: true,
      });
      runs.push(await templateRuns());
      assert.equal(addon.fromCache, false);
    }
    assert.equal(runs[1], 2, "the second synth rendered again (twice: determinism check)");
    assert.deepEqual(entriesWith("sens-cache-schema"), {});
  });

  const SECRET_TEMPLATE =
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}-creds\nstringData:\n  password: {{ .Values.password | quote }}\n";

  it("bypasses the render cache for a render that contains a Secret, sensitive or not", async () => {
    const path = writeChart("secretful", { "templates/secret.yaml": SECRET_TEMPLATE });
    const runs: number[] = [];
    for (let i = 0; i < 2; i++) {
      const { chart } = newChart();
      await spy.reset();
      const addon = new ClusterAddon(chart, "creds", {
        chart: { path },
        values: { password: "hunter2-not-cached" },
      });
      runs.push(await templateRuns());
      assert.equal(addon.fromCache, false);
      assert.deepEqual(
        addon.objects.map((o) => `${o.kind} ${o.metadata.name}`),
        ["Secret creds-creds"],
      );
    }
    assert.equal(runs[1], 2, "the second synth rendered again (twice: determinism check)");
    assert.deepEqual(entriesWith("hunter2-not-cached"), {});
  });

  it("recognises a Secret in a render however the YAML spells it, and nothing else", () => {
    const doc = (kind: string) => `apiVersion: v1\nkind: ${kind}\nmetadata: {name: x}\n`;
    assert.deepEqual(
      [
        doc("Secret"),
        doc("'Secret'"),
        doc('"Secr\\x65t"'),
        `${doc("ConfigMap")}---\n${doc("Secret")}`,
        "apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: Secret}]\n",
        doc("ConfigMap"),
        doc("SecretStore"),
        "apiVersion: external-secrets.io/v1\nkind: Secret\n",
      ].map(manifestContainsSecret),
      [true, true, true, true, true, false, false, false],
    );
  });

  it("drops a cached render that contains a Secret (as an older version stored it) and renders again", async () => {
    const make = () => {
      const { chart } = newChart();
      return new ClusterAddon(chart, "planted", {
        chart: { path: testChart("schema") },
        values: { replicas: 3, mode: "a" },
      });
    };
    make();
    const [file, content] = Object.entries(entriesWith("planted-schema"))[0] ?? [];
    assert.ok(file !== undefined && content !== undefined, "the first synth stored its render");
    const entry = JSON.parse(content) as { manifest: string };
    const planted = `${entry.manifest}---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: planted-creds\nstringData:\n  password: hunter2-planted\n`;
    const entries = join(cache.dir, "helm-handoff", "render-cache", "entries");
    writeFileSync(join(entries, file), JSON.stringify({ ...entry, manifest: planted }), { mode: 0o600 });
    await spy.reset();
    const again = make();
    assert.equal(again.fromCache, false);
    assert.equal(await templateRuns(), 2);
    assert.deepEqual(
      again.objects.map((o) => `${o.kind} ${o.metadata.name}`),
      ["ConfigMap planted-schema"],
    );
    assert.deepEqual(entriesWith("hunter2-planted"), {});
    assert.deepEqual(Object.keys(entriesWith("planted-schema")), [file], "the fresh render is stored again");
  });

  it("keeps cluster-scoped objects out of the cdk8s Chart's namespace", () => {
    const { chart } = newChart("ns", "elsewhere");
    new ClusterAddon(chart, "crds", { chart: { path: testChart("crds-only") }, namespace: "kube-system" });
    const [crd] = synthObjects(chart);
    assert.equal(crd?.metadata.namespace, undefined);
  });

  it("names a missing helm with the core's HelmNotFoundError", () => {
    const { chart } = newChart();
    assert.throws(
      () =>
        new ClusterAddon(chart, "x", {
          chart: { path: testChart("schema") },
          helmBinary: "/nonexistent/helm",
        }),
      (e: unknown) =>
        e instanceof Error &&
        e.name === "HelmNotFoundError" &&
        e.message.startsWith("helm was not found (looked for /nonexistent/helm). helm-handoff needs helm v4"),
    );
  });

  it("synthesizes valid YAML documents with cdk8s", () => {
    const { app, chart } = newChart();
    new ClusterAddon(chart, "w", { chart: { path: testChart("workload") } });
    const docs = parseAllDocuments(app.synthYaml());
    assert.equal(docs.length, 3);
    assert.ok(docs.every((d) => d.errors.length === 0));
  });
});
