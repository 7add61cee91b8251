/**
 * Rendering a chart for synthesis: the render cache, the helm version check and the detection of
 * charts that render differently each time. A render with sensitive values, or one that contains a
 * Secret, never touches the render cache: it is neither read nor written, and an entry holding a
 * Secret (left by an older version) is removed when met.
 *
 * @module
 */
import { parseAllDocuments } from "yaml";
import { rememberedHelmVersion, rememberHelmVersion } from "../core/helm/binary.js";
import {
  helmTemplateSync,
  helmVersionSync,
  resolveHelmBinary,
  type TemplateOptions,
} from "../core/helm/index.js";
import type { ResolvedSpec } from "../core/spec/index.js";
import { isSecretObject } from "../core/util/kube-object.js";
import {
  helmIdentity,
  type RenderCacheEntry,
  readRenderCache,
  removeRenderCache,
  renderKey,
  writeRenderCache,
} from "./render-cache.js";

/** Options of {@link renderChart}. */
export interface RenderOptions extends TemplateOptions {
  /** The helm binary (a path, or a name looked up on PATH). @default `$HELM_HANDOFF_HELM`, else "helm" on PATH */
  readonly helmBinary?: string;
  /** Use the on-disk render cache. @default true */
  readonly cache?: boolean;
  /** Render twice on a cache miss and report objects that differ. @default true */
  readonly checkDeterminism?: boolean;
  /** The values are sensitive: the render cache is neither read nor written. @default false */
  readonly sensitive?: boolean;
}

/** The result of {@link renderChart}. */
export interface RenderResult extends RenderCacheEntry {
  /** Whether the manifest came from the cache (no helm process ran). */
  readonly fromCache: boolean;
  /** Whether the manifest contains a Secret (such a render is never cached). */
  readonly containsSecret: boolean;
}

/**
 * Renders `spec` with `helm template` (see {@link helmTemplateSync}), through the render cache.
 * A cache hit runs no helm process at all: the helm version is remembered per binary identity.
 *
 * @throws HelmNotFoundError, HelmVersionError, HelmError
 */
export function renderChart(spec: ResolvedSpec, options: RenderOptions = {}): RenderResult {
  const bin = resolveHelmBinary(options.helmBinary);
  const identity = helmIdentity(bin);
  const useCache = options.cache ?? true;
  let version = useCache ? rememberedHelmVersion(bin) : undefined;
  if (version === undefined) {
    version = helmVersionSync(bin);
    if (useCache) rememberHelmVersion(bin, version);
  }
  const templateOptions: TemplateOptions = {
    ...(options.kubeVersion !== undefined ? { kubeVersion: options.kubeVersion } : {}),
    ...(options.apiVersions !== undefined ? { apiVersions: options.apiVersions } : {}),
    includeCrds: options.includeCrds ?? true,
    skipTests: options.skipTests ?? true,
  };
  const check = options.checkDeterminism ?? true;
  const cacheRender = useCache && !(options.sensitive ?? false);
  const key = cacheRender ? renderKey(spec, templateOptions, { identity, version }) : undefined;
  if (key !== undefined) {
    const hit = readRenderCache(key);
    if (hit !== undefined && manifestContainsSecret(hit.manifest)) removeRenderCache(key);
    else if (hit !== undefined && (hit.checked || !check))
      return { ...hit, fromCache: true, containsSecret: false };
  }
  const manifest = helmTemplateSync(bin, spec, templateOptions);
  let nondeterministic: string[] = [];
  if (check) {
    const second = helmTemplateSync(bin, spec, templateOptions);
    if (second !== manifest) nondeterministic = differingObjects(manifest, second);
  }
  const entry: RenderCacheEntry = { helmVersion: version, manifest, nondeterministic, checked: check };
  const containsSecret = manifestContainsSecret(manifest);
  if (key !== undefined && !containsSecret) writeRenderCache(key, entry);
  return { ...entry, fromCache: false, containsSecret };
}

/** Whether a manifest has a Secret among its documents (or the items of a `List`). */
export function manifestContainsSecret(manifest: string): boolean {
  // Parsing a large manifest takes a while: without the word "Secret" (or a backslash, which could
  // escape it in a double-quoted scalar) no document can be one.
  if (!manifest.includes("Secret") && !manifest.includes("\\")) return false;
  const isOrHolds = (o: unknown): boolean => {
    if (typeof o !== "object" || o === null) return false;
    const obj = o as { apiVersion?: unknown; kind?: unknown; items?: unknown };
    if (isSecretObject(obj)) return true;
    return typeof obj.kind === "string" && obj.kind.endsWith("List") && Array.isArray(obj.items)
      ? obj.items.some(isOrHolds)
      : false;
  };
  return parseAllDocuments(manifest).some((doc) => isOrHolds(doc.toJS()));
}

/** `Kind namespace/name` of each object whose content differs between two renders of a manifest. */
export function differingObjects(a: string, b: string): string[] {
  const ma = byIdentity(a);
  const mb = byIdentity(b);
  const out = new Set<string>();
  for (const [id, text] of ma) if (mb.get(id) !== text) out.add(id);
  for (const id of mb.keys()) if (!ma.has(id)) out.add(id);
  if (out.size === 0) out.add("(the order of the documents)");
  return [...out].sort();
}

function byIdentity(manifest: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const doc of parseAllDocuments(manifest)) {
    const js = doc.toJS() as unknown;
    if (typeof js !== "object" || js === null) continue;
    const o = js as { kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } };
    const ns = typeof o.metadata?.namespace === "string" ? `${o.metadata.namespace}/` : "";
    const id = `${String(o.kind)} ${ns}${String(o.metadata?.name)}`;
    m.set(id, JSON.stringify(js));
  }
  return m;
}
