/**
 * Which helm runs, and whether it is new enough. The lookup order is the same for both runners:
 * the explicit `helmBinary` option, then `$HELM_HANDOFF_HELM`, then `helm` on PATH, then the
 * project toolchain's bin dir. A bare name is looked up on PATH, a path must be executable.
 * `checkHelmVersion` reads the output of `helm version` and refuses anything older than v4.
 *
 * @module
 */
import { join } from "node:path";
import { HelmNotFoundError, HelmVersionError } from "../errors.js";
import { findOnPath, isExecutable, toolchainBinDir } from "../paths.js";

/**
 * Finds helm: `explicit`, else `$HELM_HANDOFF_HELM`, else `helm` on PATH, else the project's
 * toolchain bin dir.
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
  const fallback = join(toolchainBinDir(), "helm");
  if (isExecutable(fallback)) return fallback;
  throw new HelmNotFoundError(['"helm" on PATH', fallback]);
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
