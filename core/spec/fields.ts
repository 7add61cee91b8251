/**
 * Field-level checks of the spec validation: plain objects, optional booleans and strings,
 * durations, readable files, unknown keys, and how a bad value is described in a message
 * (secrets by type only, never by content; URLs without userinfo, query or fragment). Every check throws a {@link SpecError} naming the
 * field path and what would be accepted.
 *
 * @module
 */
import { accessSync, constants, statSync } from "node:fs";
import { resolve } from "node:path";
import { SpecError } from "../errors.js";
import { Duration } from "./duration.js";
import { MAX_DURATION } from "./types.js";

export function readableFile(p: string, field: string, what: string): string {
  const abs = resolve(p);
  let problem: string | undefined;
  try {
    if (!statSync(abs).isFile()) problem = "is not a file";
    else accessSync(abs, constants.R_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    problem = code === "ENOENT" ? "does not exist" : `cannot be read (${code ?? "error"})`;
  }
  if (problem !== undefined) {
    throw new SpecError(
      field,
      `${field} ${JSON.stringify(p)} ${problem}: give the path of ${what} readable by this process`,
    );
  }
  return abs;
}

/**
 * Converts a duration input (a {@link Duration}, a string such as `"5m"`, or a number of
 * seconds) into a positive {@link Duration} of at most `MAX_DURATION`.
 *
 * @param value - the input
 * @param field - the prop, for the error message
 * @param fallback - returned when `value` is undefined; @default none: undefined is an error
 * @throws SpecError naming `field` when the value is not a positive duration, or is longer than `MAX_DURATION`
 */
export function toDuration(value: unknown, field: string, fallback?: Duration): Duration {
  if (value === undefined && fallback !== undefined) return fallback;
  let ms: number | undefined;
  if (Duration.isDuration(value)) ms = value.toMilliseconds();
  else if (typeof value === "number" && Number.isFinite(value) && value >= 0) ms = value * 1000;
  else if (typeof value === "string") ms = Duration.parseMillis(value);
  const shown = Duration.isDuration(value)
    ? JSON.stringify(value.toString())
    : typeof value === "string"
      ? JSON.stringify(value)
      : typeof value === "number"
        ? String(value)
        : describe(value);
  if (ms === undefined || ms === 0) {
    throw new SpecError(
      field,
      `${field} ${shown} is invalid: must be a positive duration such as "5m", "300s" or "1h30m", or a number of seconds`,
    );
  }
  if (ms > MAX_DURATION.toMilliseconds()) {
    throw new SpecError(
      field,
      `${field} ${shown} is too long: must be a positive duration of at most ${MAX_DURATION} (${MAX_DURATION.toSeconds()} seconds), such as "30m" or "2h"`,
    );
  }
  return Duration.isDuration(value) ? value : Duration.millis(ms);
}

export function rejectUnknown(
  obj: Record<string, unknown>,
  known: ReadonlySet<string>,
  prefix: string,
): void {
  for (const key of Object.keys(obj)) {
    if (!known.has(key)) {
      throw new SpecError(
        `${prefix}.${key}`,
        `${prefix}.${key} is not a known field: ${prefix} takes ${[...known].join(", ")}`,
      );
    }
  }
}

export function optionalBoolean(value: unknown, field: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") {
    throw new SpecError(field, `${field} is invalid: must be true or false, got ${describe(value)}`);
  }
  return value;
}

export function optionalString(value: unknown, field: string, secret = false): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "") {
    const got = secret ? describeSecret(value) : describe(value);
    throw new SpecError(field, `${field} is invalid: must be a non-empty string, got ${got}`);
  }
  return value;
}

/** Whether `value` is a plain object (`{}` literal or `Object.create(null)`), not an array, class instance or null. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Like {@link describe}, without the content: for fields that hold secrets (values, passwords). */
export function describeSecret(value: unknown): string {
  if (value === undefined || value === null || Array.isArray(value) || typeof value === "object") {
    return describe(value);
  }
  return `a ${typeof value} (a secret field: its content is never shown)`;
}

/**
 * `url` for an error message: its userinfo (everything before the last `@` of the part after the
 * scheme, so a password holding `/` or `@` is hidden too), query and fragment, which may hold
 * credentials, replaced by `…`. Works on text that is not a valid URL.
 */
export function urlForMessage(url: string): string {
  return url
    .replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^?#]*@/is, "$1…@")
    .replace(/\?.*$/s, "?…")
    .replace(/#.*$/s, "#…");
}

export function describe(value: unknown): string {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string")
    return `a string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === "object")
    return `an instance of ${(value as object).constructor?.name ?? "an unknown class"}`;
  return `${typeof value} ${String(value)}`;
}

export function suggestName(value: string, max: number): string {
  const s = value
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, "-")
    .slice(0, max)
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, "");
  return s === "" ? "my-addon" : s;
}
