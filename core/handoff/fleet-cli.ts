/**
 * The fleet mode of `helm-handoff status` (`--management-cluster KUBECONFIG`): runs `fleetStatus`
 * and prints, per add-on, one line per cluster (`  NS/CLUSTER: STATE: MESSAGE`, with `next:` when
 * there is something to do) and a summary line (`kube-system/cni handed off on 1/3 clusters, 1 not
 * yet, 1 problem`), or with `--json` the whole `FleetStatus`. While clusters are being judged a
 * progress line is kept on stderr, only when stderr is a terminal (a CI log gets none). Everything
 * printed comes from `fleetStatus`, which has already made it `printable`.
 *
 * @module
 */
import { type FleetStatus, type FleetStatusOptions, fleetStatus } from "./fleet.js";
import type { HandoffRecord } from "./record.js";

/** The command-line values the fleet mode reads. */
export interface FleetArgs {
  readonly managementKubeconfig: string;
  readonly context: string | undefined;
  readonly namespace: string | undefined;
  readonly selector: string | undefined;
  readonly helmChartProxies: readonly string[];
  readonly clusterResourceSets: readonly string[];
  readonly records: readonly (HandoffRecord | string)[];
  readonly concurrency: number | undefined;
  readonly clusterTimeout: string | undefined;
  readonly json: boolean;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The summary line of one add-on: `ADDON handed off on N/M clusters, X not yet, Y problems`. */
export function summaryLine(a: FleetStatus["addons"][number]): string {
  return `${a.addon} handed off on ${a.handedOff}/${a.clusters} clusters, ${a.notYet} not yet, ${plural(a.problems, "problem", "problems")}`;
}

/** The human output: per add-on a heading, one line per cluster, and its summary line. */
export function describeFleet(status: FleetStatus): string {
  const blocks = status.addons.map((a) => {
    const lines = [`${a.addon}${a.carrier === undefined ? "" : ` (${a.carrier})`}:`];
    for (const v of status.verdicts) {
      if (v.addon !== a.addon || v.carrier !== a.carrier) continue;
      lines.push(`  ${v.cluster}: ${v.status.state}: ${v.status.message}`);
      if (v.status.action) lines.push(`    next: ${v.status.action}`);
    }
    lines.push(summaryLine(a));
    return lines.join("\n");
  });
  return `${blocks.join("\n\n")}\n`;
}

/** Where the fleet mode writes: the process's streams unless told. */
export interface FleetOutput {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean };
}

/** Runs the fleet mode; resolves with the exit code. */
export async function runFleet(args: FleetArgs, output: FleetOutput = process): Promise<number> {
  const { concurrency, clusterTimeout } = args;
  const { stdout, stderr } = output;
  const tty = stderr.isTTY === true;
  const options: FleetStatusOptions = {
    managementKubeconfig: args.managementKubeconfig,
    ...(args.context !== undefined ? { context: args.context } : {}),
    ...(args.namespace !== undefined ? { namespace: args.namespace } : {}),
    ...(args.selector !== undefined ? { selector: args.selector } : {}),
    helmChartProxies: args.helmChartProxies,
    clusterResourceSets: args.clusterResourceSets,
    records: args.records,
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(clusterTimeout !== undefined ? { clusterTimeout } : {}),
    ...(tty
      ? {
          onProgress: (n: number, total: number) => stderr.write(`\r\u001b[2Kjudged ${n}/${total} clusters`),
        }
      : {}),
  };
  let status: FleetStatus;
  try {
    status = await fleetStatus(options);
  } finally {
    if (tty) stderr.write("\r\u001b[2K");
  }
  stdout.write(args.json ? `${JSON.stringify(status, null, 2)}\n` : describeFleet(status));
  return status.exitCode;
}
