/**
 * The package a user installs: what `npm pack` puts in the tarball (every entry point's code and
 * types, README, LICENSE; no tests, fixtures, charts, examples, scripts or source maps) and what
 * package.json makes the user's program install (runtime dependencies only; `@pulumi/pulumi`,
 * cdk8s and constructs as peers, so the user's program holds the one copy).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "./support/charts.js";
import { packedFiles } from "./support/project.js";

interface PackageJson {
  exports: Record<string, string | Record<string, string>>;
  typesVersions: Record<string, Record<string, string[]>>;
  bin: Record<string, string>;
  main: string;
  types: string;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

const pkg = JSON.parse(readFileSync(join(repoRoot(), "package.json"), "utf8")) as PackageJson;
const strip = (p: string): string => p.replace(/^\.\//, "");

test("the tarball holds the code and types of every entry point, the bin, README and LICENSE", async () => {
  const files = new Set(await packedFiles());
  const wanted = new Set<string>(["package.json", "README.md", "LICENSE", strip(pkg.main), strip(pkg.types)]);
  for (const target of Object.values(pkg.exports)) {
    for (const path of typeof target === "string" ? [target] : Object.values(target)) wanted.add(strip(path));
  }
  for (const paths of Object.values(pkg.typesVersions["*"] ?? {}))
    for (const p of paths) wanted.add(strip(p));
  for (const path of Object.values(pkg.bin)) wanted.add(strip(path));
  const missing = [...wanted].filter((f) => !files.has(f));
  assert.deepEqual(missing, []);
});

test("the tarball holds no tests, fixtures, charts, examples, scripts, benchmarks or source maps", async () => {
  const unwanted = (await packedFiles()).filter((f) =>
    /(^|\/)(test|tests|fixtures|charts|examples|bench|scripts)\/|\.map$|\.ts$(?<!\.d\.ts)|\.tgz$/.test(f),
  );
  assert.deepEqual(unwanted, []);
});

test("runtime dependencies are only what the library imports; Pulumi and cdk8s are peers", () => {
  assert.deepEqual(Object.keys(pkg.dependencies).sort(), ["@kubernetes/client-node", "yaml"]);
  assert.deepEqual(Object.keys(pkg.peerDependencies).sort(), ["@pulumi/pulumi", "cdk8s", "constructs"]);
  for (const name of ["@pulumi/pulumi", "@pulumi/kubernetes", "cdk8s", "constructs"]) {
    assert.ok(pkg.devDependencies[name], `${name} is a dev dependency (for the build, tests and examples)`);
  }
});

test("the build runs on prepare, so a git dependency installs a built package, and an installed tarball skips it", () => {
  // `pulumi package add ./node_modules/helm-handoff` runs `npm install` in the installed package,
  // which has dist/ but no tsconfig: prepare must not fail there.
  assert.equal(pkg.scripts.prepare, "[ ! -f tsconfig.build.json ] || tsc -p tsconfig.build.json");
});
