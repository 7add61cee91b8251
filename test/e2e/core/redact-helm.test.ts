/**
 * Redaction through real, failing helm v4 calls: a multi-line secret value echoed by a schema error
 * (newline-escaped) and by a template's `fail` (raw, JSON-escaped by Go and base64), given in
 * `values` or in a values file (async and synchronous runner), and the
 * credentials of a kubeconfig user (exec plugin args and env, the contents of a token file and a
 * client key file) printed by a failing exec plugin. Each test scans the output lines, the error's
 * message, stderr and argv, and `util.inspect` of the error.
 *
 * @module
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { inspect } from "node:util";
import { stringify as stringifyYaml } from "yaml";
import { DeadlineExceededError, HelmError } from "../../../core/errors.js";
import { HelmRunner, helmTemplateSync } from "../../../core/helm/index.js";
import { validateSpec } from "../../../core/spec/index.js";
import { toolchainBinDir } from "../../../core/util/paths.js";

/** A multi-line secret value: a made-up key, plus a line Go's JSON encoder escapes (`"`, `<`, `>`, `&`). */
const SECRET_VALUE = [
  "-----BEGIN PRIVATE KEY-----",
  "MIIBVQIBADANBgkqhkiG9w0BAQEFAASCAT8wggE7AgEAAkEAq7BFUpkGp3+LQmlQ",
  'pass"word<with>&html-0042',
  "Yx2eqOj8sQ==",
  "-----END PRIVATE KEY-----",
  "",
].join("\n");

/** Every form of {@link SECRET_VALUE} that must never show: its lines, JSON-escaped and base64 forms. */
const VALUE_FORMS = [
  ...SECRET_VALUE.split("\n").filter((l) => l !== ""),
  JSON.stringify(SECRET_VALUE).slice(1, -1),
  JSON.stringify(SECRET_VALUE)
    .slice(1, -1)
    .replaceAll("<", "\\u003c")
    .replaceAll(">", "\\u003e")
    .replaceAll("&", "\\u0026"),
  SECRET_VALUE.replaceAll("\n", "\\n"),
  Buffer.from(SECRET_VALUE).toString("base64"),
];

let root = "";
let chart = "";
const realHelm = join(toolchainBinDir(), "helm");

before(() => {
  root = mkdtempSync(join(tmpdir(), "hh-redact-helm-test-"));
  chart = join(root, "echo");
  mkdirSync(join(chart, "templates"), { recursive: true });
  writeFileSync(join(chart, "Chart.yaml"), "apiVersion: v2\nname: echo\nversion: 0.1.0\n");
  // A pattern error quotes the value; `fail` prints whatever it is given.
  writeFileSync(
    join(chart, "values.schema.json"),
    JSON.stringify({ type: "object", properties: { checked: { type: "string", pattern: "^[ab]$" } } }),
  );
  writeFileSync(
    join(chart, "templates", "fail.yaml"),
    '{{- if .Values.token }}{{ fail (printf "raw=%s json=%s b64=%s" .Values.token (toJson .Values.token) (b64enc .Values.token)) }}{{- end }}\n',
  );
});

after(() => rmSync(root, { recursive: true, force: true }));

/** The forms among `forms` that occur in `text`. */
function leaked(text: string, forms: readonly string[]): string[] {
  return forms.filter((f) => text.includes(f));
}

/** `util.inspect` of `err` without its `cause` (the spawn's own error, tested on its own). */
function inspectWithoutCause(err: Error): string {
  const copy = Object.create(Object.getPrototypeOf(err)) as Error;
  for (const key of Reflect.ownKeys(err)) {
    if (key === "cause") continue;
    Object.defineProperty(copy, key, Object.getOwnPropertyDescriptor(err, key)!);
  }
  return inspect(copy, { depth: 10 });
}

/** Runs `call`, which must fail with a {@link HelmError}, and returns the error. */
async function failing(call: () => Promise<unknown>): Promise<HelmError> {
  try {
    await call();
  } catch (e) {
    assert.ok(e instanceof HelmError, `expected a HelmError, got ${inspect(e)}`);
    return e;
  }
  assert.fail("the helm call succeeded");
}

/** Asserts that no form shows in the output lines or the error (message, stderr, argv, inspection). */
function assertNothingLeaked(err: HelmError, output: readonly string[], forms: readonly string[]): void {
  assert.deepEqual(leaked(output.join("\n"), forms), [], "output lines");
  assert.deepEqual(leaked(err.message, forms), [], "message");
  assert.deepEqual(leaked(err.stderr, forms), [], "stderr");
  assert.deepEqual(leaked(err.command.join(" "), forms), [], "argv");
  assert.deepEqual(leaked(inspectWithoutCause(err), forms), [], "util.inspect without cause");
}

test("a multi-line secret value quoted by a schema error is redacted from the output and the error", async () => {
  const output: string[] = [];
  const runner = new HelmRunner({
    helmBinary: realHelm,
    helmHome: join(root, "home"),
    onOutput: (l) => output.push(l),
  });
  const spec = validateSpec({
    chart: { path: chart },
    releaseName: "echo",
    values: { checked: SECRET_VALUE },
  });
  const err = await failing(() => runner.template(spec));
  assert.match(err.stderr, /- at '\/checked': '\[redacted\]' does not match pattern '\^\[ab\]\$'/);
  assertNothingLeaked(err, output, VALUE_FORMS);
});

