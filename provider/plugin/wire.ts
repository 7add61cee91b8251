/**
 * The protocol buffers wire format of the messages the package's provider exchanges with the engine
 * (`pulumirpc.ResourceProvider`), written out by hand: the requests' URN, ID and property fields
 * read, the answers written, and `google.protobuf.Struct` turned into plain values and back by the
 * rules of google-protobuf's `toJavaScript` / `fromJavaScript`. The engine starts the plugin on
 * every `up`, and the SDK's generated messages (`provider_pb.js`, 450 kB, and the google-protobuf
 * runtime) cost each start more to load than every call of a steady `up` costs to answer; this file
 * is a few kB. Field numbers are those of Pulumi's `provider.proto` (fields are only ever added
 * there); a field this provider does not read is skipped, as any protobuf reader does. Each check
 * and diff of an add-on crosses its kubeconfig and values several levels deep, so a request is read
 * by offsets into its one buffer (no copy per nested message) and a Struct is written in two
 * passes, sizes then bytes, into one buffer (no copy per level).
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

/**
 * One field of a message: its number, wire type, where its value starts (after the tag; for a
 * length-delimited one, after the length too) and where it ends.
 */
interface Field {
  field: number;
  wireType: number;
  at: number;
  end: number;
}

/**
 * Reads the field at `at` of the message in `bytes` that ends at `limit` into `into`, and returns
 * the offset after it. The reader works on offsets into one buffer: a nested message is not a copy.
 */
function readField(bytes: Buffer, at: number, limit: number, into: Field): number {
  const tag = varint(bytes, at, limit);
  const wireType = tag % 8;
  let start = varintEnd;
  let end: number;
  if (wireType === VARINT) {
    varint(bytes, start, limit);
    end = varintEnd;
  } else if (wireType === I64) end = start + 8;
  else if (wireType === I32) end = start + 4;
  else if (wireType === LEN) {
    const length = varint(bytes, start, limit);
    start = varintEnd;
    end = start + length;
  } else throw new Error(`helm-handoff: protobuf wire type ${wireType} is not supported`);
  if (end > limit) throw new Error("helm-handoff: truncated protobuf message");
  into.field = Math.floor(tag / 8);
  into.wireType = wireType;
  into.at = start;
  into.end = end;
  return end;
}

/** The offset after the varint {@link varint} read last. */
let varintEnd = 0;

/**
 * The varint at `at`, before `limit` (exact up to 2^53, which covers every tag, length and enum);
 * the offset after it is left in {@link varintEnd}.
 */
function varint(bytes: Buffer, at: number, limit: number): number {
  let value = 0;
  for (let shift = 1, i = at; i < limit && i < at + 10; i++, shift *= 128) {
    const byte = bytes[i] as number;
    value += (byte & 0x7f) * shift;
    if (byte < 0x80) {
      varintEnd = i + 1;
      return value;
    }
  }
  throw new Error("helm-handoff: malformed protobuf varint");
}

/** The `google.protobuf.Struct` in `bytes` from `at` to `end` as a plain object (a key `__proto__` becomes an own key, not the prototype). */
function struct(bytes: Buffer, at: number, end: number): Record<string, Plain> {
  const out: Record<string, Plain> = {};
  const f: Field = { field: 0, wireType: 0, at: 0, end: 0 };
  const e: Field = { field: 0, wireType: 0, at: 0, end: 0 };
  for (let i = at; i < end; ) {
    i = readField(bytes, i, end, f);
    if (f.field !== 1 || f.wireType !== LEN) continue;
    let key = "";
    let value: Plain | undefined;
    for (let j = f.at; j < f.end; ) {
      j = readField(bytes, j, f.end, e);
      if (e.wireType !== LEN) continue;
      if (e.field === 1) key = bytes.toString("utf8", e.at, e.end);
      else if (e.field === 2) value = plainValue(bytes, e.at, e.end);
    }
    if (value === undefined) throw new Error("Unexpected struct type");
    if (key === "__proto__") {
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    } else out[key] = value;
  }
  return out;
}

