/**
 * `validateSpec`: checks an add-on spec without touching a cluster and returns a
 * {@link ResolvedSpec} with every default filled in and every duration converted to a
 * {@link Duration}. The chart is checked by `chart.ts`, single fields by `fields.ts`.
 *
 * @module
 */

import { SpecError } from "../errors.js";
import { validateChart } from "./chart.js";
import type { Duration } from "./duration.js";
import {
  describe,
  describeSecret,
  isPlainObject,
  optionalBoolean,
  optionalString,
  readableFile,
  rejectUnknown,
  suggestName,
  toDuration,
} from "./fields.js";
import {
  type AddonSpec,
  DEFAULT_DEADLINE,
  DEFAULT_MAX_BACKOFF,
  DEFAULT_MIN_BACKOFF,
  DEFAULT_TIMEOUT,
  MAX_RELEASE_NAME_LENGTH,
  type ResolvedInstallOptions,
  type ResolvedRetryPolicy,
  type ResolvedSpec,
  STRATEGIES,
  type Strategy,
} from "./types.js";
import { readValuesFile, rejectProtoKeys, valuesPath } from "./values.js";

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

const INSTALL_KEYS = new Set(["wait", "waitForJobs", "timeout", "skipCrds", "disableHooks", "description"]);
const RETRY_KEYS = new Set(["deadline", "minBackoff", "maxBackoff"]);

/**
 * Validates an add-on spec without touching a cluster and fills in every default.
 *
 * Top-level keys that are not part of {@link AddonSpec} are ignored (front ends pass their
 * inputs through); unknown keys inside `chart`, `install` and `retry` are rejected as typos.
 * Files named by `valueFiles`, `chart.path` and `chart.caFile` must exist and be readable; values
 * files must be UTF-8 YAML mappings. No values key may be named `__proto__`.
 *
 * @param input - the spec, typically an {@link AddonSpec} or plain JSON from Pulumi inputs
 * @throws SpecError naming the field path and the fix
 */
export function validateSpec(input: unknown): ResolvedSpec {
  if (!isPlainObject(input)) {
    throw new SpecError(
      "spec",
      `spec is invalid: must be an object with at least chart and releaseName, got ${describe(input)}`,
    );
  }
  const releaseName = validateReleaseName(input.releaseName);
  const namespace = validateNamespace(input.namespace);
  const createNamespace = optionalBoolean(input.createNamespace, "createNamespace", false);
  const strategy = validateStrategy(input.strategy);
  const chart = validateChart(input.chart);
  const values = validateValues(input.values);
  const valueFiles = validateValueFiles(input.valueFiles);
  const install = validateInstall(input.install);
  const retry = validateRetry(input.retry, install.timeout);
  const adopt = validateAdopt(input.adopt, strategy);
  return {
    chart,
    releaseName,
    namespace,
    createNamespace,
    values,
    valueFiles,
    install,
    strategy,
    adopt,
    retry,
  };
}

/**
 * Validates only the fields present in `input`, for front ends that know some fields before
 * others (a Pulumi program: plain args at construction, Outputs later). Absent fields are not
 * checked; {@link validateSpec} still runs on the whole spec later.
 * @throws SpecError naming the field path and the fix
 */
export function validateKnownFields(input: Readonly<Record<string, unknown>>): void {
  if ("releaseName" in input) validateReleaseName(input.releaseName);
  if ("namespace" in input) validateNamespace(input.namespace);
  if ("createNamespace" in input) optionalBoolean(input.createNamespace, "createNamespace", false);
  if ("strategy" in input) validateStrategy(input.strategy);
  if ("adopt" in input) validateAdopt(input.adopt, validateStrategy(input.strategy));
  if ("chart" in input) validateChart(input.chart);
  if ("values" in input) validateValues(input.values);
  if ("valueFiles" in input) validateValueFiles(input.valueFiles);
  const install = validateInstall(input.install);
  if ("retry" in input) validateRetry(input.retry, install.timeout);
}

/**
 * Validates `adopt`: a boolean, and `true` only with Reconcile (ApplyOnce adopts without it).
 * @throws SpecError on `adopt`
 */
function validateAdopt(value: unknown, strategy: Strategy): boolean {
  const adopt = optionalBoolean(value, "adopt", false);
  if (adopt && strategy !== "Reconcile") {
    throw new SpecError(
      "adopt",
      `adopt is invalid with strategy "${strategy}": it lets Reconcile take over a release it did not write, while ApplyOnce always adopts such a release as it is and never writes to it; remove adopt, or set strategy "Reconcile"`,
    );
  }
  return adopt;
}

/**
 * Validates a release name alone (helm: lowercase DNS-1123, at most 53 characters).
 * @throws SpecError on `releaseName`
 */
export function validateReleaseName(value: unknown): string {
  if (typeof value !== "string") {
    throw new SpecError(
      "releaseName",
      `releaseName is required: give a lowercase DNS-1123 name of at most ${MAX_RELEASE_NAME_LENGTH} characters (helm's limit), e.g. "my-addon", got ${describe(value)}`,
    );
  }
  if (value.length > MAX_RELEASE_NAME_LENGTH || !DNS1123_SUBDOMAIN.test(value)) {
    throw new SpecError(
      "releaseName",
      `releaseName ${JSON.stringify(value)} is invalid: must be a lowercase DNS-1123 name of at most ${MAX_RELEASE_NAME_LENGTH} characters (helm's limit), e.g. ${JSON.stringify(suggestName(value, MAX_RELEASE_NAME_LENGTH))}`,
    );
  }
  return value;
}

