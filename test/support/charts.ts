/**
 * Test charts (test/charts/): where they are, a local chart directory ({@link localChart}), helm
 * runs with private homes, and packaging; the HTTP chart repository and the OCI registry that serve
 * them are in `repos.ts`.
 *
 * helm and registry are looked up on PATH (the toolchain's bin dir, see scripts/with-toolchain.sh). Every
 * helm call made here runs with its own `HELM_CACHE_HOME`, `HELM_CONFIG_HOME` and `HELM_DATA_HOME` (see
 * {@link createHelmHome}), so the user's `~/.config/helm` is never read or written.
 *
 * Test-only code.
 *
 * @module
 */
import { execFile } from "node:child_process";
import { constants as fsConstants, mkdtempSync, rmSync } from "node:fs";
import { access, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { parse as parseYaml } from "yaml";
import { repoRoot } from "./repo-root.js";

/** The charts in test/charts/. */
export const CHART_NAMES = ["crds-only", "widget", "schema", "workload", "hook", "big", "random"] as const;

/** The name of one chart in test/charts/. */
export type ChartName = (typeof CHART_NAMES)[number];

/** A chart given by its name in test/charts/ or by the absolute path of a chart directory. */
export type ChartRef = ChartName | (string & {});

/** Extra versions to package, by chart name (each chart is always packaged at its Chart.yaml version too). */
export type ExtraVersions = Readonly<Partial<Record<string, readonly string[]>>>;

// ---------------------------------------------------------------------------------------------------------
// Paths

/**
 * Absolute path of a test chart directory, test/charts/NAME (not checked for existence).
 *
 * @param name - a chart in test/charts/, or an absolute path, which is returned as it is.
 */
export function chartPath(name: ChartRef): string {
  return isAbsolute(name) ? name : join(repoRoot(), "test", "charts", name);
}

/**
 * The local-directory chart source: the path to give helm for a chart that comes from neither a repository
 * nor a registry. Same as {@link chartPath}; named for what the tests use it as.
 *
 * @param name - a chart in test/charts/.
 */
export function localChart(name: ChartName): string {
  return chartPath(name);
}

/** Name and version from a chart directory's Chart.yaml. */
export async function readChartMeta(chart: ChartRef): Promise<{ name: string; version: string }> {
  const file = join(chartPath(chart), "Chart.yaml");
  const meta: unknown = parseYaml(await readFile(file, "utf8"));
  if (typeof meta !== "object" || meta === null || !("name" in meta) || !("version" in meta)) {
    throw new Error(`${file}: no name or version`);
  }
  const { name, version } = meta;
  if (typeof name !== "string" || typeof version !== "string") {
    throw new Error(`${file}: name and version must be strings`);
  }
  return { name, version };
}

// ---------------------------------------------------------------------------------------------------------
// helm

/** Private helm homes (cache, config, data) in a temp dir. */
export interface HelmHome {
  /** The temp dir holding the three homes. */
  readonly dir: string;
  /** `process.env` plus `HELM_CACHE_HOME`, `HELM_CONFIG_HOME` and `HELM_DATA_HOME` inside {@link dir}. */
  readonly env: NodeJS.ProcessEnv;
  /** Removes {@link dir}. */
  remove(): Promise<void>;
}

/** Environment variables that make helm use homes inside `dir`, and nothing from the user's own. */
function helmHomeEnv(dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HELM_CACHE_HOME: join(dir, "cache"),
    HELM_CONFIG_HOME: join(dir, "config"),
    HELM_DATA_HOME: join(dir, "data"),
  };
  // Derived from HELM_CONFIG_HOME / HELM_CACHE_HOME unless set: make sure an outer setting does not leak in.
  for (const name of [
    "HELM_REGISTRY_CONFIG",
    "HELM_REPOSITORY_CONFIG",
    "HELM_REPOSITORY_CACHE",
    "HELM_PLUGINS",
  ]) {
    delete env[name];
  }
  return env;
}

/** Creates private helm homes in a new temp dir, for tests that run helm themselves. */
export async function createHelmHome(): Promise<HelmHome> {
  const dir = await mkdtemp(join(tmpdir(), "helm-handoff-helm-home-"));
  return { dir, env: helmHomeEnv(dir), remove: () => rm(dir, { recursive: true, force: true }) };
}

let sharedHome: { dir: string; env: NodeJS.ProcessEnv } | undefined;

/** The helm homes used by this module's own helm calls when the caller gives none; removed on exit. */
function sharedHelmEnv(): NodeJS.ProcessEnv {
  if (sharedHome === undefined) {
    const dir = mkdtempSync(join(tmpdir(), "helm-handoff-helm-home-"));
    sharedHome = { dir, env: helmHomeEnv(dir) };
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  }
  return sharedHome.env;
}

/** What one helm run printed and how it ended. */
export interface HelmResult {
  /** Standard output. */
  readonly stdout: string;
  /** Standard error. */
  readonly stderr: string;
  /** Exit code (non-zero also when helm was killed or could not start). */
  readonly exitCode: number;
}

