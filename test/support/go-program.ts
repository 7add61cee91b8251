/**
 * The Go program of docs/languages.md, compiled against the Go SDK that Pulumi's own generator makes
 * from a package schema, the way `pulumi package add` makes it for a Go program: the toolchain's
 * `pulumi-gen-go` (Pulumi's `pkg/v3/codegen/go` at the CLI's version, `scripts/pulumi-gen-go/`)
 * writes the SDK into `sdk/`, a module beside the program points the SDK's module path at it with
 * a `replace` line (as `pulumi package add` does), and `go build` and `go vet` check the program.
 * Go's language host cannot be had here (docs/languages.md), so the program is compiled, not run.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { execa } from "execa";
import { toolchainBinDir } from "../../local-cluster/index.js";
import { repoRoot } from "./charts.js";

/** The SDK's Go module path, as Pulumi derives it for a package named helm-handoff (no repository in the schema). */
export const GO_SDK_MODULE = "example.com/pulumi-helm-handoff/sdk/go";

/** The first `go` block under `## Go` in docs/languages.md. */
export function docsGoProgram(): string {
  const docs = readFileSync(join(repoRoot(), "docs", "languages.md"), "utf8");
  const section = docs.slice(docs.indexOf("\n## Go\n"));
  const match = /```go\n([\s\S]*?)```/.exec(section);
  if (!match?.[1]) throw new Error("docs/languages.md has no go block under ## Go");
  return match[1];
}

/**
 * Generates the Go SDK of `schemaJson` and compiles `program` against it (`go build`, `go vet`).
 * @param pulumiSdkVersion - the version of `github.com/pulumi/pulumi/sdk/v3` the program requires (the CLI's)
 * @throws the failing command's error (its stderr names the file and line)
 */
export async function compileGoProgram(
  schemaJson: string,
  program: string,
  pulumiSdkVersion: string,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "hh-go-program-"));
  const env = {
    PATH: [toolchainBinDir(), process.env.PATH ?? ""].join(delimiter),
    CGO_ENABLED: "0",
    GOFLAGS: "-buildvcs=false",
  };
  const run = (file: string, args: readonly string[], input?: string) =>
    execa(file, args, { cwd: dir, env, ...(input === undefined ? {} : { input }) });
  try {
    await mkdir(join(dir, "sdk"));
    await run("pulumi-gen-go", [join(dir, "sdk")], schemaJson);
    await writeFile(join(dir, "main.go"), program);
    await run("go", ["mod", "init", "example.com/docs-program"]);
    await run("go", ["mod", "edit", `-require=${GO_SDK_MODULE}@v0.0.0`, `-replace=${GO_SDK_MODULE}=./sdk`]);
    await run("go", ["get", `github.com/pulumi/pulumi/sdk/v3@${pulumiSdkVersion}`]);
    await run("go", ["mod", "tidy"]);
    await run("go", ["build", "-o", join(dir, "program"), "."]);
    await run("go", ["vet", "."]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
