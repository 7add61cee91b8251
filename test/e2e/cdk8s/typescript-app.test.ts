/**
 * `cdk8s synth` in an app laid out like `cdk8s init typescript-app`: its own tsconfig.json (copied
 * from the installed cdk8s-cli's template: CommonJS, lib es2016, no skipLibCheck), a `cdk8s.yaml`
 * with `app: npx ts-node main.ts`, `cdk8s-cli` and ts-node from npm, and helm-handoff from the
 * `npm pack` tarball. The synthesized manifests carry Helm's ownership metadata, so a later
 * `helm install` (or Flux, Argo CD) adopts them.
 */
import assert from "node:assert/strict";
import { copyFile, cp, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, test } from "node:test";
import { execa } from "execa";
import { parseAllDocuments } from "yaml";
import { toolchainBinDir } from "../../../local-cluster/control-plane/binaries.js";
import { chartPath } from "../../support/charts.js";
import { createProject, installedVersion, type Project } from "../../support/project.js";

const MAIN_TS = `import { Construct } from 'constructs';
import { App, Chart, ChartProps } from 'cdk8s';
import { ClusterAddon } from 'helm-handoff/cdk8s';

export class Bootstrap extends Chart {
  constructor(scope: Construct, id: string, props: ChartProps = { }) {
    super(scope, id, props);
    new ClusterAddon(this, 'cni', {
      chart: { path: './charts/schema' },
      namespace: 'kube-system',
      values: { replicas: 2, mode: 'b' },
    });
  }
}

const app = new App();
new Bootstrap(app, 'bootstrap');
app.synth();
`;

let project: Project | undefined;
after(() => project?.remove());

test("npx cdk8s synth in a cdk8s init typescript-app layout writes the add-on with Helm ownership metadata", {
  timeout: 600_000,
}, async () => {
  project = await createProject({
    name: "cdk8s-app",
    packageJson: { main: "main.js", types: "main.ts", scripts: { synth: "cdk8s synth" } },
    dependencies: { cdk8s: installedVersion("cdk8s"), constructs: installedVersion("constructs") },
    // The template's devDependencies, but jest: cdk8s-cli, @types/node ^14, typescript 5.9.x, ts-node ^10.
    devDependencies: { "cdk8s-cli": "^2.207.0", "@types/node": "^14", typescript: "5.9.x", "ts-node": "^10" },
    // The template's cdk8s.yaml without `imports: [k8s]` (that fetches a schema; main.ts imports nothing from it).
    files: { "cdk8s.yaml": "language: typescript\napp: npx ts-node main.ts\n", "main.ts": MAIN_TS },
  });
  const dir = project.dir;
  await copyFile(
    join(dir, "node_modules/cdk8s-cli/templates/typescript-app/tsconfig.json"),
    join(dir, "tsconfig.json"),
  );
  await cp(chartPath("schema"), join(dir, "charts", "schema"), { recursive: true });

  await execa("npx", ["cdk8s", "synth"], {
    cwd: dir,
    env: { PATH: `${toolchainBinDir()}:${process.env.PATH ?? ""}` },
  });

  assert.deepEqual(await readdir(join(dir, "dist")), ["bootstrap.k8s.yaml"]);
  const docs = parseAllDocuments(await readFile(join(dir, "dist", "bootstrap.k8s.yaml"), "utf8")).map((d) =>
    d.toJS(),
  ) as {
    kind: string;
    metadata: {
      name: string;
      namespace: string;
      labels: Record<string, string>;
      annotations: Record<string, string>;
    };
    data: Record<string, string>;
  }[];
  const configMap = docs.find((d) => d.kind === "ConfigMap");
  assert.ok(configMap, `no ConfigMap in ${JSON.stringify(docs)}`);
  assert.equal(configMap.metadata.name, "cni-schema");
  assert.equal(configMap.metadata.namespace, "kube-system");
  assert.equal(configMap.metadata.labels["app.kubernetes.io/managed-by"], "Helm");
  assert.equal(configMap.metadata.annotations["meta.helm.sh/release-name"], "cni");
  assert.equal(configMap.metadata.annotations["meta.helm.sh/release-namespace"], "kube-system");
  assert.deepEqual(configMap.data, { replicas: "2", mode: "b" });
});
