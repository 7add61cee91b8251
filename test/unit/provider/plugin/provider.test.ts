/**
 * The Pulumi package's provider without an engine: the package's `main` is the plugin's start
 * function (requiring it starts nothing) and its executable runs it, the plugin does not load the
 * SDK's closure serializer, the schema documents every input `ClusterAddon` takes,
 * secrets cross the wire marked and come back marked, check names the failing property, and a
 * type the package does not serve is refused by name. The engine path is in test/e2e/pulumi/yaml-program.test.ts.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { clusterIdentityFromKubeconfig } from "../../../../core/cluster/identity.js";
import { makeHandoffRecord } from "../../../../core/handoff/record.js";
import { ownerIdOf } from "../../../../core/lifecycle/ownership.js";
import { helmHandoffProvider, packageVersion } from "../../../../provider/plugin/provider.js";
import { CLUSTER_ADDON_INPUTS, packageSchema } from "../../../../provider/plugin/schema.js";
import { unwrapSecrets, wrapSecrets } from "../../../../provider/plugin/secrets.js";
import { releaseInputsOf } from "../../../../provider/state/encode.js";
import { repoRoot } from "../../../support/repo-root.js";

const SIG = "4dabf18193072939515e22adb298388d";
const SECRET = "1b47061264138c4ac30d75fd1eb44270";

test("requiring the package directory gives the plugin's start function and starts nothing", () => {
  const main = createRequire(import.meta.url)(repoRoot()) as unknown;
  assert.equal(typeof main, "function");
  assert.equal((main as { name: string }).name, "servePlugin");
});

test("PulumiPlugin.yaml declares a Node.js plugin and ships in the package", () => {
  assert.match(readFileSync(join(repoRoot(), "PulumiPlugin.yaml"), "utf8"), /^runtime: nodejs$/m);
  const pkg = JSON.parse(readFileSync(join(repoRoot(), "package.json"), "utf8")) as { files: string[] };
  assert.ok(pkg.files.includes("PulumiPlugin.yaml"));
});

test("the plugin's executable ships in the package, executable, and runs node on the package directory", () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot(), "package.json"), "utf8")) as { files: string[] };
  assert.ok(pkg.files.includes("pulumi-resource-helm-handoff"));
  const file = join(repoRoot(), "pulumi-resource-helm-handoff");
  assert.equal(statSync(file).mode & 0o755, 0o755);
  const script = readFileSync(file, "utf8");
  assert.match(script, /^#!\/bin\/sh\n/);
  // node resolves the directory to the package's main, which serves when it is the main module:
  // a stand-in `node` says which directory and arguments it got, whichever path ran the script.
  const bin = mkdtempSync(join(tmpdir(), "hh-fake-node-"));
  try {
    writeFileSync(join(bin, "node"), '#!/bin/sh\necho "$@"\n', { mode: 0o755 });
    const run = (path: string) =>
      execFileSync(path, ["127.0.0.1:1"], {
        cwd: repoRoot(),
        env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ""}` },
        encoding: "utf8",
      });
    assert.equal(run(file), `${repoRoot()} 127.0.0.1:1\n`);
    assert.equal(run("./pulumi-resource-helm-handoff"), ". 127.0.0.1:1\n");
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
});

test("the plugin's provider and the steps it serves never load the SDK's closure serializer", () => {
  // The SDK's index also loads closure serialization and its vendored TypeScript (≈0.3 s of every
  // plugin start), which only a Node.js program's dynamic resources would need.
  const provider = join(repoRoot(), "dist", "provider");
  const code = String.raw`import { createRequire } from "node:module";
await import(${JSON.stringify(pathToFileURL(join(provider, "plugin", "provider.js")).href)});
await import(${JSON.stringify(pathToFileURL(join(provider, "steps", "index.js")).href)});
await import("@pulumi/pulumi/provider/index.js");
const loaded = Object.keys(createRequire(import.meta.url).cache);
const closure = loaded.filter((k) => /typescript\.js$|runtime[\\/]closure[\\/]/.test(k));
const server = loaded.filter((k) => /@pulumi[\\/]pulumi[\\/]provider[\\/]server\.js$/.test(k)).length;
console.log(JSON.stringify({ closure, server }));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", code], {
    cwd: repoRoot(),
    encoding: "utf8",
  });
  // The SDK's provider server is there (the check sees the cache), its closure serializer is not.
  assert.deepEqual(JSON.parse(out), { closure: [], server: 1 });
});

test("the schema documents every ClusterAddon input and output, secrets marked", () => {
  const schema = packageSchema("1.2.3") as {
    name: string;
    version: string;
    resources: Record<
      string,
      {
        isComponent?: boolean;
        inputProperties: Record<string, { description?: string; secret?: boolean }>;
        properties: Record<string, { description?: string; secret?: boolean }>;
        requiredInputs: string[];
      }
    >;
  };
  assert.equal(schema.name, "helm-handoff");
  assert.equal(schema.version, "1.2.3");
  const addon = schema.resources["helm-handoff:index:ClusterAddon"];
  assert.ok(addon);
  assert.equal(addon.isComponent, undefined, "a custom resource: one resource per add-on");
  assert.deepEqual(CLUSTER_ADDON_INPUTS.slice().sort(), [
    "adopt",
    "chart",
    "clusterId",
    "createNamespace",
    "install",
    "kubeconfig",
    "namespace",
    "releaseName",
    "retry",
    "strategy",
    "valueFiles",
    "values",
  ]);
  assert.deepEqual(addon.requiredInputs, ["kubeconfig", "chart"]);
  assert.deepEqual(Object.keys(addon.properties).sort(), [
    "clusterId",
    "handoff",
    "status",
    "valuesDigestKey",
  ]);
  for (const [name, p] of [...Object.entries(addon.inputProperties), ...Object.entries(addon.properties)]) {
    assert.ok((p.description ?? "").length > 10, `${name} is documented`);
  }
  assert.deepEqual(
    Object.entries(addon.inputProperties)
      .filter(([, p]) => p.secret)
      .map(([n]) => n),
    ["kubeconfig", "values"],
  );
  assert.equal(addon.properties.valuesDigestKey?.secret, true);
});

test("the schema's ClusterAddon inputs are ClusterAddonArgs field by field: same names, required ones, plain ones", () => {
  // The one source of the args is provider/cluster-addon.ts: read its ClusterAddonArgs with the compiler.
  const file = join(repoRoot(), "provider", "cluster-addon.ts");
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const args = source?.statements.find(
    (st): st is ts.InterfaceDeclaration =>
      ts.isInterfaceDeclaration(st) && st.name.text === "ClusterAddonArgs",
  );
  assert.ok(args, "ClusterAddonArgs is declared in provider/cluster-addon.ts");
  const fields = args.members.filter(ts.isPropertySignature).map((m) => ({
    name: m.name.getText(source),
    required: m.questionToken === undefined,
    // An input that may be another resource's output is `pulumi.Input<…>`; a plain one is not.
    plain: !(m.type?.getText(source) ?? "").startsWith("pulumi.Input<"),
    documented: ts.getJSDocCommentsAndTags(m).length > 0,
  }));
  const schema = packageSchema("1.2.3") as {
    resources: Record<
      string,
      { inputProperties: Record<string, { plain?: boolean }>; requiredInputs: string[] }
    >;
  };
  const addon = schema.resources["helm-handoff:index:ClusterAddon"];
  assert.ok(addon);
  assert.deepEqual(fields.map((f) => f.name).sort(), [...CLUSTER_ADDON_INPUTS].sort());
  assert.deepEqual(
    fields
      .filter((f) => f.required)
      .map((f) => f.name)
      .sort(),
    [...addon.requiredInputs].sort(),
  );
  assert.deepEqual(
    fields
      .filter((f) => f.plain)
      .map((f) => f.name)
      .sort(),
    Object.entries(addon.inputProperties)
      .filter(([, p]) => p.plain === true)
      .map(([n]) => n)
      .sort(),
  );
  assert.deepEqual(
    fields.filter((f) => !f.documented),
    [],
  );
});

test("the schema types the handoff output with every field a handoff record has", () => {
  type ObjectType = { properties: Record<string, { $ref?: string }>; required?: string[] };
  const types = (packageSchema("1.2.3") as { types: Record<string, ObjectType> }).types;
  const record = makeHandoffRecord({
    clusterId: "sha256:c",
    server: "https://127.0.0.1:6443",
    releaseName: "cni",
    namespace: "kube-system",
    chart: { repo: "https://charts.example", name: "cni" },
    chartVersion: "1.0.0",
    valuesDigestKey: "k",
    revision: 1,
    strategy: "ApplyOnce",
    installedAt: "2026-12-04T00:00:00.000Z",
  });
  // Every field of the record, nested objects too, is a property of its schema type; every type
  // but the chart source (repo + name, or path) requires all of them.
  const check = (value: Record<string, unknown>, token: string): void => {
    const type = types[token];
    assert.ok(type, token);
    for (const key of Object.keys(value)) assert.ok(type.properties[key], `${token} has ${key}`);
    if (token !== "helm-handoff:index:HandoffChartSource") {
      assert.deepEqual(type.required?.slice().sort(), Object.keys(value).sort(), token);
    }
    for (const [key, v] of Object.entries(value)) {
      if (v !== null && typeof v === "object") {
        check(v as Record<string, unknown>, (type.properties[key]?.$ref ?? "").replace("#/types/", ""));
      }
    }
  };
  check(record as unknown as Record<string, unknown>, "helm-handoff:index:HandoffRecord");
  const resources = (
    packageSchema("1.2.3") as { resources: Record<string, { properties: Record<string, { $ref?: string }> }> }
  ).resources;
  assert.equal(
    resources["helm-handoff:index:ClusterAddon"]?.properties.handoff?.$ref,
    "#/types/helm-handoff:index:HandoffRecord",
  );
});

test("the provider's version is the npm package's", async () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot(), "package.json"), "utf8")) as { version: string };
  assert.equal(packageVersion(), pkg.version);
  const schema = JSON.parse(await (helmHandoffProvider().getSchema?.() ?? Promise.resolve("{}"))) as {
    version: string;
  };
  assert.equal(schema.version, pkg.version);
});

test("wire secrets are unwrapped deeply, and the secret output keys are wrapped again", () => {
  const wire = {
    kubeconfig: { [SIG]: SECRET, value: "kc" },
    values: { a: { [SIG]: SECRET, value: [1] } },
    namespace: "ns",
  };
  assert.deepEqual(unwrapSecrets(wire), { kubeconfig: "kc", values: { a: [1] }, namespace: "ns" });
  assert.deepEqual(
    wrapSecrets({ kubeconfig: "kc", digestKey: "k", namespace: "ns", chartPassword: undefined }),
    {
      kubeconfig: { [SIG]: SECRET, value: "kc" },
      digestKey: { [SIG]: SECRET, value: "k" },
      namespace: "ns",
      chartPassword: undefined,
    },
  );
});

test("the provider sends valuesDigestKey as a wire secret, as it sends the stored digestKey", async () => {
  // An ApplyOnce refresh makes no cluster call: what it returns is the stored outputs, as sent.
  const stored = {
    strategy: "ApplyOnce",
    releaseName: "cni",
    namespace: "default",
    digestKey: "k".repeat(64),
  };
  const read = await helmHandoffProvider("0.0.0").read?.(
    "id",
    "urn:pulumi:dev::p::helm-handoff:index:ClusterAddon::cni",
    stored,
  );
  assert.deepEqual(read?.props?.valuesDigestKey, { [SIG]: SECRET, value: "k".repeat(64) });
  assert.deepEqual(read?.props?.digestKey, { [SIG]: SECRET, value: "k".repeat(64) });
});

const ADDON_URN = "urn:pulumi:dev::p::helm-handoff:index:ClusterAddon::cni";
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
const KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:6443", insecure-skip-tls-verify: true}
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
users:
- name: u
  user: {token: abc}
`;

test("an add-on's check stores what a Node.js add-on stores: identity, spec, digest and owner mark from the URN, secrets marked", async () => {
  const provider = helmHandoffProvider("0.0.0");
  const chart = {
    repo: "https://charts.example.com",
    name: "cni",
    version: "1.0.0",
    username: "u",
    password: "pw",
  };
  const news = {
    kubeconfig: { [SIG]: SECRET, value: KUBECONFIG },
    chart: { [SIG]: SECRET, value: chart },
    namespace: "kube-system",
    values: { [SIG]: SECRET, value: { a: 1 } },
  };
  const result = await provider.check?.(ADDON_URN, {}, news);
  const inputs = releaseInputsOf(
    "cni",
    { kubeconfig: KUBECONFIG, chart, namespace: "kube-system", values: { a: 1 } },
    ADDON_URN,
  );
  assert.equal(inputs.clusterId, clusterIdentityFromKubeconfig(KUBECONFIG).clusterId);
  assert.equal(inputs.ownerId, ownerIdOf(ADDON_URN));
  assert.equal(inputs.ownerName, "p.dev.cni");
  assert.deepEqual(inputs.spec.chart, {
    repo: "https://charts.example.com",
    name: "cni",
    version: "1.0.0",
    username: "u",
  });
  assert.equal(inputs.chartPassword, "pw");
  const ownerKey = (unwrapSecrets(result?.inputs) as { ownerKey?: string }).ownerKey;
  assert.match(ownerKey ?? "", /^[A-Za-z0-9_-]{43}$/, "a new add-on's owner key");
  assert.deepEqual(result, { inputs: wrapSecrets({ ...inputs, ownerKey }) });
  for (const key of ["kubeconfig", "values", "chartPassword", "desiredDigest", "ownerKey"]) {
    assert.deepEqual(
      Object.keys((result?.inputs?.[key] ?? {}) as object),
      [SIG, "value"],
      `${key} is marked secret`,
    );
  }
});

test("an add-on's check in a preview keeps unknown what depends on an unknown input, and still names a bad known one", async () => {
  const provider = helmHandoffProvider("0.0.0");
  const chart = { path: join(repoRoot(), "test", "charts", "schema") };
  const news = { kubeconfig: UNKNOWN, chart, values: { a: UNKNOWN } };
  const result = await provider.check?.(ADDON_URN, {}, news);
  const inputs = unwrapSecrets(result?.inputs) as Record<string, unknown>;
  assert.equal(inputs.clusterId, UNKNOWN);
  assert.equal(inputs.clusterServer, UNKNOWN);
  assert.equal(inputs.values, UNKNOWN);
  assert.equal(inputs.desiredDigest, UNKNOWN);
  assert.deepEqual(inputs.spec, {
    chart,
    createNamespace: false,
    adopt: false,
    install: {},
    retry: {},
  });
  assert.equal(inputs.releaseName, "cni");
  const bad = await provider.check?.(ADDON_URN, {}, { ...news, releaseName: "Bad_Name" });
  assert.equal(bad?.failures?.[0]?.property, "releaseName");
});

test("a resource type the package does not serve is refused by name", async () => {
  const provider = helmHandoffProvider("0.0.0");
  await assert.rejects(
    provider.check?.("urn:pulumi:dev::p::helm-handoff:index:Other::x", {}, {}) ?? Promise.resolve(),
    {
      message: "helm-handoff: unknown resource type helm-handoff:index:Other",
    },
  );
});
