/**
 * The jsii construct library from a Python cdk8s app: a project laid out like
 * `cdk8s init python-app` (main.py, cdk8s.yaml, a virtualenv with `cdk8s` from PyPI and our wheel
 * from `npm run package:jsii`, built once for this file) whose `python main.py` writes the same
 * manifests, byte for byte, as the TypeScript constructs given the same props; spec errors arrive as
 * Python exceptions with our message; the render cache, sensitive Secrets and the 1 MiB chunking
 * behave as in TypeScript; `ClusterValue` renders the same valuesTemplate; docs/cdk8s.md's Python quick start
 * runs as written, and its Python Fleets examples synthesize what its TypeScript ones do.
 */
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { App, Chart } from "cdk8s";
import { execa } from "execa";
import { parseAllDocuments } from "yaml";
import { ClusterAddon, ClusterValue } from "../../../constructs/index.js";
import { isolateCache } from "../../support/constructs.js";
import { runDocsExample } from "../../support/docs-example.js";
import { createHelmSpy, type HelmSpy } from "../../support/helm-spy.js";
import {
  buildJsiiPackage,
  cdk8sDocBlock,
  createPythonApp,
  JSII_PACKAGE_VERSION,
  type JsiiBuild,
  type LanguageApp,
  runPython,
  synthesizedFiles,
} from "../../support/jsii.js";
import { installedVersion, packedFiles } from "../../support/project.js";
import { copyTestCharts, REFERENCE_APP_PY, referenceApp } from "../../support/reference-app.js";
import { repoRoot } from "../../support/repo-root.js";
import { type HttpChartRepo, startHttpChartRepo } from "../../support/repos.js";

let build: JsiiBuild;
let project: LanguageApp;
let cache: ReturnType<typeof isolateCache>;
let spy: HelmSpy;
const cleanup: (() => Promise<void>)[] = [];

/** The environment of a Python run: this file's render cache, helm through the spy. */
function pyEnv(): Record<string, string> {
  return { XDG_CACHE_HOME: cache.dir, HELM_HANDOFF_HELM: spy.binary };
}

/** Runs a Python script written into the project, returning its stdout. */
async function python(name: string, source: string): Promise<string> {
  await writeFile(join(project.dir, name), source);
  return (await runPython(project, pyEnv(), name)).stdout;
}

before(async () => {
  build = await buildJsiiPackage("python");
  cleanup.push(() => build.remove());
  project = await createPythonApp("bootstrap", REFERENCE_APP_PY, build.wheel);
  cleanup.push(() => project.remove());
  await copyTestCharts(project.dir);
  spy = await createHelmSpy();
  cleanup.push(() => spy.remove());
  cache = isolateCache();
  cleanup.push(async () => cache.restore());
});

after(async () => {
  for (const f of cleanup.reverse()) await f();
});

test("python main.py writes the same Manifests, ClusterResourceSet and HelmChartProxy output as the TypeScript app, byte for byte", {
  timeout: 300_000,
}, async () => {
  await runPython(project, pyEnv());
  const tsOut = join(project.dir, "ts-dist");
  referenceApp(project.dir, tsOut);
  const python = synthesizedFiles(join(project.dir, "dist"));
  const typescript = synthesizedFiles(tsOut);
  assert.deepEqual(Object.keys(python), ["carriers.k8s.yaml", "manifests.k8s.yaml", "proxy.k8s.yaml"]);
  for (const [file, text] of Object.entries(typescript)) assert.equal(python[file], text, file);
  assert.deepEqual(Object.keys(python), Object.keys(typescript));
  const kinds = (file: string) =>
    parseAllDocuments(python[file] ?? "").map((d) => (d.toJS() as { kind: string }).kind);
  assert.deepEqual(kinds("proxy.k8s.yaml"), [
    "HelmChartProxy",
    "OCIRepository",
    "HelmRelease",
    "Application",
  ]);
  assert.ok(kinds("carriers.k8s.yaml").filter((k) => k === "ConfigMap").length >= 2, "chunked into carriers");
  assert.equal(kinds("carriers.k8s.yaml").at(-1), "ClusterResourceSet");
  assert.ok(kinds("manifests.k8s.yaml").includes("Job"), "the hook is included");
});

