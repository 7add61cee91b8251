/**
 * The protocol buffers wire format of the messages the package's provider exchanges with the engine
 * (`pulumirpc.ResourceProvider`), written out by hand: the requests' URN, ID and property fields
 * read, the answers written, and `google.protobuf.Struct` turned into plain values and back by the
 * rules of google-protobuf's `toJavaScript` / `fromJavaScript`. The engine starts the plugin on
 * every `up`, and the SDK's generated messages (`provider_pb.js`, 450 kB, and the google-protobuf
 * runtime) cost each start more to load than every call of a steady `up` costs to answer; this file
 * is a few kB. Field numbers are those of Pulumi's `provider.proto` (fields are only ever added
 * there); a field this provider does not read is skipped, as any protobuf reader does.
 *
 * @module
 */

/** Wire types this reader meets: varint, 64-bit, length-delimited, 32-bit. */
const VARINT = 0;
const I64 = 1;
const LEN = 2;
const I32 = 5;

/** A plain value a `google.protobuf.Value` holds. */
type Plain = null | number | string | boolean | Plain[] | { [key: string]: Plain };

/** Calls `visit` with each field of a message: its number, wire type and the offset after its tag. */
function forEachField(
  bytes: Buffer,
  visit: (field: number, wireType: number, at: number, end: number) => void,
): void {
  let at = 0;
  while (at < bytes.length) {
    const [tag, afterTag] = varint(bytes, at);
    const wireType = tag % 8;
    const field = Math.floor(tag / 8);
    let end: number;
    if (wireType === VARINT) end = varint(bytes, afterTag)[1];
    else if (wireType === I64) end = afterTag + 8;
    else if (wireType === I32) end = afterTag + 4;
    else if (wireType === LEN) {
      const [length, start] = varint(bytes, afterTag);
      end = start + length;
    } else throw new Error(`helm-handoff: protobuf wire type ${wireType} is not supported`);
    if (end > bytes.length) throw new Error("helm-handoff: truncated protobuf message");
    visit(field, wireType, afterTag, end);
    at = end;
  }
}

/** The varint at `at` (exact up to 2^53, which covers every tag, length and enum) and the offset after it. */
function varint(bytes: Buffer, at: number): [number, number] {
  let value = 0;
  for (let shift = 1, i = at; i < bytes.length && i < at + 10; i++, shift *= 128) {
    const byte = bytes[i] as number;
    value += (byte & 0x7f) * shift;
    if (byte < 0x80) return [value, i + 1];
  }
  throw new Error("helm-handoff: malformed protobuf varint");
}

/** The payload of a length-delimited field whose tag ends at `at`. */
function payload(bytes: Buffer, at: number, end: number): Buffer {
  return bytes.subarray(varint(bytes, at)[1], end);
}

/** A `google.protobuf.Struct` as a plain object (a key `__proto__` becomes an own key, not the prototype). */
function struct(bytes: Buffer): Record<string, Plain> {
  const out: Record<string, Plain> = {};
  forEachField(bytes, (field, wireType, at, end) => {
    if (field !== 1 || wireType !== LEN) return;
    const entry = payload(bytes, at, end);
    let key = "";
    let value: Plain | undefined;
    forEachField(entry, (entryField, entryType, entryAt, entryEnd) => {
      if (entryType !== LEN) return;
      if (entryField === 1) key = payload(entry, entryAt, entryEnd).toString("utf8");
      else if (entryField === 2) value = plainValue(payload(entry, entryAt, entryEnd));
    });
    if (value === undefined) throw new Error("Unexpected struct type");
    if (key === "__proto__") {
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    } else out[key] = value;
  });
  return out;
}

/** A `google.protobuf.ListValue` as an array. */
function list(bytes: Buffer): Plain[] {
  const out: Plain[] = [];
  forEachField(bytes, (field, wireType, at, end) => {
    if (field === 1 && wireType === LEN) out.push(plainValue(payload(bytes, at, end)));
  });
  return out;
}

/** A `google.protobuf.Value` as a plain value (the last kind on the wire wins, as in a oneof). */
function plainValue(bytes: Buffer): Plain {
  let value: Plain | undefined;
  forEachField(bytes, (field, wireType, at, end) => {
    if (field === 1 && wireType === VARINT) value = null;
    else if (field === 2 && wireType === I64) value = bytes.readDoubleLE(at);
    else if (field === 3 && wireType === LEN) value = payload(bytes, at, end).toString("utf8");
    else if (field === 4 && wireType === VARINT) value = varint(bytes, at)[0] !== 0;
    else if (field === 5 && wireType === LEN) value = struct(payload(bytes, at, end));
    else if (field === 6 && wireType === LEN) value = list(payload(bytes, at, end));
  });
  if (value === undefined) throw new Error("Unexpected struct type");
  return value;
}

/** Where each request type keeps the fields the provider reads (`provider.proto`). */
const REQUEST_FIELDS = {
  CheckRequest: { urn: 1, olds: 2, news: 3 },
  DiffRequest: { id: 1, urn: 2, olds: 3, news: 4 },
  CreateRequest: { urn: 1, properties: 2 },
  ReadRequest: { id: 1, urn: 2, properties: 3 },
  UpdateRequest: { id: 1, urn: 2, olds: 3, news: 4 },
  DeleteRequest: { id: 1, urn: 2, properties: 3 },
} as const;

/** A request's type name. */
export type RequestType = keyof typeof REQUEST_FIELDS;

/** What the provider reads of a request: property fields absent on the wire are `{}`. */
export interface ProviderRequest {
  readonly urn: string;
  readonly id: string;
  readonly olds: Record<string, unknown>;
  readonly news: Record<string, unknown>;
  readonly properties: Record<string, unknown>;
}

