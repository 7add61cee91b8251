#!/usr/bin/env node
/**
 * `helm-handoff`: did GitOps take the bootstrapped add-ons over?
 *
 *   helm-handoff status [--kubeconfig PATH] [--context NAME] [--release NS/NAME] [--json] [FILE|-]
 *   helm-handoff retire-helm-storage --release NS/NAME [--kubeconfig PATH] [--context NAME] [--json] [FILE|-]
 *
 * FILE holds handoff records anywhere in JSON or YAML: `pulumi stack output --json`, a cdk8s synth
 * output, or a record itself; `-` or no FILE reads stdin. The kubeconfig is `--kubeconfig`, else
 * the first file of `$KUBECONFIG`, else `~/.kube/config`. `status` prints one verdict per release
 * (`--json`: an array of them) and exits 0 when every release is handed off, 3 when one is not
 * taken over yet and none has a problem, 1 on a problem; 2 for a command line it does not
 * understand. `retire-helm-storage` deletes Helm's stale release Secrets of one release Argo CD
 * took over (see `retireHelmStorage`) and exits 0, or 1 saying why it refused.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { parseAllDocuments } from "yaml";
import type { HandoffStatus } from "./judge.js";
import { findRecords, retireHelmStorage, verifyHandoff } from "./verify.js";

const USAGE = `usage: helm-handoff status [--kubeconfig PATH] [--context NAME] [--release NS/NAME] [--json] [FILE|-]
       helm-handoff retire-helm-storage --release NS/NAME [--kubeconfig PATH] [--context NAME] [--json] [FILE|-]
FILE: handoff records in JSON or YAML (pulumi stack output --json, a synth output); stdin when absent or -
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
  const text = readFileSync(source === "stdin" ? 0 : source, "utf8");
  let records = findRecords(parseInput(text, source));
  if (values.release !== undefined) {
    records = records.filter((r) => `${r.release.namespace}/${r.release.name}` === values.release);
    if (records.length === 0) throw new Error(`no handoff record of release ${values.release} in ${source}`);
  }
  if (records.length === 0)
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
  const options = { kubeconfig, ...(values.context ? { context: values.context } : {}) };
  if (command === "retire-helm-storage") {
    const [record, second] = records;
    if (record === undefined || second !== undefined) {
      throw new UsageError(`${records.length} records in ${source}: choose one with --release NS/NAME`);
    }
    const retired = await retireHelmStorage(record, options);
    if (values.json) process.stdout.write(`${JSON.stringify(retired, null, 2)}\n`);
    else
      process.stdout.write(
        `${retired.release}: deleted Helm's release Secrets ${retired.deleted.join(", ")}\n`,
      );
    return 0;
  }
  const verdicts: HandoffStatus[] = [];
  for (const record of records) verdicts.push(await verifyHandoff(record, options));
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
    process.stderr.write(`helm-handoff: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
