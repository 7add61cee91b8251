/**
 * Secrets and unknowns on the wire between the engine and the package's provider. The provider says it accepts
 * secrets, so the engine sends a secret input as an object `{ [SIG]: SECRET_SIG, value }` instead
 * of the value. `unwrapSecrets` turns such inputs into the plain values the shared CRUD code
 * (the shared CRUD) works on; `wrapSecrets` marks the secret keys of what it returns, so
 * nothing secret reaches the state in plaintext (the engine's `additionalSecretOutputs` on the
 * release does the same a second time).
 *
 * @module
 */
import { SECRET_OUTPUT_KEYS } from "../state/shape.js";

/** The key that marks a special value on the wire. */
const SIG = "4dabf18193072939515e22adb298388d";
/** The signature of a secret value. */
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

function isSecretValue(v: unknown): v is { readonly value: unknown } {
  return typeof v === "object" && v !== null && (v as Record<string, unknown>)[SIG] === SECRET_SIG;
}

/** The value the engine sends for one it does not know yet (in a preview). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Whether `value` is, or holds somewhere, a value the engine does not know yet. */
export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (typeof value === "object" && value !== null) return Object.values(value).some(containsUnknown);
  return false;
}

/** `value` with every wire secret replaced by its value, deeply. */
export function unwrapSecrets(value: unknown): unknown {
  if (isSecretValue(value)) return unwrapSecrets(value.value);
  if (Array.isArray(value)) return value.map(unwrapSecrets);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unwrapSecrets(v)]));
  }
  return value;
}

/** The keys sent as wire secrets: the stored secret outputs, and the add-on's `valuesDigestKey` (the stored `digestKey`). */
const WIRE_SECRET_KEYS: ReadonlySet<string> = new Set([...SECRET_OUTPUT_KEYS, "valuesDigestKey"]);

/** `outputs` with each secret key (see {@link WIRE_SECRET_KEYS}) sent as a wire secret. */
export function wrapSecrets(outputs: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const secret = WIRE_SECRET_KEYS;
  return Object.fromEntries(
    Object.entries(outputs).map(([k, v]) => [
      k,
      secret.has(k) && v !== undefined ? { [SIG]: SECRET_SIG, value: v } : v,
    ]),
  );
}
