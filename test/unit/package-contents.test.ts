/**
 * The package a user installs: what `npm pack` puts in the tarball (every entry point's code and
 * types, README, LICENSE; no tests, fixtures, charts, examples, scripts or source maps), that the
 * build leaves every bin executable, and what package.json makes the user's program install
 * (runtime dependencies only; `@pulumi/pulumi`, cdk8s and constructs as peers, so the user's
 * program holds the one copy).
 */
import assert from "node:assert/strict";
import { constants, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import ts from "typescript";
import { packedFiles } from "../support/project.js";
import { repoRoot } from "../support/repo-root.js";

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

test("after the build every bin of package.json is executable, so npm's links to them run", () => {
  const notExecutable = Object.values(pkg.bin).filter(
    (path) => (statSync(join(repoRoot(), strip(path))).mode & constants.S_IXUSR) === 0,
  );
  assert.deepEqual(notExecutable, []);
});

test("the build runs on prepare, so a git dependency installs a built package, and an installed tarball skips it", () => {
  // `pulumi package add ./node_modules/helm-handoff` runs `npm install` in the installed package,
  // which has dist/ but no tsconfig: prepare must not fail there.
  assert.equal(pkg.scripts.prepare, "[ ! -f tsconfig.build.json ] || scripts/build.sh tsconfig.build.json");
});

/** Every name each entry point exports (values and types), from its declaration file in dist/. */
function exportedNames(entries: readonly string[]): Map<string, string[]> {
  const files = entries.map((entry) => {
    const target = pkg.exports[entry];
    const types = typeof target === "string" ? target : target?.types;
    assert.ok(types, `${entry} has types`);
    return join(repoRoot(), strip(types));
  });
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  return new Map(
    entries.map((entry, i) => {
      const source = program.getSourceFile(files[i] ?? "");
      const symbol = source && checker.getSymbolAtLocation(source);
      assert.ok(symbol, `${entry} is a module`);
      const names = checker
        .getExportsOfModule(symbol)
        .map((s) => s.name)
        .sort();
      return [entry, names];
    }),
  );
}

// Each entry point's public surface, name by name: adding or removing an export is a decision
// made here (and its signatures one made in docs/api/, which `npm run lint` checks).
const SURFACE: Readonly<Record<string, readonly string[]>> = {
  ".": [
    "AddonSpec",
    "AttemptRecord",
    "ChartSource",
    "ClusterIdentity",
    "ClusterIdentityOptions",
    "CredentialsRejectedError",
    "DeadlineExceededError",
    "Duration",
    "DurationInput",
    "ErrorCode",
    "HandoffChartSource",
    "HandoffRecord",
    "HandoffRecordInput",
    "HelmError",
    "HelmErrorDetails",
    "HelmFailureKind",
    "HelmHandoffError",
    "HelmNotFoundError",
    "HelmRunner",
    "HelmRunnerOptions",
    "HelmVersionError",
    "InstallOptions",
    "Ownership",
    "OwnershipError",
    "PathChartSource",
    "PermanentHelmError",
    "ReleaseBusyError",
    "ReleaseInfo",
    "ReleaseStateError",
    "RepoChartSource",
    "RetryPolicy",
    "SpecError",
    "Strategy",
    "TransientHelmError",
    "clusterIdentityFromKubeconfig",
    "makeHandoffRecord",
  ],
  "./pulumi": [
    "ChartSource",
    "ClusterAddon",
    "ClusterAddonArgs",
    "Duration",
    "DurationInput",
    "HandoffChartSource",
    "HandoffRecord",
    "InstallOptions",
    "InterruptedUpdateRecovery",
    "PathChartSource",
    "RecoverInterruptedUpdateOptions",
    "ReleaseStatus",
    "RepoChartSource",
    "RetryPolicy",
    "StackLock",
    "Strategy",
    "recoverInterruptedUpdate",
    "withPackageProvider",
  ],
  "./pulumi/dynamic": ["StoredState", "check", "create", "diff", "read", "remove", "update"],
  "./gitops": [
    "ArgoCdHandoffOptions",
    "ErrorCode",
    "FleetStatus",
    "FleetStatusOptions",
    "FleetVerdict",
    "FluxHandoffOptions",
    "FluxValuesReference",
    "HELM_CHART_LAYER_MEDIA_TYPE",
    "HandoffChartSource",
    "HandoffRecord",
    "HandoffState",
    "HandoffStatus",
    "HelmHandoffError",
    "KubeMetadata",
    "KubeObject",
    "ObjectCounts",
    "ReleaseOwnerNow",
    "RetireRefusedError",
    "RetiredStorage",
    "Strategy",
    "VerifyHandoffOptions",
    "WrongClusterError",
    "argoCdApplicationObject",
    "fleetStatus",
    "fluxHandoffObjects",
    "fluxHelmReleaseObject",
    "fluxSourceObject",
    "retireHelmStorage",
    "verifyHandoff",
  ],
  "./cdk8s": [
    "AddonSpec",
    "ArgoCdHandoff",
    "ArgoCdHandoffOptions",
    "ArgoCdHandoffProps",
    "ChartSource",
    "ClusterAddon",
    "ClusterAddonProps",
    "ClusterValue",
    "Duration",
    "DurationInput",
    "FluxHandoff",
    "FluxHandoffOptions",
    "FluxHandoffProps",
    "FluxValuesReference",
    "HandoffChartSource",
    "HandoffRecord",
    "InstallOptions",
    "KubeMetadata",
    "KubeObject",
    "LabelSelector",
    "PathChartSource",
    "RepoChartSource",
    "RetryPolicy",
    "Strategy",
  ],
  "./local-cluster": [
    "AddClusterOptions",
    "ApiResponse",
    "CapiManagement",
    "CapiOptions",
    "CapiWorkloadCluster",
    "ClusterProcess",
    "GitopsControllers",
    "GitopsKind",
    "LocalCluster",
    "LocalClusterIdentity",
    "LocalClusterOptions",
    "startLocalCluster",
  ],
};

test("every entry point exports exactly its listed names", () => {
  assert.deepEqual(
    Object.keys(pkg.exports)
      .filter((e) => e !== "./package.json")
      .sort(),
    Object.keys(SURFACE).sort(),
  );
  const exported = exportedNames(Object.keys(SURFACE));
  for (const [entry, names] of Object.entries(SURFACE)) {
    assert.deepEqual(exported.get(entry), [...names].sort(), entry);
  }
});
