/**
 * Which provider serves a Node.js program's `ClusterAddon`s. By default the package's own provider
 * (`plugin/provider.ts`, one custom resource `helm-handoff:index:ClusterAddon` per add-on, as in
 * YAML, Go and Python programs), which the engine starts in a fraction of the time of Pulumi's
 * dynamic provider host: found in Pulumi's plugin cache, where the program's first add-on puts a
 * launcher (`plugin-cache.ts`), or where the project names it (a `plugins.providers` entry
 * `helm-handoff` in its `Pulumi.yaml`, read once per project; for an Automation API inline program,
 * {@link withPackageProvider}, which also marks the program's own run). Pulumi's dynamic provider
 * host (`pulumi-resource-pulumi-nodejs`) serves them when `HELM_HANDOFF_PULUMI_PROVIDER=dynamic`
 * asks for it, or when the cache cannot hold the launcher. See docs/languages.md.
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
import { cachePlugin } from "./plugin-cache.js";

/** The plugin's name: the package's name in the engine's plugin lookup and in type tokens. */
export const PLUGIN_NAME = "helm-handoff";

/** Set while an inline program wrapped by {@link withPackageProvider} (or {@link onRoute}) runs. */
const inlineRoute = new AsyncLocalStorage<ProviderRoute["kind"]>();

/**
 * `program` with its `ClusterAddon`s on the route `kind`, whatever the environment says (for an
 * inline program; the tests' way to pick the dynamic route without changing `process.env`).
 */
export function onRoute<T>(kind: ProviderRoute["kind"], program: () => T): () => T {
  return () => inlineRoute.run(kind, program);
}

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

/** The environment variable with which a program chooses its route: `dynamic` or `package`. */
export const ROUTE_VARIABLE = "HELM_HANDOFF_PULUMI_PROVIDER";

/**
 * Which provider serves the program's `ClusterAddon`s: the package's provider as the project names
 * it (`plugins.providers`, or an inline program wrapped by {@link withPackageProvider}), else the
 * package's provider from the plugin cache (`plugin-cache.ts`, registered with `version`), unless
 * `HELM_HANDOFF_PULUMI_PROVIDER=dynamic` asks for Pulumi's dynamic provider host or the cache
 * cannot hold the launcher (then `warning` says why).
 * @param rootDirectory - the project's root directory as the Pulumi SDK knows it (a relative
 * placeholder or `""` when it does not)
 */
export function providerRoute(rootDirectory: string, env: NodeJS.ProcessEnv = process.env): ProviderRoute {
  const inline = inlineRoute.getStore();
  if (inline !== undefined) return { kind: inline };
  const asked = env[ROUTE_VARIABLE];
  if (asked === "dynamic") return { kind: "dynamic" };
  if (asked !== undefined && asked !== "" && asked !== "package") {
    throw new Error(
      `${ROUTE_VARIABLE}=${asked}: say "dynamic" (Pulumi's dynamic provider host) or "package" (the package's provider, the default)`,
    );
  }
  // Without the root directory (an inline program, an older SDK), the working directory's project.
  if (projectNamesPackageProvider(isAbsolute(rootDirectory) ? rootDirectory : process.cwd())) {
    return { kind: "package" };
  }
  const pkg = packageJson();
  const cached = cachePlugin(join(packageDirectory(), pkg.main), pkg.version, env);
  if ("version" in cached) return { kind: "package", version: cached.version };
  return {
    kind: "dynamic",
    warning: `helm-handoff: ClusterAddons use Pulumi's dynamic provider host: ${cached.unavailable}`,
  };
}

/** The provider a program's `ClusterAddon`s go to (see {@link providerRoute}). */
export type ProviderRoute =
  | { readonly kind: "package"; readonly version?: string }
  | { readonly kind: "dynamic"; readonly warning?: string };

let manifest: { readonly main: string; readonly version: string } | undefined;

/** The installed package's `main` (the plugin's entry point) and version (the plugin's in the cache). */
function packageJson(): { readonly main: string; readonly version: string } {
  manifest ??= JSON.parse(readFileSync(join(packageDirectory(), "package.json"), "utf8")) as {
    main: string;
    version: string;
  };
  return manifest;
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
    { ...args, program: onRoute("package", program) },
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
