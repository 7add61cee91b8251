/**
 * Where the local cluster's binaries come from: `PATH` first, then the project toolchain's bin dir
 * (the same PATH scan as helm's lookup), the kwok stage files beside kwok, and the
 * dynamic-provider plugin directory of the installed `@pulumi/pulumi`.
 *
 * @module
 */
import { existsSync, readdirSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { cacheHome, findOnPath, isExecutable, toolchainBinDir } from "../../core/util/paths.js";

export { toolchainBinDir };

/**
 * The directory holding `pulumi-resource-pulumi-nodejs`, the dynamic-provider plugin shipped inside
 * the installed `@pulumi/pulumi` package. The engine finds plugins on `PATH`: put this directory on
 * the `PATH` of the Pulumi CLI that runs a program with `ClusterAddon`s. It belongs to one
 * `node_modules`, so it is not linked into the shared toolchain directory.
 */
export function pulumiNodejsPluginDir(): string {
  return dirname(createRequire(import.meta.url).resolve("@pulumi/pulumi/package.json"));
}

/**
 * The project's cache directory, `${XDG_CACHE_HOME:-$HOME/.cache}/helm-handoff`.
 *
 * @param env - the environment to read `XDG_CACHE_HOME` and `HOME` from.
 */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheHome(env), "helm-handoff");
}

/**
 * The absolute path of an executable, looked up on `PATH` first, then in {@link toolchainBinDir}.
 *
 * @param name - the executable's file name, e.g. `kube-apiserver`.
 * @param env - the environment to read `PATH`, `XDG_CACHE_HOME` and `HOME` from.
 * @throws Error naming the binary and `npm run toolchain` when it is found nowhere.
 */
export function findBinary(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const onPath = findOnPath(name, env);
  if (onPath !== undefined) return onPath;
  const toolchain = toolchainBinDir(env);
  if (isExecutable(join(toolchain, name))) return join(toolchain, name);
  throw new Error(
    `${name} was not found on PATH nor in ${toolchain}; run \`npm run toolchain\` to build the test toolchain`,
  );
}

/**
 * The kwok stage files (`*.yaml`) kept beside the kwok binary by the toolchain, in a `kwok-stages`
 * directory next to the binary (or next to the file it links to), or in {@link toolchainBinDir}.
 *
 * @param kwokPath - the path of the kwok binary.
 * @param env - the environment used to find the toolchain directory.
 * @throws Error when no stage directory with YAML files is found.
 */
export function kwokStageFiles(kwokPath: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const candidates = [dirname(kwokPath), dirname(realpathSync(kwokPath)), toolchainBinDir(env)].map((dir) =>
    join(dir, "kwok-stages"),
  );
  for (const dir of candidates) {
    if (!existsSync(dir)) continue;
    const files = readdirSync(dir)
      .filter((file) => file.endsWith(".yaml"))
      .sort();
    if (files.length > 0) return files.map((file) => join(dir, file));
  }
  throw new Error(
    `no kwok stage files (kwok-stages/*.yaml) were found next to ${kwokPath}; run \`npm run toolchain\` to install them`,
  );
}
