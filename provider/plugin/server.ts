/**
 * The gRPC server of the package's provider: Pulumi's `ResourceProvider` service for the one
 * resource type the package has, on `@grpc/grpc-js` and the SDK's generated messages, both taken
 * from the installed `@pulumi/pulumi` (its own dependencies, whatever the package manager's
 * layout). The SDK's `main` from `@pulumi/pulumi/provider` serves the same calls the same way, but
 * loads the SDK's resource runtime first (settings, outputs, resources, source maps), which a
 * provider of custom resources never uses: the engine waits for the plugin's port on every start,
 * twice per `up` of a YAML program that reads the schema. Only what the engine needs before it
 * calls is loaded here; the provider's own code (`provider.ts`) loads its parts on first use.
 *
 * What each call does is what the SDK's server does for a provider of custom resources: properties
 * cross as `google.protobuf.Struct` turned into plain values (secrets and unknowns stay in their
 * wire form, `secrets.ts`), a failed call answers `UNKNOWN` with the error's message, and calls the
 * provider does not serve (config diffs, invokes, components, parameterization, handshake) answer
 * `UNIMPLEMENTED`, to which the engine has a fallback.
 *
 * @module
 */
import { createRequire } from "node:module";
import type * as grpc from "@grpc/grpc-js";
import type * as provider from "@pulumi/pulumi/provider/index.js";

/** What the engine sends to the plugin's calls, as far as this server reads it. */
interface Request {
  getUrn(): string;
  getId(): string;
  getVersion(): number;
  getOlds(): Struct | undefined;
  getNews(): Struct | undefined;
  getProperties(): Struct | undefined;
}

/** A `google.protobuf.Struct` message. */
interface Struct {
  toJavaScript(): Record<string, unknown>;
}

/** A generated message class: constructed empty, then filled with setters. */
type Message = Record<string, (...args: unknown[]) => unknown>;
type MessageClass = new () => Message;

type Callback = (error: grpc.ServiceError | null, value?: unknown) => void;
type Handler = (call: { request: Request }, callback: Callback) => void;

/** The largest message the engine may send (a release's values can be large): the SDK's own limit. */
const MAX_MESSAGE = 400 * 1024 * 1024;

/** `require` from the installed `@pulumi/pulumi`, so that its own copies of gRPC and protobuf load. */
function sdkRequire(): NodeJS.Require {
  const local = createRequire(import.meta.url);
  return createRequire(local.resolve("@pulumi/pulumi/package.json"));
}

/**
 * Serves `impl` to the engine on a loopback port, and prints the port (the engine reads it from
 * the plugin's first line of output). Resolves once serving.
 */