/** The `google.protobuf.ListValue` in `bytes` from `at` to `end` as an array. */
function list(bytes: Buffer, at: number, end: number): Plain[] {
  const out: Plain[] = [];
  const f: Field = { field: 0, wireType: 0, at: 0, end: 0 };
  for (let i = at; i < end; ) {
    i = readField(bytes, i, end, f);
    if (f.field === 1 && f.wireType === LEN) out.push(plainValue(bytes, f.at, f.end));
  }
  return out;
}

/** The `google.protobuf.Value` in `bytes` from `at` to `end` as a plain value (the last kind on the wire wins, as in a oneof). */
function plainValue(bytes: Buffer, at: number, end: number): Plain {
  let value: Plain | undefined;
  const f: Field = { field: 0, wireType: 0, at: 0, end: 0 };
  for (let i = at; i < end; ) {
    i = readField(bytes, i, end, f);
    const { field, wireType } = f;
    if (field === 1 && wireType === VARINT) value = null;
    else if (field === 2 && wireType === I64) value = bytes.readDoubleLE(f.at);
    else if (field === 3 && wireType === LEN) value = bytes.toString("utf8", f.at, f.end);
    else if (field === 4 && wireType === VARINT) value = varint(bytes, f.at, f.end) !== 0;
    else if (field === 5 && wireType === LEN) value = struct(bytes, f.at, f.end);
    else if (field === 6 && wireType === LEN) value = list(bytes, f.at, f.end);
  }
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
  const f: Field = { field: 0, wireType: 0, at: 0, end: 0 };
  for (let i = 0; i < bytes.length; ) {
    i = readField(bytes, i, bytes.length, f);
    const name = names.get(f.field);
    if (name === undefined || f.wireType !== LEN) continue;
    read[name] =
      name === "urn" || name === "id" ? bytes.toString("utf8", f.at, f.end) : struct(bytes, f.at, f.end);
  }
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

/** The bytes a varint of `value` takes. */
function varintSize(value: number): number {
  let size = 1;
  for (let n = value; n >= 128; n = Math.floor(n / 128)) size++;
  return size;
}

/** The bytes a length-delimited field with a one-byte tag and a payload of `size` bytes takes. */
function lenSize(size: number): number {
  return 1 + varintSize(size) + size;
}

/**
 * The size of `value` as a `google.protobuf.Value`; throws on what `fromJavaScript` refuses. Pushes
 * to `sizes`, in the order {@link writeValue} reads them back, the byte length of each string and
 * of each Struct or list payload: a Struct is written in two passes, sizes then bytes, into one buffer.
 */
function measureValue(value: unknown, sizes: number[]): number {
  if (value === null) return 2;
  switch (typeof value) {
    case "string": {
      const size = Buffer.byteLength(value, "utf8");
      sizes.push(size);
      return lenSize(size);
    }
    case "number":
      return 9;
    case "boolean":
      return 2;
    case "object": {
      if (!Array.isArray(value)) return lenSize(measureStruct(value as Record<string, unknown>, sizes));
      const slot = sizes.push(0) - 1;
      let size = 0;
      for (let i = 0; i < value.length; i++) size += lenSize(measureValue(value[i], sizes));
      sizes[slot] = size;
      return lenSize(size);
    }
    default:
      throw new Error("Unexpected struct type.");
  }
}

/** The payload size of `value` as a `google.protobuf.Struct` (see {@link measureValue}); keys whose value is `undefined` are left out. */
function measureStruct(value: Readonly<Record<string, unknown>>, sizes: number[]): number {
  const slot = sizes.push(0) - 1;
  let size = 0;
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const keySize = Buffer.byteLength(key, "utf8");
    sizes.push(keySize);
    // The entry: the key (omitted when empty, as proto3 does), then the value.
    size += lenSize((keySize === 0 ? 0 : lenSize(keySize)) + lenSize(measureValue(v, sizes)));
  }
  sizes[slot] = size;
  return size;
}

