/**
 * Facts about a chart that need no helm: whether a requested version is exact (a range or
 * "latest" can resolve to another version tomorrow, so it cannot be compared or cached), and a
 * local chart's name and version from its `Chart.yaml`. The one place both rules are written;
 * the lifecycle, the render cache and the cdk8s construct read them.
 *
 * @module
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";

const EXACT_VERSION = /^v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/**
 * The exact version `requested` names, without a leading `v` (helm records `1.2.3` for `v1.2.3`),
 * or `undefined` for a range (`^1.2`, `~1.2.3`, `1.2.x`…) or no version at all.
 */
export function exactChartVersion(requested: string | undefined): string | undefined {
  return requested !== undefined && EXACT_VERSION.test(requested) ? requested.replace(/^v/, "") : undefined;
}

/** Name and version from the `Chart.yaml` of a chart directory; empty for a packaged chart or an unreadable file. */
export function localChartMeta(path: string): { readonly name?: string; readonly version?: string } {
  try {
    if (!statSync(path).isDirectory()) return {};
    const meta = parseYaml(readFileSync(join(path, "Chart.yaml"), "utf8")) as {
      name?: unknown;
      version?: unknown;
    };
    return {
      ...(typeof meta.name === "string" ? { name: meta.name } : {}),
      ...(typeof meta.version === "string" ? { version: meta.version } : {}),
    };
  } catch {
    return {};
  }
}
