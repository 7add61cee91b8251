/**
 * The gRPC server of the package's provider: Pulumi's `ResourceProvider` service for the one
 * resource type the package has, on Node's own HTTP/2 server. The engine waits for a plugin's port
 * on every start (twice per `up` of a YAML program, which first asks for the schema), so the plugin
 * prints its port as soon as it listens and loads the protocol's messages (the SDK's generated
 * ones, from the installed `@pulumi/pulumi`) only when a call needs them: the version and the
 * schema, all the schema start asks for, are answered without them. The SDK's `main` from
 * `@pulumi/pulumi/provider` serves the same calls the same way, but loads `@grpc/grpc-js`, every
 * message and the SDK's resource runtime (settings, outputs, resources, source maps) before it
 * listens, which a provider of custom resources never uses.
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
import { createRequire } from "node:module";
import type * as provider from "@pulumi/pulumi/provider/index.js";

/** The request messages this server reads, as far as it reads them. */
interface Request {
  getUrn(): string;
  getId(): string;
  getOlds(): Struct | undefined;
  getNews(): Struct | undefined;
  getProperties(): Struct | undefined;
}

/** A `google.protobuf.Struct` message. */
interface Struct {
  toJavaScript(): Record<string, unknown>;
}

/** A generated message: filled with setters, then serialized. */
type Message = Record<string, (...args: unknown[]) => unknown> & { serializeBinary(): Uint8Array };
/** A generated message class. */
type MessageClass = (new () => Message) & { deserializeBinary(bytes: Uint8Array): Request };

/** The protocol's messages, loaded on first use. */
interface Messages {
  readonly provider: Record<string, MessageClass>;
  readonly diffChanges: Record<string, number>;
  readonly fromJavaScript: (value: unknown) => unknown;
}

/** gRPC status codes this server answers with. */
const UNKNOWN = 2;
const UNIMPLEMENTED = 12;

/** Where the generated messages come from: the installed `@pulumi/pulumi` and its own protobuf runtime. */
function sdkRequire(): NodeJS.Require {
  return createRequire(createRequire(import.meta.url).resolve("@pulumi/pulumi/package.json"));
}

let loaded: Messages | undefined;
function messages(): Messages {
  if (loaded === undefined) {
    const req = sdkRequire();
    const providerMessages = req("./proto/provider_pb.js") as Record<string, MessageClass>;
    const { Struct } = req("google-protobuf/google/protobuf/struct_pb.js") as {
      Struct: { fromJavaScript(value: unknown): unknown };
    };
    loaded = {
      provider: providerMessages,
      diffChanges: (providerMessages.DiffResponse as unknown as { DiffChanges: Record<string, number> })
        .DiffChanges,
      fromJavaScript: (value) => Struct.fromJavaScript(value ?? {}),
    };
  }
  return loaded;
}

/** A message of type `name`, its setters called with the defined `fields`, serialized. */
function encode(name: string, fields: Record<string, unknown>): Uint8Array {
  const cls = messages().provider[name];
  if (cls === undefined) throw new Error(`helm-handoff: the provider protocol has no message ${name}`);
  const m = new cls();
  for (const [setter, value] of Object.entries(fields)) {
    if (value !== undefined) (m[setter] as (v: unknown) => unknown).call(m, value);
  }
  return m.serializeBinary();
}

/** A request of type `name`, decoded. */
function decode(name: string, bytes: Uint8Array): Request {
  const cls = messages().provider[name];
  if (cls === undefined) throw new Error(`helm-handoff: the provider protocol has no message ${name}`);
  return cls.deserializeBinary(bytes);
}

/** A protobuf message whose only field is the string field 1 (`PluginInfo`, `GetSchemaResponse`). */
function stringMessage(value: string): Uint8Array {
  const text = Buffer.from(value, "utf8");
  const length: number[] = [];
  for (let n = text.length; ; n = Math.floor(n / 128)) {
    if (n < 128) {
      length.push(n);
      break;
    }
    length.push((n % 128) | 128);
  }
  return Buffer.concat([Buffer.from([0x0a, ...length]), text]);
}

