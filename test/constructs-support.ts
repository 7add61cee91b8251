/**
 * Helpers of the cdk8s construct tests: an isolated render cache, temp charts, the upstream CRDs.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { App, Chart } from "cdk8s";
import { resolveHelmBinary } from "../constructs/helm-sync.js";

/** The repository root (works from test/ and dist/test/). */
export function repoRootDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json")) || !existsSync(join(dir, "constructs"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("repository root not found");
    dir = parent;
  }
  return dir;
}

/** Absolute path of test/charts/NAME. */
export function testChart(name: string): string {
  return join(repoRootDir(), "test", "charts", name);
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
 * by scripts/crds.sh, running it when needed; `undefined` when it fails (no Go, no proxy).
 */
export function crdDir(): string | undefined {
  try {
    const out = execFileSync(join(repoRootDir(), "scripts", "crds.sh"), ["--print-dir"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 5 * 60 * 1000,
    });
    const dir = out.trim().split("\n").pop();
    return dir !== undefined && existsSync(dir) ? dir : undefined;
  } catch {
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
