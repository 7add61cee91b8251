/**
 * Recovery of a stack whose last `pulumi up` was killed (SIGKILL, a cancelled CI job, a lost
 * runner), for programs run through the Automation API.
 *
 * A killed CLI leaves up to three things behind that the engine does not clean up by itself:
 * - the `file://` backend's stack lock, which makes every later operation fail with "the stack is
 *   currently locked" until someone runs `pulumi cancel`;
 * - in the `file://` backend, an empty or half-written metadata file beside the checkpoint or a
 *   history entry (`<stack>.json.attrs`: the blob library writes the file's content type and MD5
 *   there, in place, just before it renames the whole new file over the old one), which makes every
 *   later operation, `pulumi cancel` included, fail with "failed to load checkpoint: EOF". The
 *   checkpoint itself is whole (the old one or the new one), and a missing metadata file is read as
 *   "no metadata", so such a file is removed;
 * - a pending CREATE operation per resource whose create was in flight, which the engine keeps (and
 *   warns about on every later `up`) until an interactive `pulumi refresh` clears it.
 *
 * {@link recoverInterruptedUpdate} removes the lock and the broken metadata files only when every
 * lock of the stack was taken by a process of this host that no longer runs, or there is no lock (a
 * live or remote holder is never touched), and drops the
 * pending creates when all of them are helm-handoff releases: their create is idempotent (it adopts
 * the release the killed run installed, or recovers a half-installed one), so the next `up` simply
 * runs it again. When other resources have pending operations too, none is dropped (the engine's
 * `pulumi stack import`, used here, can only drop all of them): they are reported, for a person to
 * check and clear with `pulumi refresh --clear-pending-creates`.
 *
 * ```ts
 * import { recoverInterruptedUpdate } from "helm-handoff/pulumi";
 * await recoverInterruptedUpdate(stack, { onMessage: console.error });
 * await stack.up();
 * ```
 *
 * @module
 */
import { readdir, readFile, rm } from "node:fs/promises";
import { homedir, hostname } from "node:os";
import { join } from "node:path";
import type { Stack } from "@pulumi/pulumi/automation/index.js";
import { RELEASE_TYPES } from "./state/resource.js";

/** One lock file of the stack, as the `file://` backend writes it. */
export interface StackLock {
  /** Path of the lock file. */
  readonly file: string;
  /** Process id of the `pulumi` CLI that took the lock. */
  readonly pid: number;
  /** Host the lock was taken on. */
  readonly hostname: string;
  /** When the lock was taken (RFC 3339). */
  readonly timestamp: string;
  /** True when the holder was a process of this host that no longer runs. */
  readonly stale: boolean;
}

/** What {@link recoverInterruptedUpdate} found and did. */
export interface InterruptedUpdateRecovery {
  /** Every lock of the stack found before recovering (empty for other backends than `file://`). */
  readonly locks: readonly StackLock[];
  /** True when the stale locks were removed (with the engine's own `pulumi cancel`). */
  readonly lockRemoved: boolean;
  /** The `file://` backend's metadata files of the stack that a killed write left unreadable, removed. */
  readonly removedMetadataFiles: readonly string[];
  /** URNs of the helm-handoff releases whose interrupted create was dropped from the state. */
  readonly droppedPendingCreates: readonly string[];
  /** Pending operations left in the state (some are not helm-handoff creates), as `URN (operation)`. */
  readonly otherPendingOperations: readonly string[];
}

/** Options of {@link recoverInterruptedUpdate}. */
export interface RecoverInterruptedUpdateOptions {
  /** Receives one line per action taken or per thing left alone. @default nothing is reported */
  readonly onMessage?: (line: string) => void;
}

interface PendingOperation {
  readonly resource: { readonly urn: string; readonly type: string };
  readonly type: string;
}

/**
 * Makes a stack usable again after an interrupted `up`: removes a stale `file://` stack lock and
 * the stack's metadata files a killed write left unreadable, and drops pending creates that are all
 * helm-handoff releases (see the module documentation). Safe to call
 * before every `up` of a runner that is the only one to update the stack: on a healthy stack it only
 * reads. (An `up` that another runner starts between the lock check and the removal would lose its
 * lock; serialize runners of one stack, as CI concurrency groups do.)
 */
