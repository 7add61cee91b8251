/**
 * Benchmark: `ClusterAddon` synth of five charts, cold (empty render cache) and warm (nothing
 * changed), against cdk8s's own `Helm` construct on the same charts, in one run.
 *
 * Run after `tsc`: `node dist/bench/cdk8s-synth.js [rounds]` (helm v4 on PATH).
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { App, Chart, Helm } from "cdk8s";
import { ClusterAddon } from "../constructs/index.js";
import { resolveHelmBinary } from "../core/helm/binary.js";
import { median } from "./stats.js";

const CHARTS = ["workload", "hook", "schema", "crds-only", "big"] as const;

function chartsDir(): string {
  // dist/bench/ → repository root
  return join(dirname(fileURLToPath(import.meta.url)), "..", "..", "test", "charts");
}

function time(fn: () => void): number {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** Synthesizes every chart once; returns how many renders did not come from the cache. */
function synthAddons(checkDeterminism: boolean): number {
  const app = new App({ outdir: mkdtempSync(join(tmpdir(), "hh-bench-out-")) });
  const chart = new Chart(app, "bench");
  const addons = CHARTS.map(
    (name) =>
      new ClusterAddon(chart, name, {
        chart: { path: join(chartsDir(), name) },
        checkDeterminism,
        hooks: "drop",
      }),
  );
  app.synthYaml();
  rmSync(app.outdir, { recursive: true, force: true });
  return addons.filter((a) => !a.fromCache).length;
}

function synthCdk8sHelm(helm: string): void {
  const app = new App({ outdir: mkdtempSync(join(tmpdir(), "hh-bench-out-")) });
  const chart = new Chart(app, "bench");
  for (const name of CHARTS) {
    new Helm(chart, name, {
      chart: join(chartsDir(), name),
      releaseName: name,
      helmExecutable: helm,
      helmFlags: ["--include-crds", "--skip-tests"],
    });
  }
  app.synthYaml();
  rmSync(app.outdir, { recursive: true, force: true });
}

function main(): void {
  const rounds = Number(process.argv[2] ?? "3");
  const helm = resolveHelmBinary();
  process.env.HELM_HANDOFF_HELM = helm;
  const saved = process.env.XDG_CACHE_HOME;
  const cold: number[] = [];
  const coldNoCheck: number[] = [];
  const warm: number[] = [];
  const cdk8s: number[] = [];
  let warmRenders = 0;
  for (let r = 0; r < rounds; r++) {
    const cache = mkdtempSync(join(tmpdir(), "hh-bench-cache-"));
    process.env.XDG_CACHE_HOME = cache;
    cold.push(time(() => synthAddons(true)));
    warm.push(
      time(() => {
        warmRenders += synthAddons(true);
      }),
    );
    rmSync(cache, { recursive: true, force: true });
    const cache2 = mkdtempSync(join(tmpdir(), "hh-bench-cache-"));
    process.env.XDG_CACHE_HOME = cache2;
    coldNoCheck.push(time(() => synthAddons(false)));
    rmSync(cache2, { recursive: true, force: true });
    cdk8s.push(time(() => synthCdk8sHelm(helm)));
  }
  if (saved === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = saved;
  const m = {
    cold: median(cold),
    coldNoCheck: median(coldNoCheck),
    warm: median(warm),
    cdk8s: median(cdk8s),
  };
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  console.log(`cdk8s synth of ${CHARTS.length} charts (${CHARTS.join(", ")}), median of ${rounds} rounds`);
  console.log(`  ClusterAddon cold (render twice: determinism check): ${ms(m.cold)}`);
  console.log(`  ClusterAddon cold (checkDeterminism: false):         ${ms(m.coldNoCheck)}`);
  console.log(`  ClusterAddon warm (render cache, renders: ${warmRenders}):      ${ms(m.warm)}`);
  console.log(`  cdk8s Helm construct (no cache):                    ${ms(m.cdk8s)}`);
  console.log(`  ratio cold/warm: ${(m.cold / m.warm).toFixed(1)}x`);
  console.log(`  ratio cold/cdk8s Helm: ${(m.cold / m.cdk8s).toFixed(2)}`);
  console.log(`  ratio cold (no check)/cdk8s Helm: ${(m.coldNoCheck / m.cdk8s).toFixed(2)}`);
  console.log(`  ratio warm/cdk8s Helm: ${(m.warm / m.cdk8s).toFixed(3)}`);
}

main();
