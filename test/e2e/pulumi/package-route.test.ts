/**
 * A Node.js program's `ClusterAddon`s served by the package's own provider, on the real engine: by
 * default (from Pulumi's plugin cache, where the program's first add-on puts a launcher) through
 * the CLI in a JavaScript project that installs the `npm pack` tarball and nothing else, and
 * through the Automation API with an inline and a local program; and where the project names it
 * (`plugins.providers` in `Pulumi.yaml`, as docs/languages.md shows, or `withPackageProvider`).
 * Each installs once, ignores a values change and keeps the release on destroy; a stack moves
 * between Pulumi's dynamic provider host, the default route and the named one by the alias each
 * route names, with no replacement and no helm call, ApplyOnce and Reconcile alike; a machine
 * whose plugin cache lacks the provider destroys with `--run-program`.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { cp, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import * as automation from "@pulumi/pulumi/automation/index.js";
import { toolchainBinDir } from "../../../local-cluster/control-plane/binaries.js";
import { ClusterAddon } from "../../../provider/index.js";
import { ADDON_TYPE, DYNAMIC_RELEASE_TYPE } from "../../../provider/state/resource.js";
import { liveRelease } from "../../support/addon.js";
import { chartPath } from "../../support/charts.js";
import { clusterSuite, withLocalCluster } from "../../support/cluster.js";
import { codeBlockAfter } from "../../support/markdown.js";
import {
  createProject,
  installedVersion,
  type PulumiCli,
  pulumiCli,
  pulumiProjectYaml,
} from "../../support/project.js";
import { pulumiEnv, testStack } from "../../support/pulumi.js";
import { repoRoot } from "../../support/repo-root.js";

const NAMESPACE = "package-route";

/** The `plugins.providers` entry for a Node.js project, as docs/languages.md shows it. */
const PLUGIN_ENTRY = codeBlockAfter(
  readFileSync(join(repoRoot(), "docs", "languages.md"), "utf8"),
  "## Node.js: the package's provider, by default (tested)",
  "yaml",
);

/** A JavaScript program of one add-on per `name=strategy` pair in config `addons`. */
const PROGRAM = `"use strict";
const pulumi = require("@pulumi/pulumi");
const { ClusterAddon } = require("helm-handoff/pulumi");
const config = new pulumi.Config();
const kubeconfig = config.requireSecret("kubeconfig");
for (const pair of config.require("addons").split(",")) {
  const [name, strategy] = pair.split("=");
  const addon = new ClusterAddon(name, {
    kubeconfig,
    chart: { path: "./charts/schema" },
    namespace: "${NAMESPACE}",
    createNamespace: true,
    strategy,
    values: { replicas: 1, mode: config.require("mode") },
  });
  exports[name] = addon.handoff;
}
`;

/** The default provider reference of the package's provider registered with a version (the default route). */
const VERSIONED_PROVIDER = /pulumi:providers:helm-handoff::default_\d+_\d+_\d+::/;

/** The resources of a stack's state, by name: their type and provider reference. */
async function stateResources(cli: PulumiCli): Promise<Map<string, { type: string; provider: string }>> {
  const state = JSON.parse((await cli.run(["stack", "export"])).stdout) as {
    deployment: { resources?: { urn: string; type: string; provider?: string }[] };
  };
  const byName = new Map<string, { type: string; provider: string }>();
  for (const r of state.deployment.resources ?? []) {
    byName.set(r.urn.slice(r.urn.lastIndexOf("::") + 2), { type: r.type, provider: r.provider ?? "" });
  }
  return byName;
}

