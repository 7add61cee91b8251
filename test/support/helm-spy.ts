/**
 * A recording wrapper around the real helm: every invocation appends its argv
 * (one line) to a log, then execs the real binary. Point `HELM_HANDOFF_HELM` at
 * it to count helm processes and scan their argv for secrets.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toolchainBinDir } from "../../local-cluster/index.js";

/** A helm wrapper and its argv log. */
export interface HelmSpy {
  /** Path of the wrapper script: use it as `HELM_HANDOFF_HELM`. */
  readonly binary: string;
  /** The argv of every helm run so far, one string each. */
  calls(): Promise<string[]>;
  /** When each helm run started (epoch milliseconds) and its argv. */
  timedCalls(): Promise<Array<{ readonly at: number; readonly argv: string }>>;
  /** Forgets the calls recorded so far. */
  reset(): Promise<void>;
  remove(): Promise<void>;
}

/** Creates a helm wrapper in a temp dir. */
export async function createHelmSpy(): Promise<HelmSpy> {
  const dir = await mkdtemp(join(tmpdir(), "hh-helm-spy-"));
  const log = join(dir, "argv.log");
  const binary = join(dir, "helm");
  const real = join(toolchainBinDir(), "helm");
  await writeFile(log, "");
  await writeFile(
    binary,
    `#!/bin/sh\nprintf '%s %s\\n' "$(date +%s%3N)" "$*" >> '${log}'\nexec '${real}' "$@"\n`,
  );
  await chmod(binary, 0o755);
  const timedCalls = async () =>
    (await readFile(log, "utf8"))
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => ({ at: Number(l.slice(0, l.indexOf(" "))), argv: l.slice(l.indexOf(" ") + 1) }));
  return {
    binary,
    timedCalls,
    calls: async () => (await timedCalls()).map((c) => c.argv),
    reset: () => writeFile(log, ""),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
