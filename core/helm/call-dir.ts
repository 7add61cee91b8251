/**
 * The private temp dir of one helm call, shared by both runners. It is 0700 and holds the
 * kubeconfig, the values and any repository credentials as 0600 files, plus helm's registry and
 * repository config (so helm never reads the user's, see `registry-config.ts`); it is removed after the call, also when
 * helm fails or is killed. A dir left by a process that was itself killed mid-call (SIGKILL of the
 * Pulumi provider, of a cdk8s synth) is removed by the next call of any process: each dir records
 * its owner's pid, and dirs of dead owners are swept once per temp root and process.
 *
 * @module
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processExists } from "../util/process.js";
import { registryConfigFile } from "./registry-config.js";

/** Prefix of the per-call temp dirs (`mkdtemp` appends six characters). */
const CALL_DIR_PREFIX = "helm-handoff-";
/** The names of call dirs, as the sweep recognises them. */
export const CALL_DIR_NAME = /^helm-handoff-[A-Za-z0-9]{6}$/;
/** File in each per-call temp dir holding the pid of the process that made it. */
const OWNER_FILE = "owner.pid";
/** A call dir without an owner file (still being set up, or made by an older version) is left alone this long. */
const UNOWNED_GRACE_MS = 60 * 60 * 1000;
/** Temp roots already swept by this process. */
const swept = new Set<string>();

/**
 * Creates a call dir under `root` (0700, owner pid recorded), after sweeping `root` once per process.
 * @returns the dir's path; remove it with {@link closeCallDir}
 */
export function openCallDir(root: string = tmpdir()): string {
  sweepStaleCallDirs(root);
  const dir = mkdtempSync(join(root, CALL_DIR_PREFIX));
  try {
    chmodSync(dir, 0o700);
    writeFileSync(join(dir, OWNER_FILE), String(process.pid), { mode: 0o600 });
  } catch (e) {
    closeCallDir(dir);
    throw e;
  }
  return dir;
}

/** Removes a call dir and everything in it. Never throws. */
export function closeCallDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Writes `content` to a new 0600 file `name` in the call dir (fails if it exists) and returns its path. */
export function writeCallFile(dir: string, name: string, content: string): string {
  const file = join(dir, name);
  writeFileSync(file, content, { mode: 0o600, flag: "wx" });
  return file;
}

/**
 * The flags that keep helm away from the user's helm config: registry credentials and repositories
 * live in the call dir, and go away with it.
 */
export function isolationFlags(dir: string): string[] {
  return [
    "--registry-config",
    registryConfigFile(dir),
    "--repository-config",
    join(dir, "repositories.yaml"),
    "--repository-cache",
    join(dir, "repository-cache"),
  ];
}

/**
 * Removes the call dirs of this user under `root` whose owner process is gone. Runs once per temp
 * root and process; best effort, never throws.
 */
export function sweepStaleCallDirs(root: string): void {
  if (swept.has(root)) return;
  swept.add(root);
  const uid = process.getuid?.();
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return;
  }
  for (const name of names) {
    if (!CALL_DIR_NAME.test(name)) continue;
    const dir = join(root, name);
    try {
      const st = statSync(dir);
      if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) continue;
      const owner = readOwner(dir);
      const stale =
        owner === undefined ? Date.now() - st.mtimeMs > UNOWNED_GRACE_MS : !processExists(Number(owner));
      if (stale) closeCallDir(dir);
    } catch {
      // removed meanwhile, or not ours to touch
    }
  }
}

function readOwner(dir: string): string | undefined {
  try {
    return readFileSync(join(dir, OWNER_FILE), "utf8");
  } catch {
    return undefined;
  }
}
