/**
 * The provider's own protobuf encoders (`provider/plugin/wire.ts`) against the SDK's generated
 * messages: every request type, filled with every field the engine may send, decodes to the same
 * URN, ID and properties; every answer decodes with the generated classes to what was written;
 * `google.protobuf.Struct` crosses both ways as `toJavaScript` / `fromJavaScript` make it, secrets'
 * wire form included; a `__proto__` key stays an own key, so the add-on's check refuses it as it
 * refuses a Node.js program's; a truncated message is refused.
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";
import { helmHandoffProvider } from "../../../../provider/plugin/provider.js";
import {
  CONFIGURE_RESPONSE,
  checkResponse,
  createResponse,
  DIFF_NONE,
  DIFF_SOME,
  decodeRequest,
  diffResponse,
  encodeStruct,
  readResponse,
  stringMessage,
  updateResponse,
} from "../../../../provider/plugin/wire.js";
import { tokenKubeconfig } from "../../../support/spec.js";

type Message = Record<string, (...args: unknown[]) => unknown> & { serializeBinary(): Uint8Array };
type MessageClass = (new () => Message) & { deserializeBinary(bytes: Uint8Array): Message };

const sdk = createRequire(createRequire(import.meta.url).resolve("@pulumi/pulumi/package.json"));
const pb: Record<string, MessageClass | undefined> = {
  ...(sdk("./proto/provider_pb.js") as Record<string, MessageClass>),
  PluginInfo: (sdk("./proto/plugin_pb.js") as Record<string, MessageClass>).PluginInfo,
};
const { Struct } = sdk("google-protobuf/google/protobuf/struct_pb.js") as {
  Struct: {
    fromJavaScript(v: unknown): Message;
    deserializeBinary(bytes: Uint8Array): { toJavaScript(): Record<string, unknown> };
  };
};

const SIG = "4dabf18193072939515e22adb298388d";
const SECRET = "1b47061264138c4ac30d75fd1eb44270";

/** Values of every kind a Struct holds, nested, with a wire secret and non-ASCII text. */
const SAMPLE: Record<string, unknown> = {
  text: "kube-system",
  empty: "",
  unicode: "zürich ✓ 𝄞",
  int: 3,
  negative: -42,
  fraction: 0.25,
  large: 2 ** 60,
  yes: true,
  no: false,
  nothing: null,
  list: [1, "a", null, false, { b: [] }],
  emptyList: [],
  emptyObject: {},
  nested: { a: { b: { c: "deep" } } },
  secret: { [SIG]: SECRET, value: { replicas: 2, labels: { app: "cni" } } },
};

/** A generated message of `type` with its setters called. */
function message(type: string, fields: Record<string, unknown>): Message {
  const cls = pb[type] as MessageClass;
  const m = new cls();
  for (const [setter, value] of Object.entries(fields)) (m[setter] as (v: unknown) => unknown).call(m, value);
  return m;
}

test("a Struct written here reads back through google-protobuf as the same plain values, and the other way round", () => {
  assert.deepEqual(Struct.deserializeBinary(encodeStruct(SAMPLE)).toJavaScript(), SAMPLE);
  const theirs = message("CheckRequest", { setNews: Struct.fromJavaScript(SAMPLE) }).serializeBinary();
  assert.deepEqual(decodeRequest("CheckRequest", theirs).news, SAMPLE);
  // What JSON would drop is left out; what a Struct cannot hold is refused, as fromJavaScript does.
  assert.deepEqual(Struct.deserializeBinary(encodeStruct({ a: 1, gone: undefined })).toJavaScript(), {
    a: 1,
  });
  assert.throws(() => encodeStruct({ f: () => 1 }), /Unexpected struct type/);
});

test("each request type decodes to its URN, ID and properties, skipping the fields the provider does not read", () => {
  const olds = Struct.fromJavaScript({ old: 1 });
  const news = Struct.fromJavaScript({ news: SAMPLE });
  const props = Struct.fromJavaScript({ props: [true] });
  const urn = "urn:pulumi:dev::p::helm-handoff:index:ClusterAddon::cni";
  const common = { setName: "cni", setType: "helm-handoff:index:ClusterAddon" };
  const check = message("CheckRequest", {
    ...common,
    setUrn: urn,
    setOlds: olds,
    setNews: news,
    setRandomseed: new Uint8Array([1, 2, 3]),
    setOldOutputs: props,
  });
  assert.deepEqual(decodeRequest("CheckRequest", check.serializeBinary()), {
    urn,
    id: "",
    olds: { old: 1 },
    news: { news: SAMPLE },
    properties: {},
  });
  for (const type of ["DiffRequest", "UpdateRequest"]) {
    const m = message(type, {
      ...common,
      setId: "sha256:ab/kube-system/cni",
      setUrn: urn,
      setOlds: olds,
      setNews: news,
      setIgnorechangesList: ["values"],
      setOldInputs: props,
      ...(type === "UpdateRequest" ? { setTimeout: 300, setPreview: true } : {}),
    });
    const r = decodeRequest(type as "DiffRequest", m.serializeBinary());
    assert.deepEqual(
      [r.id, r.urn, r.olds, r.news],
      ["sha256:ab/kube-system/cni", urn, { old: 1 }, { news: SAMPLE }],
    );
  }
  const create = message("CreateRequest", {
    setUrn: urn,
    setProperties: props,
    setTimeout: 1.5,
    setPreview: true,
  });
  assert.deepEqual(decodeRequest("CreateRequest", create.serializeBinary()).properties, { props: [true] });
  for (const type of ["ReadRequest", "DeleteRequest"]) {
    const m = message(type, { ...common, setId: "id1", setUrn: urn, setProperties: props, setTimeout: 9 });
    const r = decodeRequest(type as "ReadRequest", m.serializeBinary());
    assert.deepEqual([r.id, r.urn, r.properties], ["id1", urn, { props: [true] }]);
  }
  // No property fields on the wire: empty objects, as the engine's empty Struct would give.
  assert.deepEqual(
    decodeRequest("ReadRequest", message("ReadRequest", { setId: "x" }).serializeBinary()).properties,
    {},
  );
});

