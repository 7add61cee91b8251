/**
 * The test charts (test/charts/) and the three ways to serve them (test/support/charts.ts): HTTP chart
 * repository, OCI registry, local directory. Needs helm and registry on PATH (the toolchain's bin dir);
 * no cluster.
 */
import assert from "node:assert/strict";
import { existsSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { parseAllDocuments, parse as parseYaml } from "yaml";
import {
  CHART_NAMES,
  chartPath,
  createHelmHome,
  type HelmHome,
  localChart,
  packageCharts,
  runHelm,
} from "../../support/charts.js";
import { startHttpChartRepo, startOciRegistry } from "../../support/repos.js";

const MiB = 1024 * 1024;

let home: HelmHome;
let scratch: string;

before(async () => {
  home = await createHelmHome();
  scratch = await mkdtemp(join(tmpdir(), "helm-handoff-charts-test-"));
});

after(async () => {
  await home.remove();
  await rm(scratch, { recursive: true, force: true });
});

/** helm with this file's private homes. */
function helm(args: readonly string[], check = true) {
  return runHelm(args, { env: home.env, check });
}

/** The `kind/name` of every object in a rendered manifest. */
function objectsOf(manifest: string): string[] {
  return parseAllDocuments(manifest)
    .map((doc) => doc.toJS() as unknown)
    .filter((object): object is { kind: string; metadata: { name: string } } => {
      return typeof object === "object" && object !== null && "kind" in object && "metadata" in object;
    })
    .map((object) => `${object.kind}/${object.metadata.name}`)
    .sort();
}

/** A fresh directory under this file's scratch dir. */
function newDir(): Promise<string> {
  return mkdtemp(join(scratch, "d-"));
}

describe("test charts", () => {
  test("the chart directory of each test chart is found from the compiled test", () => {
    for (const name of CHART_NAMES) {
      assert.ok(statSync(join(chartPath(name), "Chart.yaml")).isFile(), name);
    }
  });

  for (const name of CHART_NAMES) {
    test(`the ${name} chart passes helm lint --strict and renders with helm template`, async () => {
      const lint = await helm(["lint", "--strict", chartPath(name)]);
      assert.match(lint.stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
      const rendered = await helm(["template", "rel", chartPath(name), "--namespace", "ns1"]);
      assert.ok(objectsOf(rendered.stdout).length > 0, "renders at least one object");
    });
  }

  test("each chart renders the objects the fault tests rely on, named after the release", async () => {
    const expected: Record<string, string[]> = {
      "crds-only": ["CustomResourceDefinition/widgets.example.helm-handoff.dev"],
      widget: ["Widget/rel-widget"],
      schema: ["ConfigMap/rel-schema"],
      workload: ["ConfigMap/rel-config", "DaemonSet/rel-ds", "Deployment/rel-deploy"],
      hook: ["ConfigMap/rel-hook", "Job/rel-pre-install"],
      random: ["ConfigMap/rel-random"],
    };
    for (const [name, objects] of Object.entries(expected)) {
      const rendered = await helm(["template", "rel", chartPath(name)]);
      assert.deepEqual(objectsOf(rendered.stdout), objects, name);
    }
  });

  test("the crds-only chart keeps its CRD on uninstall only when asked", async () => {
    const plain = await helm(["template", "rel", chartPath("crds-only")]);
    assert.doesNotMatch(plain.stdout, /resource-policy/);
    const kept = await helm(["template", "rel", chartPath("crds-only"), "--set", "keepOnUninstall=true"]);
    assert.match(kept.stdout, /helm\.sh\/resource-policy: keep/);
  });

  test("the hook chart's Job is a pre-install hook that can be made to block forever", async () => {
    const plain = await helm(["template", "rel", chartPath("hook")]);
    assert.match(plain.stdout, /helm\.sh\/hook: pre-install/);
    assert.match(plain.stdout, /helm\.sh\/hook-delete-policy: before-hook-creation,hook-succeeded/);
    assert.doesNotMatch(plain.stdout, /nodeSelector/);
    const blocked = await helm(["template", "rel", chartPath("hook"), "--set", "hook.blockForever=true"]);
    assert.match(blocked.stdout, /helm-handoff\.dev\/no-such-node: "true"/);
  });

  test("the workload chart's pods change when the message changes, so an upgrade is visible", async () => {
    const checksum = async (message: string): Promise<string> => {
      const rendered = await helm(["template", "rel", chartPath("workload"), "--set", `message=${message}`]);
      assert.match(rendered.stdout, new RegExp(`message: "${message}"`));
      const sums = [...rendered.stdout.matchAll(/checksum\/config: ([0-9a-f]{64})/g)].map((m) => m[1]);
      assert.equal(sums.length, 2, "one checksum per pod template");
      return sums[0] ?? "";
    };
    assert.notEqual(await checksum("one"), await checksum("two"));
  });

  test("the schema chart rejects a replicas below 1 with helm's message naming the field", async () => {
    const result = await helm(["template", "rel", chartPath("schema"), "--set", "replicas=0"], false);
    assert.notEqual(result.exitCode, 0);
    assert.ok(
      result.stderr.includes("values don't meet the specifications of the schema(s)"),
      `stderr: ${result.stderr}`,
    );
    assert.ok(result.stderr.includes("- at '/replicas': minimum: got 0, want 1"), `stderr: ${result.stderr}`);
  });

  test("the schema chart rejects a mode outside a and b with helm's message naming the field", async () => {
    const result = await helm(["template", "rel", chartPath("schema"), "--set", "mode=c"], false);
    assert.notEqual(result.exitCode, 0);
    assert.ok(
      result.stderr.includes("- at '/mode': value must be one of 'a', 'b'"),
      `stderr: ${result.stderr}`,
    );
  });

  test("the schema chart rejects a replicas that is not an integer", async () => {
    const result = await helm(["template", "rel", chartPath("schema"), "--set-string", "replicas=2"], false);
    assert.notEqual(result.exitCode, 0);
    assert.ok(
      result.stderr.includes("- at '/replicas': got string, want integer"),
      `stderr: ${result.stderr}`,
    );
  });

  test("the big chart renders to more than 1 MiB with every object under 1 MiB, the same each time", async () => {
    const first = await helm(["template", "rel", chartPath("big")]);
    const total = Buffer.byteLength(first.stdout);
    assert.ok(total > MiB, `total ${total} bytes`);
    const objects = parseAllDocuments(first.stdout)
      .map((doc) => doc.toJS() as unknown)
      .filter((object) => object !== null);
    assert.equal(objects.length, 12);
    for (const object of objects) {
      const size = Buffer.byteLength(JSON.stringify(object));
      assert.ok(size > 90 * 1024 && size < MiB, `object of ${size} bytes`);
    }
    const second = await helm(["template", "rel", chartPath("big")]);
    assert.equal(second.stdout, first.stdout, "deterministic");
  });

  test("the big chart refuses an object size that would exceed the 1 MiB object limit", async () => {
    const result = await helm(["template", "rel", chartPath("big"), "--set", "kibPerObject=1024"], false);
    assert.notEqual(result.exitCode, 0);
    assert.match(result.stderr, /kibPerObject must be between 1 and 900/);
  });
});

describe("chart sources", () => {
  test("packaging at an extra version rewrites the version only in the archive", async () => {
    const packaged = await packageCharts({ charts: ["workload"], versions: { workload: ["0.2.0"] } });
    try {
      assert.deepEqual(
        packaged.charts.map((chart) => chart.version),
        ["0.1.0", "0.2.0"],
      );
      const shown = await helm(["show", "chart", packaged.path("workload", "0.2.0")]);
      assert.equal((parseYaml(shown.stdout) as { version: string }).version, "0.2.0");
      assert.equal(packaged.path("workload"), join(packaged.dir, "workload-0.1.0.tgz"));
      const source = await helm(["show", "chart", chartPath("workload")]);
      assert.equal((parseYaml(source.stdout) as { version: string }).version, "0.1.0");
    } finally {
      await packaged.remove();
    }
    assert.equal(existsSync(packaged.dir), false, "temp dir removed");
  });

  test("the HTTP repository serves the workload chart to helm pull --repo", async () => {
    const repo = await startHttpChartRepo({ charts: ["workload"], versions: { workload: ["0.2.0"] } });
    try {
      assert.match(repo.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      for (const version of ["0.1.0", "0.2.0"]) {
        const dest = await newDir();
        await helm(["pull", "--repo", repo.url, "workload", "--version", version, "--destination", dest]);
        assert.ok(existsSync(join(dest, `workload-${version}.tgz`)), version);
      }
      const paths = repo.log().map((request) => request.path);
      assert.ok(paths.includes("/index.yaml"));
      assert.ok(paths.includes("/workload-0.1.0.tgz"));
      assert.ok(repo.log().every((request) => request.status === 200));
    } finally {
      await repo.close();
    }
  });

  test("the flapping HTTP repository answers 503 to the first requests, then serves", async () => {
    const repo = await startHttpChartRepo({ charts: ["workload"], failFirst: 2 });
    try {
      const dest = await newDir();
      const pull = ["pull", "--repo", repo.url, "workload", "--version", "0.1.0", "--destination", dest];
      const failures: string[] = [];
      for (let attempt = 0; attempt < 5; attempt++) {
        const result = await helm(pull, false);
        if (result.exitCode === 0) break;
        failures.push(result.stderr);
      }
      assert.ok(existsSync(join(dest, "workload-0.1.0.tgz")), "pulled in the end");
      assert.ok(failures.length >= 1, "helm saw the repository fail");
      assert.match(failures[0] ?? "", /503/);
      const statuses = repo.log().map((request) => request.status);
      assert.deepEqual(statuses.slice(0, 2), [503, 503]);
      assert.ok(statuses.slice(2).every((status) => status === 200));
      assert.equal(repo.requests(), statuses.length);

      repo.failNext(1);
      const index = await fetch(`${repo.url}/index.yaml`);
      assert.equal(index.status, 503);
      await index.arrayBuffer();
      const again = await fetch(`${repo.url}/index.yaml`);
      assert.equal(again.status, 200);
      assert.match(await again.text(), /workload-0\.1\.0\.tgz/);
    } finally {
      await repo.close();
    }
  });

  test("the OCI registry accepts a helm push and serves helm pull --plain-http", async () => {
    const packaged = await packageCharts({ charts: ["workload"] });
    const registry = await startOciRegistry({ helmEnv: home.env });
    try {
      assert.match(registry.host, /^127\.0\.0\.1:\d+$/);
      assert.equal(registry.url, `oci://${registry.host}/charts`);
      const pushed = await registry.push(packaged.path("workload"));
      assert.deepEqual(
        { ref: pushed.ref, name: pushed.name, version: pushed.version },
        { ref: `${registry.url}/workload`, name: "workload", version: "0.1.0" },
      );
      assert.match(pushed.digest, /^sha256:[0-9a-f]{64}$/);
      const dest = await newDir();
      await helm(["pull", pushed.ref, "--version", "0.1.0", "--plain-http", "--destination", dest]);
      assert.ok(existsSync(join(dest, "workload-0.1.0.tgz")));
    } finally {
      await registry.close();
      await packaged.remove();
    }
    await assert.rejects(fetch(`http://${registry.host}/v2/`), "the registry stopped on close");
    assert.equal(existsSync(registry.logFile), false, "temp dir removed");
  });

  test("helm show chart works on the local chart directory", async () => {
    const shown = await helm(["show", "chart", localChart("workload")]);
    const meta = parseYaml(shown.stdout) as { apiVersion: string; name: string; version: string };
    assert.deepEqual(
      { apiVersion: meta.apiVersion, name: meta.name, version: meta.version },
      { apiVersion: "v2", name: "workload", version: "0.1.0" },
    );
  });
});
