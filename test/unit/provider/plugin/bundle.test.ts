/**
 * The plugin process runs the provider from its bundle (`scripts/build.sh` makes
 * dist/provider/bundle/ from provider.ts): the bundle holds helm-handoff's code and `yaml`, no
 * other package, and the package's `main` serves from it (the engine's part is in the e2e suites).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "../../../support/repo-root.js";

const bundleDir = join(repoRoot(), "dist", "provider", "bundle");

test("the plugin's bundle holds helm-handoff's code and yaml, and no other package", () => {
  const packages = new Set<string>();
  for (const file of readdirSync(bundleDir).filter((f) => f.endsWith(".js"))) {
    const text = readFileSync(join(bundleDir, file), "utf8");
    for (const m of text.matchAll(/^\/\/ node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)) packages.add(m[1] ?? "");
  }
  assert.deepEqual([...packages], ["yaml"]);
});

test("the package's main, which loads the provider only from the bundle, prints its port", async () => {
  const main = join(repoRoot(), "dist", "provider", "plugin", "main.cjs");
  const child = spawn(process.execPath, [main, "127.0.0.1:1"], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.once("data", (c: Buffer) => resolve(c.toString().trim()));
    child.once("exit", (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  child.kill();
  assert.match(port, /^\d+$/);
});
