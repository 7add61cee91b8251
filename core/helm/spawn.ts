/**
 * The async runner's spawn of helm, on `node:child_process`: the one part the synchronous runner
 * (`sync.ts`, `spawnSync`) does differently. Node owns the timeout and the cancellation: the
 * process gets one `AbortSignal` that fires when the caller cancels or the timeout passes, and Node
 * sends SIGTERM (helm then stops its own work); a helm still running `forceKillAfterMs` later gets
 * SIGKILL. stdin gets `input` and is closed. Output is collected whole, and each line is also
 * handed to `onLine` as it arrives. A helm that did not exit 0 comes back as a
 * {@link SpawnFailure} for the shared error mapping (`helmFailure`). Plain `node:child_process`
 * keeps the first helm call of a provider process free of a process library's import.
 *
 * @module
 */
import { spawn } from "node:child_process";
import type { SpawnFailure } from "./failure.js";

/** How to run one helm process. */
export interface SpawnOptions {
  /** helm's whole environment (nothing is inherited). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Written to stdin, which is then closed. */
  readonly input: string;
  /** After this long the process is ended as timed out. */
  readonly timeoutMs: number;
  /** Ends the process as cancelled. @default not cancellable */
  readonly signal?: AbortSignal;
  /** Delay between SIGTERM and SIGKILL. */
  readonly forceKillAfterMs: number;
  /** Receives each line of stderr, and of stdout when `streamStdout`. @default none */
  readonly onLine?: (line: string) => void;
  /** Whether stdout lines go to `onLine` too. */
  readonly streamStdout: boolean;
}

/** What a helm process printed, and how it failed when it did not exit 0. */
export interface SpawnOutcome {
  readonly stdout: string;
  readonly stderr: string;
  readonly failure?: SpawnFailure;
}

/** Collects a stream's text, passing each complete line (and the last, unterminated one) to `onLine`. */
class Lines {
  private text = "";
  private sent = 0;

  constructor(private readonly onLine: ((line: string) => void) | undefined) {}

  add(chunk: string): void {
    this.text += chunk;
    if (this.onLine === undefined) return;
    let end = this.text.indexOf("\n", this.sent);
    while (end !== -1) {
      this.onLine(this.text.slice(this.sent, end));
      this.sent = end + 1;
      end = this.text.indexOf("\n", this.sent);
    }
  }

  /** The whole text; the last line goes to `onLine` if it had no newline. */
  end(): string {
    if (this.onLine !== undefined && this.sent < this.text.length) this.onLine(this.text.slice(this.sent));
    this.sent = this.text.length;
    return this.text;
  }
}

/** Runs `bin` with `args` (an argv array, no shell) and waits for it to end. Never rejects. */
export function spawnHelm(
  bin: string,
  args: readonly string[],
  options: SpawnOptions,
): Promise<SpawnOutcome> {
  const started = Date.now();
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signals = options.signal === undefined ? [timeout] : [options.signal, timeout];
  const stdout = new Lines(options.streamStdout ? options.onLine : undefined);
  const stderr = new Lines(options.onLine);
  return new Promise((resolve) => {
    let spawnError: (Error & { code?: string }) | undefined;
    let forceKill: NodeJS.Timeout | undefined;
    const child = spawn(bin, args, {
      env: options.env,
      signal: AbortSignal.any(signals),
      stdio: ["pipe", "pipe", "pipe"],
    });
    child.on("error", (err: Error & { code?: string }) => {
      spawnError ??= err;
      // Node sent SIGTERM for the signal: SIGKILL follows unless helm ends first.
      if (err.name === "AbortError" && forceKill === undefined) {
        forceKill = setTimeout(() => child.kill("SIGKILL"), options.forceKillAfterMs);
      }
    });
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => stdout.add(chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => stderr.add(chunk));
    // helm may exit without reading its input: a closed pipe is not a failure of its own.
    child.stdin.on("error", () => undefined);
    child.stdin.end(options.input);
    child.on("close", (code, signal) => {
      clearTimeout(forceKill);
      const out = { stdout: stdout.end(), stderr: stderr.end() };
      if (code === 0 && spawnError === undefined) return resolve(out);
      const canceled = options.signal?.aborted === true;
      resolve({
        ...out,
        failure: {
          command: [bin, ...args],
          // A binary that could not start still "closes", with a negative errno as its code.
          exitCode: child.pid === undefined ? undefined : (code ?? undefined),
          signal: signal ?? undefined,
          stderr: out.stderr,
          notFound: spawnError?.code === "ENOENT" || spawnError?.code === "EACCES",
          canceled,
          timedOut: !canceled && timeout.aborted,
          durationMs: Date.now() - started,
          cause: spawnError,
        },
      });
    });
  });
}
