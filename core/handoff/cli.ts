#!/usr/bin/env node
/**
 * `helm-handoff`: did GitOps take the bootstrapped add-ons over?
 *
 *   helm-handoff status [--kubeconfig PATH] [--context NAME] [--release NS/NAME] [--json] [FILE|-]
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
 * understand. `retire-helm-storage` deletes Helm's stale release Secrets of one release Argo CD
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
import type { HandoffStatus } from "./judge.js";
import { type HandoffRecord, makeHandoffRecord } from "./record.js";
import { retireHelmStorage } from "./retire.js";
import { findRecords, verifyHandoff } from "./verify.js";

const USAGE = `usage: helm-handoff status [--kubeconfig PATH] [--context NAME] [--release NS/NAME] [--json] [FILE|-]
       helm-handoff retire-helm-storage --release NS/NAME [--kubeconfig PATH] [--context NAME] [--json] [FILE|-]
FILE: handoff records in JSON or YAML (pulumi stack output --json, a synth output); stdin when absent or -
status --release NS/NAME with no FILE and no input: that release alone, judged as a cdk8s Manifests output left it (no record)
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

/**
 * The record of `--release NS/NAME` given alone: the kubeconfig's cluster, revision 0 (no Helm
 * storage at bootstrap, as a cdk8s Manifests output leaves it), no chart or values known.
 */
function releaseRecord(release: string, kubeconfig: string, context: string | undefined): HandoffRecord {
  const [namespace, name, ...rest] = release.split("/");
  if (!namespace || !name || rest.length > 0)
    throw new UsageError(`--release must be NS/NAME, not "${release}"`);
  const { clusterId, server } = clusterIdentityFromKubeconfig(kubeconfig, context ? { context } : {});
  return makeHandoffRecord({
    clusterId,
    server,
    releaseName: name,
    namespace,
    chart: { path: "" },
    chartVersion: "",
    revision: 0,
    strategy: "ApplyOnce",
    installedAt: new Date(0),
  });
}

/**
 * C0 and C1 control characters (newline and tab included: one verdict is one line) and the Unicode
 * controls that reorder or hide text (bidi embeddings, overrides and isolates, zero-width joiners).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

/** `text` safe to print: the redactor's secrets replaced, each control character shown as `\u{…}`. */
function printable(text: string, redactor: Redactor): string {
  return redactor.redact(text).replace(CONTROL, (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16)}}`);
}

/** Every string inside `value` made {@link printable}. */
function printableDeep<T>(value: T, redactor: Redactor): T {
  if (typeof value === "string") return printable(value, redactor) as T;
  if (Array.isArray(value)) return value.map((v) => printableDeep(v, redactor)) as T;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, printableDeep(v, redactor)])) as T;
  }
  return value;
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
  const path = kubeconfigPath(values.kubeconfig);
  let kubeconfig: string;
  try {
    kubeconfig = readFileSync(path, "utf8");
  } catch (error) {
    const why = error instanceof Error && "code" in error ? String(error.code) : "unreadable";
    throw new Error(
      `the kubeconfig ${path} cannot be read (${why}): pass --kubeconfig PATH or set KUBECONFIG`,
    );
  }
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

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      kubeconfig: { type: "string" },
      context: { type: "string" },
      release: { type: "string" },
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
