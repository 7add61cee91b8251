/**
 * helm-handoff as a Pulumi package, from a program with no TypeScript of its own: a Pulumi YAML
 * program (`runtime: yaml`) that installs the `npm pack` tarball and lists it under `packages:`,
 * run by the real `pulumi` CLI with the YAML and Node.js language hosts. The YAML host reads the
 * package's schema and the engine runs its provider (`provider/plugin/`, started by the package's
 * executable `pulumi-resource-helm-handoff`, not by Pulumi's Node.js plugin host): `ClusterAddon` is
 * constructed there and its release is the package's own custom resource. ApplyOnce installs
 * revision 1, ignores a values change and keeps the release on destroy; Reconcile upgrades and
 * uninstalls (the checks of support/package-program.ts, shared with the Go test); a TypeScript
 * program laid out like `pulumi new typescript` (dynamic provider) and a YAML program with the same
 * spec make the same release and the same handoff record; declared also under `plugins.providers`
 * with its version (docs/languages.md), its schema is cached; the plugin keeps Node's compile cache
 * although the engine ends it with SIGINT; `pulumi package get-schema` (what `pulumi package add`
 * runs for Python, Go and C#) reads the installed package's schema, and the Go program of
 * docs/languages.md compiles against the SDK Pulumi's Go generator makes from it.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { chmod, cp, readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { keyedValuesDigest } from "../../../core/handoff/digests.js";
import { packageVersion } from "../../../provider/plugin/provider.js";
import { liveRelease } from "../../support/addon.js";
import { chartPath } from "../../support/charts.js";
import { clusterSuite } from "../../support/cluster.js";
import { compileGoProgram, docsGoProgram } from "../../support/go-program.js";
import {
  checkApplyOnceHandsOff,
  checkReconcileUpgradesAndUninstalls,
  stackOutputs,
} from "../../support/package-program.js";
import {
  createProject,
  installedVersion,
  jsonFile,
  PULUMI_NEW_TYPESCRIPT_TSCONFIG,
  pulumiCli,
  pulumiProjectYaml,
  versionedPluginYaml,
} from "../../support/project.js";

const NAMESPACE = "cli-yaml";

/**
 * A Pulumi YAML program using the package, with the release name, mode and strategy from config;
 * `pluginVersion` also declares it under `plugins.providers` with that version.
 */
function yamlProgram(project: string, pluginVersion?: string): string {
  return `name: ${project}
description: helm-handoff from a Pulumi YAML program
runtime: yaml
packages:
  helm-handoff: ./node_modules/helm-handoff
${pluginVersion === undefined ? "" : versionedPluginYaml(pluginVersion)}config:
  kubeconfig:
    type: string
  releaseName:
    type: string
  mode:
    type: string
  strategy:
    type: string
resources:
  addon:
    type: helm-handoff:ClusterAddon
    properties:
      kubeconfig: \${kubeconfig}
      chart:
        path: ./charts/schema
      releaseName: \${releaseName}
      namespace: ${NAMESPACE}
      createNamespace: true
      strategy: \${strategy}
      values:
        replicas: 1
        mode: \${mode}
outputs:
  handoff: \${addon.handoff}
  status: \${addon.status}
  valuesDigestKey: \${addon.valuesDigestKey}
`;
}

/** The same add-on from a TypeScript program (the dynamic provider), as `pulumi new typescript` lays it out. */
const TYPESCRIPT_PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import { ClusterAddon } from "helm-handoff/pulumi";

