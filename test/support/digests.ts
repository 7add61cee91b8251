/**
 * The forms an unkeyed SHA-256 of secret material could take in state or engine output, for the
 * secret scans: the digest of each text a digest could have been taken over (canonical JSON as
 * `canonicalJson` makes it, plain `JSON.stringify`, the bare string), each as lowercase hex,
 * uppercase hex, base64 and base64url.
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "../../core/util/canonical-json.js";

/** Every printed form of the SHA-256 of `text`. */
export function sha256Forms(text: string): string[] {
  const bytes = createHash("sha256").update(text).digest();
  const hex = bytes.toString("hex");
  return [hex, hex.toUpperCase(), bytes.toString("base64"), bytes.toString("base64url")];
}

/** Every printed form of a SHA-256 of `value` as canonical JSON, as plain JSON and (for a string) bare. */
export function unkeyedDigestForms(value: unknown): string[] {
  const texts = new Set([canonicalJson(value), JSON.stringify(value)]);
  if (typeof value === "string") texts.add(value);
  return [...texts].flatMap(sha256Forms);
}
