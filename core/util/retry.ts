/**
 * `retry()`: exponential backoff with full jitter, bounded by an overall deadline.
 *
 * @module
 */
import { setTimeout as delay } from "node:timers/promises";
import { type AttemptRecord, DeadlineExceededError } from "../errors.js";
import { Duration } from "../spec/duration.js";

/** What {@link RetryOptions.onRetry} is told before each wait. */
export interface RetryInfo {
  /** The attempt that just failed (1-based). */
  readonly attempt: number;
  /** Its error. */
  readonly error: unknown;
  /** How long `retry` waits before the next attempt. */
  readonly delay: Duration;
  /** Time left until the deadline, measured before the wait. */
  readonly remaining: Duration;
}

/** Options of {@link retry}. */
export interface RetryOptions {
  /** Overall deadline, measured from the call; no wait ever ends past it. */
  readonly deadline: Duration;
  /** Smallest wait between attempts. */
  readonly minBackoff: Duration;
  /** Largest wait between attempts. */
  readonly maxBackoff: Duration;
  /** Whether an error is worth another attempt; other errors are rethrown at once. */
  readonly isRetryable: (error: unknown) => boolean;
  /** Called before each wait. @default nothing is reported */
  readonly onRetry?: (info: RetryInfo) => void;
  /** Aborts the waits and is passed to attempts. @default not cancellable */
  readonly signal?: AbortSignal;
  /** What is being retried, for the deadline error, e.g. `"install of release \"cni\""`. @default "operation" */
  readonly what?: string;
  /** Clock in milliseconds, for tests. @default Date.now */
  readonly now?: () => number;
  /** Sleep, for tests. @default an abortable timer */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Random source in [0, 1), for tests. @default Math.random */
  readonly random?: () => number;
}

/**
 * Computes the wait after failed attempt `attempt` (1-based): full jitter over
 * `[minBackoff, min(maxBackoff, minBackoff · 2^(attempt-1))]`.
 */
export function backoffDelay(
  attempt: number,
  minBackoff: Duration,
  maxBackoff: Duration,
  random: number,
): Duration {
  const min = minBackoff.toMilliseconds();
  const cap = Math.min(maxBackoff.toMilliseconds(), min * 2 ** Math.max(0, attempt - 1));
  return Duration.millis(Math.round(min + random * Math.max(0, cap - min)));
}

/**
 * Runs `attempt` until it succeeds, a non-retryable error occurs (rethrown at once), the signal
 * aborts (its reason is thrown) or the deadline passes.
 *
 * When the next wait would reach the deadline, `retry` gives up at once rather than sleeping into
 * it, with a {@link DeadlineExceededError} listing every attempt and the last cause. It never gives up
 * silently. The deadline is checked between attempts; an attempt in flight is bounded by its own
 * timeout (attempts also get a signal that aborts when the deadline passes).
 *
 * @param attempt - the operation; receives the 1-based attempt number and a signal
 * @param options - see {@link RetryOptions}
 */
export async function retry<T>(
  attempt: (n: number, signal: AbortSignal) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number, signal?: AbortSignal) => delay(ms, undefined, { signal }));
  const random = options.random ?? Math.random;
  const startedAt = now();
  const deadlineAt = startedAt + options.deadline.toMilliseconds();
  const attempts: AttemptRecord[] = [];
  const deadlineController = new AbortController();
  const timer = setTimeout(
    () => deadlineController.abort(new Error("deadline reached")),
    Math.max(0, options.deadline.toMilliseconds()),
  );
  timer.unref();
  const attemptSignal =
    options.signal !== undefined
      ? AbortSignal.any([options.signal, deadlineController.signal])
      : deadlineController.signal;
  try {
    for (let n = 1; ; n++) {
      options.signal?.throwIfAborted();
      const at = now();
      try {
        return await attempt(n, attemptSignal);
      } catch (error) {
        options.signal?.throwIfAborted();
        attempts.push({ attempt: n, startedAt: new Date(at).toISOString(), error: messageOf(error) });
        if (!options.isRetryable(error)) throw error;
        const wait = backoffDelay(n, options.minBackoff, options.maxBackoff, random());
        const remaining = deadlineAt - now();
        if (remaining <= 0 || wait.toMilliseconds() >= remaining) {
          throw new DeadlineExceededError(
            options.what ?? "operation",
            options.deadline.toString(),
            attempts,
            error,
          );
        }
        options.onRetry?.({ attempt: n, error, delay: wait, remaining: Duration.millis(remaining) });
        await sleep(wait.toMilliseconds(), options.signal);
      }
    }
  } finally {
    clearTimeout(timer);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
