/**
 * The package's plugin as the engine meets it, without an engine: its executable prints a port,
 * and a gRPC client of Pulumi's `ResourceProvider` service (the SDK's generated one) gets the
 * plugin's version and schema, a check whose inputs keep their secrets marked and whose failures
 * name the property, and `UNIMPLEMENTED` for a call the provider does not serve. Its port is out
 * before it loads `@grpc/grpc-js`, the protocol's messages or the SDK's runtime. The engine path is in
 * test/e2e/pulumi/yaml-program.test.ts and test/e2e/pulumi/package-route.test.ts.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type * as grpc from "@grpc/grpc-js";
import { packageVersion } from "../../../../provider/plugin/provider.js";
import { repoRoot } from "../../../support/repo-root.js";
import { tokenKubeconfig } from "../../../support/spec.js";

const SIG = "4dabf18193072939515e22adb298388d";
const SECRET = "1b47061264138c4ac30d75fd1eb44270";
const ADDON_URN = "urn:pulumi:dev::p::helm-handoff:index:ClusterAddon::cni";
const KUBECONFIG = tokenKubeconfig;

const sdk = createRequire(createRequire(import.meta.url).resolve("@pulumi/pulumi/package.json"));
const grpcJs = sdk("@grpc/grpc-js") as typeof grpc;
const { ResourceProviderClient } = sdk("./proto/provider_grpc_pb.js") as {
  ResourceProviderClient: new (address: string, credentials: grpc.ChannelCredentials) => grpc.Client;
};
const messages = sdk("./proto/provider_pb.js") as Record<
  string,
  new () => Record<string, (v?: unknown) => unknown>
>;
const { Struct } = sdk("google-protobuf/google/protobuf/struct_pb.js") as {
  Struct: { fromJavaScript(v: unknown): unknown };
};
const { Empty } = sdk("google-protobuf/google/protobuf/empty_pb.js") as { Empty: new () => unknown };

let plugin: ChildProcess | undefined;
let client: grpc.Client | undefined;

before(async () => {
  plugin = spawn(join(repoRoot(), "pulumi-resource-helm-handoff"), ["127.0.0.1:1"], {
    cwd: repoRoot(),
    stdio: ["ignore", "pipe", "inherit"],
  });
  const [line] = (await once(plugin.stdout as NodeJS.ReadableStream, "data")) as [Buffer];
  client = new ResourceProviderClient(
    `127.0.0.1:${line.toString().trim()}`,
    grpcJs.credentials.createInsecure(),
  );
});

after(() => {
  client?.close();
  plugin?.kill("SIGKILL");
});

/** Calls one unary method of the service. */
function call<T>(method: string, request: unknown): Promise<T> {
  const c = client as unknown as Record<string, (r: unknown, cb: (e: Error | null, v: T) => void) => void>;
  return new Promise((resolve, reject) => {
    (c[method] as (r: unknown, cb: (e: Error | null, v: T) => void) => void).call(client, request, (e, v) =>
      e ? reject(e) : resolve(v),
    );
  });
}

function request(type: string, fields: Record<string, unknown>): unknown {
  const ctor = messages[type] as new () => Record<string, (v?: unknown) => unknown>;
  const m = new ctor();
  for (const [setter, value] of Object.entries(fields)) (m[setter] as (v: unknown) => unknown).call(m, value);
  return m;
}

test("the plugin's executable serves its version and schema over gRPC", async () => {
  const info = await call<{ getVersion(): string }>("getPluginInfo", new Empty());
  assert.equal(info.getVersion(), packageVersion());
  const schema = await call<{ getSchema(): string }>("getSchema", request("GetSchemaRequest", {}));
  const parsed = JSON.parse(schema.getSchema()) as { name: string; resources: Record<string, unknown> };
  assert.equal(parsed.name, "helm-handoff");
  assert.ok(parsed.resources["helm-handoff:index:ClusterAddon"]);
});

test("a check over gRPC makes the stored inputs with the secrets still marked, and names a failing property", async () => {
  const args = {
    kubeconfig: { [SIG]: SECRET, value: KUBECONFIG },
    chart: { path: join(repoRoot(), "test", "charts", "schema") },
    namespace: "kube-system",
    values: { [SIG]: SECRET, value: { a: 1 } },
  };
  const check = (news: unknown) =>
    call<{ getInputs(): { toJavaScript(): Record<string, unknown> }; getFailuresList(): unknown[] }>(
      "check",
      request("CheckRequest", {
        setUrn: ADDON_URN,
        setOlds: Struct.fromJavaScript({}),
        setNews: Struct.fromJavaScript(news),
      }),
    );
  const good = await check(args);
  const inputs = good.getInputs().toJavaScript();
  assert.deepEqual(inputs.kubeconfig, { [SIG]: SECRET, value: KUBECONFIG });
  assert.deepEqual(inputs.values, { [SIG]: SECRET, value: { a: 1 } });
  assert.equal(inputs.releaseName, "cni");
  assert.equal(inputs.clusterServer, "https://127.0.0.1:6443");
  const bad = await check({ ...args, releaseName: "Bad_Name" });
  const failures = bad.getFailuresList() as { getProperty(): string }[];
  assert.deepEqual(
    failures.map((f) => f.getProperty()),
    ["releaseName"],
  );
});

test("a call the provider does not serve answers UNIMPLEMENTED", async () => {
  await assert.rejects(call("invoke", request("InvokeRequest", { setTok: "helm-handoff:index:nothing" })), {
    code: grpcJs.status.UNIMPLEMENTED,
  });
  await assert.rejects(call("diffConfig", request("DiffRequest", {})), { code: grpcJs.status.UNIMPLEMENTED });
});

test("the plugin prints its port before loading gRPC's library, the protocol's messages, the SDK's resource runtime or its closure serializer", async () => {
  const code = String.raw`const { createRequire } = require("node:module");
process.stdout.write = ((write) => (s, ...a) => {
  const loaded = Object.keys(require.cache);
  const hit = (re) => loaded.filter((k) => re.test(k)).length;
  write(JSON.stringify({
    grpc: hit(/@grpc[\\/]grpc-js[\\/]/),
    messages: hit(/proto[\\/]provider_pb\.js$/),
    runtime: hit(/@pulumi[\\/]pulumi[\\/](runtime[\\/]settings|resource|output)\.js$/),
    closure: hit(/typescript\.js$|runtime[\\/]closure[\\/]/),
  }) + "\n");
  process.exit(0);
})(process.stdout.write.bind(process.stdout));
process.argv = [process.argv[0], "plugin", "127.0.0.1:1"];
require(${JSON.stringify(repoRoot())})();`;
  const child = spawn(process.execPath, ["-e", code], {
    cwd: repoRoot(),
    stdio: ["ignore", "pipe", "inherit"],
  });
  const [line] = (await once(child.stdout, "data")) as [Buffer];
  assert.deepEqual(JSON.parse(line.toString()), { grpc: 0, messages: 0, runtime: 0, closure: 0 });
});