describe("a Node.js program's add-ons served by the package's provider", { timeout: 1_200_000 }, () => {
  const suite = clusterSuite({ name: "package-route" });

  /** A JavaScript project with the program and the schema chart, a stack configured with `addons`. */
  async function project(name: string, addons: string, pluginEntry: boolean) {
    const made = suite.keep(
      await createProject({
        name,
        packageJson: { main: "index.js" },
        dependencies: { "@pulumi/pulumi": installedVersion("@pulumi/pulumi") },
        files: { "index.js": PROGRAM, "Pulumi.yaml": projectYaml(name, pluginEntry) },
      }),
    );
    await cp(chartPath("schema"), join(made.dir, "charts", "schema"), { recursive: true });
    const cli = suite.keep(await pulumiCli(made.dir));
    await cli.run(["config", "set", "--secret", "kubeconfig"], { inputFile: suite.cluster.kubeconfigPath });
    await cli.run(["config", "set", "addons", addons]);
    await cli.run(["config", "set", "mode", "a"]);
    return { dir: made.dir, cli };
  }

  function projectYaml(name: string, pluginEntry: boolean): string {
    return `${pulumiProjectYaml(`hh-${name}`)}${pluginEntry ? PLUGIN_ENTRY : ""}`;
  }

  test("a JavaScript project with nothing but npm install gets the package's provider from the plugin cache, installs once, ignores a values change and keeps the release on destroy", async () => {
    const { cli } = await project("default-route-cli", "default-cli=ApplyOnce", false);
    const up = await cli.run(["up", "--yes", "--skip-preview"]);
    assert.match(up.all, /helm-handoff:index:ClusterAddon/);
    assert.doesNotMatch(up.all, /pulumi-nodejs:dynamic/);
    const resources = await stateResources(cli);
    assert.equal(resources.get("default-cli")?.type, ADDON_TYPE);
    assert.match(resources.get("default-cli")?.provider ?? "", VERSIONED_PROVIDER);
    assert.deepEqual(
      (await readdir(join(cli.home, "plugins"))).filter((d) => /^resource-helm-handoff-v[\d.]+$/.test(d)),
      [`resource-helm-handoff-v${installedVersion("helm-handoff")}`],
    );
    const first = await liveRelease(suite.cluster, "default-cli", NAMESPACE);
    assert.deepEqual(first, { revision: 1, status: "deployed", values: { replicas: 1, mode: "a" } });

    await cli.run(["config", "set", "mode", "b"]);
    const second = await cli.run(["up", "--yes", "--skip-preview"]);
    assert.match(second.all, /Resources:\n +2 unchanged\n/);
    assert.deepEqual(await liveRelease(suite.cluster, "default-cli", NAMESPACE), first);

    await cli.run(["destroy", "--yes", "--skip-preview"]);
    assert.deepEqual(await liveRelease(suite.cluster, "default-cli", NAMESPACE), first);
  });

  test("on a machine whose plugin cache lacks the package's provider, a destroy with --run-program puts it there and destroys", async () => {
    const { cli } = await project("default-route-fresh", "fresh=Reconcile", false);
    await cli.run(["up", "--yes", "--skip-preview"]);
    for (const d of await readdir(join(cli.home, "plugins"))) {
      if (d.startsWith("resource-helm-handoff")) await rm(join(cli.home, "plugins", d), { recursive: true });
    }
    const refused = await cli.run(["destroy", "--yes", "--skip-preview"]).then(
      () => "",
      (error: { all?: string }) => error.all ?? String(error),
    );
    assert.ok(
      refused.includes(
        `no resource plugin 'pulumi-resource-helm-handoff' found in the workspace at version v${installedVersion("helm-handoff")} or on your $PATH`,
      ),
      refused,
    );
    await cli.run(["destroy", "--yes", "--skip-preview", "--run-program"]);
    assert.equal(await liveRelease(suite.cluster, "fresh", NAMESPACE), undefined);
  });

  test("a JavaScript project that names the package under plugins.providers installs once through it, ignores a values change and keeps the release on destroy", async () => {
    const { cli } = await project("package-route-cli", "route-cli=ApplyOnce", true);
    const up = await cli.run(["up", "--yes", "--skip-preview"]);
    assert.match(up.all, /helm-handoff:index:ClusterAddon/);
    assert.doesNotMatch(up.all, /pulumi-nodejs:dynamic/);
    const resources = await stateResources(cli);
    assert.equal(resources.get("route-cli")?.type, ADDON_TYPE);
    assert.match(resources.get("route-cli")?.provider ?? "", /pulumi:providers:helm-handoff::default/);
    const first = await liveRelease(suite.cluster, "route-cli", NAMESPACE);
    assert.deepEqual(first, { revision: 1, status: "deployed", values: { replicas: 1, mode: "a" } });
    const outputs = JSON.parse((await cli.run(["stack", "output", "--json", "--show-secrets"])).stdout);
    assert.equal(outputs["route-cli"].revision, 1);
    assert.equal(outputs["route-cli"].strategy, "ApplyOnce");
    const state = (await cli.run(["stack", "export"])).stdout;
    const key = /client-key-data: (\S+)/.exec(suite.cluster.kubeconfig)?.[1] ?? "no key";
    assert.equal(state.includes(key), false, "the kubeconfig's client key is not in the state");
    assert.equal(/"mode": ?"a"/.test(state), false, "the values are not in the state in plaintext");

    await cli.run(["config", "set", "mode", "b"]);
    const second = await cli.run(["up", "--yes", "--skip-preview"]);
    assert.match(second.all, /Resources:\n +2 unchanged\n/);
    assert.deepEqual(await liveRelease(suite.cluster, "route-cli", NAMESPACE), first);

    await cli.run(["destroy", "--yes", "--skip-preview"]);
    assert.deepEqual(await liveRelease(suite.cluster, "route-cli", NAMESPACE), first);
  });

  test("a stack moves from the dynamic provider to the default route, to the named one and back without a replacement or a helm call, ApplyOnce and Reconcile alike", async () => {
    const { dir, cli } = await project(
      "package-route-move",
      "move-once=ApplyOnce,move-reconcile=Reconcile",
      false,
    );
    const dynamic = { env: { HELM_HANDOFF_PULUMI_PROVIDER: "dynamic" } };
    await cli.run(["up", "--yes", "--skip-preview"], dynamic);
    const types = async () => {
      const r = await stateResources(cli);
      return [r.get("move-once")?.type, r.get("move-reconcile")?.type];
    };
    assert.deepEqual(await types(), [DYNAMIC_RELEASE_TYPE, DYNAMIC_RELEASE_TYPE]);
    const revisions = async () =>
      Promise.all(
        ["move-once", "move-reconcile"].map(
          async (n) => (await liveRelease(suite.cluster, n, NAMESPACE))?.revision,
        ),
      );
    assert.deepEqual(await revisions(), [1, 1]);

    for (const [pluginEntry, type, env] of [
      [false, ADDON_TYPE, {}],
      [true, ADDON_TYPE, {}],
      [false, DYNAMIC_RELEASE_TYPE, dynamic.env],
    ] as const) {
      await writeFile(join(dir, "Pulumi.yaml"), projectYaml("package-route-move", pluginEntry));
      const preview = JSON.parse((await cli.run(["preview", "--json"], { env })).stdout) as {
        changeSummary: Record<string, number>;
      };
      assert.deepEqual(Object.keys(preview.changeSummary), ["same"], JSON.stringify(preview.changeSummary));
      const moved = await cli.run(["up", "--yes", "--skip-preview"], { env });
      assert.match(moved.all, /Resources:\n +3 unchanged\n/);
      assert.deepEqual(await types(), [type, type]);
      assert.deepEqual(await revisions(), [1, 1]);
    }

    await cli.run(["destroy", "--yes", "--skip-preview"]);
    assert.equal((await liveRelease(suite.cluster, "move-once", NAMESPACE))?.revision, 1);
    assert.equal(await liveRelease(suite.cluster, "move-reconcile", NAMESPACE), undefined);
  });

  test("an Automation API inline program with no set-up gets the package's provider from the plugin cache and installs once", async () => {
    const stack = suite.keep(
      await testStack({
        program: async () => {
          new ClusterAddon("default-inline", {
            kubeconfig: suite.cluster.kubeconfig,
            chart: { path: chartPath("schema") },
            namespace: NAMESPACE,
            createNamespace: true,
            values: { replicas: 1, mode: "a" },
          });
          return {};
        },
      }),
    );
    await stack.up();
    assert.doesNotMatch(stack.output(), /pulumi-nodejs:dynamic/);
    assert.match(await stack.stateText(), /pulumi:providers:helm-handoff::default_\d+_\d+_\d+/);
    assert.deepEqual(await liveRelease(suite.cluster, "default-inline", NAMESPACE), {
      revision: 1,
      status: "deployed",
      values: { replicas: 1, mode: "a" },
    });
    await stack.destroy();
  });

  test("an Automation API local program (a project directory) with no set-up gets the package's provider from the plugin cache and installs once", async () => {
    const { dir, cli } = await project("default-route-local", "default-local=ApplyOnce", false);
    const env = pulumiEnv(cli.backendDir, cli.home);
    const stackName = JSON.parse((await cli.run(["stack", "ls", "--json"])).stdout)[0].name as string;
    const pulumiCommand = await automation.PulumiCommand.get({ root: join(toolchainBinDir(), "..") });
    const stack = await automation.LocalWorkspace.selectStack(
      { stackName, workDir: dir },
      { pulumiCommand, envVars: { ...env, PULUMI_CONFIG_PASSPHRASE: "helm-handoff-cli-test" } },
    );
    await stack.up({ color: "never" });
    const resources = await stateResources(cli);
    assert.equal(resources.get("default-local")?.type, ADDON_TYPE);
    assert.match(resources.get("default-local")?.provider ?? "", VERSIONED_PROVIDER);
    assert.equal((await liveRelease(suite.cluster, "default-local", NAMESPACE))?.revision, 1);
  });

  test("an Automation API inline program set up by withPackageProvider installs once through the package's provider, ignores a values change and keeps the release on destroy", async () => {
    const mode = { value: "a" };
    const stack = suite.keep(
      await testStack({
        route: "withPackageProvider",
        program: async () => {
          const addon = new ClusterAddon("route-inline", {
            kubeconfig: suite.cluster.kubeconfig,
            chart: { path: chartPath("schema") },
            namespace: NAMESPACE,
            createNamespace: true,
            values: { replicas: 1, mode: mode.value },
          });
          return { handoff: addon.handoff, key: addon.valuesDigestKey };
        },
      }),
    );
    const up = await stack.up();
    assert.match(stack.output(), /helm-handoff:index:ClusterAddon/);
    assert.doesNotMatch(stack.output(), /pulumi-nodejs:dynamic/);
    // The provider's progress lines reach the user through the engine's Log call.
    assert.match(
      stack.output(),
      /\[helm-handoff\] route-inline: installed package-route\/route-inline \(revision 1, deployed\)/,
    );
    assert.equal((up.outputs.handoff?.value as { revision?: number } | undefined)?.revision, 1);
    assert.equal(up.outputs.key?.secret, true);
    const first = await liveRelease(suite.cluster, "route-inline", NAMESPACE);
    assert.deepEqual(first, { revision: 1, status: "deployed", values: { replicas: 1, mode: "a" } });
    const state = await stack.stateText();
    assert.match(state, /"type": ?"helm-handoff:index:ClusterAddon"/);

    mode.value = "b";
    const second = await stack.up();
    assert.deepEqual(second.summary.resourceChanges, { same: 2 });
    assert.deepEqual(await liveRelease(suite.cluster, "route-inline", NAMESPACE), first);

    await stack.destroy();
    assert.deepEqual(await liveRelease(suite.cluster, "route-inline", NAMESPACE), first);
  });
  // Found by the fault campaign (`npm run chaos`, seed 5014): the warning went to the plugin's stderr, which the engine does not show.
  test("seed 5014: a Reconcile destroy through the package's provider that finds the cluster unreachable says in the output that it left the release", async () => {
    await withLocalCluster({ name: "unreachable-destroy" }, async (gone) => {
      await gone.ready;
      const stack = suite.keep(
        await testStack({
          route: "withPackageProvider",
          program: async () => {
            new ClusterAddon("left-behind", {
              kubeconfig: gone.kubeconfig,
              chart: { path: chartPath("schema") },
              values: { replicas: 1, mode: "a" },
              strategy: "Reconcile",
            });
            return {};
          },
        }),
      );
      await stack.up();
      await gone.killApiServer();
      await stack.destroy();
      assert.match(
        stack.output(),
        /\[helm-handoff\] left-behind: warning: cluster \S+ unreachable for 30s; leaving release default\/left-behind as it is and dropping it from state/,
      );
    });
  });
});
