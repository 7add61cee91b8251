/**
 * The jsii construct library from a Java cdk8s app: a Maven project laid out like
 * `cdk8s init java-app` (pom.xml with `org.cdk8s:cdk8s` from Maven Central, `Main.java`,
 * cdk8s.yaml running `mvn exec:java`) with our jar from the Maven layout `npm run package:jsii`
 * wrote (built once for this file), built and run with `mvn`: the same manifests, byte for byte,
 * as the TypeScript constructs given the same props; docs/cdk8s.md's Java quick start runs as written.
 */
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { execa } from "execa";
import { parseAllDocuments } from "yaml";
import { isolateCache } from "../../support/constructs.js";
import {
  buildJsiiPackage,
  cdk8sDocBlock,
  createJavaApp,
  type JsiiBuild,
  runJava,
  synthesizedFiles,
} from "../../support/jsii.js";
import { copyTestCharts, referenceApp } from "../../support/reference-app.js";
import { repoRoot } from "../../support/repo-root.js";
import { startHttpChartRepo } from "../../support/repos.js";

/** The Java twin of the Python app of test/e2e/cdk8s/python-app.test.ts: `referenceApp` (test/support/reference-app.ts) in Java. */
const MAIN_JAVA = `package com.mycompany.app;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import org.cdk8s.App;
import org.cdk8s.Chart;
import org.cdk8s.Duration;

import dev.helmhandoff.cdk8s.ArgoCdAutomatedSync;
import dev.helmhandoff.cdk8s.ArgoCdHandoff;
import dev.helmhandoff.cdk8s.ArgoCdHandoffProps;
import dev.helmhandoff.cdk8s.ChartRepositoryOptions;
import dev.helmhandoff.cdk8s.ChartSource;
import dev.helmhandoff.cdk8s.ClusterAddon;
import dev.helmhandoff.cdk8s.ClusterAddonOutput;
import dev.helmhandoff.cdk8s.ClusterAddonProps;
import dev.helmhandoff.cdk8s.ClusterAddonRecordInput;
import dev.helmhandoff.cdk8s.ClusterApiVersion;
import dev.helmhandoff.cdk8s.FluxHandoff;
import dev.helmhandoff.cdk8s.FluxHandoffProps;
import dev.helmhandoff.cdk8s.FluxValuesKind;
import dev.helmhandoff.cdk8s.FluxValuesReference;
import dev.helmhandoff.cdk8s.HandoffRecord;
import dev.helmhandoff.cdk8s.HooksPolicy;
import dev.helmhandoff.cdk8s.InstallOptions;
import dev.helmhandoff.cdk8s.LabelSelector;
import dev.helmhandoff.cdk8s.LabelSelectorOperator;
import dev.helmhandoff.cdk8s.LabelSelectorRequirement;
import dev.helmhandoff.cdk8s.Strategy;

public class Main {
    private static Map<String, Object> map(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        return m;
    }

    public static void main(String[] args) {
        final App app = new App();

        Chart manifests = new Chart(app, "manifests");
        new ClusterAddon(manifests, "cni", ClusterAddonProps.builder()
                .chart(ChartSource.fromPath("./charts/schema"))
                .namespace("kube-system")
                .createNamespace(true)
                .values(map("replicas", 2, "mode", "b"))
                .build());
        new ClusterAddon(manifests, "hooked", ClusterAddonProps.builder()
                .chart(ChartSource.fromPath("./charts/hook"))
                .releaseName("hooks")
                .hooks(HooksPolicy.INCLUDE)
                .kubeVersion("1.36.0")
                .apiVersions(Arrays.asList("monitoring.coreos.com/v1"))
                .build());

        Chart carriers = new Chart(app, "carriers");
        new ClusterAddon(carriers, "workload", ClusterAddonProps.builder()
                .chart(ChartSource.fromPath("./charts/workload"))
                .namespace("apps")
                .values(map("replicaCount", 3, "podLabels", map("tier", "bootstrap"), "message", "hello"))
                .strategy(Strategy.RECONCILE)
                .output(ClusterAddonOutput.CLUSTER_RESOURCE_SET)
                .clusterSelector(LabelSelector.builder()
                        .matchLabels(Collections.singletonMap("cni", "bootstrap"))
                        .matchExpressions(Arrays.asList(LabelSelectorRequirement.builder()
                                .key("env").operator(LabelSelectorOperator.IN)
                                .values(Arrays.asList("prod", "staging")).build()))
                        .build())
                .clusterApiVersion(ClusterApiVersion.V1BETA1)
                .carrierNamespace("fleet")
                .maxCarrierBytes(2048)
                .build());

        Chart proxy = new Chart(app, "proxy");
        ClusterAddon cni = new ClusterAddon(proxy, "cni", ClusterAddonProps.builder()
                .chart(ChartSource.fromOci("registry.example.org/charts", "cni",
                        ChartRepositoryOptions.builder().version("1.2.3").build()))
                .namespace("kube-system")
                .values(map("ipam", map("mode", "kubernetes"), "banner", "{{ not a template }}", "mtu", 1450.5))
                .install(InstallOptions.builder().wait(false).timeout(Duration.minutes(10)).skipCrds(true).build())
                .output(ClusterAddonOutput.HELM_CHART_PROXY)
                .clusterSelector(LabelSelector.builder()
                        .matchLabels(Collections.singletonMap("cni", "bootstrap")).build())
                .build());
        HandoffRecord record = cni.handoffRecord(ClusterAddonRecordInput.builder()
                .clusterId("sha256:0123").server("https://10.0.0.1:6443")
                .revision(1).installedAt("2026-12-05T10:00:00.000Z").build());
        new FluxHandoff(proxy, "flux", FluxHandoffProps.builder()
                .record(record)
                .interval("5m")
                .values(map("ipam", map("mode", "kubernetes")))
                .valuesFrom(Arrays.asList(FluxValuesReference.builder()
                        .kind(FluxValuesKind.SECRET).name("cni-secret-values").build()))
                .build());
        new ArgoCdHandoff(proxy, "argocd", ArgoCdHandoffProps.builder()
                .record(record)
                .project("platform")
                .automated(ArgoCdAutomatedSync.builder().selfHeal(true).build())
                .syncOnCreate(false)
                .build());

        app.synth();
    }
}
`;

