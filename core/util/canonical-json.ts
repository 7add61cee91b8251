/**
 * Canonical JSON, the one text every digest of values is computed over (the unkeyed in-memory
 * comparison of `valuesFingerprint` and the keyed digests stored in state and in the handoff record):
 * equal values give equal text whatever their key order.
 *
 * @module
 */

/**
 * Canonical JSON: object keys sorted (recursively), `undefined` members dropped, arrays in order.
 * Equal values give equal text whatever their key order. Every own key counts, `__proto__`
 * included (keys are defined, never assigned).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? "null";
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : sortKeys(v)));
  if (typeof value === "object" && value !== null && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) {
        Object.defineProperty(out, k, {
          value: sortKeys(v),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
    return out;
  }
  return value;
}
