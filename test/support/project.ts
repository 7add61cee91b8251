/**
 * Projects as users make them: a temp directory with its own package.json that installs the
 * tarball of `npm pack` (never a link into this checkout), driven by the real `pulumi` CLI (with
 * the Node.js language host on PATH) or by `npx cdk8s synth`. The tarball is packed once per test
 * process from the already compiled dist/ (`--ignore-scripts`: `npm test` compiled it, and a
 * second compile would rewrite files other suites are loading). Installs go through npm's cache,
 * so after the first run they need no download.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { execa, type Options } from "execa";
import { toolchainBinDir } from "../../local-cluster/control-plane/binaries.js";
import { repoRoot } from "./repo-root.js";

let tarball: Promise<string> | undefined;

/** The path of this checkout's `npm pack` tarball, packed once per process into a temp dir. */
export function packedTarball(): Promise<string> {
  tarball ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), "hh-pack-"));
    const { stdout } = await execa("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], {
      cwd: repoRoot(),
    });
    const [info] = JSON.parse(stdout) as { filename: string }[];
    if (!info) throw new Error(`npm pack printed no file: ${stdout}`);
    return join(dir, info.filename);
  })();
  return tarball;
}

/** The files `npm pack` would put in the tarball, paths relative to the package root. */
export async function packedFiles(): Promise<string[]> {
  const { stdout } = await execa("npm", ["pack", "--ignore-scripts", "--dry-run", "--json"], {
    cwd: repoRoot(),
  });
  const [info] = JSON.parse(stdout) as { files: { path: string }[] }[];
  return (info?.files ?? []).map((f) => f.path).sort();
}

/** The tsconfig.json of a project made by `pulumi new typescript` (commonjs, node resolution, no skipLibCheck). */
export const PULUMI_NEW_TYPESCRIPT_TSCONFIG = {
  compilerOptions: {
    strict: true,
    outDir: "bin",
    target: "es2020",
    module: "commonjs",
    moduleResolution: "node",
    sourceMap: true,
    experimentalDecorators: true,
    pretty: true,
    noFallthroughCasesInSwitch: true,
    noImplicitReturns: true,
    forceConsistentCasingInFileNames: true,
  },
  files: ["index.ts"],
} as const;

/** The Pulumi.yaml of a project made by `pulumi new typescript` or `pulumi new javascript`. */
export function pulumiProjectYaml(name: string): string {
  return `name: ${name}\ndescription: helm-handoff from a platform repo\nruntime:\n  name: nodejs\n  options:\n    packagemanager: npm\n`;
}

/**
 * The `plugins.providers` entry of docs/languages.md that lets Pulumi cache the package's schema
 * in a YAML program: the installed package as a project plugin, with its version.
 */
export function versionedPluginYaml(version: string): string {
  return `plugins:\n  providers:\n    - name: helm-handoff\n      path: ./node_modules/helm-handoff\n      version: ${version}\n`;
}

/** Formats a JSON file the way the templates do. */
export function jsonFile(value: unknown): string {
  return `${JSON.stringify(value, null, 4)}\n`;
}

/** The version of a package installed in this checkout (so test projects hit npm's cache). */
export function installedVersion(name: string): string {
  const file = join(repoRoot(), "node_modules", name, "package.json");
  return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
}

/** Options of {@link createProject}. */
export interface ProjectOptions {
  /** Name of the temp dir's prefix and of the npm package. */
  readonly name: string;
  /** package.json fields besides name, version, dependencies and devDependencies (e.g. `type`, `main`). */
  readonly packageJson?: Readonly<Record<string, unknown>>;
  /** Dependencies besides helm-handoff (which is always the packed tarball). */
  readonly dependencies?: Readonly<Record<string, string>>;
  /** Dev dependencies. @default none */
  readonly devDependencies?: Readonly<Record<string, string>>;
  /** Files to write, by path relative to the project root. */
  readonly files: Readonly<Record<string, string>>;
}

/** A project made by {@link createProject}. */
export interface Project {
  /** The project's root directory. */
  readonly dir: string;
  /** Removes the project directory. */
  remove(): Promise<void>;
}

