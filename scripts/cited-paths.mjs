#!/usr/bin/env node
// The cited-paths check (`npm run lint` runs it): every repository path named in a doc (README,
// CONTRIBUTING, docs/*.md) or in a comment of the code, tests and scripts must exist, so a move
// never leaves a prose path behind. A path counts as ours when its first folder is one of the
// repository's top-level folders; paths of upstream projects are told apart by the few prefixes in
// UPSTREAM. A cited `.js` file may be the compiled name of a `.ts` (or `.cts`) source.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const TOP = [
  "core",
  "provider",
  "constructs",
  "constructs-jsii",
  "local-cluster",
  "test",
  "examples",
  "scripts",
  "bench",
  "docs",
  ".ci",
];
// Folders of Cluster API's and Pulumi's own repositories that the docs cite by their upstream path.
const UPSTREAM = [
  "core/config/",
  "core/main.go",
  "core/reconcilers/",
  "test/infrastructure/",
  "docs/book/",
  "test/e2e/data/",
];
const EXT = "ts|cts|mts|js|cjs|mjs|sh|md|json|yaml|yml|go|txt|py|java|xml";
const pathRe = new RegExp(
  `(?<![\\w./@-])((?:${TOP.map((t) => t.replace(".", "\\.")).join("|")})/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\\.(?:${EXT}))(?![\\w/-])`,
  "g",
);

const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard"], { cwd: root, encoding: "utf8" })
  .split("\n")
  .filter(
    (f) => f && !f.startsWith("test/charts/") && !f.includes("node_modules/") && existsSync(join(root, f)),
  );
const isDoc = (f) =>
  f === "README.md" || f === "CONTRIBUTING.md" || (f.startsWith("docs/") && f.endsWith(".md"));
const isCode = (f) => /\.(ts|cts|mts|mjs|sh|go)$/.test(f) || f === ".ci/run";
const commentLine = /^\s*(\*|\/\/|#|\/\*\*)/;

const exists = (p) =>
  existsSync(join(root, p)) ||
  (/\.js$/.test(p) &&
    (existsSync(join(root, p.replace(/\.js$/, ".ts"))) ||
      existsSync(join(root, p.replace(/\.js$/, ".cts"))))) ||
  (/\.cjs$/.test(p) && existsSync(join(root, p.replace(/\.cjs$/, ".cts"))));

let missing = 0;
for (const file of files) {
  if (!isDoc(file) && !isCode(file)) continue;
  const lines = readFileSync(join(root, file), "utf8").split("\n");
  lines.forEach((line, i) => {
    if (!isDoc(file) && !commentLine.test(line)) return;
    for (const [, path] of line.matchAll(pathRe)) {
      if (UPSTREAM.some((u) => path.startsWith(u)) || /\b[A-Z]{3,}\b/.test(path) || exists(path)) continue;
      process.stderr.write(`cited-paths: ${file}:${i + 1} names ${path}, which does not exist\n`);
      missing++;
    }
  });
}
if (missing > 0) {
  process.stderr.write(`cited-paths: ${missing} cited path(s) do not exist: fix or remove them\n`);
  process.exit(1);
}
