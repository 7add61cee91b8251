#!/usr/bin/env node
// The API reports (`npm run lint` checks them; `npm run api` rewrites them): one file per entry
// point of package.json `exports`, docs/api/NAME.api.md, made by API Extractor from the declaration
// files the build ships (emitted here with tsconfig.build.json into dist/api-report/: inside the
// project, so that the packages they import resolve, and outside node_modules/, which API Extractor
// takes for other packages). A signature change then shows in the diff of a committed file. Fails, naming the type, when an entry point's API uses a type the entry point does not
// export (ae-forgotten-export): a caller must be able to name every type it passes or gets. And
// fails when an entry point exports more names than its budget (BUDGET): a surface a newcomer
// holds in their head; raising a budget is a decision made here.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const update = process.argv.includes("--update");
const work = join(root, "dist", "api-report");
const declarations = join(work, "types");
const reports = join(root, "docs", "api");

rmSync(work, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });
const tsc = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc");
const emitted = spawnSync(
  process.execPath,
  [tsc, "-p", join(root, "tsconfig.build.json"), "--emitDeclarationOnly", "--outDir", declarations],
  { cwd: root, stdio: "inherit" },
);
if (emitted.status !== 0) process.exit(emitted.status ?? 1);

/** The most names each entry point may export. */
const BUDGET = {
  ".": 40,
  "./pulumi": 20,
  "./pulumi/dynamic": 7,
  "./gitops": 29,
  "./cdk8s": 24,
  "./local-cluster": 12,
};

const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
let failed = 0;
for (const [key, target] of Object.entries(pkg.exports)) {
  if (typeof target === "string") continue; // ./package.json
  const name = key === "." ? pkg.name : `${pkg.name}-${key.slice(2).replaceAll("/", "-")}`;
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: root,
      mainEntryPointFilePath: join(declarations, target.types.replace(/^\.\/dist\//, "")),
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            module: "nodenext",
            moduleResolution: "nodenext",
            target: "es2023",
            lib: ["es2023"],
            types: ["node"],
            strict: true,
            skipLibCheck: true,
          },
          include: [declarations],
        },
      },
      apiReport: {
        enabled: true,
        reportFolder: reports,
        reportTempFolder: join(work, "reports"),
        reportFileName: name,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: "error" } },
        extractorMessageReporting: {
          default: { logLevel: "warning" },
          "ae-forgotten-export": { logLevel: "error", addToApiReportFile: false },
          // Release tags and links: the package has no beta/alpha levels; typedoc checks the links.
          "ae-missing-release-tag": { logLevel: "none" },
          "ae-unresolved-link": { logLevel: "none" },
        },
        // The doc comments' syntax is typedoc's (scripts/docs-check.mjs), not TSDoc's.
        tsdocMessageReporting: { default: { logLevel: "none" } },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: join(root, "package.json"),
  });
  const result = Extractor.invoke(config, { localBuild: update, messageCallback: quietInfo });
  if (!result.succeeded || result.warningCount > 0 || (!update && result.apiReportChanged)) {
    process.stderr.write(
      `api-report: ${key}: ${result.errorCount} errors, ${result.warningCount} warnings` +
        `${result.apiReportChanged ? `, docs/api/${name}.api.md differs (run \`npm run api\` and commit it)` : ""}\n`,
    );
    failed++;
  }
  const report = readFileSync(join(reports, `${name}.api.md`), "utf8");
  const names =
    report.match(
      /^export (?:declare )?(?:abstract )?(?:class|interface|type|function|const|enum|let|var) /gm,
    ) ?? [];
  if (BUDGET[key] === undefined || names.length > BUDGET[key]) {
    process.stderr.write(
      `api-report: ${key} exports ${names.length} names, over its budget of ${BUDGET[key] ?? 0} (scripts/api-report.mjs BUDGET)\n`,
    );
    failed++;
  }
}
process.exit(failed > 0 ? 1 : 0);

/** Keeps API Extractor's progress lines out of the lint output; warnings and errors still print. */
function quietInfo(message) {
  if (message.logLevel === "info" || message.logLevel === "verbose") message.handled = true;
}
