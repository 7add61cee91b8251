#!/usr/bin/env node
// The doc-comment check (`npm run lint` runs it after Biome): TypeDoc over the entry points
// with the settings of typedoc.json (validation.notDocumented, invalidLink, notExported, warnings
// as errors) but emitting nothing. Exits non-zero, naming the symbol, when a public symbol of
// helm-handoff, helm-handoff/pulumi, helm-handoff/gitops, helm-handoff/cdk8s or helm-handoff/local-cluster has no doc
// comment or a comment links to something that is not documented. `npm run docs` builds the HTML.
// Extra arguments are passed to typedoc.
//
// First, the docs' test references: every `` `FILE`: "test name" `` in docs/*.md must name a test
// that exists in test/unit/FILE.test.ts or test/e2e/FILE.test.ts, FILE being a path such as
// `pulumi/apply-once` (docs/comparison.md backs each claim that way). Then scripts/cited-paths.mjs:
// every repository path a doc or a comment names exists.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

let missingTests = 0;
for (const doc of readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md"))) {
  const text = readFileSync(join(root, "docs", doc), "utf8");
  for (const [, file, name] of text.matchAll(/`([a-z0-9/-]+)`: "([^"]+)"/g)) {
    const testFile = ["unit", "e2e"]
      .map((dir) => join(root, "test", dir, `${file}.test.ts`))
      .find(existsSync);
    if (testFile === undefined || !readFileSync(testFile, "utf8").includes(JSON.stringify(name))) {
      process.stderr.write(`docs-check: docs/${doc} cites a test that does not exist: ${file}: "${name}"\n`);
      missingTests++;
    }
  }
}
if (missingTests > 0) process.exit(1);
const cited = spawnSync(process.execPath, [join(root, "scripts", "cited-paths.mjs")], { stdio: "inherit" });
if (cited.status !== 0) process.exit(cited.status ?? 1);
const typedoc = join(
  dirname(createRequire(import.meta.url).resolve("typedoc/package.json")),
  "bin",
  "typedoc",
);
const result = spawnSync(
  process.execPath,
  [typedoc, "--options", join(root, "typedoc.json"), "--emit", "none", ...process.argv.slice(2)],
  { cwd: root, stdio: "inherit" },
);
if (result.error) throw result.error;
if (result.status !== 0) {
  process.stderr.write(
    "docs-check: every exported symbol of the entry points needs a doc comment (see the warnings above)\n",
  );
}
process.exit(result.status ?? 1);