/** Options of {@link runHelm}. */
export interface RunHelmOptions {
  /** Environment. @default process.env with private helm homes shared by this module */
  readonly env?: NodeJS.ProcessEnv;
  /** Working directory. @default process.cwd() */
  readonly cwd?: string;
  /** Throw when helm exits non-zero. @default true */
  readonly check?: boolean;
  /** Kill helm after this long. @default 120000 */
  readonly timeoutMs?: number;
}

/**
 * Runs `helm ARGS...` (helm from PATH, argv array, no shell).
 *
 * @throws Error with helm's output when it exits non-zero and `check` is not false, or when it cannot start.
 */
export function runHelm(args: readonly string[], options: RunHelmOptions = {}): Promise<HelmResult> {
  const { env = sharedHelmEnv(), cwd, check = true, timeoutMs = 120_000 } = options;
  return new Promise((resolvePromise, reject) => {
    execFile(
      "helm",
      [...args],
      { env, cwd, timeout: timeoutMs, maxBuffer: 256 * 1024 * 1024, encoding: "utf8" },
      (error, stdout, stderr) => {
        if (error !== null && typeof error.code === "string") {
          reject(new Error(`could not run helm (${error.code}): is the toolchain's bin dir on PATH?`));
          return;
        }
        const exitCode = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        if (exitCode !== 0 && check) {
          reject(new Error(`helm ${args.join(" ")} exited with ${exitCode}:\n${stderr}${stdout}`));
          return;
        }
        resolvePromise({ stdout, stderr, exitCode });
      },
    );
  });
}

// ---------------------------------------------------------------------------------------------------------
// Packaging

/** One packaged chart archive. */
export interface PackagedChart {
  /** Chart name. */
  readonly name: string;
  /** Chart version it was packaged at. */
  readonly version: string;
  /** Absolute path of the .tgz. */
  readonly path: string;
}

/** Options of {@link packageCharts}. */
export interface PackageChartsOptions {
  /** Charts to package: names in test/charts/ or absolute chart directories. */
  readonly charts: readonly ChartRef[];
  /**
   * Extra versions per chart name, e.g. `{ workload: ["0.2.0"] }`: the chart is packaged again with
   * `helm package --version V` (Chart.yaml's version replaced in the archive; the sources are not touched).
   */
  readonly versions?: ExtraVersions;
  /** Directory to write the archives to (created if missing, not removed by `remove`). @default a new temp dir */
  readonly destination?: string;
  /** Environment for helm. @default private helm homes shared by this module */
  readonly env?: NodeJS.ProcessEnv;
}

/** The result of {@link packageCharts}. */
export interface PackagedCharts {
  /** The directory holding the archives. */
  readonly dir: string;
  /** Every archive, in the order packaged. */
  readonly charts: readonly PackagedChart[];
  /** The .tgz paths, in the same order. */
  readonly paths: readonly string[];
  /**
   * The .tgz of one chart.
   *
   * @param version - @default the version in the chart's Chart.yaml
   * @throws Error when that chart and version were not packaged.
   */
  path(name: string, version?: string): string;
  /** Removes {@link dir} when it was a temp dir made here; otherwise only the archives. */
  remove(): Promise<void>;
}

/**
 * Runs `helm package` for each chart (at its Chart.yaml version, then at each extra version).
 *
 * @throws Error when helm fails.
 */
export async function packageCharts(options: PackageChartsOptions): Promise<PackagedCharts> {
  const ownDir = options.destination === undefined;
  const dir = options.destination ?? (await mkdtemp(join(tmpdir(), "helm-handoff-charts-")));
  await mkdir(dir, { recursive: true });
  const charts: PackagedChart[] = [];
  const defaults = new Map<string, string>();
  try {
    for (const chart of options.charts) {
      const meta = await readChartMeta(chart);
      defaults.set(meta.name, meta.version);
      const extra = options.versions?.[meta.name] ?? options.versions?.[chart] ?? [];
      for (const version of [meta.version, ...extra.filter((v) => v !== meta.version)]) {
        const args = ["package", chartPath(chart), "--destination", dir];
        if (version !== meta.version) args.push("--version", version);
        await runHelm(args, options.env === undefined ? {} : { env: options.env });
        charts.push({ name: meta.name, version, path: join(dir, `${meta.name}-${version}.tgz`) });
      }
    }
    for (const chart of charts) await access(chart.path, fsConstants.R_OK);
  } catch (error) {
    if (ownDir) await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    dir,
    charts,
    paths: charts.map((chart) => chart.path),
    path(name: string, version?: string): string {
      const wanted = version ?? defaults.get(name);
      const found = charts.find((chart) => chart.name === name && chart.version === wanted);
      if (found === undefined)
        throw new Error(`chart ${name} ${wanted ?? "(unknown version)"} was not packaged`);
      return found.path;
    },
    async remove(): Promise<void> {
      if (ownDir) await rm(dir, { recursive: true, force: true });
      else await Promise.all(charts.map((chart) => rm(chart.path, { force: true })));
    },
  };
}