test("a multi-line secret value echoed raw, JSON-escaped and base64 by a failing template is redacted", async () => {
  const output: string[] = [];
  const runner = new HelmRunner({
    helmBinary: realHelm,
    helmHome: join(root, "home"),
    onOutput: (l) => output.push(l),
  });
  const spec = validateSpec({ chart: { path: chart }, releaseName: "echo", values: { token: SECRET_VALUE } });
  const err = await failing(() => runner.template(spec));
  assert.match(err.stderr, /raw=\[redacted\]/);
  assert.match(err.stderr, / json="\[redacted\]" b64=\[redacted\]/);
  assert.ok(output.length > 0, "helm's stderr reached onOutput");
  assertNothingLeaked(err, output, VALUE_FORMS);
});

test("a secret value from a values file echoed by a failing template is redacted, in both runners", async () => {
  const file = join(root, "secret-values.yaml");
  writeFileSync(file, stringifyYaml({ token: SECRET_VALUE }));
  const spec = validateSpec({ chart: { path: chart }, releaseName: "echo", valueFiles: [file] });
  const output: string[] = [];
  const runner = new HelmRunner({
    helmBinary: realHelm,
    helmHome: join(root, "home"),
    onOutput: (l) => output.push(l),
  });
  const asyncErr = await failing(() => runner.template(spec));
  const syncErr = await failing(async () => helmTemplateSync(realHelm, spec));
  for (const err of [asyncErr, syncErr]) {
    assert.match(err.stderr, /raw=\[redacted\]/);
    assert.match(err.stderr, / json="\[redacted\]" b64=\[redacted\]/);
    assertNothingLeaked(err, output, VALUE_FORMS);
    assert.deepEqual(leaked(inspect(err, { depth: 10 }), VALUE_FORMS), [], "util.inspect with cause");
  }
});

/** Kubeconfig credentials a failing exec plugin prints, and the kubeconfig it is read from. */
function execPluginKubeconfig(dir: string): { kubeconfig: string; forms: string[] } {
  const plugin = join(dir, "plugin.sh");
  const token = join(dir, "token");
  const key = join(dir, "client.key");
  writeFileSync(token, "file-token-0123456789\n");
  writeFileSync(key, SECRET_VALUE);
  // Plugins that print their arguments, environment or files on failure exist; this one prints all.
  writeFileSync(
    plugin,
    `#!/bin/sh\necho "plugin args: $*" >&2\necho "plugin env: $PLUGIN_API_KEY" >&2\ncat "${token}" "${key}" >&2\nexit 1\n`,
  );
  chmodSync(plugin, 0o755);
  const kubeconfig = [
    "apiVersion: v1",
    "kind: Config",
    "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]",
    "contexts: [{name: x, context: {cluster: c, user: plugin}}]",
    "current-context: x",
    "users:",
    "- name: plugin",
    "  user:",
    "    exec:",
    "      apiVersion: client.authentication.k8s.io/v1",
    `      command: ${plugin}`,
    "      args: [--role, arn-role-secret-77]",
    "      env: [{name: PLUGIN_API_KEY, value: env-secret-value-88}]",
    "      interactiveMode: Never",
    "- name: files",
    "  user:",
    `    tokenFile: ${token}`,
    `    client-key: ${key}`,
  ].join("\n");
  return {
    kubeconfig,
    forms: ["arn-role-secret-77", "env-secret-value-88", "file-token-0123456789", ...VALUE_FORMS],
  };
}

test("kubeconfig exec args and env values and the contents of token and key files printed by a failing plugin are redacted", async () => {
  const dir = join(root, "kube");
  mkdirSync(dir);
  const { kubeconfig, forms } = execPluginKubeconfig(dir);
  const output: string[] = [];
  const runner = new HelmRunner({
    helmBinary: realHelm,
    helmHome: join(root, "home"),
    kubeconfig,
    onOutput: (l) => output.push(l),
  });
  const err = await failing(() => runner.status("echo", "default"));
  assert.match(err.stderr, /plugin args: \[redacted\] \[redacted\]\n/);
  assert.match(err.stderr, /plugin env: \[redacted\]\n/);
  assert.match(err.stderr, /getting credentials: exec: executable .*plugin\.sh failed with exit code 1/);
  assertNothingLeaked(err, output, forms);
});

test("util.inspect of a helm error shows no secret, its cause included", async () => {
  const runner = new HelmRunner({ helmBinary: realHelm, helmHome: join(root, "home") });
  const spec = validateSpec({ chart: { path: chart }, releaseName: "echo", values: { token: SECRET_VALUE } });
  const err = await failing(() => runner.template(spec));
  assert.deepEqual(leaked(inspect(err, { depth: 10 }), VALUE_FORMS), []);
  // The retry loop's error keeps the last failure as its cause: nothing leaks through it either.
  const deadline = new DeadlineExceededError(
    "install of release default/echo",
    "1m",
    [{ attempt: 1, startedAt: "2026-01-01T00:00:00Z", error: err.message }],
    err,
  );
  assert.deepEqual(leaked(inspect(deadline, { depth: 10 }), VALUE_FORMS), []);
});
