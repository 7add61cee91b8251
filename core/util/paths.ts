/**
 * Where helm-handoff keeps things on disk, the one way it replaces a file there, and the executable
 * check and the PATH scan every binary lookup uses. Shared by the helm runners (async and sync), the
 * render cache, the plugin cache and the local clusters.
 *
 * @module
 */
import { accessSync, constants, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join } from "node:path";

/**
 * The cache home: `$XDG_CACHE_HOME`, else `$HOME/.cache`.
 *
 * @param env - the environment to read `XDG_CACHE_HOME` and `HOME` from.
 */
export function cacheHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache");
}

/**
 * The directory where this repository's toolchain script (scripts/toolchain.sh) links helm and the test binaries:
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

/**
 * The first executable called `name` in the directories of `PATH`, or `undefined`.
 *
 * @param name - the executable's file name, e.g. `helm`.
 * @param env - the environment to read `PATH` from.
 */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Writes `content` to `path` through a temp file beside it (made with `mode`) renamed over it, so a
 * reader sees the old file or the new one, never a part; makes the directory first. Throws what the
 * file system says, leaving no temp file.
 */
export function writeFileAtomic(path: string, content: string, mode = 0o644): void {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(tmp, content, { mode });
    renameSync(tmp, path);
  } catch (error) {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // Nothing was written where the directory could not be made.
    }
    throw error;
  }
}
