/**
 * The on-disk render cache of the cdk8s front end:
 * `${XDG_CACHE_HOME:-~/.cache}/helm-handoff/render-cache/`.
 *
 * An entry is keyed by the sha256 of: the chart's digest (content of a local chart directory or
 * `.tgz`; repository, name and exact version of a repository chart), the values (and the content
 * of the values files), the render options and the identity and version of helm. Renders with
 * sensitive values or a Secret in them are never stored (see render.ts); other values may still be
 * confidential, so the directory is 0700 and entries are 0600.
 * Writes are atomic (temp file + rename); a corrupt entry counts as a miss.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { canonicalJson } from "../core/handoff/../util/canonical-json.js";
import type { TemplateOptions } from "../core/helm/index.js";
import { exactChartVersion } from "../core/spec/chart-facts.js";
import type { ResolvedChartSource, ResolvedSpec } from "../core/spec/index.js";
import { cacheHome, writeFileAtomic } from "../core/util/paths.js";

/** Bump when the entry format or the key's inputs change. */
const FORMAT = 1;

/** One cached render. */
export interface RenderCacheEntry {
  /** The helm version that rendered it. */
  readonly helmVersion: string;
  /** The manifest YAML of the first render. */
  readonly manifest: string;
  /** Objects (`Kind namespace/name`) whose content differed between two renders; empty when stable or unchecked. */
  readonly nondeterministic: readonly string[];
  /** Whether two renders were compared. */
  readonly checked: boolean;
}

/** The cache directory (`${XDG_CACHE_HOME:-~/.cache}/helm-handoff/render-cache`). */
export function renderCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheHome(env), "helm-handoff", "render-cache");
}

function sha256(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * A digest of the chart, or `undefined` when the chart cannot be cached: a repository chart
 * without an exact version (a range or "latest" may resolve differently tomorrow).
 */
function chartDigest(chart: ResolvedChartSource): string | undefined {
  if (chart.kind !== "path") {
    if (exactChartVersion(chart.version) === undefined) return undefined;
    return `repo:${sha256(canonicalJson({ kind: chart.kind, repo: chart.repo, name: chart.name, version: chart.version }))}`;
  }
  const st = statSync(chart.path);
  if (st.isFile()) return `file:${sha256(readFileSync(chart.path))}`;
  const h = createHash("sha256");
  for (const file of listFiles(chart.path)) {
    h.update(relative(chart.path, file)).update("\0").update(readFileSync(file)).update("\0");
  }
  return `dir:${h.digest("hex")}`;
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name === ".git") continue;
      out.push(...listFiles(p));
    } else if (e.isFile()) out.push(p);
  }
  return out;
}

/** Identity of a helm binary without running it: real path, size and modification time. */
export function helmIdentity(bin: string): string {
  const real = realpathSync(bin);
  const st = statSync(real);
  return `${real}:${st.size}:${st.mtimeMs}`;
}

/**
 * The cache key of a render, or `undefined` when it must not be cached (see {@link chartDigest}).
 */
export function renderKey(
  spec: ResolvedSpec,
  options: TemplateOptions,
  helm: { readonly identity: string; readonly version: string },
): string | undefined {
  const chart = chartDigest(spec.chart);
  if (chart === undefined) return undefined;
  return sha256(
    canonicalJson({
      format: FORMAT,
      chart,
      releaseName: spec.releaseName,
      namespace: spec.namespace,
      values: spec.values,
      valueFiles: spec.valueFiles.map((f) => sha256(readFileSync(f))),
      skipCrds: spec.install.skipCrds,
      disableHooks: spec.install.disableHooks,
      options: {
        kubeVersion: options.kubeVersion,
        apiVersions: options.apiVersions ?? [],
        includeCrds: options.includeCrds ?? true,
        skipTests: options.skipTests ?? true,
      },
      helm,
    }),
  );
}

/** Reads an entry; `undefined` on a miss or a corrupt entry. */
export function readRenderCache(key: string): RenderCacheEntry | undefined {
  try {
    const raw = JSON.parse(readFileSync(join(renderCacheDir(), "entries", `${key}.json`), "utf8")) as unknown;
    if (typeof raw !== "object" || raw === null) return undefined;
    const e = raw as Record<string, unknown>;
    if (typeof e.manifest !== "string" || typeof e.helmVersion !== "string") return undefined;
    const nd = Array.isArray(e.nondeterministic)
      ? e.nondeterministic.filter((x) => typeof x === "string")
      : [];
    return {
      helmVersion: e.helmVersion,
      manifest: e.manifest,
      nondeterministic: nd,
      checked: e.checked === true,
    };
  } catch {
    return undefined;
  }
}

/** Writes an entry atomically (0600 file in a 0700 directory). */
export function writeRenderCache(key: string, entry: RenderCacheEntry): void {
  atomicWrite(join(renderCacheDir(), "entries"), `${key}.json`, JSON.stringify(entry));
}

/** Removes an entry (no error when there is none). */
export function removeRenderCache(key: string): void {
  rmSync(join(renderCacheDir(), "entries", `${key}.json`), { force: true });
}

function atomicWrite(dir: string, name: string, content: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(renderCacheDir(), 0o700);
  writeFileAtomic(join(dir, name), content, 0o600);
}