export async function recoverInterruptedUpdate(
  stack: Stack,
  options: RecoverInterruptedUpdateOptions = {},
): Promise<InterruptedUpdateRecovery> {
  const say = (line: string): void => options.onMessage?.(line);
  const backend = await fileBackend(stack);
  const locks = backend === undefined ? [] : await stackLocks(backend);
  if (locks.some((l) => !l.stale)) {
    for (const l of locks.filter((x) => !x.stale)) {
      say(
        `the stack is locked by pid ${l.pid} on ${l.hostname} (taken ${l.timestamp}), which may still run: left as is`,
      );
    }
    return {
      locks,
      lockRemoved: false,
      removedMetadataFiles: [],
      droppedPendingCreates: [],
      otherPendingOperations: [],
    };
  }
  const removedMetadataFiles = backend === undefined ? [] : await removeBrokenMetadata(backend);
  for (const file of removedMetadataFiles) {
    say(
      `removed ${file}: a killed pulumi left this metadata file of the file backend unreadable (the checkpoint beside it is whole)`,
    );
  }
  let lockRemoved = false;
  if (locks.length > 0) {
    await stack.cancel();
    lockRemoved = true;
    for (const l of locks) {
      say(
        `removed the stack lock of pulumi pid ${l.pid} (taken ${l.timestamp}): that process no longer runs`,
      );
    }
  }

  const state = await stack.exportStack();
  const pending =
    ((state.deployment ?? {}) as { pending_operations?: PendingOperation[] }).pending_operations ?? [];
  const ours = (op: PendingOperation): boolean =>
    op.type === "creating" && RELEASE_TYPES.includes(op.resource.type);
  if (pending.length > 0 && pending.every(ours)) {
    // `pulumi stack import` drops every pending operation of the state it imports (the engine's
    // own behaviour), so this is only done when all of them are helm-handoff creates.
    await stack.importStack(state);
    const dropped = pending.map((op) => op.resource.urn);
    for (const urn of dropped) {
      say(`dropped the interrupted create of ${urn}: the next up installs or adopts that release`);
    }
    return {
      locks,
      lockRemoved,
      removedMetadataFiles,
      droppedPendingCreates: dropped,
      otherPendingOperations: [],
    };
  }
  const others = pending.map((op) => `${op.resource.urn} (${op.type})`);
  for (const op of others) {
    say(
      `pending operation left to the engine: ${op} (check it, then run "pulumi refresh --clear-pending-creates")`,
    );
  }
  return {
    locks,
    lockRemoved,
    removedMetadataFiles,
    droppedPendingCreates: [],
    otherPendingOperations: others,
  };
}

/** Where a `file://` backend keeps a stack's files. */
interface FileBackend {
  /** The backend's directory (the one holding `.pulumi`). */
  readonly root: string;
  readonly project: string;
  /** The stack's name, without organization or project. */
  readonly name: string;
}

/** The stack's `file://` backend; undefined for other backends. */
async function fileBackend(stack: Stack): Promise<FileBackend | undefined> {
  const url = (await stack.workspace.whoAmI()).url ?? "";
  if (!url.startsWith("file://")) return undefined;
  const root = url
    .slice("file://".length)
    .replace(/\?.*$/, "")
    .replace(/^~(?=\/|$)/, homedir());
  const project = (await stack.workspace.projectSettings()).name;
  return { root, project, name: stack.name.split("/").pop() ?? stack.name };
}

/**
 * Removes the stack's metadata files (`*.attrs`) that do not hold a JSON object: the blob library
 * truncates such a file before it writes it, so a kill in between leaves it empty or cut short.
 * Looks at the stack's checkpoint and its backups, its history and the backend's `meta.yaml`, in the
 * project-scoped layout and the legacy one. Returns the removed files.
 */
async function removeBrokenMetadata({ root, project, name }: FileBackend): Promise<string[]> {
  const base = join(root, ".pulumi");
  const places: Array<[dir: string, keep: (file: string) => boolean]> = [
    [base, (f) => f === "meta.yaml.attrs"],
    [join(base, "stacks", project), (f) => f.startsWith(`${name}.json`)],
    [join(base, "stacks"), (f) => f.startsWith(`${name}.json`)],
    [join(base, "history", project, name), () => true],
    [join(base, "history", name), () => true],
    [join(base, "backups", project, name), () => true],
    [join(base, "backups", name), () => true],
  ];
  const removed: string[] = [];
  for (const [dir, keep] of places) {
    let entries: string[];
    try {
      entries = (await readdir(dir)).filter((f) => f.endsWith(".attrs") && keep(f));
    } catch {
      continue;
    }
    for (const entry of entries) {
      const file = join(dir, entry);
      if (isJsonObject(await readFile(file, "utf8"))) continue;
      await rm(file, { force: true });
      removed.push(file);
    }
  }
  return removed;
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null;
  } catch {
    return false;
  }
}

/** The lock files of the stack in a `file://` backend. */
async function stackLocks({ root, project, name }: FileBackend): Promise<StackLock[]> {
  // Project-scoped layout (organization/PROJECT/STACK) and the legacy one (STACK).
  const dirs = [
    join(root, ".pulumi", "locks", "organization", project, name),
    join(root, ".pulumi", "locks", name),
  ];
  const locks: StackLock[] = [];
  for (const dir of dirs) {
    let entries: string[];
    try {
      entries = (await readdir(dir)).filter((f) => f.endsWith(".json"));
    } catch {
      continue;
    }
    for (const entry of entries) {
      const file = join(dir, entry);
      const content = JSON.parse(await readFile(file, "utf8")) as {
        pid?: number;
        hostname?: string;
        timestamp?: string;
      };
      const pid = content.pid ?? 0;
      const host = content.hostname ?? "";
      locks.push({
        file,
        pid,
        hostname: host,
        timestamp: content.timestamp ?? "",
        stale: host === hostname() && !(await isPulumiProcess(pid)),
      });
    }
  }
  return locks;
}

/**
 * Whether `pid` is a running `pulumi` process. A pid that runs something else (the pid was reused
 * after the holder died) counts as not running; where `/proc` cannot tell, a live pid counts as pulumi.
 */
async function isPulumiProcess(pid: number): Promise<boolean> {
  if (!(pid > 0)) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8");
    return cmdline === "" ? false : cmdline.includes("pulumi");
  } catch {
    return true;
  }
}