/** Writes a project into a new temp dir and runs `npm install` there (helm-handoff from the tarball). */
export async function createProject(options: ProjectOptions): Promise<Project> {
  const dir = await mkdtemp(join(tmpdir(), `hh-project-${options.name}-`));
  try {
    const packageJson = {
      name: options.name,
      version: "0.0.0",
      private: true,
      ...options.packageJson,
      dependencies: { ...options.dependencies, "helm-handoff": `file:${await packedTarball()}` },
      devDependencies: { ...options.devDependencies },
    };
    await writeFile(join(dir, "package.json"), `${JSON.stringify(packageJson, null, 2)}\n`);
    for (const [path, text] of Object.entries(options.files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    await execa("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], {
      cwd: dir,
    });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * The directory holding `pulumi-language-nodejs`, Pulumi's Node.js language host, which every
 * Pulumi install ships beside its CLI and the project's toolchain builds: the first directory on
 * PATH that has it.
 *
 * @throws Error saying how to get it, when it is nowhere: tests of the CLI path fail, not skip.
 */
export function languageHostDir(): string {
  const dirs = (process.env.PATH ?? "").split(delimiter);
  const found = dirs.find((dir) => dir !== "" && existsSync(join(dir, "pulumi-language-nodejs")));
  if (found === undefined) {
    throw new Error(
      "pulumi-language-nodejs (Pulumi's Node.js language host) is not on PATH: `pulumi up` in a project " +
        "directory cannot run without it. Run the tests with `npm test` (scripts/toolchain.sh builds it), " +
        "or put a Pulumi CLI install's directory (https://www.pulumi.com/docs/install/) on PATH.",
    );
  }
  return found;
}

/** What a finished `pulumi` command printed. */
export interface CliResult {
  readonly stdout: string;
  readonly stderr: string;
  /** stdout and stderr interleaved. */
  readonly all: string;
}

/** Options of one {@link PulumiCli.run}: its standard input, and environment beyond the CLI's own. */
export type CliRunOptions = Pick<Options, "input" | "inputFile"> & {
  readonly env?: Readonly<Record<string, string>>;
};

/** A Pulumi CLI bound to one project, one stack and a private file:// backend. */
export interface PulumiCli {
  /** Runs `pulumi ARGS` in the project; rejects with the command's output when it fails. */
  run(args: readonly string[], options?: CliRunOptions): Promise<CliResult>;
  /** The stack's `file://` backend directory (state and locks). */
  readonly backendDir: string;
  /** The CLI's PULUMI_HOME (its plugin cache is `plugins/` there). */
  readonly home: string;
  /** Removes the backend and PULUMI_HOME directories. */
  dispose(): Promise<void>;
}

/**
 * Prepares `pulumi` for a project directory: a fresh file:// backend and PULUMI_HOME, the toolchain
 * first on PATH, then the language host's directory, and a new stack selected.
 */
export async function pulumiCli(
  projectDir: string,
  extraEnv: Readonly<Record<string, string>> = {},
): Promise<PulumiCli> {
  const backendDir = await mkdtemp(join(tmpdir(), "hh-cli-backend-"));
  const home = await mkdtemp(join(tmpdir(), "hh-cli-home-"));
  const env = {
    PATH: [toolchainBinDir(), languageHostDir(), process.env.PATH ?? ""].join(delimiter),
    PULUMI_BACKEND_URL: `file://${backendDir}`,
    PULUMI_HOME: home,
    PULUMI_CONFIG_PASSPHRASE: "helm-handoff-cli-test",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    ...extraEnv,
  };
  const run = async (
    args: readonly string[],
    { env: more, ...options }: CliRunOptions = {},
  ): Promise<CliResult> => {
    const r = await execa("pulumi", [...args, "--non-interactive"], {
      cwd: projectDir,
      env: { ...env, ...more },
      all: true,
      ...options,
    });
    return { stdout: String(r.stdout), stderr: String(r.stderr), all: String(r.all) };
  };
  await run(["stack", "init", `t${Math.random().toString(36).slice(2, 10)}`]);
  return {
    run,
    backendDir,
    home,
    dispose: async () => {
      await rm(backendDir, { recursive: true, force: true });
      await rm(home, { recursive: true, force: true });
    },
  };
}
