/**
 * The README's Pulumi quick start, run as written so it cannot rot: the first `ts` block under
 * "## Quick start (Pulumi)" becomes the `index.ts` of a project laid out like
 * `pulumi new typescript` (helm-handoff from the `npm pack` tarball), with only the chart's
 * repository URL replaced by a local HTTP chart repository serving the example CNI chart.
 * The kubeconfig comes from the stack's config, as the block says.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { liveRelease } from "../../support/addon.js";
import { clusterSuite } from "../../support/cluster.js";
import { codeBlockAfter } from "../../support/markdown.js";
import {
  createProject,
  installedVersion,
  jsonFile,
  PULUMI_NEW_TYPESCRIPT_TSCONFIG,
  pulumiCli,
  pulumiProjectYaml,
} from "../../support/project.js";
import { repoRoot } from "../../support/repo-root.js";
import { type HttpChartRepo, startHttpChartRepo } from "../../support/repos.js";

/** The quick start's code block, read from README.md. */
export function quickStartBlock(readme: string): string {
  return codeBlockAfter(readme, "## Quick start (Pulumi)", "ts");
}

const suite = clusterSuite({ name: "quickstart", workloads: true });
let repo: HttpChartRepo;

before(async () => {
  repo = suite.keep(
    await startHttpChartRepo({ charts: [join(repoRoot(), "examples", "bootstrap", "charts", "cni")] }),
  );
});

test("the README's Pulumi quick start runs as written with pulumi up", { timeout: 900_000 }, async () => {
  const block = quickStartBlock(readFileSync(join(repoRoot(), "README.md"), "utf8"));
  const program = block.replace("https://charts.example.org", repo.url);
  assert.notEqual(program, block, "the quick start names the chart repository https://charts.example.org");
  const project = await createProject({
    name: "quickstart",
    packageJson: { main: "index.ts" },
    dependencies: { "@pulumi/pulumi": installedVersion("@pulumi/pulumi") },
    devDependencies: {
      typescript: installedVersion("typescript"),
      "@types/node": installedVersion("@types/node"),
    },
    files: {
      "Pulumi.yaml": pulumiProjectYaml("quickstart"),
      "tsconfig.json": jsonFile(PULUMI_NEW_TYPESCRIPT_TSCONFIG),
      "index.ts": program,
    },
  });
  suite.keep(project);
  const cli = await pulumiCli(project.dir);
  try {
    await cli.run(["config", "set", "--secret", "kubeconfig"], { inputFile: suite.cluster.kubeconfigPath });
    await cli.run(["up", "--yes", "--skip-preview"]);
    const release = await liveRelease(suite.cluster, "cni", "kube-system");
    assert.equal(release?.status, "deployed");
    assert.equal(release?.revision, 1);
    assert.deepEqual(release?.values, { ipam: { mode: "kubernetes" } });
    const outputs = JSON.parse((await cli.run(["stack", "output", "--json", "--show-secrets"])).stdout);
    assert.equal(outputs.cniHandoff.chart.version, "1.0.0");
    assert.equal(outputs.cniHandoff.strategy, "ApplyOnce");
  } finally {
    await cli.dispose();
  }
});