export async function serveProvider(impl: provider.Provider): Promise<void> {
  const req = sdkRequire();
  const grpcJs = req("@grpc/grpc-js") as typeof grpc;
  const services = req("./proto/provider_grpc_pb.js") as {
    ResourceProviderService: grpc.ServiceDefinition;
  };
  const messages = req("./proto/provider_pb.js") as Record<string, MessageClass & Record<string, unknown>>;
  const pluginMessages = req("./proto/plugin_pb.js") as Record<string, MessageClass>;
  const { Struct } = req("google-protobuf/google/protobuf/struct_pb.js") as {
    Struct: { fromJavaScript(value: unknown): Struct };
  };
  const { Empty } = req("google-protobuf/google/protobuf/empty_pb.js") as { Empty: MessageClass };

  const message = (cls: MessageClass | undefined, fields: Record<string, unknown>): Message => {
    if (cls === undefined)
      throw new Error("helm-handoff: a message type of the provider protocol is missing");
    const m = new cls();
    for (const [setter, value] of Object.entries(fields)) {
      if (value !== undefined) (m[setter] as (v: unknown) => unknown).call(m, value);
    }
    return m;
  };
  const struct = (value: unknown) => Struct.fromJavaScript(value ?? {});
  const props = (s: Struct | undefined) => s?.toJavaScript() ?? {};
  const failed = (error: unknown, print: boolean): grpc.ServiceError => {
    const err = error instanceof Error ? error : new Error(String(error));
    if (print) console.error(`${err}: ${err.stack}`);
    return Object.assign(err, {
      code: grpcJs.status.UNKNOWN,
      details: err.message,
      metadata: new grpcJs.Metadata(),
    });
  };
  /** A unary handler from an async function of the request; `print`: log a failure as the SDK does. */
  const unary =
    (run: (r: Request) => Promise<unknown> | unknown, print = true): Handler =>
    (call, callback) => {
      Promise.resolve()
        .then(() => run(call.request))
        .then(
          (value) => callback(null, value),
          (error: unknown) => callback(failed(error, print)),
        );
    };
  const notServed = (name: string): grpc.ServiceError =>
    Object.assign(new Error(`Not yet implemented: ${name}`), {
      code: grpcJs.status.UNIMPLEMENTED,
      details: `Not yet implemented: ${name}`,
      metadata: new grpcJs.Metadata(),
    });
  const unimplemented =
    (name: string): Handler =>
    (_call, callback) =>
      callback(notServed(name));
  const DiffChanges = (messages.DiffResponse as unknown as { DiffChanges: Record<string, number> })
    .DiffChanges;

  const handlers: Record<string, Handler> = {
    getPluginInfo: unary(() => message(pluginMessages.PluginInfo, { setVersion: impl.version })),
    getSchema: unary(async (r) => {
      if (r.getVersion() !== 0) throw new Error(`unsupported schema version ${r.getVersion()}`);
      return message(messages.GetSchemaResponse, { setSchema: (await impl.getSchema?.()) ?? "{}" });
    }),
    checkConfig: unimplemented("CheckConfig"),
    diffConfig: unimplemented("DiffConfig"),
    configure: unary(() =>
      message(messages.ConfigureResponse, {
        setAcceptsecrets: true,
        setAcceptresources: true,
        setAcceptoutputs: true,
      }),
    ),
    check: unary(async (r) => {
      const news = props(r.getNews());
      const result = (await impl.check?.(r.getUrn(), props(r.getOlds()), news)) ?? {};
      const failures = (result.failures ?? []).map((f) =>
        message(messages.CheckFailure, { setProperty: f.property, setReason: f.reason }),
      );
      return message(messages.CheckResponse, {
        setInputs: struct(result.inputs ?? news),
        setFailuresList: failures.length > 0 ? failures : undefined,
      });
    }),
    diff: unary(async (r) => {
      const result = (await impl.diff?.(r.getId(), r.getUrn(), props(r.getOlds()), props(r.getNews()))) ?? {};
      const changes =
        result.changes === true
          ? DiffChanges.DIFF_SOME
          : result.changes === false
            ? DiffChanges.DIFF_NONE
            : DiffChanges.DIFF_UNKNOWN;
      return message(messages.DiffResponse, {
        setChanges: changes,
        setReplacesList:
          result.replaces !== undefined && result.replaces.length > 0 ? result.replaces : undefined,
        setDeletebeforereplace: result.deleteBeforeReplace === true ? true : undefined,
      });
    }),
    create: unary(async (r) => {
      if (impl.create === undefined) throw new Error(`unknown resource type ${r.getUrn()}`);
      const result = await impl.create(r.getUrn(), props(r.getProperties()));
      return message(messages.CreateResponse, { setId: result.id, setProperties: struct(result.outs) });
    }, false),
    read: unary(async (r) => {
      const result = (await impl.read?.(r.getId(), r.getUrn(), props(r.getProperties()))) ?? {};
      return message(messages.ReadResponse, {
        setId: result.id,
        setProperties: result.props === undefined ? undefined : struct(result.props),
        setInputs: result.inputs === undefined ? undefined : struct(result.inputs),
      });
    }),
    update: unary(async (r) => {
      const result =
        (await impl.update?.(r.getId(), r.getUrn(), props(r.getOlds()), props(r.getNews()))) ?? {};
      return message(messages.UpdateResponse, { setProperties: struct(result.outs) });
    }, false),
    delete: unary(async (r) => {
      await impl.delete?.(r.getId(), r.getUrn(), props(r.getProperties()));
      return new Empty();
    }),
    cancel: unary(() => new Empty()),
    attach: unary(() => new Empty()),
  };

  const server = new grpcJs.Server({
    "grpc.max_receive_message_length": MAX_MESSAGE,
    "grpc.server_max_unrequested_time_in_server": 30 * 60,
  });
  // Every call of the service this provider does not serve answers UNIMPLEMENTED by name.
  const implementation: Record<string, Handler> = {};
  for (const [name, method] of Object.entries(services.ResourceProviderService)) {
    const rpc = method.path.slice(method.path.lastIndexOf("/") + 1);
    const streaming: Handler = (call) =>
      (call as unknown as grpc.ServerWritableStream<unknown, unknown>).emit("error", notServed(rpc));
    implementation[name] =
      handlers[name] ?? (method.requestStream || method.responseStream ? streaming : unimplemented(rpc));
  }
  server.addService(services.ResourceProviderService, implementation as grpc.UntypedServiceImplementation);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync("127.0.0.1:0", grpcJs.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    );
  });
  process.stdout.write(`${port}\n`);
}
