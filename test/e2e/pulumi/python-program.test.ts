/**
 * helm-handoff as a Pulumi package, from a Python program through the real `pulumi` CLI: projects
 * laid out the way `pulumi new python` and then `pulumi package add ./node_modules/helm-handoff` lay
 * out a Python program (support/python-program.ts: the package under `packages:`, the SDK Pulumi's
 * Python generator makes from its schema under `sdks/helm-handoff`, named in requirements.txt and
 * pip-installed into the virtualenv with `pulumi` from PyPI), after installing the `npm pack`
 * tarball. Python's language host runs the program; the engine runs the package's provider. The
 * host is the last one the Go module proxy serves (inside `github.com/pulumi/pulumi/sdk/v3` v3.79.0,
 * `scripts/toolchain.sh`), which does not read the `virtualenv` option: `pulumi` runs with the
 * virtualenv activated. docs/languages.md's Python program runs as written, with only the chart's
 * repository URL replaced by a local chart repository serving a stand-in `cilium` chart at the
 * version it names; a program of the same shape that takes release, strategy and values from config
 * installs a local chart: ApplyOnce installs revision 1, ignores a values change and keeps the
 * release on destroy, with the kubeconfig and the values secret in the state; Reconcile upgrades and
 * uninstalls: the same checks as the YAML and Go tests' (support/package-program.ts).
 */
import assert from "node:assert/strict";
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, test } from "node:test";
import { liveRelease } from "../../support/addon.js";
import { chartPath } from "../../support/charts.js";
import { clusterSuite } from "../../support/cluster.js";
import {
  checkApplyOnceHandsOff,
  checkReconcileUpgradesAndUninstalls,
  configureAddonStack,
  disposeAfter,
  installedPackageSchema,
  stackOutputs,
} from "../../support/package-program.js";
import { createProject, pulumiCli } from "../../support/project.js";
import {
  docsPythonProgram,
  installPythonRequirements,
  PYTHON_REQUIREMENTS,
  pythonEnv,
  pythonProjectYaml,
} from "../../support/python-program.js";
import { type HttpChartRepo, startHttpChartRepo } from "../../support/repos.js";

const NAMESPACE = "cli-python";

/** The add-on from a Python program, with the release name, strategy and `mode` value from config. */
const PYTHON_PROGRAM = `import pulumi
import pulumi_helm_handoff as helm_handoff

config = pulumi.Config()
addon = helm_handoff.ClusterAddon(
    "addon",
    kubeconfig=config.require_secret("kubeconfig"),
    chart=helm_handoff.ChartArgs(path="./charts/schema"),
    release_name=config.require("releaseName"),
    namespace="${NAMESPACE}",
    create_namespace=True,
    strategy=helm_handoff.Strategy(config.require("strategy")),
    values={"replicas": 1, "mode": config.require("mode")},
)
pulumi.export("handoff", addon.handoff)
pulumi.export("status", addon.status)
`;

/** A stand-in for the chart docs/languages.md's program installs: its name and version, one ConfigMap. */
const STAND_IN_CILIUM = {
  "Chart.yaml":
    "apiVersion: v2\nname: cilium\nversion: 1.18.4\ndescription: A stand-in for the Cilium chart\n",
  "values.yaml": "ipam:\n  mode: cluster-pool\n",
  "templates/configmap.yaml":
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-ipam\n" +
    "data:\n  mode: {{ .Values.ipam.mode | quote }}\n",
};

describe("helm-handoff as a Pulumi package, from a Python program through the CLI", {
  timeout: 1_200_000,
}, () => {
  const suite = clusterSuite({ name: "cli-python" });
  let repo: HttpChartRepo;

  before(async () => {
    const chartDir = await mkdtemp(join(tmpdir(), "hh-stand-in-cilium-"));
    suite.keep({ remove: () => rm(chartDir, { recursive: true, force: true }) });
    for (const [path, text] of Object.entries(STAND_IN_CILIUM)) {
      await mkdir(join(chartDir, "templates"), { recursive: true });
      await writeFile(join(chartDir, path), text);
    }
    repo = suite.keep(await startHttpChartRepo({ charts: [chartDir] }));
  });

  /** A Python project running `program` with the installed package, its kubeconfig configured. */
  async function pythonProject(name: string, program: string) {
    const p = await createProject({
      name,
      files: {
        "Pulumi.yaml": pythonProjectYaml(`hh-${name}`),
        "requirements.txt": PYTHON_REQUIREMENTS,
        "__main__.py": program,
      },
    });
    suite.keep(p);
    await cp(chartPath("schema"), join(p.dir, "charts", "schema"), { recursive: true });
    await installPythonRequirements(p.dir, await installedPackageSchema(p.dir));
    const cli = await pulumiCli(p.dir, pythonEnv(p.dir));
    try {
      await cli.run(["config", "set", "--secret", "kubeconfig"], { inputFile: suite.cluster.kubeconfigPath });
    } catch (err) {
      await cli.dispose();
      throw err;
    }
    return cli;
  }

  test("docs/languages.md's Python program installs its chart with pulumi up and exports the handoff record", async () => {
    const docs = docsPythonProgram();
    const program = docs.replace("https://helm.cilium.io", repo.url);
    assert.notEqual(program, docs, "the program names the chart repository https://helm.cilium.io");
    const cli = await pythonProject("py-docs", program);
    try {
      const up = await cli.run(["up", "--yes", "--skip-preview"]);
      assert.match(up.all, /helm-handoff:index:ClusterAddon/);
      assert.deepEqual(await liveRelease(suite.cluster, "cni", "kube-system"), {
        revision: 1,
        status: "deployed",
        values: { ipam: { mode: "kubernetes" } },
      });
      const { cniHandoff } = await stackOutputs<{
        cniHandoff: {
          release: unknown;
          chart: unknown;
          strategy: string;
          revision: number;
        };
      }>(cli);
      assert.deepEqual(cniHandoff.release, {
        name: "cni",
        namespace: "kube-system",
        storageNamespace: "kube-system",
      });
      assert.deepEqual(cniHandoff.chart, { source: { repo: repo.url, name: "cilium" }, version: "1.18.4" });
      assert.equal(cniHandoff.strategy, "ApplyOnce");
      assert.equal(cniHandoff.revision, 1);
    } finally {
      await cli.dispose();
    }
  });

  /** A project of {@link PYTHON_PROGRAM} configured for `releaseName`, `strategy` and mode "a". */
  async function configuredProject(name: string, releaseName: string, strategy: string) {
    return configureAddonStack(await pythonProject(name, PYTHON_PROGRAM), releaseName, strategy);
  }

  test("an ApplyOnce add-on from a Python program installs once, ignores a values change and keeps the release on destroy", async () => {
    const cli = await configuredProject("py-apply-once", "py-once", "ApplyOnce");
    await disposeAfter(cli, () => checkApplyOnceHandsOff(cli, suite.cluster, "py-once", NAMESPACE));
  });

  test("a Reconcile add-on from a Python program upgrades on a values change and is uninstalled on destroy", async () => {
    const cli = await configuredProject("py-reconcile", "py-reconcile", "Reconcile");
    await disposeAfter(cli, () =>
      checkReconcileUpgradesAndUninstalls(cli, suite.cluster, "py-reconcile", NAMESPACE),
    );
  });
});
