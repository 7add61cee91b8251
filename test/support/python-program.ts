/**
 * Python programs using the helm-handoff package, set up the way `pulumi new python` and then
 * `pulumi package add ./node_modules/helm-handoff` set up a Python program: `Pulumi.yaml` with
 * `runtime: python` and the virtualenv `venv`, the package under `packages:`, the SDK that Pulumi's
 * own Python generator makes from the package's schema (the toolchain's `pulumi-gen-sdk python`:
 * `pkg/v3/codegen/python` at the CLI's version, `scripts/pulumi-gen-sdk/`) under
 * `sdks/helm-handoff`, named in `requirements.txt` beside `pulumi`, and installed with pip from PyPI
 * into the virtualenv (versions pinned by test/fixtures/python-constraints.txt; wheels come from
 * pip's cache after the first run). {@link pythonEnv} is how `pulumi` runs such a project here: with
 * the virtualenv activated, because the Python language host the toolchain has does not read the
 * `virtualenv` option (docs/languages.md says why).
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { execa } from "execa";
import { toolchainBinDir } from "../../local-cluster/control-plane/binaries.js";
import { codeBlockAfter } from "./markdown.js";
import { languageHostDir } from "./project.js";
import { repoRoot } from "./repo-root.js";

/** Where `pulumi package add` writes the Python SDK, relative to the program's directory. */
export const PYTHON_SDK_DIR = "sdks/helm-handoff";

/** The pins of every Python package the tests install (a pip constraints file). */
export const PYTHON_CONSTRAINTS = join(repoRoot(), "test", "fixtures", "python-constraints.txt");

/** The Pulumi.yaml of a project made by `pulumi new python`, with the package `pulumi package add` adds. */
export function pythonProjectYaml(name: string): string {
  return (
    `name: ${name}\ndescription: helm-handoff from a platform repo\n` +
    "runtime:\n  name: python\n  options:\n    virtualenv: venv\n" +
    "packages:\n  helm-handoff: ./node_modules/helm-handoff\n"
  );
}

/** requirements.txt as `pulumi new python` writes it, with the SDK's line `pulumi package add` appends. */
export const PYTHON_REQUIREMENTS = `pulumi>=3.0.0,<4.0.0\n${PYTHON_SDK_DIR}\n`;

/** The first `python` block under `## Python (tested)` in docs/languages.md. */
export function docsPythonProgram(): string {
  return codeBlockAfter(
    readFileSync(join(repoRoot(), "docs", "languages.md"), "utf8"),
    "## Python (tested)",
    "python",
  );
}

/**
 * In the project `dir` (with its requirements.txt written): generates the Python SDK of
 * `schemaJson` under {@link PYTHON_SDK_DIR} (when given: {@link PYTHON_REQUIREMENTS} names it), makes
 * the virtualenv `venv` (`python3 -m venv`) and installs requirements.txt into it with pip, pinned
 * by {@link PYTHON_CONSTRAINTS}.
 * @throws the failing command's error (its stderr says why)
 */
export async function installPythonRequirements(dir: string, schemaJson?: string): Promise<void> {
  const env = { PATH: [toolchainBinDir(), process.env.PATH ?? ""].join(delimiter) };
  if (schemaJson !== undefined) {
    await mkdir(join(dir, PYTHON_SDK_DIR), { recursive: true });
    await execa("pulumi-gen-sdk", ["python", join(dir, PYTHON_SDK_DIR)], {
      cwd: dir,
      env,
      input: schemaJson,
    });
  }
  await execa("python3", ["-m", "venv", "venv"], { cwd: dir, env });
  await execa(
    join(dir, "venv", "bin", "python"),
    ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", "requirements.txt"],
    // PIP_CONSTRAINT, not -c: the environment reaches the pip that builds the SDK's wheel too.
    { cwd: dir, env: { ...env, PIP_CONSTRAINT: PYTHON_CONSTRAINTS, PIP_NO_INPUT: "1" } },
  );
}

/**
 * The environment `pulumi` runs the project `dir` in (extra to support/project.ts's): its virtualenv
 * activated (`venv/bin` first on PATH, `VIRTUAL_ENV`), as `source venv/bin/activate` does.
 */
export function pythonEnv(dir: string): Record<string, string> {
  const venv = join(dir, "venv");
  return {
    PATH: [join(venv, "bin"), toolchainBinDir(), languageHostDir(), process.env.PATH ?? ""].join(delimiter),
    VIRTUAL_ENV: venv,
  };
}
