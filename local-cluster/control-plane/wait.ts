/**
 * `waitUntil`: polls a check until it yields a value, failing with the last reason (and the
 * daemon's log tail) when the deadline passes or a daemon it depends on exits.
 *
 * @module
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Daemon } from "../process/daemon.js";

/** Options of {@link waitUntil}. */
export interface WaitOptions {
  /** What is awaited, for messages: "kube-apiserver to answer /readyz". */
  readonly what: string;
  /** Absolute time (`Date.now()` scale) after which waiting fails. */
  readonly deadline: number;
  /** Stops waiting with the signal's reason when aborted. */
  readonly signal: AbortSignal;
  /** Daemons that must stay up; the first one's log is quoted on timeout. */
  readonly watch: readonly Daemon[];
  /** Pause between checks in milliseconds. @default 200 */
  readonly intervalMs?: number;
}

/**
 * Calls `check` until it returns a value other than `undefined` and returns that value. A `check` that
 * throws counts as "not yet" (its error is quoted on timeout).
 *
 * @throws Error when a watched daemon exits (with the last lines of its log), on timeout, or the abort
 * reason when `signal` is aborted.
 */
export async function waitUntil<T>(check: () => Promise<T | undefined>, options: WaitOptions): Promise<T> {
  const { what, deadline, signal, watch, intervalMs = 200 } = options;
  const started = Date.now();
  let lastError = "";
  for (;;) {
    signal.throwIfAborted();
    assertRunning(watch, what);
    try {
      const value = await check();
      if (value !== undefined) return value;
      lastError = "";
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
    signal.throwIfAborted();
    assertRunning(watch, what);
    if (Date.now() >= deadline) {
      const detail = lastError ? ` (last error: ${lastError})` : "";
      const message = `timed out after ${Date.now() - started} ms waiting for ${what}${detail}`;
      const blamed = watch[0];
      throw new Error(blamed ? blamed.failure(message) : message);
    }
    await sleep(intervalMs, undefined, { signal }).catch(() => signal.throwIfAborted());
  }
}

function assertRunning(watch: readonly Daemon[], what: string): void {
  for (const daemon of watch) {
    if (!daemon.running)
      throw new Error(daemon.failure(`${daemon.name} ${daemon.describeExit()} while waiting for ${what}`));
  }
}
