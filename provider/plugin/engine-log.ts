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

/** The engine's address among the plugin's arguments (`HOST:PORT`; flags start with `-`), if any. */
export function engineAddress(args: readonly string[]): string | undefined {
  return args.find((a) => /^[\w.-]+:\d+$/.test(a) || /^\[[\d:a-f]+\]:\d+$/i.test(a));
}

/** Takes one progress line (`[helm-handoff] NAME: MESSAGE`). */
export type LineSink = (line: string) => void;

/**
 * A sink that logs each line through the engine at `address`, falling back to stderr: a warning
 * when its message starts with `warning:`, else info.
 */
export function engineLogSink(address: string): LineSink {
  let session: http2.ClientHttp2Session | undefined;
  const connect = (): http2.ClientHttp2Session => {
    if (session === undefined || session.closed || session.destroyed) {
      session = http2.connect(`http://${address}`);
      session.on("error", () => {
        session = undefined;
      });
      session.unref();
    }
    return session;
  };
  return (line) => {
    const message = logRequest(
      /\] [^:]+: warning:/.test(line) || line.startsWith("warning:") ? WARNING : INFO,
      line,
    );
    const frame = Buffer.alloc(5);
    frame.writeUInt32BE(message.length, 1);
    try {
      const call = connect().request({
        ":method": "POST",
        ":path": "/pulumirpc.Engine/Log",
        "content-type": "application/grpc",
        te: "trailers",
      });
      call.on("error", () => process.stderr.write(`${line}\n`));
      call.on("response", () => undefined);
      call.resume();
      call.end(Buffer.concat([frame, message]));
    } catch {
      process.stderr.write(`${line}\n`);
    }
  };
}