test("the jsii package's npm tarball bundles this checkout's npm pack of helm-handoff and yaml, and nothing else", {
  timeout: 120_000,
}, async () => {
  const js = join(build.dir, "js");
  const [tgz] = await readdir(js);
  assert.equal(tgz, `helm-handoff-cdk8s@${JSII_PACKAGE_VERSION}.jsii.tgz`);
  const { stdout } = await execa("tar", ["tzf", join(js, tgz ?? "")]);
  const entries = stdout.split("\n").filter((e) => e !== "" && !e.endsWith("/"));
  const bundled = new Set(
    entries.map((e) => /^package\/node_modules\/([^/]+)\//.exec(e)?.[1]).filter(Boolean),
  );
  assert.deepEqual([...bundled].sort(), ["helm-handoff", "yaml"]);
  const helmHandoff = entries
    .filter((e) => e.startsWith("package/node_modules/helm-handoff/"))
    .map((e) => e.slice("package/node_modules/helm-handoff/".length))
    .sort();
  assert.deepEqual(helmHandoff, await packedFiles());
  const manifest = JSON.parse(
    (await execa("tar", ["xzOf", join(js, tgz ?? ""), "package/package.json"])).stdout,
  ) as { dependencies: Record<string, string>; bundledDependencies: string[] };
  assert.deepEqual(manifest.bundledDependencies, ["helm-handoff", "yaml"]);
  assert.equal(manifest.dependencies["helm-handoff"], installedVersion("helm-handoff"));
  assert.equal(manifest.dependencies.yaml, installedVersion("yaml"));
});

test("an invalid spec raises a Python exception carrying the field and the fix", {
  timeout: 120_000,
}, async () => {
  const out = await python(
    "invalid.py",
    `from cdk8s import App, Chart
from helm_handoff_cdk8s import ChartSource, ClusterAddon, ClusterAddonOutput

chart = Chart(App(), "invalid")
try:
    ClusterAddon(chart, "cni", chart=ChartSource.from_path("./charts/schema"),
                 output=ClusterAddonOutput.CLUSTER_RESOURCE_SET)
except Exception as error:
    print(type(error).__name__)
    print(error)
`,
  );
  assert.equal(
    out,
    "RuntimeError\n" +
      'clusterSelector is required with output "ClusterResourceSet": give matchLabels or matchExpressions selecting the Clusters, e.g. { matchLabels: { cni: "bootstrap" } }',
  );
});

test("a second python main.py with nothing changed reads the render cache and starts no helm process", {
  timeout: 300_000,
}, async () => {
  const script = `from cdk8s import App, Chart
from helm_handoff_cdk8s import ChartSource, ClusterAddon

chart = Chart(App(), "cached")
addon = ClusterAddon(chart, "cached", chart=ChartSource.from_path("./charts/schema"),
                     values={"replicas": 3, "mode": "a"})
print(addon.from_cache)
`;
  await spy.reset();
  assert.equal(await python("cached.py", script), "False");
  assert.ok(
    (await spy.calls()).some((c) => c.startsWith("template cached ")),
    "the first run renders",
  );
  await spy.reset();
  assert.equal(await python("cached.py", script), "True");
  assert.deepEqual(await spy.calls(), []);
});

test("sensitive values from Python go into resource-set Secrets and never into the render cache", {
  timeout: 300_000,
}, async () => {
  const entries = async () => (await readdir(join(cache.dir, "helm-handoff", "render-cache"))).sort();
  await runPython(project, pyEnv(), "main.py"); // the cache holds the main app's renders now
  const before = await entries();
  const out = await python(
    "sensitive.py",
    `import json
from cdk8s import App, Chart
from helm_handoff_cdk8s import ChartSource, ClusterAddon, ClusterAddonOutput, LabelSelector

app = App(outdir="sensitive-dist")
chart = Chart(app, "sensitive")
addon = ClusterAddon(chart, "cni", chart=ChartSource.from_path("./charts/schema"),
                     values={"replicas": 4, "mode": "b"}, sensitive=True,
                     output=ClusterAddonOutput.CLUSTER_RESOURCE_SET,
                     cluster_selector=LabelSelector(match_labels={"cni": "bootstrap"}))
app.synth()
print(json.dumps({"fromCache": addon.from_cache}))
`,
  );
  assert.equal(out, '{"fromCache": false}');
  assert.deepEqual(await entries(), before);
  const text = await readFile(join(project.dir, "sensitive-dist", "sensitive.k8s.yaml"), "utf8");
  const docs = parseAllDocuments(text).map(
    (d) => d.toJS() as { kind: string; type?: string; metadata: { name: string } },
  );
  assert.deepEqual(
    docs.map((d) => [d.kind, d.metadata.name, d.type ?? null]),
    [
      ["Secret", "cni-000", "addons.cluster.x-k8s.io/resource-set"],
      ["ClusterResourceSet", "cni", null],
    ],
  );
  const tsOut = join(project.dir, "sensitive-ts");
  const app = new App({ outdir: tsOut });
  new ClusterAddon(new Chart(app, "sensitive"), "cni", {
    chart: { path: join(project.dir, "charts/schema") },
    values: { replicas: 4, mode: "b" },
    sensitive: true,
    output: "ClusterResourceSet",
    clusterSelector: { matchLabels: { cni: "bootstrap" } },
  });
  app.synth();
  assert.equal(text, await readFile(join(tsOut, "sensitive.k8s.yaml"), "utf8"));
});

test("a release over 1 MiB from Python is chunked into ClusterResourceSet carriers exactly as in TypeScript", {
  timeout: 300_000,
}, async () => {
  await python(
    "big.py",
    `from cdk8s import App, Chart
from helm_handoff_cdk8s import ChartSource, ClusterAddon, ClusterAddonOutput, LabelSelector

app = App(outdir="big-dist")
ClusterAddon(Chart(app, "big"), "big", chart=ChartSource.from_path("./charts/big"), namespace="ops",
             create_namespace=True, output=ClusterAddonOutput.CLUSTER_RESOURCE_SET,
             cluster_selector=LabelSelector(match_labels={"addons": "big"}))
app.synth()
`,
  );
  const text = await readFile(join(project.dir, "big-dist", "big.k8s.yaml"), "utf8");
  assert.ok(Buffer.byteLength(text) > 1024 * 1024, `${Buffer.byteLength(text)} bytes`);
  const carriers = parseAllDocuments(text)
    .map((d) => d.toJS() as { kind: string; metadata: { name: string }; data?: Record<string, string> })
    .filter((d) => d.kind === "ConfigMap");
  assert.deepEqual(
    carriers.map((c) => c.metadata.name),
    ["big-000", "big-001"],
  );
  for (const c of carriers) {
    const bytes = Object.entries(c.data ?? {}).reduce(
      (n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v),
      0,
    );
    assert.ok(bytes <= 900 * 1024, `${c.metadata.name} holds ${bytes} bytes`);
  }
  const tsOut = join(project.dir, "big-ts");
  const app = new App({ outdir: tsOut });
  new ClusterAddon(new Chart(app, "big"), "big", {
    chart: { path: join(project.dir, "charts/big") },
    namespace: "ops",
    createNamespace: true,
    output: "ClusterResourceSet",
    clusterSelector: { matchLabels: { addons: "big" } },
  });
  app.synth();
  assert.equal(text, await readFile(join(tsOut, "big.k8s.yaml"), "utf8"));
});

test("a chart that renders differently each time gives the same warning in Python as in TypeScript", {
  timeout: 300_000,
}, async () => {
  const out = await python(
    "nondeterministic.py",
    `import json
from cdk8s import App, Chart
from helm_handoff_cdk8s import ChartSource, ClusterAddon

addon = ClusterAddon(Chart(App(), "random"), "rnd", chart=ChartSource.from_path("./charts/random"))
print(json.dumps({"nondeterministic": addon.nondeterministic, "warnings": addon.warnings}))
`,
  );
  const addon = new ClusterAddon(new Chart(new App(), "random"), "rnd", {
    chart: { path: join(project.dir, "charts/random") },
  });
  assert.deepEqual(addon.nondeterministic, ["ConfigMap default/rnd-random"]);
  assert.deepEqual(JSON.parse(out), { nondeterministic: addon.nondeterministic, warnings: addon.warnings });
});

test("ClusterValue from Python renders the valuesTemplate TypeScript renders, and is refused where no Cluster fills it in", {
  timeout: 120_000,
}, async () => {
  const out = await python(
    "fleet.py",
    `import json
from cdk8s import App, Chart
from helm_handoff_cdk8s import ChartSource, ClusterAddon, ClusterAddonOutput, ClusterValue, LabelSelector

chart = Chart(App(), "fleet")
name = ClusterValue.cluster_name()
ClusterAddon(chart, "cni", chart=ChartSource.from_oci("registry.example.org/charts", "cni", version="1.2.3"),
    values={"cluster": {"name": name, "id": "mesh-" + name.to_string()}, "pods": ClusterValue.pod_cidr_blocks(),
            "region": ClusterValue.cluster_label("topology.example.org/region"),
            "first": ClusterValue.field("Cluster.spec.clusterNetwork.pods.cidrBlocks[0]"), "banner": "{{ x }}"},
    output=ClusterAddonOutput.HELM_CHART_PROXY, cluster_selector=LabelSelector(match_labels={"cni": "bootstrap"}))
print(json.dumps(chart.to_json()[0]["spec"]["valuesTemplate"]))
for attempt in (lambda: ClusterAddon(chart, "manifests", chart=ChartSource.from_path("./charts/schema"),
                                     values={"name": ClusterValue.cluster_name()}),
                lambda: ClusterValue.field("Cluster.spec.nope")):
    try:
        attempt()
    except Exception as error:
        print(error)
`,
  );
  const chart = new Chart(new App(), "fleet");
  const name = ClusterValue.clusterName();
  new ClusterAddon(chart, "cni", {
    chart: { repo: "oci://registry.example.org/charts", name: "cni", version: "1.2.3" },
    values: {
      cluster: { name, id: `mesh-${name}` },
      pods: ClusterValue.podCidrBlocks(),
      region: ClusterValue.clusterLabel("topology.example.org/region"),
      first: ClusterValue.field("Cluster.spec.clusterNetwork.pods.cidrBlocks[0]"),
      banner: "{{ x }}",
    },
    output: "HelmChartProxy",
    clusterSelector: { matchLabels: { cni: "bootstrap" } },
  });
  const [hcp] = chart.toJson() as { spec: { valuesTemplate: string } }[];
  const [template, manifests, path] = out.split("\n");
  assert.equal(JSON.parse(template ?? "null"), hcp?.spec.valuesTemplate);
  assert.equal(
    manifests,
    'values.name holds ClusterValue Cluster.metadata.name: output "Manifests" has no Cluster to read it from; use output "HelmChartProxy" (CAAPH fills it in for each Cluster), or give the value itself',
  );
  assert.equal(
    path,
    'SpecError: ClusterValue.field("Cluster.spec.nope") is invalid: Cluster.spec has no field .nope in the Cluster API v1beta2 schema; its fields are availabilityGates, clusterNetwork, controlPlaneEndpoint, controlPlaneRef, infrastructureRef, paused, topology',
  );
});

test("the Python quick start of docs/cdk8s.md runs as written with python main.py", {
  timeout: 300_000,
}, async () => {
  const repo: HttpChartRepo = await startHttpChartRepo({
    charts: [join(repoRoot(), "examples", "bootstrap", "charts", "cni")],
  });
  cleanup.push(() => repo.close());
  const block = cdk8sDocBlock("### Python quick start", "python");
  const program = block.replace("https://charts.example.org", repo.url);
  assert.notEqual(program, block, "the quick start names the chart repository https://charts.example.org");
  const quickstart = await createPythonApp("quickstart", program, build.wheel);
  cleanup.push(() => quickstart.remove());
  await runPython(quickstart, pyEnv());
  const files = synthesizedFiles(join(quickstart.dir, "dist"));
  assert.deepEqual(Object.keys(files), ["bootstrap.k8s.yaml"]);
  const docs = parseAllDocuments(files["bootstrap.k8s.yaml"] ?? "").map(
    (d) => d.toJS() as { kind: string; metadata: { name: string; annotations?: Record<string, string> } },
  );
  assert.deepEqual(
    docs.map((d) => [d.kind, d.metadata.name, d.metadata.annotations?.["meta.helm.sh/release-name"]]),
    [
      ["ConfigMap", "cni-config", "cni"],
      ["DaemonSet", "cni-agent", "cni"],
    ],
  );
});

test("the Python examples of docs/cdk8s.md's Fleets section synthesize the same objects as its TypeScript ones", {
  timeout: 300_000,
}, async () => {
  const dir = await mkdtemp(join(tmpdir(), "hh-py-fleets-"));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const ca = join(dir, "registry-ca.pem");
  await writeFile(ca, "-----BEGIN CERTIFICATE-----\nMIIBfleetsexample\n-----END CERTIFICATE-----\n");
  const env = {
    CILIUM_REPO: "https://cilium.charts.test.example",
    REGISTRY: "oci://registry.test.example/charts",
    REGISTRY_PASSWORD: "fleets-example-password",
    REGISTRY_CA: ca,
    CHARTS: "https://flux.charts.test.example",
    DEPLOY_KEY: "-----BEGIN OPENSSH PRIVATE KEY-----\nfleets-example\n-----END OPENSSH PRIVATE KEY-----\n",
  };
  for (const heading of [
    "### Per-cluster values",
    "### Private repositories and CAs",
    "### Secrets for a fleet",
  ]) {
    const outdir = join(dir, heading.replace(/\W+/g, "-"));
    await writeFile(join(project.dir, "fleets.py"), cdk8sDocBlock(heading, "python"));
    await runPython(project, { ...pyEnv(), ...env, CDK8S_OUTDIR: outdir }, "fleets.py");
    const files = synthesizedFiles(outdir);
    assert.deepEqual(Object.keys(files), ["fleet.k8s.yaml"], heading);
    const fromPython = parseAllDocuments(files["fleet.k8s.yaml"] ?? "").map((d) => d.toJS());
    assert.deepEqual(fromPython, await runDocsExample(heading, env), heading);
  }
});
