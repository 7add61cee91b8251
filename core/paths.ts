/**
 * Where helm-handoff keeps things on disk, and the executable check every binary lookup uses.
 * Shared by the helm runners (async and sync) and the local clusters.
 *
 * @module
 */
import { accessSync, constants } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/**
 * The cache home: `$XDG_CACHE_HOME`, else `$HOME/.cache`.
 *
 * @param env - the environment to read `XDG_CACHE_HOME` and `HOME` from.
 */
export function cacheHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache");
}

/**
 * The directory where `npm run toolchain` (scripts/toolchain.sh) links helm and the test binaries:
 * `${XDG_CACHE_HOME:-$HOME/.cache}/helm-handoff/toolchain/bin`.
 *
 * @param env - the environment to read `XDG_CACHE_HOME` and `HOME` from.
 */
export function toolchainBinDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheHome(env), "helm-handoff", "toolchain", "bin");
}

/** Whether `path` is a file this process may execute. */
export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
