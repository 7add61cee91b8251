#!/usr/bin/env node
/**
 * `helm-handoff`: did GitOps take the bootstrapped add-ons over?
 *
 *   helm-handoff status [--kubeconfig PATH] [--context NAME] [--release NS/NAME] [--json] [FILE|-]
 *   helm-handoff status --management-cluster KUBECONFIG [--context NAME] [--namespace NS] [-l SELECTOR]
 *     [--helm-chart-proxy NAME]... [--cluster-resource-set NAME]... [--release NS/NAME]
 *     [--concurrency N] [--cluster-timeout DURATION] [--json] [FILE|-]
 *   helm-handoff retire-helm-storage --release NS/NAME [--kubeconfig PATH] [--context NAME] [--json] [FILE|-]
 *
 * FILE holds handoff records anywhere in JSON or YAML: `pulumi stack output --json`, a cdk8s synth
 * output, or a record itself (`ClusterAddon.handoffRecord` written to a file); `-` or no FILE reads
 * stdin. `status --release NS/NAME` with no FILE and no input (a terminal, or empty) judges that
 * release alone, with a record made from the kubeconfig's cluster at revision 0, as a cdk8s
 * Manifests output leaves a release (no Helm storage until GitOps installs it). The kubeconfig is `--kubeconfig`, else
 * the first file of `$KUBECONFIG`, else `~/.kube/config`. `status` prints one verdict per release
 * (`--json`: an array of them) and exits 0 when every release is handed off, 3 when one is not
 * taken over yet and none has a problem, 1 on a problem; 2 for a command line it does not
 * understand. With `--management-cluster`, `status` judges every add-on on every workload cluster
 * of a Cluster API management cluster (`fleetStatus`, printed by `fleet-cli.ts`; `--context` is then
 * the management cluster's), with the same verdicts and exit codes. `retire-helm-storage` deletes Helm's stale release Secrets of one release Argo CD
 * took over (see `retireHelmStorage`) and exits 0, or 1 saying why it refused. Everything printed
 * passes `printable`: what the cluster wrote (a controller's condition message, an API error) has
 * the kubeconfig's secrets redacted and its control characters escaped, so it can neither leak a
 * credential into a CI log nor drive the terminal.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { parseAllDocuments } from "yaml";
import { clusterIdentityFromKubeconfig } from "../cluster/identity.js";
import { Redactor } from "../helm/redact.js";
import { Duration } from "../spec/duration.js";
import { runFleet } from "./fleet-cli.js";
import type { HandoffStatus } from "./judge.js";
import { printable, printableDeep } from "./printable.js";
import { type HandoffRecord, namedReleaseRecord, splitRelease } from "./record.js";
import { retireHelmStorage } from "./retire.js";
import { findRecords, verifyHandoff } from "./verify.js";

const USAGE = `usage: helm-handoff status [--kubeconfig PATH] [--context NAME] [--release NS/NAME] [--json] [FILE|-]
       helm-handoff status --management-cluster KUBECONFIG [--context NAME] [--namespace NS] [-l SELECTOR]
           [--helm-chart-proxy NAME]... [--cluster-resource-set NAME]... [--release NS/NAME]
           [--concurrency N] [--cluster-timeout DURATION] [--json] [FILE|-]
       helm-handoff retire-helm-storage --release NS/NAME [--kubeconfig PATH] [--context NAME] [--json] [FILE|-]
FILE: handoff records in JSON or YAML (pulumi stack output --json, a synth output); stdin when absent or -
status --release NS/NAME with no FILE and no input: that release alone, judged as a cdk8s Manifests output left it (no record)
--management-cluster: every add-on on every workload Cluster of a Cluster API management cluster
status exits 0 when every release is handed off, 3 when some is not taken over yet, 1 on a problem`;

/** A command line the CLI does not understand: the usage, exit code 2. */
class UsageError extends Error {}

function parseInput(text: string, source: string): unknown[] {
  try {
    return [JSON.parse(text)];
  } catch {
    const docs = parseAllDocuments(text);
    const bad = docs.find((d) => d.errors.length > 0);
    if (bad)
      throw new Error(`${source} is neither JSON nor YAML (line ${bad.errors[0]?.linePos?.[0].line ?? "?"})`);
    return docs.map((d) => d.toJS());
  }
}

function kubeconfigPath(flag: string | undefined): string {
  if (flag) return flag;
  const env = (process.env.KUBECONFIG ?? "").split(":").find((p) => p !== "");
  return env ?? join(homedir(), ".kube", "config");
}

/** The kubeconfig file at `path`; `hint` says how to give another. */
function readKubeconfig(path: string, hint: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    const why = error instanceof Error && "code" in error ? String(error.code) : "unreadable";
    throw new Error(`the kubeconfig ${path} cannot be read (${why}): pass ${hint}`);
  }
}

/**
 * The record of `--release NS/NAME` given alone: the kubeconfig's cluster, revision 0 (no Helm
 * storage at bootstrap, as a cdk8s Manifests output leaves it), no chart or values known.
 */
function releaseRecord(release: string, kubeconfig: string, context: string | undefined): HandoffRecord {
  const given = splitRelease(release);
  if (given === undefined) throw new UsageError(`--release must be NS/NAME, not "${release}"`);
  const { clusterId, server } = clusterIdentityFromKubeconfig(kubeconfig, context ? { context } : {});
  return namedReleaseRecord({ clusterId, server, releaseName: given.name, namespace: given.namespace });
}

/** The kubeconfig's secrets, once it has been read: every message printed is redacted with them. */
const redactor = new Redactor();