const props = (s: Struct | undefined): Record<string, unknown> => s?.toJavaScript() ?? {};

/** What a call answers: a serialized message, from the request's bytes. */
type Handler = (body: Uint8Array) => Promise<Uint8Array> | Uint8Array;

/** The calls this provider serves, by method name. */
function handlers(impl: provider.Provider, loadCode: () => void): Record<string, Handler> {
  const struct = (value: unknown) => messages().fromJavaScript(value);
  return {
    GetPluginInfo: () => stringMessage(impl.version ?? ""),
    // The engine asks for schema version 0, the only one there is.
    GetSchema: async () => stringMessage((await impl.getSchema?.()) ?? "{}"),
    Configure: () => {
      // The engine configures a provider right before its first check: load the code meanwhile.
      loadCode();
      return encode("ConfigureResponse", {
        setAcceptsecrets: true,
        setAcceptresources: true,
        setAcceptoutputs: true,
      });
    },
    Check: async (body) => {
      const r = decode("CheckRequest", body);
      const news = props(r.getNews());
      const result = (await impl.check?.(r.getUrn(), props(r.getOlds()), news)) ?? {};
      const failure = messages().provider.CheckFailure as MessageClass;
      const failures = (result.failures ?? []).map((f) => {
        const m = new failure();
        m.setProperty?.(f.property);
        m.setReason?.(f.reason);
        return m;
      });
      return encode("CheckResponse", {
        setInputs: struct(result.inputs ?? news),
        setFailuresList: failures.length > 0 ? failures : undefined,
      });
    },
    Diff: async (body) => {
      const r = decode("DiffRequest", body);
      const result = (await impl.diff?.(r.getId(), r.getUrn(), props(r.getOlds()), props(r.getNews()))) ?? {};
      const { DIFF_SOME, DIFF_NONE, DIFF_UNKNOWN } = messages().diffChanges;
      return encode("DiffResponse", {
        setChanges: result.changes === true ? DIFF_SOME : result.changes === false ? DIFF_NONE : DIFF_UNKNOWN,
        setReplacesList:
          result.replaces !== undefined && result.replaces.length > 0 ? result.replaces : undefined,
        setDeletebeforereplace: result.deleteBeforeReplace === true ? true : undefined,
      });
    },
    Create: async (body) => {
      const r = decode("CreateRequest", body);
      if (impl.create === undefined) throw new Error(`unknown resource type ${r.getUrn()}`);
      const result = await impl.create(r.getUrn(), props(r.getProperties()));
      return encode("CreateResponse", { setId: result.id, setProperties: struct(result.outs) });
    },
    Read: async (body) => {
      const r = decode("ReadRequest", body);
      const result = (await impl.read?.(r.getId(), r.getUrn(), props(r.getProperties()))) ?? {};
      return encode("ReadResponse", {
        setId: result.id,
        setProperties: result.props === undefined ? undefined : struct(result.props),
        setInputs: result.inputs === undefined ? undefined : struct(result.inputs),
      });
    },
    Update: async (body) => {
      const r = decode("UpdateRequest", body);
      const result =
        (await impl.update?.(r.getId(), r.getUrn(), props(r.getOlds()), props(r.getNews()))) ?? {};
      return encode("UpdateResponse", { setProperties: struct(result.outs) });
    },
    Delete: async (body) => {
      const r = decode("DeleteRequest", body);
      await impl.delete?.(r.getId(), r.getUrn(), props(r.getProperties()));
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
 * @param loadCode - starts loading the provider's code, called when the engine configures it
 */
export async function serveProvider(impl: provider.Provider, loadCode: () => void): Promise<void> {
  const served = handlers(impl, loadCode);
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
}
