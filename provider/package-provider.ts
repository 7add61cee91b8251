/**
 * Which provider serves a Node.js program's `ClusterAddon`s. By default Pulumi's dynamic provider
 * host (`pulumi-resource-pulumi-nodejs`), which needs no set-up; when the program's project names
 * this package as a provider plugin, the package's own provider (`plugin/provider.ts`, one custom
 * resource `helm-handoff:index:ClusterAddon` per add-on, as in YAML, Go and Python programs), which
 * the engine starts in a fraction of the dynamic host's time. The project names it with a
 * `plugins.providers` entry `helm-handoff` in its `Pulumi.yaml` (a program run by the CLI, or an
 * Automation API workspace with a project directory), read here once per project; an Automation
 * API inline program gets the entry and the switch from {@link withPackageProvider}, which also
 * marks the program's own run (an inline program runs in the runner's process, which has no
 * project directory to read). See docs/languages.md.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import type {
  InlineProgramArgs,
  LocalWorkspaceOptions,
  ProjectSettings,
} from "@pulumi/pulumi/automation/index.js";

/** The plugin's name: the package's name in the engine's plugin lookup and in type tokens. */
export const PLUGIN_NAME = "helm-handoff";

/** Set while an inline program wrapped by {@link withPackageProvider} runs. */
const inlineRoute = new AsyncLocalStorage<boolean>();

/** The project file names Pulumi reads, in its order. */
const PROJECT_FILES = ["Pulumi.yaml", "Pulumi.yml", "Pulumi.json"];

/** Per project directory: whether its project file names the plugin. */
const projectRoutes = new Map<string, boolean>();

/** The directory of the installed package, holding `pulumi-resource-helm-handoff` (the engine runs it). */
export function packageDirectory(): string {
  return fileURLToPath(new URL("../../", import.meta.url));
}

/** The `plugins.providers` entry that lets the engine find the package's provider in this installation. */
export function pluginEntry(): { readonly name: string; readonly path: string } {
  return { name: PLUGIN_NAME, path: packageDirectory() };
}

/** Whether project settings (a parsed `Pulumi.yaml`) name this package under `plugins.providers`. */
export function namesPackageProvider(settings: unknown): boolean {
  const providers = (settings as { plugins?: { providers?: unknown } } | undefined)?.plugins?.providers;
  return (
    Array.isArray(providers) && providers.some((p) => (p as { name?: unknown } | null)?.name === PLUGIN_NAME)
  );
}

/** A project file's settings (YAML, of which JSON is a subset), the parser loaded on first use. */
function parseProject(text: string): unknown {
  const { parse } = createRequire(import.meta.url)("yaml") as typeof import("yaml");
  return parse(text);
}

/** Whether the project file in `dir` names the package's provider (read once per directory). */
function projectNamesPackageProvider(dir: string): boolean {
  const known = projectRoutes.get(dir);
  if (known !== undefined) return known;
  let named = false;
  for (const file of PROJECT_FILES) {
    const path = join(dir, file);
    if (!existsSync(path)) continue;
    const text = readFileSync(path, "utf8");
    // Most projects never mention the package: no parse for them.
    named = text.includes(PLUGIN_NAME) && namesPackageProvider(parseProject(text));
    break;
  }
  projectRoutes.set(dir, named);
  return named;
}

/**
 * Whether the `ClusterAddon`s of the program running now go to the package's provider: inside an
 * inline program wrapped by {@link withPackageProvider}, or when the program's project file names
 * it (the project's root directory, as the language host tells the program, else the working
 * directory, which the language host sets to the project's).
 * @param rootDirectory - the project's root directory as the Pulumi SDK knows it (a relative
 * placeholder or `""` when it does not)
 */
export function usesPackageProvider(rootDirectory: string): boolean {
  const inline = inlineRoute.getStore();
  if (inline !== undefined) return inline;
  // An SDK whose language host did not pass the directory says "rootDirectory" or "".
  return projectNamesPackageProvider(isAbsolute(rootDirectory) ? rootDirectory : process.cwd());
}

/**
 * For an Automation API inline program: the stack's arguments and workspace options with the
 * package's provider serving its `ClusterAddon`s, i.e. the project settings with a
 * `plugins.providers` entry for this installation of the package, and the program marked to use
 * it. The rest of the options is kept; without `projectSettings`, the default ones the Automation
 * API would write are extended.
 *
 * ```ts
 * const stack = await LocalWorkspace.createOrSelectStack(
 *   ...withPackageProvider({ stackName: "dev", projectName: "fleet", program }, { envVars }),
 * );
 * ```
 *
 * @throws Error when `workDir` holds a project file and no `projectSettings` are given (add the
 * entry to that file, or pass its settings)
 */
export function withPackageProvider<A extends InlineProgramArgs>(
  args: A,
  opts: LocalWorkspaceOptions = {},
): [A, LocalWorkspaceOptions] {
  const base = opts.projectSettings ?? defaultProjectSettings(args.projectName, opts.workDir);
  const plugins = (base as { plugins?: { providers?: readonly unknown[] } }).plugins;
  const providers = (plugins?.providers ?? []).filter(
    (p) => (p as { name?: unknown } | null)?.name !== PLUGIN_NAME,
  );
  const projectSettings = {
    ...base,
    plugins: { ...plugins, providers: [...providers, pluginEntry()] },
  } as ProjectSettings;
  const program = args.program;
  return [
    { ...args, program: () => inlineRoute.run(true, program) },
    { ...opts, projectSettings },
  ];
}

/** The project settings the Automation API writes for an inline program without any. */
function defaultProjectSettings(projectName: string, workDir: string | undefined): ProjectSettings {
  const existing =
    workDir === undefined ? undefined : PROJECT_FILES.find((f) => existsSync(join(workDir, f)));
  if (existing !== undefined) {
    throw new Error(
      `withPackageProvider: ${join(workDir as string, existing)} exists: pass its settings as projectSettings, or add to it plugins.providers: [{ name: ${PLUGIN_NAME}, path: ${packageDirectory()} }]`,
    );
  }
  return { name: projectName, runtime: "nodejs", main: process.cwd() };
}