const config = new pulumi.Config();
const addon = new ClusterAddon("addon", {
  kubeconfig: config.requireSecret("kubeconfig"),
  chart: { path: "./charts/schema" },
  releaseName: config.require("releaseName"),
  namespace: "${NAMESPACE}",
  createNamespace: true,
  strategy: config.require("strategy") as "ApplyOnce" | "Reconcile",
  values: { replicas: 1, mode: config.require("mode") },
});
export const handoff = addon.handoff;
export const status = addon.status;
export const valuesDigestKey = addon.valuesDigestKey;
`;

interface Outputs {
  readonly handoff: Record<string, unknown> & { readonly revision: number; readonly valuesDigest: string };
  readonly status: { readonly revision: number; readonly firstDeployed: string };
  readonly valuesDigestKey: string;
}

describe("helm-handoff as a Pulumi package, from a YAML program through the CLI", {
  timeout: 1_200_000,
}, () => {
  const suite = clusterSuite({ name: "cli-yaml" });

  /** A project with the chart and the tarball installed (npm brings `@pulumi/pulumi`, the package's peer). */
  async function project(
    name: string,
    files: Record<string, string>,
    packageJson: Record<string, unknown> = {},
    devDependencies: Record<string, string> = {},
  ) {
    const p = await createProject({
      name,
      packageJson,
      devDependencies,
      files,
    });
    suite.keep(p);
    await cp(chartPath("schema"), join(p.dir, "charts", "schema"), { recursive: true });
    return p;
  }

  async function configured(
    dir: string,
    releaseName: string,
    strategy: string,
    env: Record<string, string> = {},
  ) {
    const cli = await pulumiCli(dir, env);
    await cli.run(["config", "set", "--secret", "kubeconfig"], { inputFile: suite.cluster.kubeconfigPath });
    await cli.run(["config", "set", "releaseName", releaseName]);
    await cli.run(["config", "set", "strategy", strategy]);
    await cli.run(["config", "set", "mode", "a"]);
    return cli;
  }

  test("an ApplyOnce add-on installs once, ignores a values change and keeps the release on destroy", async () => {
    const p = await project("yaml-apply-once", { "Pulumi.yaml": yamlProgram("hh-yaml-apply-once") });
    const cli = await configured(p.dir, "yaml-once", "ApplyOnce");
    try {
      await checkApplyOnceHandsOff(cli, suite.cluster, "yaml-once", NAMESPACE);
    } finally {
      await cli.dispose();
    }
  });

  test("the engine runs the package's executable itself, not Pulumi's Node.js plugin host", async () => {
    const p = await project("yaml-executable", { "Pulumi.yaml": yamlProgram("hh-yaml-executable") });
    const cli = await configured(p.dir, "yaml-executable", "ApplyOnce");
    const executable = join(p.dir, "node_modules", "helm-handoff", "pulumi-resource-helm-handoff");
    try {
      // With -v=9 the engine logs each plugin launch; one through the plugin host (PulumiPlugin.yaml)
      // says "via runtime 'nodejs'".
      const preview = await cli.run(["preview", "--logtostderr", "-v=9"]);
      assert.ok(
        preview.all.includes("Launching plugin 'helm-handoff (resource)' from "),
        "launches are logged",
      );
      assert.doesNotMatch(
        preview.all,
        /Launching plugin 'helm-handoff \(resource\)' from '[^']*' via runtime/,
      );
      // Without its executable bit the file is still what the engine runs: it fails to, exactly as
      // docs/troubleshooting.md says, instead of falling back to the plugin host.
      await chmod(executable, 0o644);
      await assert.rejects(cli.run(["preview"]), (err: { all?: unknown }) => {
        assert.ok(String(err.all).includes(`fork/exec ${executable}: permission denied`), String(err.all));
        return true;
      });
    } finally {
      await chmod(executable, 0o755);
      await cli.dispose();
    }
  });

  test("the plugin writes Node's compile cache although the engine ends it with SIGINT", async () => {
    // The YAML host and the CLI are Go: the only Node.js processes of a preview are the plugin's
    // (the YAML host's launch for the schema, the engine's). Without `keepCompileCache`
    // they die of the engine's SIGINT and the directory stays empty.
    const p = await project("yaml-compile-cache", { "Pulumi.yaml": yamlProgram("hh-yaml-compile-cache") });
    const cache = join(p.dir, "node-compile-cache");
    const cli = await configured(p.dir, "yaml-compile-cache", "ApplyOnce", { NODE_COMPILE_CACHE: cache });
    try {
      await cli.run(["preview"]);
      const versions = await readdir(cache);
      const files = (await Promise.all(versions.map((v) => readdir(join(cache, v))))).flat();
      assert.ok(files.length > 0, "the plugin wrote its compile cache");
    } finally {
      await cli.dispose();
    }
  });

  test("a YAML program that also declares the package with its version has its schema cached and runs the same", async () => {
    const version = packageVersion();
    const p = await project("yaml-cached", { "Pulumi.yaml": yamlProgram("hh-yaml-cached", version) });
    const cli = await configured(p.dir, "yaml-cached", "ApplyOnce");
    try {
      await cli.run(["up", "--yes", "--skip-preview"]);
      const first = await liveRelease(suite.cluster, "yaml-cached", NAMESPACE);
      assert.equal(first?.revision, 1);
      // The toolchain's YAML host (pulumi-yaml v1.25.0) keeps a versioned plugin's schema beside its
      // directory; the next up reads it from there instead of starting the plugin for it.
      assert.ok(
        existsSync(join(p.dir, "node_modules", `schema-helm-handoff-${version}-.json`)),
        "the schema is cached beside the package directory",
      );
      await cli.run(["config", "set", "mode", "b"]);
      // With -v=9 and --logflow (the language host logs at the same level) every launch of the
      // plugin is logged, the YAML host's (for the schema) as well as the engine's: with the schema
      // cached, only the engine's remains (a stale cache gives 2).
      const second = await cli.run(["up", "--yes", "--skip-preview", "--logtostderr", "--logflow", "-v=9"]);
      assert.match(second.stdout, /Resources:\n +2 unchanged\n/);
      assert.equal(
        second.stderr.split("newPlugin(): Launching plugin 'helm-handoff (resource)'").length - 1,
        1,
      );
      assert.deepEqual(await liveRelease(suite.cluster, "yaml-cached", NAMESPACE), first);
      await cli.run(["destroy", "--yes", "--skip-preview"]);
    } finally {
      await cli.dispose();
    }
  });

  test("a Reconcile add-on upgrades on a values change and is uninstalled on destroy", async () => {
    const p = await project("yaml-reconcile", { "Pulumi.yaml": yamlProgram("hh-yaml-reconcile") });
    const cli = await configured(p.dir, "yaml-reconcile", "Reconcile");
    try {
      await checkReconcileUpgradesAndUninstalls(cli, suite.cluster, "yaml-reconcile", NAMESPACE);
    } finally {
      await cli.dispose();
    }
  });

  test("a TypeScript program and a YAML program with the same spec make the same release and handoff record", async () => {
    const ts = await project(
      "same-ts",
      {
        "index.ts": TYPESCRIPT_PROGRAM,
        "tsconfig.json": jsonFile(PULUMI_NEW_TYPESCRIPT_TSCONFIG),
        "Pulumi.yaml": pulumiProjectYaml("hh-same"),
      },
      { main: "index.ts" },
      { typescript: installedVersion("typescript"), "@types/node": installedVersion("@types/node") },
    );
    const yaml = await project("same-yaml", { "Pulumi.yaml": yamlProgram("hh-same") });
    const made: { release: unknown; record: Record<string, unknown> }[] = [];
    for (const dir of [ts.dir, yaml.dir]) {
      // Reconcile, so that destroy uninstalls and the second program installs afresh.
      const cli = await configured(dir, "same-spec", "Reconcile");
      try {
        await cli.run(["up", "--yes", "--skip-preview"]);
        const release = await liveRelease(suite.cluster, "same-spec", NAMESPACE);
        const out = await stackOutputs<Outputs>(cli);
        // Each release has its own digest key: the digest is checked against it, then compared without.
        assert.equal(
          out.handoff.valuesDigest,
          keyedValuesDigest({ replicas: 1, mode: "a" }, out.valuesDigestKey),
        );
        const { installedAt: _at, valuesDigest: _digest, ...record } = out.handoff;
        made.push({ release, record });
        await cli.run(["destroy", "--yes", "--skip-preview"]);
      } finally {
        await cli.dispose();
      }
    }
    assert.deepEqual(made[1], made[0]);
    assert.deepEqual(made[0]?.release, {
      revision: 1,
      status: "deployed",
      values: { replicas: 1, mode: "a" },
    });
  });

  test("pulumi package get-schema of the installed package's executable prints its schema, and the Go program of docs/languages.md compiles against the SDK Pulumi's Go generator makes from it", async () => {
    const p = await project("get-schema", { "Pulumi.yaml": yamlProgram("hh-get-schema") });
    const cli = await pulumiCli(p.dir);
    try {
      // The package's executable, which any language host runs: given the package directory,
      // Pulumi runs the plugin through the Node.js host's RunPlugin, which the toolchain's host
      // (v3.68.0) does not have (docs/languages.md).
      const printed = (
        await cli.run(["package", "get-schema", "./node_modules/helm-handoff/pulumi-resource-helm-handoff"])
      ).stdout;
      const schema = JSON.parse(printed) as {
        name: string;
        version: string;
        resources: Record<string, { isComponent?: boolean }>;
      };
      assert.equal(schema.name, "helm-handoff");
      assert.equal(schema.version, installedVersion("helm-handoff"));
      assert.deepEqual(Object.keys(schema.resources), ["helm-handoff:index:ClusterAddon"]);
      assert.equal(schema.resources["helm-handoff:index:ClusterAddon"]?.isComponent, undefined);
      // What `pulumi package add` does next for a Go program, with Pulumi's generator at the CLI's version.
      const cliVersion = (await cli.run(["version"])).stdout.trim();
      await compileGoProgram(printed, docsGoProgram(), cliVersion);
    } finally {
      await cli.dispose();
    }
  });
});
