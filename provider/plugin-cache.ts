/**
 * The package's provider in Pulumi's plugin cache, so that a Node.js program gets it with no set-up:
 * the engine looks a resource plugin up by name and exact version in
 * `$PULUMI_HOME/plugins/resource-helm-handoff-v<version>/pulumi-resource-helm-handoff` (after a
 * project's `plugins.providers` and the user's PATH), and runs what it finds there. The program's
 * first `ClusterAddon` writes there a launcher for the installation it runs from (the node that
 * runs the program, on the package's `main`, as the package's own launcher does), then registers
 * with that version. The file is replaced only when it says something else (another installation
 * or node), by a rename, so an engine starting it meanwhile runs the old or the new one; a file
 * there that this package did not write is used as it is. Where none can be written (Windows, a
 * read-only home), the add-ons go to the dynamic provider and the program says why, once.
 *
 * @module
 */
import { closeSync, openSync, readSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { writeFileAtomic } from "../core/util/paths.js";

/** The first line after the shebang of every launcher this package writes. */
const MARK = "# helm-handoff launcher:";

/** What came of putting the package's provider in the cache: its version, or why not. */
export type CachedPlugin = { readonly version: string } | { readonly unavailable: string };

/** Per plugin path, what an earlier add-on of this process got. */
const cached = new Map<string, CachedPlugin>();

/** The plugin cache the engine reads: `$PULUMI_HOME/plugins`, by default `~/.pulumi/plugins`. */
export function pluginCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const home =
    env.PULUMI_HOME === undefined || env.PULUMI_HOME === "" ? join(homedir(), ".pulumi") : env.PULUMI_HOME;
  return join(home, "plugins");
}

/** The launcher the engine runs for the installation whose plugin entry point is `mainPath`, started by `nodePath`. */
export function launcherScript(mainPath: string, nodePath: string): string {
  return `#!/bin/sh\n${MARK} the package's provider from this installation (rewritten by its programs).\nexec ${shellQuoted(nodePath)} ${shellQuoted(mainPath)} "$@"\n`;
}

/**
 * Makes the package's provider whose entry point is `mainPath` (the package's `main`, version
 * `version`) the one the engine finds in the plugin cache of `env`, once per process and path.
 */
export function cachePlugin(
  mainPath: string,
  version: string,
  env: NodeJS.ProcessEnv = process.env,
  nodePath: string = process.execPath,
): CachedPlugin {
  const dir = join(pluginCacheDir(env), `resource-helm-handoff-v${version}`);
  const path = join(dir, "pulumi-resource-helm-handoff");
  const known = cached.get(path);
  if (known !== undefined) return known;
  const result = writeLauncher(path, launcherScript(mainPath, nodePath), version);
  cached.set(path, result);
  return result;
}

function writeLauncher(path: string, script: string, version: string): CachedPlugin {
  if (process.platform === "win32") {
    return { unavailable: "the plugin cache launcher is a shell script, which Windows does not run" };
  }
  const current = headOf(path, Buffer.byteLength(script) + 1);
  // Equal, or a plugin of this version this package did not write (an installed release): use it.
  if (current === script || (current !== undefined && !current.includes(MARK))) return { version };
  try {
    writeFileAtomic(path, script, 0o755);
    return { version };
  } catch (error) {
    return {
      unavailable: `${path} cannot be written (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    };
  }
}

/** The first `limit` bytes of `path` as text (a released plugin binary is not read whole), or undefined. */
function headOf(path: string, limit: number): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const buffer = Buffer.alloc(limit);
    return buffer.subarray(0, readSync(fd, buffer, 0, limit, 0)).toString("utf8");
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** `text` as one word of `sh`. */
function shellQuoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
