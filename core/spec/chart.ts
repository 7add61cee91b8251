/**
 * Validation of the spec's `chart`: a repository chart (`https://` or `oci://`, name, version or
 * semver range, credentials, TLS) or a local chart (`path`). The version check accepts what helm's
 * `--version` accepts (Masterminds/semver constraints).
 *
 * @module
 */

import { accessSync, constants, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { SpecError } from "../errors.js";
import {
  describe,
  isPlainObject,
  optionalBoolean,
  optionalString,
  readableFile,
  urlForMessage,
} from "./fields.js";
import type { ResolvedChartSource, ResolvedPathChart, ResolvedRepoChart } from "./types.js";

const CHART_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

const SEMVER_PART = String.raw`(?:0|[1-9]\d*|[xX*])`;
const SEMVER = String.raw`v?${SEMVER_PART}(?:\.${SEMVER_PART}){0,2}(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?`;
const COMPARATOR = String.raw`(?:(?:!=|>=|=>|<=|=<|~>|[=><~^])\s*)?${SEMVER}`;
const TERM = String.raw`(?:${SEMVER}\s+-\s+${SEMVER}|${COMPARATOR})`;
const GROUP = String.raw`${TERM}(?:(?:\s*,\s*|\s+)${TERM})*`;
const CONSTRAINT = new RegExp(String.raw`^\s*${GROUP}(?:\s*\|\|\s*${GROUP})*\s*$`);
/**
 * One version alone, which {@link CONSTRAINT} accepts too. Tested first: V8 compiles a pattern on
 * its first use and again on its second, which for {@link CONSTRAINT} costs a provider process
 * more than the rest of its first checks, so a pinned version never makes it compile.
 */
const EXACT = new RegExp(`^${SEMVER}$`);

/**
 * Whether `text` is a version helm accepts in `--version`: an exact semantic version or a
 * Masterminds/semver constraint (`^1.2`, `~1.2.3`, `>=1.0.0 <2.0.0`, `1.2.x`, `1.2 - 1.4`, `a || b`).
 */
export function isVersionConstraint(text: string): boolean {
  return EXACT.test(text) || CONSTRAINT.test(text);
}

/** The fields of a repository chart source, in the order messages list them. */
export const REPO_CHART_FIELDS: ReadonlySet<string> = new Set([
  "repo",
  "name",
  "version",
  "username",
  "password",
  "caFile",
  "insecureSkipTlsVerify",
  "plainHttp",
  "secretRepo",
]);

const CHART_SHAPE =
  'give either { repo, name, version? } for a repository chart (repo "https://…" or "oci://…") or { path } for a local chart';

export function validateChart(value: unknown): ResolvedChartSource {
  if (!isPlainObject(value)) {
    throw new SpecError("chart", `chart is required: ${CHART_SHAPE}, got ${describe(value)}`);
  }
  const hasRepo = value.repo !== undefined;
  const hasPath = value.path !== undefined;
  if (hasRepo && hasPath) {
    throw new SpecError("chart", `chart has both repo and path: ${CHART_SHAPE}`);
  }
  if (!hasRepo && !hasPath) {
    throw new SpecError("chart", `chart has neither repo nor path: ${CHART_SHAPE}`);
  }
  if (hasPath) return validatePathChart(value);
  return validateRepoChart(value);
}

function validatePathChart(value: Record<string, unknown>): ResolvedPathChart {
  for (const key of Object.keys(value)) {
    if (key === "path" || value[key] === undefined) continue;
    throw new SpecError(
      `chart.${key}`,
      `chart.${key} is not allowed with chart.path: a local chart is used as it is (its version comes from its Chart.yaml)`,
    );
  }
  const p = value.path;
  if (typeof p !== "string" || p.trim() === "") {
    throw new SpecError(
      "chart.path",
      `chart.path is invalid: must be a non-empty path of a chart directory or .tgz, got ${describe(p)}`,
    );
  }
  const abs = resolve(p);
  let ok = false;
  try {
    const st = statSync(abs);
    if (st.isDirectory()) {
      accessSync(join(abs, "Chart.yaml"), constants.R_OK);
      ok = true;
    } else if (st.isFile()) {
      accessSync(abs, constants.R_OK);
      ok = true;
    }
  } catch {
    ok = false;
  }
  if (!ok) {
    throw new SpecError(
      "chart.path",
      `chart.path ${JSON.stringify(p)} is invalid: no readable chart there (need a directory with Chart.yaml or a packaged .tgz)`,
    );
  }
  return { kind: "path", path: abs };
}

function validateRepoChart(value: Record<string, unknown>): ResolvedRepoChart {
  for (const key of Object.keys(value)) {
    if (!REPO_CHART_FIELDS.has(key)) {
      throw new SpecError(
        `chart.${key}`,
        `chart.${key} is not a known field: a repository chart takes ${[...REPO_CHART_FIELDS].join(", ")}`,
      );
    }
  }
  const repoRaw = value.repo;
  const repoExample = 'e.g. "https://charts.example.org" or "oci://registry.example.org/charts"';
  if (typeof repoRaw !== "string") {
    throw new SpecError(
      "chart.repo",
      `chart.repo is invalid: must be a URL string, ${repoExample}, got ${describe(repoRaw)}`,
    );
  }
  const kind = /^oci:\/\//i.test(repoRaw) ? "oci" : /^https?:\/\//i.test(repoRaw) ? "repo" : undefined;
  let urlOk = false;
  try {
    const u = new URL(repoRaw);
    urlOk = u.hostname !== "" && u.search === "" && u.hash === "";
    if (u.username !== "" || u.password !== "") {
      // A password in the URL would reach helm's argv, the state and the handoff record in clear.
      throw new SpecError(
        "chart.repo",
        "chart.repo must not carry credentials (user:password@): give them as chart.username and chart.password, which are kept secret",
      );
    }
  } catch (e) {
    if (e instanceof SpecError) throw e;
    urlOk = false;
  }
  if (kind === undefined || !urlOk) {
    const shown = value.secretRepo === true ? "(secret)" : JSON.stringify(urlForMessage(repoRaw));
    const why = /[?#]/.test(repoRaw)
      ? "must not carry a query or fragment (not shown: it may hold a token); give credentials as chart.username and chart.password"
      : "must be an https://, http:// or oci:// URL";
    throw new SpecError("chart.repo", `chart.repo ${shown} is invalid: ${why}, ${repoExample}`);
  }
  const repo = repoRaw.replace(/\/+$/, "");
  const name = value.name;
  if (typeof name !== "string" || name === "") {
    throw new SpecError(
      "chart.name",
      `chart.name is required with chart.repo: give the chart's name, e.g. "cilium", got ${describe(name)}`,
    );
  }
  if (kind === "oci" && /[:@]/.test(name)) {
    const base = name.split(/[:@]/, 1)[0] ?? name;
    const tag = name.slice(base.length + 1);
    throw new SpecError(
      "chart.name",
      `chart.name ${JSON.stringify(name)} is invalid: an oci:// chart name must not carry a tag or digest; put the version in chart.version, e.g. name ${JSON.stringify(base)}, version ${JSON.stringify(/^sha256:/.test(tag) ? "1.2.3" : tag)}`,
    );
  }
  if (!CHART_NAME.test(name)) {
    const hint = name.includes("/")
      ? `the repository goes in chart.repo, e.g. ${JSON.stringify(name.split("/").pop())}`
      : 'e.g. "cilium"';
    throw new SpecError(
      "chart.name",
      `chart.name ${JSON.stringify(name)} is invalid: must be the chart's name alone (letters, digits, ".", "_", "-"); ${hint}`,
    );
  }
  const version = value.version;
  if (version !== undefined && (typeof version !== "string" || !isVersionConstraint(version))) {
    throw new SpecError(
      "chart.version",
      `chart.version ${typeof version === "string" ? JSON.stringify(version) : describe(version)} is invalid: must be an exact version (e.g. "1.2.3") or a semver range helm understands (e.g. "^1.2", "~1.2.3", ">=1.0.0 <2.0.0", "1.2.x"); omit it for the latest version`,
    );
  }
  const username = optionalString(value.username, "chart.username");
  const password = optionalString(value.password, "chart.password", true);
  if (username !== undefined && password === undefined) {
    throw new SpecError(
      "chart.password",
      "chart.username is set but chart.password is not: give both for basic auth, or neither",
    );
  }
  if (password !== undefined && username === undefined) {
    throw new SpecError(
      "chart.username",
      "chart.password is set but chart.username is not: give both for basic auth, or neither",
    );
  }
  const caFileRaw = optionalString(value.caFile, "chart.caFile");
  const caFile =
    caFileRaw === undefined ? undefined : readableFile(caFileRaw, "chart.caFile", "a PEM CA bundle");
  const insecureSkipTlsVerify = optionalBoolean(
    value.insecureSkipTlsVerify,
    "chart.insecureSkipTlsVerify",
    false,
  );
  const plainHttp = optionalBoolean(value.plainHttp, "chart.plainHttp", false);
  if (plainHttp && kind !== "oci") {
    throw new SpecError(
      "chart.plainHttp",
      `chart.plainHttp only applies to oci:// repositories: for plain HTTP chart repositories use an http:// repo URL`,
    );
  }
  const secretRepo = optionalBoolean(value.secretRepo, "chart.secretRepo", false);
  if (secretRepo && !/^https:\/\//i.test(repo)) {
    throw new SpecError(
      "chart.secretRepo",
      "chart.secretRepo applies only to https:// chart repositories (an oci:// reference is part of helm's argv, an http:// URL crosses the network in clear): use the repository's https:// URL",
    );
  }
  if (password !== undefined) refuseCleartextPassword(repo, plainHttp, insecureSkipTlsVerify);
  return {
    kind,
    repo,
    name,
    version: typeof version === "string" ? version.trim() : undefined,
    username,
    password,
    caFile,
    insecureSkipTlsVerify,
    plainHttp,
    secretRepo,
  };
}

/**
 * Refuses a repository password that would cross the network in clear (`http://`, `plainHttp`) or
 * go to a server whose certificate is not checked (`insecureSkipTlsVerify`).
 */
function refuseCleartextPassword(repo: string, plainHttp: boolean, insecureSkipTlsVerify: boolean): void {
  const dropAuth = "or leave out chart.username and chart.password";
  if (/^http:\/\//i.test(repo)) {
    throw new SpecError(
      "chart.repo",
      `chart.repo ${JSON.stringify(repo)} is plain HTTP, so chart.password would cross the network in clear: use an https:// URL, ${dropAuth}`,
    );
  }
  if (plainHttp) {
    throw new SpecError(
      "chart.plainHttp",
      `chart.plainHttp is true, so chart.password would cross the network in clear: serve the registry over TLS and drop chart.plainHttp, ${dropAuth}`,
    );
  }
  if (insecureSkipTlsVerify) {
    throw new SpecError(
      "chart.insecureSkipTlsVerify",
      `chart.insecureSkipTlsVerify is true, so chart.password would go to a server whose certificate is not checked: give its CA in chart.caFile instead, ${dropAuth}`,
    );
  }
}
