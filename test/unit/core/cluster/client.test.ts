/**
 * `@kubernetes/client-node` (≈0.4 s to load) is loaded only for a cluster call whose kubeconfig
 * needs it (an `exec` plugin here): a CommonJS program that requires helm-handoff (require(esm), so
 * no top-level await anywhere in the graph) and its Pulumi provider does not load it, nor does a
 * call with plain access (client certificate, token, basic auth or nothing), which goes through
 * `node:https`; the ApplyOnce steady state (no cluster call) never loads it.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { promisify } from "node:util";
import { repoRoot } from "../../../support/repo-root.js";

const program = `
const { registerHooks } = require("node:module");
const seen = [];
registerHooks({
  resolve(specifier, context, next) {
    if (specifier.startsWith("@kubernetes/client-node")) seen.push(specifier);
    return next(specifier, context);
  },
});
const core = { ...require("helm-handoff"), ...require("./dist/core/cluster/readiness.js") };
require("helm-handoff/pulumi/dynamic");
const before = seen.length;
const kubeconfig = (user) => "apiVersion: v1\\nkind: Config\\nclusters: [{name: c, cluster: {server: 'http://127.0.0.1:1'}}]\\ncontexts: [{name: x, context: {cluster: c, user: u}}]\\ncurrent-context: x\\nusers: [{name: u, user: " + user + "}]\\n";
const wait = (kc) => core.waitForApiServer(kc, { deadline: core.Duration.millis(1) }).catch(() => undefined);
(async () => {
  await wait(kubeconfig("{token: t}"));
  const plain = seen.length;
  await wait(kubeconfig("{exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/false}}"));
  console.log(JSON.stringify({ before, plain, exec: seen.length }));
})();
`;

test("a CommonJS program that requires helm-handoff and its provider loads @kubernetes/client-node only at the first cluster call that needs it", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ["-e", program], { cwd: repoRoot() });
  assert.deepEqual(JSON.parse(stdout), { before: 0, plain: 0, exec: 1 });
});

const checkProgram = `
const { registerHooks } = require("node:module");
const seen = [];
registerHooks({
  resolve(specifier, context, next) {
    if (specifier.startsWith("@kubernetes/client-node")) seen.push(specifier);
    return next(specifier, context);
  },
});
const dynamic = require("helm-handoff/pulumi/dynamic");
const kubeconfig = (user) => "apiVersion: v1\\nkind: Config\\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\\ncontexts: [{name: x, context: {cluster: c, user: u}}]\\ncurrent-context: x\\nusers: [{name: u, user: " + user + "}]\\n";
const exec = kubeconfig("{exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/false}}");
const news = (kc) => ({ kubeconfig: kc, releaseName: "x", namespace: "default", strategy: "ApplyOnce", values: {},
  spec: { chart: { path: "/nonexistent" }, createNamespace: false, install: {}, retry: {} } });
const settle = () => new Promise((r) => setTimeout(r, 300));
(async () => {
  await dynamic.check(news(exec), news(exec)); // an existing add-on: its old inputs (inputs never hold outputs)
  await settle();
  const existing = seen.length;
  await dynamic.check({}, news(kubeconfig("{token: t}")));
  await settle();
  const plain = seen.length;
  await dynamic.check({}, news(exec));
  await settle();
  console.log(JSON.stringify({ existing, plain, exec: seen.length }));
})();
`;

test("the provider's check loads @kubernetes/client-node ahead of a create whose kubeconfig needs it, never for an existing add-on", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ["-e", checkProgram], { cwd: repoRoot() });
  assert.deepEqual(JSON.parse(stdout), { existing: 0, plain: 0, exec: 1 });
});
