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
  await writeFile(binary, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${real}' "$@"\n`);
  await chmod(binary, 0o755);
  return {
    binary,
    calls: async () => (await readFile(log, "utf8")).split("\n").filter((l) => l !== ""),
    reset: () => writeFile(log, ""),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