/** Per request type: the name of each field number the provider reads. */
const FIELD_NAMES = new Map<string, ReadonlyMap<number, string>>(
  Object.entries(REQUEST_FIELDS).map(([type, fields]) => [
    type,
    new Map(Object.entries(fields).map(([name, field]) => [field, name])),
  ]),
);

/** Decodes a request of type `type`. */
export function decodeRequest(type: RequestType, body: Uint8Array): ProviderRequest {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const names = FIELD_NAMES.get(type) ?? new Map<number, string>();
  const read: Record<string, unknown> = { urn: "", id: "", olds: {}, news: {}, properties: {} };
  forEachField(bytes, (field, wireType, at, end) => {
    const name = names.get(field);
    if (name === undefined || wireType !== LEN) return;
    const value = payload(bytes, at, end);
    read[name] = name === "urn" || name === "id" ? value.toString("utf8") : struct(value);
  });
  return read as unknown as ProviderRequest;
}

/** A varint's bytes. */
function varintBytes(value: number): Buffer {
  const out: number[] = [];
  let n = value;
  while (n >= 128) {
    out.push((n % 128) | 128);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
}

/** A length-delimited field: tag, length, payload. */
function lenField(field: number, bytes: Uint8Array): Buffer {
  return Buffer.concat([varintBytes(field * 8 + LEN), varintBytes(bytes.length), bytes]);
}

/** A string field (omitted when empty, as proto3 does for a field outside a oneof). */
function stringField(field: number, text: string | undefined): Buffer {
  return text === undefined || text === "" ? Buffer.alloc(0) : lenField(field, Buffer.from(text, "utf8"));
}

/** A varint field of a bool or enum (omitted when 0). */
function varintField(field: number, value: number): Buffer {
  return value === 0 ? Buffer.alloc(0) : Buffer.concat([varintBytes(field * 8 + VARINT), varintBytes(value)]);
}

/** A plain value as a `google.protobuf.Value`; throws on what `fromJavaScript` refuses. */
function encodeValue(value: unknown): Buffer {
  if (value === null) return Buffer.from([1 * 8 + VARINT, 0]);
  switch (typeof value) {
    case "string":
      return lenField(3, Buffer.from(value, "utf8"));
    case "number": {
      const double = Buffer.alloc(9);
      double[0] = 2 * 8 + I64;
      double.writeDoubleLE(value, 1);
      return double;
    }
    case "boolean":
      return Buffer.from([4 * 8 + VARINT, value ? 1 : 0]);
    case "object":
      return Array.isArray(value)
        ? lenField(6, Buffer.concat(value.map((item) => lenField(1, encodeValue(item)))))
        : lenField(5, encodeStruct(value as Record<string, unknown>));
    default:
      throw new Error("Unexpected struct type.");
  }
}

/** A plain object as a `google.protobuf.Struct`; keys whose value is `undefined` are left out. */
export function encodeStruct(value: Readonly<Record<string, unknown>>): Buffer {
  const entries: Buffer[] = [];
  for (const [key, v] of Object.entries(value)) {
    if (v !== undefined)
      entries.push(lenField(1, Buffer.concat([stringField(1, key), lenField(2, encodeValue(v))])));
  }
  return Buffer.concat(entries);
}

/** A message field holding a Struct, or nothing when `value` is undefined. */
function structField(field: number, value: Readonly<Record<string, unknown>> | undefined): Buffer {
  return value === undefined ? Buffer.alloc(0) : lenField(field, encodeStruct(value));
}

/** `DiffResponse.DiffChanges`. */
export const DIFF_UNKNOWN = 0;
export const DIFF_NONE = 1;
export const DIFF_SOME = 2;

/** A message whose only field is the string field 1 (`PluginInfo`, `GetSchemaResponse`). */
export function stringMessage(text: string): Buffer {
  return stringField(1, text);
}

/** `ConfigureResponse`: accepts secrets, resources and outputs. */
export const CONFIGURE_RESPONSE: Buffer = Buffer.concat([
  varintField(1, 1),
  varintField(3, 1),
  varintField(4, 1),
]);

/** `CheckResponse`. */
export function checkResponse(
  inputs: Readonly<Record<string, unknown>>,
  failures: readonly { readonly property: string; readonly reason: string }[],
): Buffer {
  return Buffer.concat([
    structField(1, inputs),
    ...failures.map((f) =>
      lenField(2, Buffer.concat([stringField(1, f.property), stringField(2, f.reason)])),
    ),
  ]);
}

/** `DiffResponse`. */
export function diffResponse(
  changes: number,
  replaces: readonly string[],
  deleteBeforeReplace: boolean,
): Buffer {
  return Buffer.concat([
    ...replaces.map((r) => lenField(1, Buffer.from(r, "utf8"))),
    varintField(3, deleteBeforeReplace ? 1 : 0),
    varintField(4, changes),
  ]);
}

/** `CreateResponse`. */
export function createResponse(id: string, properties: Readonly<Record<string, unknown>>): Buffer {
  return Buffer.concat([stringField(1, id), structField(2, properties)]);
}

/** `ReadResponse`. */
export function readResponse(
  id: string | undefined,
  properties: Readonly<Record<string, unknown>> | undefined,
  inputs: Readonly<Record<string, unknown>> | undefined,
): Buffer {
  return Buffer.concat([stringField(1, id), structField(2, properties), structField(3, inputs)]);
}

/** `UpdateResponse`. */
export function updateResponse(properties: Readonly<Record<string, unknown>>): Buffer {
  return structField(1, properties);
}

/** `LogRequest` of the engine's `Log` call: severity (`pulumirpc.LogSeverity`) and message. */
export function logRequest(severity: number, message: string): Buffer {
  return Buffer.concat([varintField(1, severity), stringField(2, message)]);
}
