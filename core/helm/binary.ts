/**
 * Which helm runs, and whether it is new enough. The lookup order is the same for both runners:
 * the explicit `helmBinary` option, then `$HELM_HANDOFF_HELM`, then `helm` on PATH (a development
 * checkout puts its toolchain's bin dir first on PATH in its scripts; the package never looks
 * there itself). A bare name is looked up on PATH, a path must be executable.
 * `checkHelmVersion` reads the output of `helm version` and refuses anything older than v4; a
 * version that passed is remembered on disk by binary (real path, size, modification time,
 * inode: `${XDG_CACHE_HOME:-~/.cache}/helm-handoff/helm-versions.json`), so a new provider process
 * runs no `helm version` while the binary has not changed.
 *
 * @module
 */
import { readFileSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { HelmNotFoundError, HelmVersionError } from "../errors.js";
import { cacheHome, findOnPath, isExecutable, writeFileAtomic } from "../util/paths.js";

/**
 * Finds helm: `explicit`, else `$HELM_HANDOFF_HELM`, else `helm` on PATH.
 * @throws HelmNotFoundError listing what was tried
 */
export function resolveHelmBinary(explicit?: string): string {
  if (explicit !== undefined) {
    if (explicit.includes("/")) {
      if (!isExecutable(explicit)) throw new HelmNotFoundError([explicit]);
      return explicit;
    }
    const found = findOnPath(explicit);
    if (found === undefined) throw new HelmNotFoundError([`"${explicit}" on PATH`]);
    return found;
  }
  const fromEnv = process.env.HELM_HANDOFF_HELM;
  if (fromEnv !== undefined && fromEnv !== "") return resolveHelmBinary(fromEnv);
  const onPath = findOnPath("helm");
  if (onPath !== undefined) return onPath;
  throw new HelmNotFoundError(['"helm" on PATH']);
}

/**
 * The version `helm version --template {{.Version}}` printed, checked to be v4 or later.
 * @throws HelmVersionError when it is older than v4 (or unreadable)
 */
export function checkHelmVersion(bin: string, stdout: string): string {
  const found = stdout.trim();
  const major = /^v?(\d+)\./.exec(found)?.[1];
  if (major === undefined || Number(major) < 4) throw new HelmVersionError(bin, found || "(unknown version)");
  return found;
}

/** What identifies one build of a binary on disk. */
interface BinaryStamp {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
}

interface RememberedVersion extends BinaryStamp {
  readonly version: string;
}

function versionsFile(env: NodeJS.ProcessEnv): string {
  return join(cacheHome(env), "helm-handoff", "helm-versions.json");
}

function stampOf(bin: string): { readonly path: string; readonly stamp: BinaryStamp } {
  const path = realpathSync(bin);
  const st = statSync(path);
  return { path, stamp: { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino } };
}

function readVersions(env: NodeJS.ProcessEnv): Record<string, RememberedVersion> {
  try {
    return JSON.parse(readFileSync(versionsFile(env), "utf8")) as Record<string, RememberedVersion>;
  } catch {
    return {};
  }
}

/** The version checked earlier for `bin`, when the binary is still the same file; else undefined. */
export function rememberedHelmVersion(bin: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  try {
    const { path, stamp } = stampOf(bin);
    const known = readVersions(env)[path];
    const same =
      known !== undefined &&
      known.size === stamp.size &&
      known.mtimeMs === stamp.mtimeMs &&
      known.ino === stamp.ino;
    return same ? known.version : undefined;
  } catch {
    return undefined;
  }
}

/** Remembers that `bin` (as it is now on disk) passed the version check with `version`. Best effort. */
export function rememberHelmVersion(
  bin: string,
  version: string,
  env: NodeJS.ProcessEnv = process.env,
): void {
  try {
    const { path, stamp } = stampOf(bin);
    writeFileAtomic(
      versionsFile(env),
      `${JSON.stringify({ ...readVersions(env), [path]: { ...stamp, version } }, null, 2)}\n`,
    );
  } catch {
    // a cache: a read-only home only means the next process checks again
  }
}
