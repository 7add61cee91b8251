import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Redactor } from "../../../../core/helm/redact.js";

test("addValues registers every string leaf of at least six characters, in objects and arrays", () => {
  const r = new Redactor().addValues({
    auth: { token: "tok-123456", short: "abc" },
    hosts: ["host-a.example", { inner: "nested-value" }],
    replicas: 3,
    enabled: true,
  });
  assert.equal(
    r.redact("tok-123456 abc host-a.example nested-value 3 true"),
    "[redacted] abc [redacted] [redacted] 3 true",
  );
});

/** A made-up PEM private key: four lines, the last base64 line short. */
const PEM = [
  "-----BEGIN PRIVATE KEY-----",
  "MIIBVQIBADANBgkqhkiG9w0BAQEFAASCAT8wggE7AgEAAkEAq7BFUpkGp3+LQmlQ",
  "Yx2eqOj8sQ==",
  "-----END PRIVATE KEY-----",
  "",
].join("\n");

test("every line of a multi-line secret is redacted on its own, however short, from four characters", () => {
  const r = new Redactor(["first-line\nab\n  midl\nlast"]);
  assert.equal(r.redact("first-line"), "[redacted]");
  assert.equal(r.redact("x midl y"), "x [redacted] y");
  assert.equal(r.redact("ab last"), "ab [redacted]");
  const pem = new Redactor([PEM]);
  assert.deepEqual(
    PEM.split("\n").map((l) => pem.redact(`> ${l}`)),
    ["> [redacted]", "> [redacted]", "> [redacted]", "> [redacted]", "> "],
  );
});

test("the JSON-escaped forms of a secret are redacted, JavaScript's and Go's (which escapes < > &)", () => {
  const r = new Redactor([PEM, 'quote"and<html>&amp']);
  assert.equal(r.redact(JSON.stringify({ key: PEM })), '{"key":"[redacted]"}');
  assert.equal(r.redact(`"${PEM.trim().replaceAll("\n", "\\n")}"`), '"[redacted]"');
  assert.equal(r.redact('{"v":"quote\\"and<html>&amp"}'), '{"v":"[redacted]"}');
  assert.equal(r.redact('{"v":"quote\\"and\\u003chtml\\u003e\\u0026amp"}'), '{"v":"[redacted]"}');
});

test("the base64 forms of a secret are redacted: standard, unpadded and URL-safe", () => {
  const r = new Redactor(["s3cr3t?>>~val"]);
  assert.equal(r.redact("data: czNjcjN0Pz4+fnZhbA=="), "data: [redacted]");
  assert.equal(r.redact("raw: czNjcjN0Pz4+fnZhbA"), "raw: [redacted]");
  assert.equal(r.redact("url: czNjcjN0Pz4-fnZhbA"), "url: [redacted]");
  const pem = new Redactor([PEM]);
  assert.equal(pem.redact(`tls.key: ${Buffer.from(PEM).toString("base64")}`), "tls.key: [redacted]");
  assert.equal(pem.redact(`tls.key: ${Buffer.from(PEM.trim()).toString("base64")}`), "tls.key: [redacted]");
});

test("addValues registers every line of a multi-line value of at least six characters and its encoded forms", () => {
  const r = new Redactor().addValues({ tls: { key: PEM }, config: "line-one\nok\nline-two" });
  assert.equal(r.redact("line-one ok line-two"), "[redacted] ok [redacted]");
  assert.equal(r.redact("Yx2eqOj8sQ=="), "[redacted]");
  assert.equal(r.redact(JSON.stringify(PEM)), '"[redacted]"');
  assert.equal(r.redact(Buffer.from(PEM).toString("base64")), "[redacted]");
});

test("addKubeconfig registers every string under a user except the allowlist, and the contents of tokenFile and client-key", () => {
  const dir = mkdtempSync(join(tmpdir(), "hh-redact-test-"));
  try {
    writeFileSync(join(dir, "token"), "file-token-0123456789\n");
    writeFileSync(join(dir, "client.key"), PEM);
    const kubeconfig = [
      "apiVersion: v1",
      "kind: Config",
      "clusters: [{name: c, cluster: {server: 'https://10.0.0.1:6443'}}]",
      "contexts: [{name: x, context: {cluster: c, user: plugin}}]",
      "current-context: x",
      "users:",
      "- name: plugin",
      "  user:",
      "    exec:",
      "      apiVersion: client.authentication.k8s.io/v1",
      "      command: /usr/local/bin/get-token",
      "      args: [--role, arn-role-secret]",
      "      env: [{name: PLUGIN_API_KEY, value: env-secret-value}]",
      "      interactiveMode: Never",
      "      installHint: install get-token from the platform team",
      "- name: files",
      "  user:",
      `    tokenFile: ${join(dir, "token")}`,
      `    client-key: ${join(dir, "client.key")}`,
      "    auth-provider: {name: oidc, config: {client-id: oidc-client-id, idp-issuer-url: 'https://idp'}}",
    ].join("\n");
    const r = new Redactor().addKubeconfig(kubeconfig);
    assert.equal(
      r.redact("--role arn-role-secret PLUGIN_API_KEY=env-secret-value file-token-0123456789 oidc-client-id"),
      "[redacted] [redacted] PLUGIN_API_KEY=[redacted] [redacted] [redacted]",
    );
    assert.equal(r.redact(PEM.split("\n")[1] ?? ""), "[redacted]");
    assert.equal(r.redact(Buffer.from("env-secret-value").toString("base64")), "[redacted]");
    const publicText = [
      "client.authentication.k8s.io/v1",
      "/usr/local/bin/get-token",
      "Never",
      "install get-token from the platform team",
      "oidc",
      "https://10.0.0.1:6443",
      "kind: Config",
      join(dir, "token"),
    ].join(" | ");
    assert.equal(r.redact(publicText), publicText);
    assert.equal(r.redact(kubeconfig), "[redacted]");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("addKubeconfig ignores a relative or unreadable key file path", () => {
  const r = new Redactor().addKubeconfig(
    "users: [{name: u, user: {tokenFile: relative/token, client-key: /nonexistent/hh-redact/key}}]",
  );
  assert.equal(
    r.redact("relative/token /nonexistent/hh-redact/key"),
    "relative/token /nonexistent/hh-redact/key",
  );
});
