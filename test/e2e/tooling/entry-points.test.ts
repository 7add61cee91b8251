/**
 * Every entry point is usable where users are: in a project as `pulumi new typescript` makes it
 * (commonjs, node resolution, no `skipLibCheck`, so every declaration file the package ships and
 * pulls in is checked) and in a `nodenext` ES module project, each installing the `npm pack`
 * tarball. The list of entry points comes from package.json `exports`, so a new one cannot be
 * missed: a program imports every one, `tsc` type-checks and compiles it, `node` runs it, and every
 * value an entry point's types declare is there at run time.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { execa } from "execa";
import ts from "typescript";
import {
  createProject,
  installedVersion,
  jsonFile,
  PULUMI_NEW_TYPESCRIPT_TSCONFIG,
} from "../../support/project.js";
import { repoRoot } from "../../support/repo-root.js";

interface PackageJson {
  readonly exports: Record<string, string | Record<string, string>>;
}

const pkg = JSON.parse(readFileSync(join(repoRoot(), "package.json"), "utf8")) as PackageJson;

/** Every entry point (`exports` key but `./package.json`) as a user imports it, with its types file. */
const ENTRY_POINTS = Object.entries(pkg.exports)
  .filter(([key]) => key !== "./package.json")
  .map(([key, target]) => ({
    specifier: key === "." ? "helm-handoff" : `helm-handoff/${key.slice(2)}`,
    types: typeof target === "string" ? target : target.types,
  }));

/** A program that imports every entry point and prints the names each one has at run time. */
function program(): string {
  const imports = ENTRY_POINTS.map(({ specifier }, i) => `import * as entry${i} from "${specifier}";`);
  const names = ENTRY_POINTS.map(({ specifier }, i) => `  "${specifier}": Object.keys(entry${i}),`);
  return `${imports.join("\n")}

const loaded: Record<string, string[]> = {
${names.join("\n")}
};
console.log(JSON.stringify(loaded));
`;
}

/** The names of the values (not types) a declaration file in the installed package exports. */
function declaredValues(projectDir: string, types: string): string[] {
  const file = join(projectDir, "node_modules", "helm-handoff", types);
  const checked = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
  });
  const checker = checked.getTypeChecker();
  const source = checked.getSourceFile(file);
  const module = source && checker.getSymbolAtLocation(source);
  assert.ok(module, `${types} is a module`);
  return checker
    .getExportsOfModule(module)
    .filter((symbol) => {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      const typeOnly = symbol.declarations?.some(
        (d) => ts.isExportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly),
      );
      return (target.flags & ts.SymbolFlags.Value) !== 0 && !typeOnly;
    })
    .map((symbol) => symbol.name)
    .sort();
}

interface Shape {
  readonly name: string;
  readonly packageJson: Record<string, unknown>;
  readonly compilerOptions: Record<string, unknown>;
}

const SHAPES: readonly Shape[] = [
  {
    name: "a project as `pulumi new typescript` makes it (commonjs, node resolution, no skipLibCheck)",
    packageJson: { main: "bin/index.js" },
    compilerOptions: PULUMI_NEW_TYPESCRIPT_TSCONFIG.compilerOptions,
  },
  {
    name: "a nodenext ES module project (no skipLibCheck)",
    packageJson: { main: "bin/index.js", type: "module" },
    compilerOptions: {
      ...PULUMI_NEW_TYPESCRIPT_TSCONFIG.compilerOptions,
      module: "nodenext",
      moduleResolution: "nodenext",
    },
  },
];

describe("every entry point from the installed tarball", { timeout: 600_000 }, () => {
  test("the entry points are package.json's exports, each with its types", () => {
    assert.ok(ENTRY_POINTS.length > 0);
    for (const { specifier, types } of ENTRY_POINTS) assert.ok(types, `${specifier} has types`);
  });

  for (const shape of SHAPES) {
    test(`every entry point type-checks and loads in ${shape.name}`, async () => {
      const project = await createProject({
        name: `entry-points-${shape.packageJson.type === "module" ? "esm" : "cjs"}`,
        packageJson: shape.packageJson,
        // The peers the pulumi and cdk8s entry points name, as a user of each installs them.
        dependencies: {
          "@pulumi/pulumi": installedVersion("@pulumi/pulumi"),
          cdk8s: installedVersion("cdk8s"),
          constructs: installedVersion("constructs"),
        },
        devDependencies: {
          typescript: installedVersion("typescript"),
          "@types/node": installedVersion("@types/node"),
        },
        files: {
          "tsconfig.json": jsonFile({
            ...PULUMI_NEW_TYPESCRIPT_TSCONFIG,
            compilerOptions: shape.compilerOptions,
          }),
          "index.ts": program(),
        },
      });
      try {
        const compiled = await execa(
          join(project.dir, "node_modules", ".bin", "tsc"),
          ["-p", ".", "--pretty", "false"],
          {
            cwd: project.dir,
            reject: false,
            all: true,
          },
        );
        assert.equal(compiled.exitCode, 0, `tsc found errors:\n${String(compiled.all)}`);
        const ran = await execa("node", ["bin/index.js"], { cwd: project.dir });
        const loaded = JSON.parse(String(ran.stdout)) as Record<string, string[]>;
        for (const { specifier, types } of ENTRY_POINTS) {
          const names = (loaded[specifier] ?? []).filter((n) => n !== "default" && n !== "__esModule").sort();
          assert.deepEqual(names, declaredValues(project.dir, types ?? ""), specifier);
        }
      } finally {
        await project.remove();
      }
    });
  }
});
