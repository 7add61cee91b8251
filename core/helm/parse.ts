/**
 * Reads helm's JSON output (`-o json` of install, upgrade, status, history, list, get) into the
 * shapes of `types.ts`, and recognises helm's "release: not found". Pure functions; output that
 * is not JSON becomes a permanent {@link HelmError} naming the (redacted) command.
 *
 * @module
 */
import { type HelmError, makeHelmError } from "../errors.js";
import type { Redactor } from "./redact.js";
import type { ReleaseInfo, ReleaseListItem, ReleaseRevision } from "./types.js";

/** Parses helm's JSON stdout; `args` and `redactor` only serve the error. */
export function parseJson(stdout: string, args: readonly string[], redactor: Redactor): unknown {
  try {
    // helm prints "Pulled: …" / "Digest: …" lines before the JSON for oci:// charts.
    const start = stdout.search(/^[[{]/m);
    return JSON.parse(start > 0 ? stdout.slice(start) : stdout) as unknown;
  } catch (e) {
    throw makeHelmError(
      {
        kind: "permanent",
        reason: "unparsable helm output",
        command: redactor.redactArgv(["helm", ...args]),
        exitCode: 0,
        stderr: `expected JSON on stdout, got ${stdout.length} characters`,
      },
      { cause: e },
    );
  }
}

/** A release from `helm install/upgrade/status -o json`. */
export function parseRelease(stdout: string, args: readonly string[], redactor: Redactor): ReleaseInfo {
  const r = record(parseJson(stdout, args, redactor));
  const info = record(r.info);
  const meta = record(record(r.chart).metadata);
  return {
    name: str(r.name),
    namespace: str(r.namespace),
    revision: num(r.version),
    status: str(info.status),
    chart: str(meta.name),
    chartVersion: str(meta.version),
    appVersion: str(meta.appVersion),
    firstDeployed: str(info.first_deployed),
    lastDeployed: str(info.last_deployed),
    description: str(info.description),
    labels: labels(r.labels),
  };
}

/** Completes a release from `helm status` (which has no chart metadata in helm v4) with `helm get metadata -o json`. */
export function withMetadata(release: ReleaseInfo, metadata: unknown): ReleaseInfo {
  const m = record(metadata);
  return {
    ...release,
    chart: str(m.chart),
    chartVersion: str(m.version),
    appVersion: str(m.appVersion),
    labels: { ...release.labels, ...labels(m.labels) },
  };
}

/** String labels of a JSON object (anything else dropped). */
function labels(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(record(value))) if (typeof v === "string") out[k] = v;
  return out;
}

/** The revisions of `helm history -o json`. */
export function parseHistory(rows: unknown): ReleaseRevision[] {
  if (!Array.isArray(rows)) return [];
  return rows.map((row: unknown) => {
    const r = record(row);
    return {
      revision: num(r.revision),
      updated: str(r.updated),
      status: str(r.status),
      chart: str(r.chart),
      appVersion: str(r.app_version),
      description: str(r.description),
    };
  });
}

/** The releases of `helm list -o json`. */
export function parseList(rows: unknown): ReleaseListItem[] {
  if (!Array.isArray(rows)) return [];
  return rows.map((row: unknown) => {
    const r = record(row);
    return {
      name: str(r.name),
      namespace: str(r.namespace),
      revision: num(r.revision),
      status: str(r.status),
      chart: str(r.chart),
      appVersion: str(r.app_version),
      updated: str(r.updated),
    };
  });
}

/** The values map of `helm get values -o json`; `{}` when helm printed `null` or not a map. */
export function parseValues(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** Whether `e` is helm's "release: not found" (status, uninstall, history, get). */
export function isReleaseNotFound(e: unknown): boolean {
  return (
    typeof e === "object" &&
    e !== null &&
    typeof (e as HelmError).stderr === "string" &&
    /release: not found|release not found/i.test((e as HelmError).stderr)
  );
}

function record(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null ? (v as Record<string, unknown>) : {};
}

function str(v: unknown): string {
  return typeof v === "string" ? v : v === undefined || v === null ? "" : String(v);
}

function num(v: unknown): number {
  return typeof v === "number" ? v : Number(v ?? 0) || 0;
}
