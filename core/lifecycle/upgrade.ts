/**
 * The one rule that says whether a deployed Reconcile release differs from its spec, used both
 * by the Pulumi provider's `diff` (to plan an update) and by the lifecycle's `ensureRelease` (to
 * run `helm upgrade`): the chart name, the exact chart version and the values. A version range
 * (`^1.2`) is never compared (only the repository knows what it resolves to), and `v1.2.3` equals
 * helm's `1.2.3`. Pure, except that a local chart's `Chart.yaml` is read.
 *
 * @module
 */

import { valuesFingerprint } from "../handoff/digests.js";
import { exactChartVersion, localChartMeta } from "../spec/chart-facts.js";
import type { ResolvedSpec } from "../spec/index.js";
import { effectiveValues } from "../spec/values.js";

/** What a spec asks a release to run, in the terms helm reports. */
export interface DesiredRelease {
  /** The chart name, when known (a packaged local chart has none without helm). */
  readonly chart: string | undefined;
  /** The exact chart version, when the spec pins one (or a local chart's `Chart.yaml` says). */
  readonly chartVersion: string | undefined;
  /** Digest of the values helm would record as user-supplied. */
  readonly valuesDigest: string;
}

/** What a deployed release runs, as helm reported it (or as last stored). */
export interface LiveRelease {
  /** The chart name; an empty string when unknown. */
  readonly chart: string;
  /** The chart version. */
  readonly chartVersion: string;
  /** Digest of the release's user-supplied values (`helm get values`). */
  readonly valuesDigest: string;
}

/** A reason to upgrade a deployed release: what differs from its spec. */
export type UpgradeReason = "chart" | "chart version" | "values";

/**
 * What `spec` asks for: value files merged in order, then `values`; exact chart version only.
 * @param digest - how values are digested, the same way as the live digest it is compared with
 */
export function desiredRelease(
  spec: ResolvedSpec,
  digest: (values: Readonly<Record<string, unknown>>) => string = valuesFingerprint,
): DesiredRelease {
  const c = spec.chart;
  const chart =
    c.kind === "path" ? localChartMeta(c.path) : { name: c.name, version: exactChartVersion(c.version) };
  return {
    chart: chart.name,
    chartVersion: chart.version,
    valuesDigest: digest(effectiveValues(spec)),
  };
}

/** What differs between the desired and the live release; empty when no upgrade is needed. */
export function needsUpgrade(desired: DesiredRelease, live: LiveRelease): UpgradeReason[] {
  const why: UpgradeReason[] = [];
  if (desired.chart !== undefined && live.chart !== "" && desired.chart !== live.chart) why.push("chart");
  if (desired.chartVersion !== undefined && desired.chartVersion !== live.chartVersion)
    why.push("chart version");
  if (desired.valuesDigest !== live.valuesDigest) why.push("values");
  return why;
}
