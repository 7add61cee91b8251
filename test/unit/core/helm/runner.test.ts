import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, test } from "node:test";
import { HelmNotFoundError, HelmVersionError, PermanentHelmError } from "../../../../core/errors.js";
import { HelmRunner } from "../../../../core/helm/index.js";
import { validateSpec } from "../../../../core/spec/index.js";
import { toolchainBinDir } from "../../../../core/util/paths.js";

const KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1"}
contexts:
- name: ctx
  context: {cluster: c, user: u}
current-context: ctx
users:
- name: u
  user: {token: kubeconfig-secret-token-0123456789}
`;

let root = "";
let chart = "";
const realHelm = join(toolchainBinDir(), "helm");

before(() => {
  root = mkdtempSync(join(tmpdir(), "hh-helm-test-"));
  chart = join(root, "tiny");
  mkdirSync(join(chart, "templates"), { recursive: true });
  writeFileSync(join(chart, "Chart.yaml"), "apiVersion: v2\nname: tiny\nversion: 0.1.0\nappVersion: 1.0.0\n");
  writeFileSync(join(chart, "values.yaml"), "replicaCount: 1\nmessage: hello\n");
  writeFileSync(
    join(chart, "values.schema.json"),
    JSON.stringify({ type: "object", properties: { replicaCount: { type: "integer", minimum: 1 } } }),
  );
  writeFileSync(
    join(chart, "templates", "cm.yaml"),
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\n  namespace: {{ .Release.Namespace }}\ndata:\n  replicas: {{ .Values.replicaCount | quote }}\n  message: {{ .Values.message | quote }}\n",
  );
});

function tempDirOfTest(name: string): string {
  const d = join(root, name);
  mkdirSync(d);
  return d;
}

test("template renders a local chart with the spec's values and namespace", async () => {
  const runner = new HelmRunner({ helmBinary: realHelm, helmHome: join(root, "home") });
  const spec = validateSpec({
    chart: { path: chart },
    releaseName: "demo",
    namespace: "tools",
    values: { replicaCount: 3 },
  });
  const out = await runner.template(spec);
  assert.match(out, /name: demo-cm/);
  assert.match(out, /namespace: tools/);
  assert.match(out, /replicas: "3"/);
  assert.match(out, /message: "hello"/);
});

test("values that fail the chart's schema fail at once with helm's message and the field", async () => {
  const lines: string[] = [];
  const runner = new HelmRunner({
    helmBinary: realHelm,
    helmHome: join(root, "home"),
    onOutput: (l) => lines.push(l),
  });
  const spec = validateSpec({ chart: { path: chart }, releaseName: "demo", values: { replicaCount: 0 } });
  const err = await runner.template(spec).catch((e: unknown) => e);
  assert.ok(err instanceof PermanentHelmError);
  assert.equal(err.kind, "permanent");
  assert.equal(err.reason, "values do not meet the chart's schema");
  assert.equal(err.exitCode, 1);
  assert.match(err.stderr, /values don't meet the specifications of the schema\(s\)/);
  assert.match(err.stderr, /at '\/replicaCount': minimum: got 0, want 1/);
  assert.equal(err.command[1], "template");
  assert.ok(
    lines.some((l) => l.includes("minimum: got 0, want 1")),
    "stderr lines reach onOutput",
  );
});

test("a missing helm binary gives HelmNotFoundError with the exact message", async () => {
  const runner = new HelmRunner({ helmBinary: "/nonexistent/bin/helm" });
  await assert.rejects(runner.version(), (e: unknown) => {
    assert.ok(e instanceof HelmNotFoundError);
    assert.equal(
      e.message,
      "helm was not found (looked for /nonexistent/bin/helm). helm-handoff needs helm v4: install helm v4 (https://helm.sh/docs/intro/install/) and put it on PATH, or set HELM_HANDOFF_HELM to its path (or pass the helmBinary option).",
    );
    return true;
  });
});

test("without helm on PATH the message says where it looked and how to get helm, and no toolchain dir is tried", async () => {
  const savedPath = process.env.PATH;
  const savedXdg = process.env.XDG_CACHE_HOME;
  const empty = tempDirOfTest("empty-path");
  process.env.PATH = empty;
  process.env.XDG_CACHE_HOME = join(root, "no-cache");
  try {
    await assert.rejects(new HelmRunner().version(), {
      name: "HelmNotFoundError",
      message: `helm was not found (looked for "helm" on PATH). helm-handoff needs helm v4: install helm v4 (https://helm.sh/docs/intro/install/) and put it on PATH, or set HELM_HANDOFF_HELM to its path (or pass the helmBinary option).`,
    });
  } finally {
    process.env.PATH = savedPath;
    if (savedXdg === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = savedXdg;
  }
});

/** A fake helm that records its argv (one argument per line) and stdin, and answers like helm v4. */
function fakeHelm(name: string, version = "v4.9.9"): { bin: string; log: string } {
  const d = tempDirOfTest(name);
  const log = join(d, "argv.log");
  const bin = join(d, "helm");
  writeFileSync(
    bin,
    `#!/bin/sh
for a in "$@"; do printf '%s\\n' "$a" >> "${log}"; done
echo "--" >> "${log}"
case "$1" in
  version) printf '%s' "${version}"; exit 0 ;;
  registry|repo) cat >> "${log}.stdin"; exit 0 ;;
  status) echo 'Error: release: not found' >&2; exit 1 ;;
  install) for a in "$@"; do case "$a" in *kubeconfig) cat "$a" >> "${log}.files";; */registry/config.json) cat "$a" >> "${log}.registry";; esac; done
    echo '{"name":"x","namespace":"default","version":1,"info":{"status":"deployed","first_deployed":"2024-01-01T00:00:00Z","last_deployed":"2024-01-01T00:00:00Z","description":"Install complete"},"chart":{"metadata":{"name":"tiny","version":"0.1.0","appVersion":"1.0.0"}}}'; exit 0 ;;
  uninstall) echo 'Error: uninstall: Release not loaded: x: release: not found' >&2; exit 1 ;;
  *) echo "Error: INSTALLATION FAILED: boom" >&2; exit 1 ;;
esac
`,
  );
  chmodSync(bin, 0o755);
  return { bin, log };
}

