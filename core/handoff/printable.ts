/**
 * What may be printed of what a cluster wrote: `printable` replaces a redactor's secrets (the
 * kubeconfigs' tokens, keys and whole contents) and escapes every control character, so a
 * controller's condition message or an API error can neither leak a credential into a CI log nor
 * drive the terminal. Shared by the `helm-handoff` CLI and `fleetStatus`, whose verdicts are safe
 * to print as they are returned.
 *
 * @module
 */
import type { Redactor } from "../helm/redact.js";

/**
 * C0 and C1 control characters (newline and tab included: one verdict is one line) and the Unicode
 * controls that reorder or hide text (bidi embeddings, overrides and isolates, zero-width joiners).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

/** `text` safe to print: the redactor's secrets replaced, each control character shown as `\u{…}`. */
export function printable(text: string, redactor: Redactor): string {
  return redactor.redact(text).replace(CONTROL, (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16)}}`);
}

/** Every string inside `value` made {@link printable}. */
export function printableDeep<T>(value: T, redactor: Redactor): T {
  if (typeof value === "string") return printable(value, redactor) as T;
  if (Array.isArray(value)) return value.map((v) => printableDeep(v, redactor)) as T;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, printableDeep(v, redactor)])) as T;
  }
  return value;
}