function validateNamespace(value: unknown): string {
  if (value === undefined) return "default";
  if (typeof value !== "string" || value.length > 63 || !DNS1123_LABEL.test(value)) {
    const shown = typeof value === "string" ? JSON.stringify(value) : describe(value);
    const example = typeof value === "string" ? suggestName(value.replace(/\./g, "-"), 63) : "kube-system";
    throw new SpecError(
      "namespace",
      `namespace ${shown} is invalid: must be a lowercase DNS-1123 label of at most 63 characters, e.g. ${JSON.stringify(example)}`,
    );
  }
  return value;
}

function validateStrategy(value: unknown): Strategy {
  if (value === undefined) return "ApplyOnce";
  if (typeof value === "string" && (STRATEGIES as readonly string[]).includes(value))
    return value as Strategy;
  throw new SpecError(
    "strategy",
    `strategy ${typeof value === "string" ? JSON.stringify(value) : describe(value)} is invalid: must be one of ${STRATEGIES.map((s) => JSON.stringify(s)).join(", ")}`,
  );
}

function validateValues(value: unknown): Readonly<Record<string, unknown>> {
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value)) {
    throw new SpecError(
      "values",
      `values is invalid: must be a plain object of chart values, e.g. { replicaCount: 2 }, got ${describeSecret(value)}`,
    );
  }
  checkJson(value, "values");
  rejectProtoKeys(value, "values");
  return value;
}

function checkJson(value: unknown, path: string): void {
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (Number.isFinite(value)) return;
    throw new SpecError(path, `${path} is invalid: chart values must be JSON, got ${value}`);
  }
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) checkJson(v, `${path}[${i}]`);
    return;
  }
  if (isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) checkJson(v, valuesPath(path, k));
    return;
  }
  throw new SpecError(
    path,
    `${path} is invalid: chart values must be JSON (objects, arrays, strings, numbers, booleans, null), got ${describe(value)}`,
  );
}

function validateValueFiles(value: unknown): readonly string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new SpecError(
      "valueFiles",
      `valueFiles is invalid: must be an array of file paths, got ${describe(value)}`,
    );
  }
  return value.map((f, i) => {
    const field = `valueFiles[${i}]`;
    if (typeof f !== "string" || f === "") {
      throw new SpecError(field, `${field} is invalid: must be a file path, got ${describe(f)}`);
    }
    const file = readableFile(f, field, "a YAML values file");
    readValuesFile(f, field);
    return file;
  });
}

function validateInstall(value: unknown): ResolvedInstallOptions {
  if (value === undefined) value = {};
  if (!isPlainObject(value)) {
    throw new SpecError(
      "install",
      `install is invalid: must be an object of install options, got ${describe(value)}`,
    );
  }
  rejectUnknown(value, INSTALL_KEYS, "install");
  const wait = optionalBoolean(value.wait, "install.wait", true);
  const waitForJobs = optionalBoolean(value.waitForJobs, "install.waitForJobs", false);
  if (waitForJobs && !wait) {
    throw new SpecError(
      "install.waitForJobs",
      "install.waitForJobs is true but install.wait is false: waiting for Jobs needs install.wait",
    );
  }
  return {
    wait,
    waitForJobs,
    timeout: toDuration(value.timeout, "install.timeout", DEFAULT_TIMEOUT),
    skipCrds: optionalBoolean(value.skipCrds, "install.skipCrds", false),
    disableHooks: optionalBoolean(value.disableHooks, "install.disableHooks", false),
    description: optionalString(value.description, "install.description"),
  };
}

function validateRetry(value: unknown, timeout: Duration): ResolvedRetryPolicy {
  if (value === undefined) value = {};
  if (!isPlainObject(value)) {
    throw new SpecError(
      "retry",
      `retry is invalid: must be an object { deadline?, minBackoff?, maxBackoff? }, got ${describe(value)}`,
    );
  }
  rejectUnknown(value, RETRY_KEYS, "retry");
  const deadline = toDuration(value.deadline, "retry.deadline", DEFAULT_DEADLINE);
  const minBackoff = toDuration(value.minBackoff, "retry.minBackoff", DEFAULT_MIN_BACKOFF);
  const maxBackoff = toDuration(value.maxBackoff, "retry.maxBackoff", DEFAULT_MAX_BACKOFF);
  if (maxBackoff.toMilliseconds() < minBackoff.toMilliseconds()) {
    throw new SpecError(
      "retry.maxBackoff",
      `retry.maxBackoff "${maxBackoff}" is shorter than retry.minBackoff "${minBackoff}": raise retry.maxBackoff or lower retry.minBackoff`,
    );
  }
  if (deadline.toMilliseconds() < timeout.toMilliseconds()) {
    throw new SpecError(
      "retry.deadline",
      `retry.deadline "${deadline}" is shorter than install.timeout "${timeout}": the overall deadline must allow at least one full attempt; raise retry.deadline or lower install.timeout`,
    );
  }
  return { deadline, minBackoff, maxBackoff };
}