/** Where the second pass writes, and the sizes the first pass measured. */
interface Writer {
  readonly bytes: Buffer;
  pos: number;
  readonly sizes: readonly number[];
  next: number;
}

function writeVarint(w: Writer, value: number): void {
  let n = value;
  while (n >= 128) {
    w.bytes[w.pos++] = (n % 128) | 128;
    n = Math.floor(n / 128);
  }
  w.bytes[w.pos++] = n;
}

/** The size of `value` as a Value, from the sizes measured (`value` is the next one to write). */
function measuredSize(w: Writer, value: unknown): number {
  if (value === null || typeof value === "boolean") return 2;
  return typeof value === "number" ? 9 : lenSize(w.sizes[w.next] as number);
}

/** Writes one length-delimited text field: tag, its measured length `size`, its UTF-8 bytes. */
function writeText(w: Writer, tag: number, text: string, size: number): void {
  w.bytes[w.pos++] = tag;
  writeVarint(w, size);
  w.pos += w.bytes.write(text, w.pos, size, "utf8");
}

/** Writes `value` as a `google.protobuf.Value` measured by {@link measureValue}. */
function writeValue(w: Writer, value: unknown): void {
  if (value === null) {
    w.bytes[w.pos++] = 1 * 8 + VARINT;
    w.bytes[w.pos++] = 0;
  } else if (typeof value === "string") writeText(w, 3 * 8 + LEN, value, w.sizes[w.next++] as number);
  else if (typeof value === "number") {
    w.bytes[w.pos++] = 2 * 8 + I64;
    w.pos = w.bytes.writeDoubleLE(value, w.pos);
  } else if (typeof value === "boolean") {
    w.bytes[w.pos++] = 4 * 8 + VARINT;
    w.bytes[w.pos++] = value ? 1 : 0;
  } else if (Array.isArray(value)) {
    w.bytes[w.pos++] = 6 * 8 + LEN;
    writeVarint(w, w.sizes[w.next++] as number);
    for (let i = 0; i < value.length; i++) {
      w.bytes[w.pos++] = 1 * 8 + LEN;
      writeVarint(w, measuredSize(w, value[i]));
      writeValue(w, value[i]);
    }
  } else {
    w.bytes[w.pos++] = 5 * 8 + LEN;
    writeVarint(w, w.sizes[w.next] as number);
    writeStruct(w, value as Record<string, unknown>);
  }
}

/** Writes the payload of `value` as a `google.protobuf.Struct` measured by {@link measureStruct}. */
function writeStruct(w: Writer, value: Readonly<Record<string, unknown>>): void {
  w.next++;
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const keySize = w.sizes[w.next++] as number;
    const size = measuredSize(w, v);
    w.bytes[w.pos++] = 1 * 8 + LEN;
    writeVarint(w, (keySize === 0 ? 0 : lenSize(keySize)) + lenSize(size));
    if (keySize > 0) writeText(w, 1 * 8 + LEN, key, keySize);
    w.bytes[w.pos++] = 2 * 8 + LEN;
    writeVarint(w, size);
    writeValue(w, v);
  }
}

/** A plain object as a `google.protobuf.Struct`; keys whose value is `undefined` are left out. */
export function encodeStruct(value: Readonly<Record<string, unknown>>): Buffer {
  const sizes: number[] = [];
  const size = measureStruct(value, sizes);
  const w: Writer = { bytes: Buffer.alloc(size), pos: 0, sizes, next: 0 };
  writeStruct(w, value);
  // Measured and written from the same values: a difference is a bug here, never sent.
  if (w.pos !== size || w.next !== sizes.length)
    throw new Error("helm-handoff: Struct encoding is inconsistent");
  return w.bytes;
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