function describe(s: HandoffStatus): string {
  const lines = [`${s.release}: ${s.state}: ${s.message}`];
  if (s.since) lines.push(`  since: ${s.since}`);
  if (s.action) lines.push(`  next: ${s.action}`);
  return lines.join("\n");
}

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const [command, file, ...extra] = positionals;
  if (command !== "status" && command !== "retire-helm-storage") {
    throw new UsageError(command === undefined ? "" : `unknown command "${command}"`);
  }
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  if (values["management-cluster"] !== undefined) {
    if (command !== "status") throw new UsageError("--management-cluster applies to status only");
    return fleet(values, file);
  }
  const fleetOnly = [
    "helm-chart-proxy",
    "cluster-resource-set",
    "selector",
    "namespace",
    "concurrency",
    "cluster-timeout",
  ] as const;
  const misplaced = fleetOnly.find((k) => values[k] !== undefined);
  if (misplaced !== undefined) throw new UsageError(`--${misplaced} needs --management-cluster KUBECONFIG`);
  const source = file === undefined || file === "-" ? "stdin" : file;
  const alone = command === "status" && file === undefined && values.release !== undefined;
  const text = alone && process.stdin.isTTY ? "" : readFileSync(source === "stdin" ? 0 : source, "utf8");
  let records = alone && text.trim() === "" ? [] : findRecords(parseInput(text, source));
  const releaseOnly = alone && records.length === 0;
  if (values.release !== undefined && !releaseOnly) {
    records = records.filter((r) => `${r.release.namespace}/${r.release.name}` === values.release);
    if (records.length === 0) throw new Error(`no handoff record of release ${values.release} in ${source}`);
  }
  if (records.length === 0 && !releaseOnly)
    throw new Error(`no handoff record (kind helm-handoff.dev/HandoffRecord) in ${source}`);
  const kubeconfig = readKubeconfig(kubeconfigPath(values.kubeconfig), "--kubeconfig PATH or set KUBECONFIG");
  redactor.addKubeconfig(kubeconfig);
  const options = { kubeconfig, ...(values.context ? { context: values.context } : {}) };
  if (releaseOnly) records = [releaseRecord(values.release ?? "", kubeconfig, values.context)];
  if (command === "retire-helm-storage") {
    const [record, second] = records;
    if (record === undefined || second !== undefined) {
      throw new UsageError(`${records.length} records in ${source}: choose one with --release NS/NAME`);
    }
    const retired = printableDeep(await retireHelmStorage(record, options), redactor);
    if (values.json) process.stdout.write(`${JSON.stringify(retired, null, 2)}\n`);
    else
      process.stdout.write(
        `${retired.release}: deleted Helm's release Secrets ${retired.deleted.join(", ")}\n`,
      );
    return 0;
  }
  const verdicts: HandoffStatus[] = [];
  for (const record of records) verdicts.push(printableDeep(await verifyHandoff(record, options), redactor));
  process.stdout.write(
    values.json ? `${JSON.stringify(verdicts, null, 2)}\n` : `${verdicts.map(describe).join("\n")}\n`,
  );
  const codes = verdicts.map((v) => v.exitCode);
  return codes.includes(1) ? 1 : codes.includes(3) ? 3 : 0;
}

/** `--concurrency`: a whole number of at least 1. */
function fleetNumber(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(text))
    throw new UsageError(`--concurrency must be a whole number of at least 1, not "${text}"`);
  return Number(text);
}

/** `--cluster-timeout`: a duration such as `20s`. */
function fleetTimeout(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  try {
    Duration.parse(text, "--cluster-timeout");
    return text;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** The fleet mode: records from FILE only when one is named (`-` for stdin), never waiting on a terminal. */
async function fleet(values: ReturnType<typeof parse>["values"], file: string | undefined): Promise<number> {
  const path = values["management-cluster"] ?? "";
  const managementKubeconfig = readKubeconfig(path, "--management-cluster KUBECONFIG");
  redactor.addKubeconfig(managementKubeconfig);
  const source = file === "-" ? "stdin" : file;
  const records =
    source === undefined
      ? []
      : findRecords(parseInput(readFileSync(source === "stdin" ? 0 : source, "utf8"), source));
  if (source !== undefined && records.length === 0)
    throw new Error(`no handoff record (kind helm-handoff.dev/HandoffRecord) in ${source}`);
  const proxies = values["helm-chart-proxy"] ?? [];
  const sets = values["cluster-resource-set"] ?? [];
  const release = values.release;
  if (proxies.length + sets.length + records.length === 0 && release === undefined) {
    throw new UsageError(
      "the fleet mode needs the add-ons: --helm-chart-proxy NAME, --cluster-resource-set NAME, --release NS/NAME or a FILE of handoff records",
    );
  }
  return runFleet({
    managementKubeconfig,
    context: values.context,
    namespace: values.namespace,
    selector: values.selector,
    helmChartProxies: proxies,
    clusterResourceSets: sets,
    records: [...records, ...(release !== undefined ? [release] : [])],
    concurrency: fleetNumber(values.concurrency),
    clusterTimeout: fleetTimeout(values["cluster-timeout"]),
    json: values.json,
  });
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      kubeconfig: { type: "string" },
      context: { type: "string" },
      release: { type: "string" },
      "management-cluster": { type: "string" },
      namespace: { type: "string" },
      selector: { type: "string", short: "l" },
      "helm-chart-proxy": { type: "string", multiple: true },
      "cluster-resource-set": { type: "string", multiple: true },
      concurrency: { type: "string" },
      "cluster-timeout": { type: "string" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message ? `helm-handoff: ${error.message}\n` : ""}${USAGE}\n`);
      process.exitCode = 2;
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`helm-handoff: ${printable(message, redactor)}\n`);
    process.exitCode = 1;
  },
);
