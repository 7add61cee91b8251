/**
 * Lines for the user from the package's provider: progress and warnings sent to the engine's
 * `pulumirpc.Engine/Log` call, which shows them in `pulumi up` as the dynamic provider's stderr
 * lines are shown (the engine keeps a resource plugin's own stderr for its verbose logs only, so
 * without this a YAML, Python, Go or `withPackageProvider` user would not see, say, that a destroy
 * left a release because the cluster did not answer). The engine passes its address as the
 * plugin's first argument; each line is one unary gRPC call over plaintext HTTP/2, sent without
 * waiting, and a line the engine cannot take goes to stderr instead.
 *
 * @module
 */
import * as http2 from "node:http2";
import { logRequest } from "./wire.js";

/** `pulumirpc.LogSeverity`. */
const INFO = 1;
const WARNING = 2;
/** `pulumirpc.LogSeverity.ERROR`. */
export const ERROR = 3;

/** Takes one progress line (`[helm-handoff] NAME: MESSAGE`). */
export type LineSink = (line: string) => void;

/** One connection per engine address, reopened when it fails. */
const sessions = new Map<string, http2.ClientHttp2Session>();

function sessionFor(address: string): http2.ClientHttp2Session {
  let session = sessions.get(address);
  if (session === undefined || session.closed || session.destroyed) {
    const opened = http2.connect(`http://${address}`);
    opened.on("error", () => sessions.delete(address));
    opened.unref();
    sessions.set(address, opened);
    session = opened;
  }
  return session;
}

/** How {@link sendEngineLog} falls back. */
export interface SendOptions {
  /** What goes to stderr when the engine does not take the line. @default the line */
  readonly fallback?: string;
  /** How long the engine may take before the line goes to stderr instead. @default no limit */
  readonly deadlineMs?: number;
}

/**
 * Logs `line` at `severity` through the engine at `address`, or writes it to stderr when the engine
 * does not take it. Settles when either has happened.
 */
export function sendEngineLog(
  address: string,
  severity: number,
  line: string,
  options: SendOptions = {},
): Promise<void> {
  const fallback = options.fallback ?? line;
  const message = logRequest(severity, line);
  const frame = Buffer.alloc(5);
  frame.writeUInt32BE(message.length, 1);
  return new Promise((resolve) => {
    let done = false;
    const settle = (ok: boolean): void => {
      if (done) return;
      done = true;
      if (timer !== undefined) clearTimeout(timer);
      if (!ok) process.stderr.write(`${fallback}\n`);
      resolve();
    };
    const timer =
      options.deadlineMs === undefined ? undefined : setTimeout(() => settle(false), options.deadlineMs);
    timer?.unref();
    try {
      const call = sessionFor(address).request({
        ":method": "POST",
        ":path": "/pulumirpc.Engine/Log",
        "content-type": "application/grpc",
        te: "trailers",
      });
      call.on("error", () => settle(false));
      call.on("trailers", (trailers) => settle(String(trailers["grpc-status"] ?? "0") === "0"));
      call.on("end", () => settle(true));
      call.resume();
      call.end(Buffer.concat([frame, message]));
    } catch {
      settle(false);
    }
  });
}

/**
 * A sink that logs each line through the engine at `address`, falling back to stderr: a warning
 * when its message starts with `warning:`, else info. A line is sent once the current call's work
 * is done (lines keep their order): the engine waits for the call's answer, not for the line, so
 * a check that prints one answers without paying for the send.
 */
export function engineLogSink(address: string): LineSink {
  return (line) => {
    const severity = /\] [^:]+: warning:/.test(line) || line.startsWith("warning:") ? WARNING : INFO;
    setImmediate(() => void sendEngineLog(address, severity, line));
  };
}