test("argv never contains the kubeconfig content, a repo password or the values", async () => {
  const { bin, log } = fakeHelm("fake-argv");
  const tmp = tempDirOfTest("tmp-argv");
  const runner = new HelmRunner({
    helmBinary: bin,
    kubeconfig: KUBECONFIG,
    tempDir: tmp,
    helmHome: join(root, "home"),
  });
  const password = "repo-password-s3cret";
  for (const repo of ["https://charts.example.org", "oci://registry.example.org/charts"]) {
    const spec = validateSpec({
      chart: { repo, name: "tiny", version: "0.1.0", username: "bob", password },
      releaseName: "x",
      values: { apiKey: "values-secret-abcdef" },
    });
    const release = await runner.install(spec);
    assert.equal(release.status, "deployed");
    assert.equal(release.chart, "tiny");
  }
  const argv = readFileSync(log, "utf8");
  assert.equal(argv.includes("kubeconfig-secret-token"), false);
  assert.equal(argv.includes(password), false);
  assert.equal(argv.includes("values-secret"), false);
  assert.match(argv, /--password-stdin/);
  assert.match(argv, /--kubeconfig\n/);
  assert.match(argv, /\n--wait\n/);
  assert.match(argv, /\n--timeout\n300s\n/);
  // the repository password went through stdin, the registry's into the call's registry config,
  // the kubeconfig through a file
  assert.equal(readFileSync(`${log}.stdin`, "utf8"), password);
  const auth = Buffer.from(`bob:${password}`).toString("base64");
  assert.deepEqual(
    readFileSync(`${log}.registry`, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as unknown),
    [
      { auths: { "helm-handoff.invalid": {} } },
      { auths: { "helm-handoff.invalid": {}, "registry.example.org": { auth } } },
    ],
  );
  assert.doesNotMatch(argv, /\nregistry\nlogin\n/, "no helm registry login");
  assert.equal(readFileSync(`${log}.files`, "utf8"), KUBECONFIG.repeat(2));
  assert.deepEqual(readdirSync(tmp), []);
});

test("the temp dir is removed after a call and after a failed call", async () => {
  const { bin } = fakeHelm("fake-tmp");
  const tmp = tempDirOfTest("tmp-clean");
  const runner = new HelmRunner({
    helmBinary: bin,
    kubeconfig: KUBECONFIG,
    tempDir: tmp,
    helmHome: join(root, "home"),
  });
  const spec = validateSpec({ chart: { path: chart }, releaseName: "x", values: { a: 1 } });
  await runner.install(spec);
  assert.deepEqual(readdirSync(tmp), []);
  await assert.rejects(runner.upgrade(spec), { name: "PermanentHelmError" });
  assert.deepEqual(readdirSync(tmp), []);
});

test("a failure's message, command and stderr are redacted", async () => {
  const { bin } = fakeHelm("fake-redact");
  const runner = new HelmRunner({
    helmBinary: bin,
    kubeconfig: KUBECONFIG,
    helmHome: join(root, "home"),
    secrets: ["boom"],
  });
  const spec = validateSpec({ chart: { path: chart }, releaseName: "x" });
  const err = await runner.upgrade(spec).catch((e: unknown) => e);
  assert.ok(err instanceof PermanentHelmError);
  assert.equal(err.stderr, "Error: INSTALLATION FAILED: [redacted]");
  assert.match(
    err.message,
    /^helm upgrade exited with code 1 \(permanent: unrecognized helm error\): Error: INSTALLATION FAILED: \[redacted\]\n {2}command: /,
  );
  // helm ran and exited: the message says it all, there is no spawn error to keep as a cause.
  assert.equal(err.cause, undefined);
});

test("status of a missing release is undefined and uninstall of one reports it did not exist", async () => {
  const { bin } = fakeHelm("fake-missing");
  const runner = new HelmRunner({ helmBinary: bin, kubeconfig: KUBECONFIG, helmHome: join(root, "home") });
  assert.equal(await runner.status("x", "default"), undefined);
  assert.equal(await runner.uninstall("x", "default"), false);
});

test("helm older than v4 is refused with the version found", async () => {
  const { bin } = fakeHelm("fake-v3", "v3.16.2");
  await assert.rejects(
    new HelmRunner({ helmBinary: bin, helmHome: join(root, "home") }).version(),
    (e: unknown) => {
      assert.ok(e instanceof HelmVersionError);
      assert.equal(
        e.message,
        `helm v3.16.2 found at ${bin}, but helm-handoff needs helm v4 (v4.0.0 or later): install helm v4 (https://helm.sh/docs/intro/install/) and put it on PATH, or set HELM_HANDOFF_HELM to its path.`,
      );
      return true;
    },
  );
});

test("the real helm is v4", async () => {
  const v = await new HelmRunner({ helmBinary: realHelm, helmHome: join(root, "home") }).version();
  assert.match(v, /^v4\./);
});
