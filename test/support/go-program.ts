/**
 * Go programs using the helm-handoff package, set up the way `pulumi package add` sets up a Go
 * program: the SDK that Pulumi's own Go generator makes from the package's schema (the toolchain's
 * `pulumi-gen-sdk go`: `pkg/v3/codegen/go` at the CLI's version, `scripts/pulumi-gen-sdk/`) in a
 * directory of the project, and the program's module pointing the SDK's module path at it with a
 * `replace` line. {@link compileGoProgram} compiles a program that way (`go build`, `go vet`);
 * {@link writeGoModule} lays out a project for `pulumi up` (Go's language host builds it then).
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { execa } from "execa";
import { toolchainBinDir } from "../../local-cluster/control-plane/binaries.js";
import { codeBlockAfter } from "./markdown.js";
import { repoRoot } from "./repo-root.js";

/** The SDK's Go module path, as Pulumi derives it for a package named helm-handoff (no repository in the schema). */
export const GO_SDK_MODULE = "example.com/pulumi-helm-handoff/sdk/go";

/** Where `pulumi package add` writes the Go SDK, relative to the program's directory. */
export const GO_SDK_DIR = "sdks/helm-handoff/go";

/** How Go builds here, also for Go's language host under `pulumi up`: no cgo, no VCS stamping. */
export const GO_BUILD_ENV: Readonly<Record<string, string>> = {
  CGO_ENABLED: "0",
  GOFLAGS: "-buildvcs=false",
};

/** The environment of the go commands: the toolchain first on PATH (`pulumi-gen-sdk`), {@link GO_BUILD_ENV}. */
function goEnv(): Record<string, string> {
  return { PATH: [toolchainBinDir(), process.env.PATH ?? ""].join(delimiter), ...GO_BUILD_ENV };
}

/** The first `go` block under `## Go (tested)` in docs/languages.md. */
export function docsGoProgram(): string {
  return codeBlockAfter(
    readFileSync(join(repoRoot(), "docs", "languages.md"), "utf8"),
    "## Go (tested)",
    "go",
  );
}

/**
 * In `dir` (which holds the program's `.go` files): generates the Go SDK of `schemaJson` under
 * {@link GO_SDK_DIR} and writes a tidy `go.mod` that requires it (replaced by that directory) and
 * `github.com/pulumi/pulumi/sdk/v3` at `pulumiSdkVersion`.
 * @throws the failing command's error (its stderr says why)
 */
export async function writeGoModule(
  dir: string,
  schemaJson: string,
  pulumiSdkVersion: string,
): Promise<void> {
  const run = (file: string, args: readonly string[], input?: string) =>
    execa(file, args, { cwd: dir, env: goEnv(), ...(input === undefined ? {} : { input }) });
  await mkdir(join(dir, GO_SDK_DIR), { recursive: true });
  await run("pulumi-gen-sdk", ["go", join(dir, GO_SDK_DIR)], schemaJson);
  await run("go", ["mod", "init", "example.com/program"]);
  await run("go", [
    "mod",
    "edit",
    `-require=${GO_SDK_MODULE}@v0.0.0`,
    `-replace=${GO_SDK_MODULE}=./${GO_SDK_DIR}`,
  ]);
  await run("go", ["get", `github.com/pulumi/pulumi/sdk/v3@${pulumiSdkVersion}`]);
  await run("go", ["mod", "tidy"]);
}

/**
 * Compiles `program` (a `main.go`) against the Go SDK of `schemaJson` (`go build`, `go vet`).
 * @param pulumiSdkVersion - the version of `github.com/pulumi/pulumi/sdk/v3` the program requires (the CLI's)
 * @throws the failing command's error (its stderr names the file and line)
 */
export async function compileGoProgram(
  schemaJson: string,
  program: string,
  pulumiSdkVersion: string,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "hh-go-program-"));
  try {
    await writeFile(join(dir, "main.go"), program);
    await writeGoModule(dir, schemaJson, pulumiSdkVersion);
    await execa("go", ["build", "-o", join(dir, "program"), "."], { cwd: dir, env: goEnv() });
    await execa("go", ["vet", "."], { cwd: dir, env: goEnv() });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
