/**
 * `@kubernetes/client-node` is loaded on the first cluster call only: a CommonJS program that
 * requires helm-handoff (require(esm), so no top-level await anywhere in the graph) and its Pulumi
 * provider does not load it, which keeps the ApplyOnce steady state (no cluster call) free of it.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { promisify } from "node:util";
import { repoRoot } from "./support/charts.js";

const program = `
const { registerHooks } = require("node:module");
const seen = [];
registerHooks({
  resolve(specifier, context, next) {
    if (specifier.startsWith("@kubernetes/client-node")) seen.push(specifier);
    return next(specifier, context);
  },
});
const core = require("helm-handoff");
require("helm-handoff/pulumi/dynamic");
const before = seen.length;
const kubeconfig = "apiVersion: v1\\nkind: Config\\nclusters: [{name: c, cluster: {server: 'http://127.0.0.1:1'}}]\\ncontexts: [{name: x, context: {cluster: c, user: u}}]\\ncurrent-context: x\\nusers: [{name: u, user: {}}]\\n";
core.waitForApiServer(kubeconfig, { deadline: core.Duration.millis(1) }).catch(() => {
  console.log(JSON.stringify({ before, after: seen.length }));
});
`;

test("a CommonJS program that requires helm-handoff and its provider loads @kubernetes/client-node only at the first cluster call", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ["-e", program], { cwd: repoRoot() });
  assert.deepEqual(JSON.parse(stdout), { before: 0, after: 1 });
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
const news = { releaseName: "x", namespace: "default", strategy: "ApplyOnce", values: {},
  spec: { chart: { path: "/nonexistent" }, createNamespace: false, install: {}, retry: {} } };
(async () => {
  await dynamic.check(news, news); // an existing add-on: its old inputs (inputs never hold outputs)
  await new Promise((r) => setTimeout(r, 200));
  const existing = seen.length;
  await dynamic.check({}, news);
  await new Promise((r) => setTimeout(r, 200));
  console.log(JSON.stringify({ existing, created: seen.length }));
})();
`;

test("the provider's check loads @kubernetes/client-node ahead of a create only, never for an existing add-on", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ["-e", checkProgram], { cwd: repoRoot() });
  assert.deepEqual(JSON.parse(stdout), { existing: 0, created: 1 });
});
