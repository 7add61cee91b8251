/**
 * A note from the provider to the program: "a step of this update failed, and the engine shows
 * why". When a step fails, the engine stops the update and answers every registration still
 * waiting with gRPC `UNAVAILABLE`, which is also how it answers when a registration is really lost
 * (a provider process died). The program cannot tell the two apart from that answer, so the
 * provider leaves this note before its error reaches the engine, and the lost-registration guard
 * (`./lost-registration.ts`) stays silent when it finds one: the user then reads the step's own
 * error alone.
 *
 * Both sides know the engine by its address: the engine passes it to every provider process as an
 * argument, and to the program as the runtime's engine address. A note is an empty file named by a
 * digest of that address, in a directory only this user can read; its modification time says
 * when the step failed, so a note left by an earlier update is older than the program and ignored.
 * The two processes need not share a `TMPDIR` (an Automation API runner may give the CLI, and so
 * its providers, another one in `envVars`): a note goes to the process's temp dir and to the
 * system's (`/tmp`), and the guard looks in both of its own.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Where the notes are kept: under this process's temp dir and the system's (the same dir when `TMPDIR` is unset). */
function notesDirs(): string[] {
  const user = typeof process.getuid === "function" ? String(process.getuid()) : "user";
  const roots = process.platform === "win32" ? [tmpdir()] : [tmpdir(), "/tmp"];
  return [...new Set(roots.map((root) => join(root, `helm-handoff-${user}`, "failed-steps")))];
}

/** The note's file name for the engine at `engineAddress`. */
function noteName(engineAddress: string): string {
  return createHash("sha256").update(engineAddress, "utf8").digest("hex").slice(0, 32);
}

/** The engine's address among a provider process's arguments (`HOST:PORT`), if any. */
export function engineAddress(args: readonly string[]): string | undefined {
  return args.find((a) => /^[\w.-]+:\d+$/.test(a) || /^\[[\d:a-f]+\]:\d+$/i.test(a));
}

/**
 * Notes, for the engine this provider process serves, that a step failed. Never throws: a note
 * that cannot be written only lets the guard speak where it could have stayed silent.
 */
export function noteFailedStep(args: readonly string[] = process.argv.slice(2)): void {
  const address = engineAddress(args);
  if (address === undefined) return;
  for (const dir of notesDirs()) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(join(dir, noteName(address)), "", { mode: 0o600 });
    } catch {
      // Best effort (see above).
    }
  }
}

/**
 * How far a file's modification time may lag the clock `Date.now()` reads (the kernel stamps files
 * from a coarser clock).
 */
const MTIME_SLACK_MS = 1000;

/** Whether a step of an update run by the engine at `engineAddress` failed at or after `sinceMs`. */
export function stepFailedSince(engineAddress: string, sinceMs: number): boolean {
  return notesDirs().some((dir) => {
    try {
      return statSync(join(dir, noteName(engineAddress))).mtimeMs >= sinceMs - MTIME_SLACK_MS;
    } catch {
      return false;
    }
  });
}

/** Runs `step`, leaving the note when it throws (the engine then stops the update and shows the error). */
export async function noting<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    noteFailedStep();
    throw err;
  }
}
