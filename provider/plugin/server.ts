/**
 * The gRPC server of the package's provider: Pulumi's `ResourceProvider` service for the one
 * resource type the package has, on Node's own HTTP/2 server. The engine starts the plugin and
 * waits for its port on every `up` (twice per `up` of a YAML program, which first asks for the
 * schema), so the plugin prints its port as soon as it listens, and reads and writes the protocol's
 * messages with the few encoders of `wire.ts` instead of the SDK's generated ones (which take
 * longer to load than a steady `up`'s calls take to answer). The SDK's `main` from
 * `@pulumi/pulumi/provider` serves the same calls, but loads `@grpc/grpc-js`, every message and
 * the SDK's resource runtime (settings, outputs, resources, source maps) before it listens, which a
 * provider of custom resources never uses.
 *
 * The wire is gRPC's over HTTP/2 for unary calls: a request is one length-prefixed message, the
 * answer headers, one length-prefixed message and the trailer `grpc-status: 0`; a failure is a
 * trailers-only answer with the status (`UNKNOWN` and the error's message, as the SDK's server
 * answers) and calls this provider does not serve (config diffs, invokes, components,
 * parameterization, handshake, mappings) answer `UNIMPLEMENTED`, to which the engine has a
 * fallback. Properties cross as `google.protobuf.Struct` turned into plain values, secrets and
 * unknowns in their wire form (`unwrapSecrets`).
 *
 * @module
 */
import { createServer, type ServerHttp2Stream } from "node:http2";
import type * as provider from "@pulumi/pulumi/provider/index.js";
import {
  CONFIGURE_RESPONSE,
  checkResponse,
  createResponse,
  DIFF_NONE,
  DIFF_SOME,
  DIFF_UNKNOWN,
  decodeRequest,
  diffResponse,
  readResponse,
  stringMessage,
  updateResponse,
} from "./wire.js";

/** gRPC status codes this server answers with. */
const UNKNOWN = 2;
const UNIMPLEMENTED = 12;

/** What a call answers: a serialized message, from the request's bytes. */
type Handler = (body: Uint8Array) => Promise<Uint8Array> | Uint8Array;

/** The calls this provider serves, by method name. */
function handlers(impl: provider.Provider): Record<string, Handler> {
  return {
    GetPluginInfo: () => stringMessage(impl.version ?? ""),
    // The engine asks for schema version 0, the only one there is.
    GetSchema: async () => stringMessage((await impl.getSchema?.()) ?? "{}"),
    Configure: () => CONFIGURE_RESPONSE,
    Check: async (body) => {
      const r = decodeRequest("CheckRequest", body);
      const result = (await impl.check?.(r.urn, r.olds, r.news)) ?? {};
      return checkResponse(result.inputs ?? r.news, result.failures ?? []);
    },
    Diff: async (body) => {
      const r = decodeRequest("DiffRequest", body);
      const result = (await impl.diff?.(r.id, r.urn, r.olds, r.news)) ?? {};
      return diffResponse(
        result.changes === true ? DIFF_SOME : result.changes === false ? DIFF_NONE : DIFF_UNKNOWN,
        result.replaces ?? [],
        result.deleteBeforeReplace === true,
      );
    },
    Create: async (body) => {
      const r = decodeRequest("CreateRequest", body);
      if (impl.create === undefined) throw new Error(`unknown resource type ${r.urn}`);
      const result = await impl.create(r.urn, r.properties);
      return createResponse(result.id, result.outs ?? {});
    },
    Read: async (body) => {
      const r = decodeRequest("ReadRequest", body);
      const result = (await impl.read?.(r.id, r.urn, r.properties)) ?? {};
      return readResponse(result.id, result.props, result.inputs);
    },
    Update: async (body) => {
      const r = decodeRequest("UpdateRequest", body);
      const result = (await impl.update?.(r.id, r.urn, r.olds, r.news)) ?? {};
      return updateResponse(result.outs ?? {});
    },
    Delete: async (body) => {
      const r = decodeRequest("DeleteRequest", body);
      await impl.delete?.(r.id, r.urn, r.properties);
      return new Uint8Array();
    },
    Cancel: () => new Uint8Array(),
    Attach: () => new Uint8Array(),
  };
}

/** `grpc-message`'s percent-encoding: printable ASCII but `%` as is, every other byte as `%XX`. */
function grpcMessage(text: string): string {
  let out = "";
  for (const byte of Buffer.from(text, "utf8")) {
    out +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** Answers a call with a status but no message (a failure, or a call not served). */
function fail(stream: ServerHttp2Stream, status: number, message: string): void {
  if (stream.destroyed || stream.headersSent) return;
  stream.respond(
    {
      ":status": 200,
      "content-type": "application/grpc",
      "grpc-status": String(status),
      "grpc-message": grpcMessage(message),
    },
    { endStream: true },
  );
}

/** Answers a call with one message and status OK. */
function answer(stream: ServerHttp2Stream, message: Uint8Array): void {
  if (stream.destroyed || stream.headersSent) return;
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
  stream.once("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
  stream.end(frame);
}

/**
 * Serves `impl` to the engine on a loopback port, and prints the port (the engine reads it from
 * the plugin's first line of output). Resolves once serving.
 * @param loadCode - starts loading the provider's code, called once the port is printed: the
 *   engine's first check comes right after it configures the provider, and between the port and
 *   that the engine's handshake calls leave this process mostly idle
 */
export async function serveProvider(impl: provider.Provider, loadCode: () => void): Promise<void> {
  const served = handlers(impl);
  // The SDK's server prints these calls' failures; the engine reports every failure itself.
  const printed = new Set(["Check", "Diff", "Read", "Delete"]);
  // Values can make large messages: allow what the SDK's server allows (400 MiB).
  const server = createServer({ maxSessionMemory: 1024 });
  server.on("stream", (stream, headers) => {
    const path = String(headers[":path"] ?? "");
    const method = path.startsWith("/pulumirpc.ResourceProvider/")
      ? path.slice(path.lastIndexOf("/") + 1)
      : "";
    const handler = served[method];
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("error", () => undefined);
    stream.on("end", () => {
      if (handler === undefined) {
        fail(stream, UNIMPLEMENTED, `Not yet implemented: ${method || path}`);
        return;
      }
      const body = Buffer.concat(chunks);
      if (body.length < 5 || body[0] !== 0) {
        fail(stream, UNIMPLEMENTED, "helm-handoff: compressed or empty gRPC messages are not supported");
        return;
      }
      Promise.resolve()
        .then(() => handler(body.subarray(5, 5 + body.readUInt32BE(1))))
        .then(
          (message) => answer(stream, message),
          (error: unknown) => {
            const err = error instanceof Error ? error : new Error(String(error));
            if (printed.has(method)) console.error(`${err}: ${err.stack}`);
            fail(stream, UNKNOWN, err.message);
          },
        );
    });
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port));
  });
  process.stdout.write(`${port}\n`);
  setImmediate(loadCode);
}
