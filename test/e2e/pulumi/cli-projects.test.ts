/**
 * `pulumi up` in a platform repo, the way users run it: the real `pulumi` CLI with the Node.js
 * language host, in projects laid out like `pulumi new typescript` (commonjs + node resolution),
 * a TypeScript ES module project (`"type": "module"`, nodenext) and a plain JavaScript project
 * (`require("helm-handoff/pulumi")`). Each installs the `npm pack` tarball, then: `up` installs
 * revision 1, `preview --diff` after a values change plans no update, the next `up` leaves revision
 * 1, `destroy` keeps the release. With `NODE_COMPILE_CACHE` set, Pulumi's dynamic provider host
 * writes the compile cache although the engine ends it with SIGINT (`keepCompileCache`).
 */
import assert from "node:assert/strict";
import { cp, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { execa } from "execa";
import { liveRelease } from "../../support/addon.js";
import { chartPath, runHelm } from "../../support/charts.js";
import { clusterSuite } from "../../support/cluster.js";
import {
  createProject,
  installedVersion,
  jsonFile,
  PULUMI_NEW_TYPESCRIPT_TSCONFIG,
  pulumiCli,
  pulumiProjectYaml,
} from "../../support/project.js";

/** The program, the same in each kind of project but for its module syntax. */
function program(importLines: string): string {
  return `${importLines}

const config = new pulumi.Config();
const addon = new ClusterAddon("cli", {
  kubeconfig: config.requireSecret("kubeconfig"),
  chart: { path: "./charts/schema" },
  releaseName: config.require("releaseName"),
  namespace: "cli-projects",
  createNamespace: true,
  values: { replicas: 1, mode: config.require("mode") },
});
export const handoff = addon.handoff;
export const status = addon.status;
`;
}

interface Kind {
  readonly name: string;
  readonly releaseName: string;
  readonly packageJson: Record<string, unknown>;
  readonly files: Record<string, string>;
  readonly devDependencies: Record<string, string>;
}

/** The dev dependencies of `pulumi new typescript`, at this checkout's versions. */
const TYPESCRIPT = {
  typescript: installedVersion("typescript"),
  "@types/node": installedVersion("@types/node"),
};

const KINDS: readonly Kind[] = [
  {
    name: "ts-commonjs",
    releaseName: "ts-commonjs",
    packageJson: { main: "index.ts" },
    devDependencies: TYPESCRIPT,
    files: {
      "tsconfig.json": jsonFile(PULUMI_NEW_TYPESCRIPT_TSCONFIG),
      "index.ts": program(
        `import * as pulumi from "@pulumi/pulumi";\nimport { ClusterAddon } from "helm-handoff/pulumi";`,
      ),
    },
  },
  {
    name: "ts-esm",
    releaseName: "ts-esm",
    packageJson: { main: "index.ts", type: "module" },
    // Pulumi's ESM mode for TypeScript needs ts-node/esm, which its vendored ts-node 7 lacks.
    devDependencies: { ...TYPESCRIPT, "ts-node": installedVersion("ts-node") },
    files: {
      "tsconfig.json": jsonFile({
        ...PULUMI_NEW_TYPESCRIPT_TSCONFIG,
        compilerOptions: {
          ...PULUMI_NEW_TYPESCRIPT_TSCONFIG.compilerOptions,
          module: "nodenext",
          moduleResolution: "nodenext",
        },
      }),
      "index.ts": program(
        `import * as pulumi from "@pulumi/pulumi";\nimport { ClusterAddon } from "helm-handoff/pulumi";`,
      ),
    },
  },
  {
    name: "javascript",
    releaseName: "javascript",
    packageJson: { main: "index.js" },
    devDependencies: {},
    files: {
      "index.js": program(
        `"use strict";\nconst pulumi = require("@pulumi/pulumi");\nconst { ClusterAddon } = require("helm-handoff/pulumi");`,
      )
        .replace("export const handoff = addon.handoff;", "exports.handoff = addon.handoff;")
        .replace("export const status = addon.status;", "exports.status = addon.status;"),
    },
  },
];

describe("pulumi up in a platform repo through the CLI", { timeout: 1_200_000 }, () => {
  const suite = clusterSuite({ name: "cli-projects" });

  for (const kind of KINDS) {
    test(`a ${kind.name} project installs once, ignores a values change and keeps the release on destroy`, async () => {
      const project = await createProject({
        name: kind.name,
        packageJson: kind.packageJson,
        dependencies: { "@pulumi/pulumi": installedVersion("@pulumi/pulumi") },
        devDependencies: kind.devDependencies,
        files: { ...kind.files, "Pulumi.yaml": pulumiProjectYaml(`hh-${kind.name}`) },
      });
      suite.keep(project);
      await cp(chartPath("schema"), join(project.dir, "charts", "schema"), { recursive: true });
      const cli = await pulumiCli(project.dir);
      try {
        await cli.run(["config", "set", "--secret", "kubeconfig"], {
          inputFile: suite.cluster.kubeconfigPath,
        });
        await cli.run(["config", "set", "releaseName", kind.releaseName]);
        await cli.run(["config", "set", "mode", "a"]);

        const up = await cli.run(["up", "--yes", "--skip-preview"]);
        assert.match(up.all, /helm-handoff:index:ClusterAddon/);
        const first = await liveRelease(suite.cluster, kind.releaseName, "cli-projects");
        assert.equal(first?.revision, 1);
        assert.equal(first?.status, "deployed");
        assert.deepEqual(first?.values, { replicas: 1, mode: "a" });
        const outputs = JSON.parse((await cli.run(["stack", "output", "--json", "--show-secrets"])).stdout);
        assert.equal(outputs.handoff.revision, 1);
        assert.equal(outputs.handoff.release.name, kind.releaseName);
        // The installed package's `helm-handoff` bin reads the same outputs (no --show-secrets needed).
        const plain = (await cli.run(["stack", "output", "--json"])).stdout;
        const status = await execa(
          join(project.dir, "node_modules", ".bin", "helm-handoff"),
          ["status", "--kubeconfig", suite.cluster.kubeconfigPath],
          {
            input: plain,
            reject: false,
          },
        );
        assert.equal(status.exitCode, 3, status.stderr);
        assert.match(
          status.stdout,
          new RegExp(
            `^cli-projects/${kind.releaseName}: not-taken-over: still helm-handoff's: revision 1 \\(deployed\\)`,
          ),
        );

        await cli.run(["config", "set", "mode", "b"]);
        const preview = await cli.run(["preview", "--diff", "--json"]);
        const plan = JSON.parse(preview.stdout) as { changeSummary: Record<string, number> };
        assert.deepEqual(Object.keys(plan.changeSummary), ["same"]);

        const second = await cli.run(["up", "--yes", "--skip-preview"]);
        assert.match(second.all, /Resources:\n +2 unchanged\n/);
        const after = await liveRelease(suite.cluster, kind.releaseName, "cli-projects");
        assert.equal(after?.revision, 1);
        assert.deepEqual(after?.values, { replicas: 1, mode: "a" });

        await cli.run(["destroy", "--yes", "--skip-preview"]);
        const kept = await liveRelease(suite.cluster, kind.releaseName, "cli-projects");
        assert.equal(kept?.revision, 1);
        assert.equal(kept?.status, "deployed");
      } finally {
        await cli.dispose();
      }
    });
  }

  test("seed 620523: a CLI up whose Reconcile add-on meets a foreign release shows that refusal alone, while another add-on was installing", async () => {
    const kind = KINDS.find((k) => k.name === "javascript") as Kind;
    const addon = (name: string, release: string): string => `new ClusterAddon("${name}", {
  kubeconfig: config.requireSecret("kubeconfig"),
  chart: { path: "./charts/schema" },
  releaseName: "${release}",
  namespace: "cli-refusal",
  createNamespace: true,
  strategy: "Reconcile",
  values: { replicas: 1, mode: "a" },
});`;
    const project = await createProject({
      name: "refusal",
      packageJson: kind.packageJson,
      dependencies: { "@pulumi/pulumi": installedVersion("@pulumi/pulumi") },
      files: {
        "index.js": `"use strict";
const pulumi = require("@pulumi/pulumi");
const { ClusterAddon } = require("helm-handoff/pulumi");
const config = new pulumi.Config();
${addon("installing", "refusal-new")}
${addon("refused", "refusal-foreign")}
`,
        "Pulumi.yaml": pulumiProjectYaml("hh-refusal"),
      },
    });
    suite.keep(project);
    await cp(chartPath("schema"), join(project.dir, "charts", "schema"), { recursive: true });
    await runHelm([
      ...[
        "install",
        "refusal-foreign",
        chartPath("schema"),
        "--namespace",
        "cli-refusal",
        "--create-namespace",
      ],
      ...["--kubeconfig", suite.cluster.kubeconfigPath, "--set", "replicas=2"],
    ]);
    const cli = await pulumiCli(project.dir);
    try {
      await cli.run(["config", "set", "--secret", "kubeconfig"], { inputFile: suite.cluster.kubeconfigPath });
      const failed = await cli.run(["up", "--yes", "--skip-preview"]).then(
        (r) => assert.fail(`the up succeeded:\n${r.all}`),
        (err: unknown) => String(err instanceof Error ? err.message : err),
      );
      assert.match(failed, /release cli-refusal\/refusal-foreign is not this resource's: /);
      assert.doesNotMatch(
        failed,
        /engine stopped answering|Channel has been shut down|failed to deliver log message/,
      );
      const theirs = await liveRelease(suite.cluster, "refusal-foreign", "cli-refusal");
      assert.deepEqual([theirs?.revision, theirs?.values], [1, { replicas: 2 }]);
    } finally {
      await cli.dispose();
    }
  });

  test("with NODE_COMPILE_CACHE set, Pulumi's dynamic provider host writes its compile cache", async () => {
    const kind = KINDS.find((k) => k.name === "javascript") as Kind;
    const project = await createProject({
      name: "compile-cache",
      packageJson: kind.packageJson,
      dependencies: { "@pulumi/pulumi": installedVersion("@pulumi/pulumi") },
      files: { ...kind.files, "Pulumi.yaml": pulumiProjectYaml("hh-compile-cache") },
    });
    suite.keep(project);
    await cp(chartPath("schema"), join(project.dir, "charts", "schema"), { recursive: true });
    const cache = join(project.dir, "node-compile-cache");
    const cli = await pulumiCli(project.dir, {
      NODE_COMPILE_CACHE: cache,
      HELM_HANDOFF_PULUMI_PROVIDER: "dynamic",
    });
    try {
      await cli.run(["config", "set", "--secret", "kubeconfig"], { inputFile: suite.cluster.kubeconfigPath });
      await cli.run(["config", "set", "releaseName", "compile-cache"]);
      await cli.run(["config", "set", "mode", "a"]);
      // The preview's check of the new release starts the host and loads our release code in it.
      await cli.run(["preview"]);
      // Only the host loads the SDK's cmd/dynamic-provider, whose top level requires
      // "require-from-string": V8's cached code of that module holds the string. Without
      // keepCompileCache the host dies of the engine's SIGINT and writes none of its modules.
      const files: string[] = [];
      for (const v of await readdir(cache)) {
        for (const f of await readdir(join(cache, v))) files.push(join(cache, v, f));
      }
      const host = await Promise.all(
        files.map(async (f) => (await readFile(f)).includes("require-from-string")),
      );
      assert.ok(host.some(Boolean), `none of ${files.length} cached modules is the host's`);
    } finally {
      await cli.dispose();
    }
  });
});