let build: JsiiBuild;
let cache: ReturnType<typeof isolateCache>;
const cleanup: (() => Promise<void>)[] = [];

before(async () => {
  build = await buildJsiiPackage("java", "go,dotnet");
  cleanup.push(() => build.remove());
  cache = isolateCache();
  cleanup.push(async () => cache.restore());
});

after(async () => {
  for (const f of cleanup.reverse()) await f();
});

test("mvn exec:java writes the same Manifests, ClusterResourceSet and HelmChartProxy output as the TypeScript app, byte for byte", {
  timeout: 600_000,
}, async () => {
  const project = await createJavaApp("bootstrap", MAIN_JAVA, build.mavenRepo);
  cleanup.push(() => project.remove());
  await copyTestCharts(project.dir);
  await runJava(project, { XDG_CACHE_HOME: cache.dir });
  const tsOut = join(project.dir, "ts-dist");
  referenceApp(project.dir, tsOut);
  const java = synthesizedFiles(join(project.dir, "dist"));
  const typescript = synthesizedFiles(tsOut);
  assert.deepEqual(Object.keys(java), ["carriers.k8s.yaml", "manifests.k8s.yaml", "proxy.k8s.yaml"]);
  for (const [file, text] of Object.entries(typescript)) assert.equal(java[file], text, file);
  assert.deepEqual(Object.keys(java), Object.keys(typescript));
  const kinds = parseAllDocuments(java["proxy.k8s.yaml"] ?? "").map(
    (d) => (d.toJS() as { kind: string }).kind,
  );
  assert.deepEqual(kinds, ["HelmChartProxy", "OCIRepository", "HelmRelease", "Application"]);
});

test("the Java quick start of docs/cdk8s.md runs as written with mvn exec:java", {
  timeout: 600_000,
}, async () => {
  const repo = await startHttpChartRepo({
    charts: [join(repoRoot(), "examples", "bootstrap", "charts", "cni")],
  });
  cleanup.push(() => repo.close());
  const block = cdk8sDocBlock("### Java quick start", "java");
  const program = block.replace("https://charts.example.org", repo.url);
  assert.notEqual(program, block, "the quick start names the chart repository https://charts.example.org");
  const project = await createJavaApp("quickstart", program, build.mavenRepo);
  cleanup.push(() => project.remove());
  await runJava(project, { XDG_CACHE_HOME: cache.dir });
  const files = synthesizedFiles(join(project.dir, "dist"));
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

test("the Go module and the .NET project are generated with the same constructs (not built: cdk8s's Go module and NuGet are out of reach)", async () => {
  const go = join(build.dir, "go", "helmhandoffcdk8s");
  const goMod = await readFile(join(go, "go.mod"), "utf8");
  assert.match(goMod, /^module github\.com\/helm-handoff\/helm-handoff-cdk8s-go\/helmhandoffcdk8s$/m);
  assert.match(goMod, /^\tgithub\.com\/cdk8s-team\/cdk8s-core-go\/cdk8s\/v2 v2\.68\.0$/m);
  await execa("gofmt", ["-e", go]); // parses: gofmt fails on a syntax error
  const goFiles = (await readdir(go)).filter((f) => f.endsWith(".go"));
  const goCode = (await Promise.all(goFiles.map((f) => readFile(join(go, f), "utf8")))).join("\n");
  for (const c of ["ClusterAddon", "FluxHandoff", "ArgoCdHandoff"]) {
    const signature = `func New${c}(scope constructs.Construct, id *string, props *${c}Props) ${c} {`;
    assert.ok(goCode.includes(signature), signature);
  }
  const dotnet = join(build.dir, "dotnet", "HelmHandoff.Cdk8s");
  const csproj = await readFile(join(dotnet, "HelmHandoff.Cdk8s.csproj"), "utf8");
  assert.match(csproj, /<PackageId>HelmHandoff\.Cdk8s<\/PackageId>/);
  const cs = await readdir(join(dotnet, "HelmHandoff", "Cdk8s"));
  for (const c of ["ClusterAddon", "FluxHandoff", "ArgoCdHandoff"]) assert.ok(cs.includes(`${c}.cs`), c);
});
