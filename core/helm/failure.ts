/**
 * Turns a failed helm process into a typed error, the same way for both runners. Each spawn
 * (`spawn.ts` for the async runner, `spawnSync` for the synchronous one) reduces its own failure to a
 * {@link SpawnFailure}; everything after that is here: a missing binary, a cancel, a timeout and a
 * kill by a foreign signal, then helm's stderr classified by `classifyHelmFailure`, with the argv
 * and stderr redacted (the spawn's own error too, kept as a redacted `cause`) and helm v4's
 * `level=…` log lines dropped when an `Error:` line says it all.
 *
 * @module
 */

import { HelmNotFoundError, makeHelmError } from "../errors.js";
import { Duration } from "../spec/duration.js";
import { classifyHelmFailure } from "./classify.js";
import type { Redactor } from "./redact.js";

/** What a spawn knows about a helm process that did not succeed. */
export interface SpawnFailure {
  /** The argv that ran, binary first (not yet redacted). */
  readonly command: readonly string[];
  /** The exit code, when helm exited. */
  readonly exitCode: number | undefined;
  /** The signal that ended helm, when one did. */
  readonly signal: string | undefined;
  /** helm's stderr (not yet redacted). */
  readonly stderr: string;
  /** The binary could not be started (ENOENT, EACCES). */
  readonly notFound: boolean;
  /** Killed through the runner's cancel signal. */
  readonly canceled: boolean;
  /** Killed by the process timeout. */
  readonly timedOut: boolean;
  /** How long the process ran. */
  readonly durationMs: number;
  /** The spawn's own error. */
  readonly cause: unknown;
}

/** The typed error of a failed helm run: {@link HelmNotFoundError} or a `HelmError` subclass. */
export function helmFailure(f: SpawnFailure, redactor: Redactor): Error {
  const options = { cause: redactedCause(f.cause, redactor) };
  if (f.notFound && f.exitCode === undefined) return new HelmNotFoundError([f.command[0] ?? "helm"], options);
  const stderr = redactor.redact(f.stderr);
  const command = redactor.redactArgv(f.command);
  if (f.canceled) {
    return makeHelmError(
      { kind: "permanent", reason: "cancelled", command, exitCode: f.exitCode, stderr, canceled: true },
      options,
    );
  }
  if (f.timedOut) {
    return makeHelmError(
      {
        kind: "transient",
        reason: `attempt timed out after ${Duration.millis(f.durationMs).toString()}`,
        command,
        exitCode: f.exitCode,
        stderr,
        timedOut: true,
      },
      options,
    );
  }
  if (f.signal !== undefined && f.exitCode === undefined) {
    // Killed by a signal we did not send (OOM killer, a node or CI agent shutting down): the
    // attempt was cut short, not refused. The lifecycle removes the partial release and retries.
    return makeHelmError(
      {
        kind: "transient",
        reason: `helm was killed by ${f.signal}`,
        command,
        exitCode: undefined,
        stderr: summarizeStderr(stderr),
      },
      options,
    );
  }
  const cls = classifyHelmFailure(stderr);
  return makeHelmError(
    { kind: cls.kind, reason: cls.reason, command, exitCode: f.exitCode, stderr: summarizeStderr(stderr) },
    options,
  );
}

/**
 * The spawn's own error as a cause that shows nothing the message hides: a spawn error may carry
 * helm's argv unredacted (`util.inspect` prints it), so only its name and its redacted message
 * are kept.
 */
function redactedCause(cause: unknown, redactor: Redactor): Error | undefined {
  if (cause === undefined) return undefined;
  const original = cause instanceof Error ? cause : undefined;
  const copy = new Error(redactor.redact(original?.message ?? String(cause)));
  copy.name = original?.name ?? "Error";
  copy.stack = `${copy.name}: ${copy.message}`;
  return copy;
}

/**
 * helm v4 logs `level=ERROR msg=…` lines that repeat the final `Error: …` text; drop them when an
 * `Error:` line is present, keep everything else (schema errors list their fields on later lines).
 */
export function summarizeStderr(stderr: string): string {
  const lines = stderr.trim().split("\n");
  if (!lines.some((l) => l.startsWith("Error: "))) return stderr.trim();
  return lines.filter((l) => !l.startsWith("level=")).join("\n");
}

/** What helm logs when it applied a release but could not write the release's new state to its storage. */
const RECORD_LOST = /failed to record the release/;

/**
 * A helm write that exited 0 but logged that it could not record the release (the API server went
 * away between applying the objects and updating helm's storage Secret): the storage still says
 * `pending-*`, so the call counts as a transient failure, and the next attempt recovers the release
 * helm left pending, as after a killed helm. Undefined for any other successful call.
 */
export function unrecordedRelease(
  command: readonly string[],
  stderr: string,
  redactor: Redactor,
): Error | undefined {
  if (!RECORD_LOST.test(stderr)) return undefined;
  return makeHelmError({
    kind: "transient",
    reason: "helm applied the release but could not record its state",
    command: redactor.redactArgv(command),
    exitCode: 0,
    stderr: redactor.redact(stderr),
  });
}
