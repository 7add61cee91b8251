/**
 * The digests of chart values: an unkeyed fingerprint for comparisons in memory only
 * ({@link valuesFingerprint}), and the keyed digests that are stored: HMAC-SHA256 of the values' canonical JSON under a random key that
 * belongs to one release (generated at its first create, kept as a Pulumi secret in state, reused
 * by every update and refresh). Whoever holds only the digest cannot test guesses of the values
 * offline, and two releases with the same values store different digests; whoever holds the key
 * can recompute a digest with {@link keyedValuesDigest}. Passwords are never digested: a change of
 * one is detected by comparing the secret itself.
 *
 * @module
 */
import { createHash, createHmac, randomBytes } from "node:crypto";
import { canonicalJson } from "../util/canonical-json.js";

/** The prefix of every keyed digest: `hmac-sha256:` then 64 hex digits. */
export const KEYED_DIGEST_PREFIX = "hmac-sha256:";

/** A new digest key: 32 random bytes, base64url (43 characters). Keep it secret. */
export function newDigestKey(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * `hmac-sha256:` + hex of HMAC-SHA256 keyed with the UTF-8 bytes of `key`, over the canonical JSON
 * of `values` (object keys sorted recursively, see `canonicalJson`); `undefined`/`null` count as `{}`.
 */
export function keyedValuesDigest(
  values: Readonly<Record<string, unknown>> | null | undefined,
  key: string,
): string {
  const mac = createHmac("sha256", Buffer.from(key, "utf8"))
    .update(canonicalJson(values ?? {}))
    .digest("hex");
  return `${KEYED_DIGEST_PREFIX}${mac}`;
}

/** Whether `digest` is a keyed digest (as opposed to an unkeyed `sha256:` one of older versions). */
export function isKeyedDigest(digest: unknown): boolean {
  return typeof digest === "string" && /^hmac-sha256:[0-9a-f]{64}$/.test(digest);
}

/** `"sha256:" + hex` of the {@link canonicalJson} of any JSON-like value. */
export function digestOf(value: unknown): string {
  return `sha256:${createHash("sha256").update(canonicalJson(value)).digest("hex")}`;
}

/**
 * A fingerprint of chart values (an unkeyed digest), for comparisons in memory only: never stored
 * or exported, since anyone could test guesses against it (the stored and exported
 * `valuesDigest` is keyed: `keyedValuesDigest`); `undefined`/`null` count as `{}`.
 */
export function valuesFingerprint(values: Readonly<Record<string, unknown>> | null | undefined): string {
  return digestOf(values ?? {});
}
