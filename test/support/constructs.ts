/**
 * Helpers of the cdk8s construct tests: an isolated render cache, temp charts, the upstream CRDs.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { type RequestOptions, request } from "node:https";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { App, Chart } from "cdk8s";
import { resolveHelmBinary } from "../../core/helm/index.js";
import type { KubeObject } from "../../core/util/kube-object.js";
import { repoRoot } from "./repo-root.js";

/** Absolute path of test/charts/NAME. */
export function testChart(name: string): string {
  return join(repoRoot(), "test", "charts", name);
}

/**
 * Points `XDG_CACHE_HOME` at a fresh temp dir (an empty render cache) while keeping the helm
 * binary found before (through `HELM_HANDOFF_HELM`). Returns a function that restores both.
 */
export function isolateCache(): { readonly dir: string; restore(): void } {
  const helm = resolveHelmBinary();
  const saved = { xdg: process.env.XDG_CACHE_HOME, helm: process.env.HELM_HANDOFF_HELM };
  const dir = mkdtempSync(join(tmpdir(), "hh-cdk8s-cache-"));
  process.env.XDG_CACHE_HOME = dir;
  process.env.HELM_HANDOFF_HELM = helm;
  return {
    dir,
    restore() {
      restoreEnv("XDG_CACHE_HOME", saved.xdg);
      restoreEnv("HELM_HANDOFF_HELM", saved.helm);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function restoreEnv(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

/** Writes a chart into a new temp dir: `files` maps paths under the chart to contents. */
export function writeChart(name: string, files: Readonly<Record<string, string>>): string {
  const dir = join(mkdtempSync(join(tmpdir(), "hh-chart-")), name);
  mkdirSync(join(dir, "templates"), { recursive: true });
  writeFileSync(join(dir, "Chart.yaml"), `apiVersion: v2\nname: ${name}\nversion: 0.1.0\n`);
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), text);
  }
  return dir;
}

/** A fresh cdk8s App (no output dir writes unless synth is called) and a Chart in it. */
export function newChart(id = "test", namespace?: string): { app: App; chart: Chart } {
  const app = new App({ outdir: mkdtempSync(join(tmpdir(), "hh-cdk8s-out-")) });
  const chart = new Chart(app, id, namespace !== undefined ? { namespace } : {});
  return { app, chart };
}

/**
 * The directory of the upstream CRDs (ClusterResourceSet, HelmChartProxy, Flux, Argo CD) fetched
 * by scripts/crds.sh, running it when needed; `undefined` when it fails (no Go, no proxy) outside
 * CI. Under CI (`CI` set) a failure throws with crds.sh's own output: a suite never passes there
 * by skipping.
 */
export function crdDir(): string | undefined {
  try {
    const out = execFileSync(join(repoRoot(), "scripts", "crds.sh"), ["--print-dir"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 5 * 60 * 1000,
    });
    const dir = out.trim().split("\n").pop();
    if (dir !== undefined && existsSync(dir)) return dir;
    if (process.env.CI) throw new Error(`scripts/crds.sh printed no CRD directory: ${out}`);
    return undefined;
  } catch (err) {
    if (process.env.CI) throw err;
    return undefined;
  }
}

/** The CRD YAML files in {@link crdDir}. */
export function crdFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((f) => join(dir, f));
}

/** Options of {@link RawApplier.apply}. */
export interface RawApplyOptions {
  /** Field manager of the server-side apply. */
  readonly fieldManager: string;
  /** Run it as a server-side dry run (`dryRun=All`): validated and defaulted, not persisted. */
  readonly dryRun?: boolean;
}

/**
 * Server-side apply of objects exactly as given: the JSON body is sent untouched, with
 * `fieldValidation=Strict` so a field the schema does not know is an error rather than a warning.
 *
 * `KubernetesObjectApi.patch` of `@kubernetes/client-node` is not usable for this: it runs built-in
 * kinds through its typed models, which read the camelCase property names of the generated classes,
 * so raw YAML loses every key spelled differently (e.g. `x-kubernetes-preserve-unknown-fields` of a
 * CRD schema, which makes Flux's HelmRelease CRD invalid) and silently drops unknown fields.
 */
export class RawApplier {
  readonly #kc = new KubeConfig();
  readonly #server: string;
  readonly #resources = new Map<string, { readonly name: string; readonly namespaced: boolean }>();

  /** @param kubeconfig - kubeconfig YAML of the target cluster (its current context is used). */
  constructor(kubeconfig: string) {
    this.#kc.loadFromString(kubeconfig);
    const server = this.#kc.getCurrentCluster()?.server;
    if (server === undefined) throw new Error("kubeconfig has no current cluster");
    this.#server = server;
  }

  /** Applies `o`; resolves to the object the server returns, rejects with the server's message. */
  async apply(o: KubeObject, options: RawApplyOptions): Promise<KubeObject> {
    const query = new URLSearchParams({
      fieldManager: options.fieldManager,
      fieldValidation: "Strict",
      force: "true",
    });
    if (options.dryRun === true) query.set("dryRun", "All");
    const path = `${await this.#objectPath(o)}?${query}`;
    const res = await this.#send("PATCH", path, "application/apply-patch+yaml", JSON.stringify(o));
    return res as KubeObject;
  }

  async #objectPath(o: KubeObject): Promise<string> {
    const base = o.apiVersion.includes("/") ? `/apis/${o.apiVersion}` : `/api/${o.apiVersion}`;
    const key = `${o.apiVersion}/${o.kind}`;
    let resource = this.#resources.get(key);
    if (resource === undefined) {
      const list = (await this.#send("GET", base)) as {
        resources: { name: string; kind: string; namespaced: boolean }[];
      };
      for (const r of list.resources) {
        if (!r.name.includes("/")) this.#resources.set(`${o.apiVersion}/${r.kind}`, r);
      }
      resource = this.#resources.get(key);
      if (resource === undefined) throw new Error(`the server does not serve ${key}`);
    }
    const name = encodeURIComponent(o.metadata.name ?? "");
    const ns = o.metadata.namespace;
    if (!resource.namespaced) return `${base}/${resource.name}/${name}`;
    if (ns === undefined) throw new Error(`${key} ${name} is namespaced but has no namespace`);
    return `${base}/namespaces/${encodeURIComponent(ns)}/${resource.name}/${name}`;
  }

  async #send(method: string, path: string, contentType?: string, body?: string): Promise<unknown> {
    const url = new URL(path, this.#server);
    const opts: RequestOptions = { method, headers: { accept: "application/json" }, agent: false };
    await this.#kc.applyToHTTPSOptions(opts);
    if (body !== undefined && contentType !== undefined) {
      opts.headers = { ...opts.headers, "content-type": contentType };
    }
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(url, opts, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(body);
    });
    if (status < 200 || status >= 300) {
      let message = text;
      try {
        message = (JSON.parse(text) as { message?: string }).message ?? text;
      } catch {}
      throw new Error(`${method} ${path}: HTTP ${status}: ${message}`);
    }
    return JSON.parse(text) as unknown;
  }
}
