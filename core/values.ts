/**
 * Reading and merging chart values the way helm does (`-f a.yaml -f b.yaml --values …`).
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { SpecError } from "./errors.js";
import { isPlainObject } from "./spec.js";

/**
 * Merges values like helm: maps merge recursively, any other value (arrays included) replaces.
 * Returns a new object; the inputs are not modified.
 */
export function mergeValues(
  ...layers: readonly Readonly<Record<string, unknown>>[]
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const layer of layers) {
    for (const [k, v] of Object.entries(layer)) {
      const prev = out[k];
      out[k] = isPlainObject(prev) && isPlainObject(v) ? mergeValues(prev, v) : v;
    }
  }
  return out;
}

/**
 * Reads YAML values files and merges them in order (later files win).
 * @throws SpecError naming `valueFiles[i]` when a file cannot be read or is not a YAML mapping
 */
export function readValueFiles(paths: readonly string[]): Record<string, unknown> {
  const layers = paths.map((p, i) => {
    const field = `valueFiles[${i}]`;
    let text: string;
    try {
      text = readFileSync(p, "utf8");
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new SpecError(
        field,
        `${field} ${JSON.stringify(p)} ${code === "ENOENT" ? "does not exist" : `cannot be read (${code ?? "error"})`}: give the path of a YAML values file readable by this process`,
      );
    }
    let doc: unknown;
    try {
      doc = parseYaml(text);
    } catch (e) {
      throw new SpecError(
        field,
        `${field} ${JSON.stringify(p)} is not valid YAML: ${(e as Error).message.split("\n")[0]}`,
      );
    }
    if (doc === null || doc === undefined) return {};
    if (!isPlainObject(doc)) {
      throw new SpecError(
        field,
        `${field} ${JSON.stringify(p)} is invalid: must contain a YAML mapping of chart values`,
      );
    }
    return doc;
  });
  return mergeValues(...layers);
}
