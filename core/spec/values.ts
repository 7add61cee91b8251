/**
 * Chart values as helm takes them: the one reader of values files (UTF-8 only, a YAML mapping,
 * no `__proto__` key), used by validation, by the helm call (to register a file's values as
 * secrets) and by every front end that merges files itself; and the merge of `-f a.yaml -f b.yaml
 * --values …` layers. A key named `__proto__` is refused wherever values enter (files here,
 * `values` in the spec validation): JavaScript drops it on assignment, so it could not reach helm
 * intact.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { SpecError } from "../errors.js";
import { yamlErrorSummary } from "../util/yaml-error.js";
import { isPlainObject } from "./fields.js";

/** The key values may not hold. */
const PROTO_KEY = "__proto__";

/**
 * Merges values like helm: maps merge recursively, any other value (arrays included) replaces.
 * Returns a new object; the inputs are not modified. Keys are defined, never assigned, so no key
 * (not even `__proto__`) is lost on the way.
 */
export function mergeValues(
  ...layers: readonly Readonly<Record<string, unknown>>[]
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const layer of layers) {
    for (const [k, v] of Object.entries(layer)) {
      const prev = Object.hasOwn(out, k) ? out[k] : undefined;
      const value = isPlainObject(prev) && isPlainObject(v) ? mergeValues(prev, v) : v;
      Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
    }
  }
  return out;
}

/** The path of `key` under `path`, as messages name a values field: `values.a`, `values["a-b"]`. */
export function valuesPath(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/**
 * Throws when `value` holds a key named `__proto__` at any depth.
 * @param path - the path of `value` in messages, e.g. `values`
 * @param field - the field the error names @default path
 * @throws SpecError naming `field` and the key's path
 */
export function rejectProtoKeys(value: unknown, path: string, field: string = path): void {
  // The paths are made only for a message: every check walks the values, which hold none.
  if (holdsProtoKey(value)) rejectProtoKeysAt(value, path, field);
}

/** Whether `value` holds a key named `__proto__` at any depth. */
function holdsProtoKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsProtoKey);
  if (!isPlainObject(value)) return false;
  for (const key of Object.keys(value)) {
    if (key === PROTO_KEY || holdsProtoKey(value[key])) return true;
  }
  return false;
}

/** {@link rejectProtoKeys}' walk, naming the first such key in order. */
function rejectProtoKeysAt(value: unknown, path: string, field: string): void {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) rejectProtoKeysAt(v, `${path}[${i}]`, field);
  } else if (isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      const at = valuesPath(path, k);
      if (k === PROTO_KEY) {
        throw new SpecError(
          field,
          `${at} is invalid: a values key named "__proto__" cannot be passed on intact (JavaScript drops it); rename the key in the values and in the chart`,
        );
      }
      rejectProtoKeysAt(v, at, field);
    }
  }
}

/**
 * Reads one values file: UTF-8 text holding a YAML mapping (or nothing), without `__proto__` keys.
 * @param field - the field that names the file, e.g. `valueFiles[0]`
 * @returns the file's values (`{}` for an empty file)
 * @throws SpecError naming `field` and the file when it cannot be read, is not UTF-8, not YAML or not a mapping
 */
export function readValuesFile(path: string, field: string): Record<string, unknown> {
  const shown = `${field} ${JSON.stringify(path)}`;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new SpecError(
      field,
      `${shown} ${code === "ENOENT" ? "does not exist" : `cannot be read (${code ?? "error"})`}: give the path of a YAML values file readable by this process`,
    );
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new SpecError(
      field,
      `${shown} is not UTF-8 text: save it as UTF-8 (helm reads values files as UTF-8; other encodings would change the values)`,
    );
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new SpecError(field, `${shown} is not valid YAML: ${yamlErrorSummary(e)}`);
  }
  if (doc === null || doc === undefined) return {};
  if (!isPlainObject(doc)) {
    throw new SpecError(field, `${shown} is invalid: must contain a YAML mapping of chart values`);
  }
  rejectProtoKeys(doc, shown, field);
  return doc;
}

/**
 * Reads values files and merges them in order (later files win), each with {@link readValuesFile}.
 * @throws SpecError naming `valueFiles[i]`
 */
export function readValueFiles(paths: readonly string[]): Record<string, unknown> {
  return mergeValues(...paths.map((p, i) => readValuesFile(p, `valueFiles[${i}]`)));
}

/**
 * The values a release is installed with: its values files merged in order, then `values` on
 * top. The one place that order is written (the lifecycle's comparison, the cdk8s render and its
 * handoff record read it).
 * @throws SpecError naming `valueFiles[i]`
 */
export function effectiveValues(spec: {
  readonly valueFiles?: readonly string[];
  readonly values?: Readonly<Record<string, unknown>>;
}): Record<string, unknown> {
  return mergeValues(readValueFiles(spec.valueFiles ?? []), spec.values ?? {});
}