/** The values of a generated message's getters (a Struct as its plain values). */
function read(type: string, bytes: Uint8Array, getters: readonly string[]): unknown[] {
  const m = (pb[type] as MessageClass).deserializeBinary(bytes);
  return getters.map((g) => {
    const v = (m[g] as () => unknown).call(m);
    return typeof v === "object" && v !== null && "toJavaScript" in v
      ? (v as { toJavaScript(): unknown }).toJavaScript()
      : v;
  });
}

test("the answers decode with the generated messages to what was written", () => {
  const failures = [{ property: "releaseName", reason: "is invalid" }];
  const [inputs, list] = read("CheckResponse", checkResponse(SAMPLE, failures), [
    "getInputs",
    "getFailuresList",
  ]);
  assert.deepEqual(inputs, SAMPLE);
  assert.deepEqual(
    (list as Message[]).map((f) => [f.getProperty?.(), f.getReason?.()]),
    [["releaseName", "is invalid"]],
  );
  const diffGetters = ["getChanges", "getReplacesList", "getDeletebeforereplace"];
  assert.deepEqual(read("DiffResponse", diffResponse(DIFF_SOME, ["chart"], true), diffGetters), [
    2,
    ["chart"],
    true,
  ]);
  assert.deepEqual(read("DiffResponse", diffResponse(DIFF_NONE, [], false), diffGetters), [1, [], false]);
  assert.deepEqual(read("CreateResponse", createResponse("id1", { a: 1 }), ["getId", "getProperties"]), [
    "id1",
    { a: 1 },
  ]);
  const readGetters = ["getId", "hasProperties", "hasInputs"];
  assert.deepEqual(read("ReadResponse", readResponse("id1", { a: 1 }, undefined), readGetters), [
    "id1",
    true,
    false,
  ]);
  assert.deepEqual(read("ReadResponse", readResponse(undefined, undefined, undefined), readGetters), [
    "",
    false,
    false,
  ]);
  assert.deepEqual(read("UpdateResponse", updateResponse({ b: [null] }), ["getProperties"]), [{ b: [null] }]);
  assert.deepEqual(
    read("ConfigureResponse", CONFIGURE_RESPONSE, [
      "getAcceptsecrets",
      "getAcceptresources",
      "getAcceptoutputs",
    ]),
    [true, true, true],
  );
  assert.deepEqual(read("PluginInfo", stringMessage("0.1.0 ✓"), ["getVersion"]), ["0.1.0 ✓"]);
});

test("a __proto__ key on the wire stays an own key, and a truncated message is refused", () => {
  const withProto = JSON.parse('{"values": {"__proto__": {"polluted": true}}}') as Record<string, unknown>;
  const bytes = message("CheckRequest", { setNews: Struct.fromJavaScript({}) }).serializeBinary();
  const news = decodeRequest("CheckRequest", Buffer.concat([bytes, encodeCheckNews(withProto)])).news;
  const values = news.values as Record<string, unknown>;
  assert.ok(Object.hasOwn(values, "__proto__"));
  assert.equal(Object.getPrototypeOf(values), Object.prototype);
  assert.deepEqual(Object.getOwnPropertyDescriptor(values, "__proto__")?.value, { polluted: true });
  const whole = message("CheckRequest", {
    setUrn: "urn",
    setNews: Struct.fromJavaScript(SAMPLE),
  }).serializeBinary();
  assert.throws(
    () => decodeRequest("CheckRequest", whole.subarray(0, whole.length - 3)),
    /truncated|malformed/,
  );
});

test("a values key named __proto__ sent by another language reaches the add-on's check, which refuses it naming values", async () => {
  const args = {
    kubeconfig: tokenKubeconfig,
    chart: { repo: "https://charts.example.com", name: "cni", version: "1.0.0" },
    values: JSON.parse('{"__proto__": {"polluted": true}}') as unknown,
  };
  const urn = "urn:pulumi:dev::p::helm-handoff:index:ClusterAddon::cni";
  const r = decodeRequest("CheckRequest", Buffer.concat([stringField(1, urn), encodeCheckNews(args)]));
  const result = await helmHandoffProvider("0.0.0").check?.(r.urn, r.olds, r.news);
  assert.deepEqual(
    result?.failures?.map((f) => f.property),
    ["values"],
  );
});

/** CheckRequest's `news` field (3) holding `value`, written by this module's Struct encoder. */
function encodeCheckNews(value: Record<string, unknown>): Buffer {
  const struct = encodeStruct(value);
  return Buffer.concat([Buffer.from([3 * 8 + 2]), varint(struct.length), struct]);
}

/** A string field of a message. */
function stringField(field: number, text: string): Buffer {
  const bytes = Buffer.from(text, "utf8");
  return Buffer.concat([Buffer.from([field * 8 + 2]), varint(bytes.length), bytes]);
}

function varint(n: number): Buffer {
  const out: number[] = [];
  for (let v = n; ; v = Math.floor(v / 128)) {
    if (v < 128) {
      out.push(v);
      return Buffer.from(out);
    }
    out.push((v % 128) | 128);
  }
}
