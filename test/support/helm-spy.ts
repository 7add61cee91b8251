/**
 * A recording wrapper around the real helm: every invocation appends its argv
 * (one line) to a log, then execs the real binary. Point `HELM_HANDOFF_HELM` at
 * it to count helm processes and scan their argv for secrets.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toolchainBinDir } from "../../local-cluster/control-plane/binaries.js";

/** A helm wrapper and its argv log. */
export interface HelmSpy {
  /** Path of the wrapper script: use it as `HELM_HANDOFF_HELM`. */
  readonly binary: string;
  /** The argv of every helm run so far, one string each. */
  calls(): Promise<string[]>;
  /** When each helm run started (epoch milliseconds) and its argv. */
  timedCalls(): Promise<Array<{ readonly at: number; readonly argv: string }>>;
  /**
   * Every helm run so far with its process id (the wrapper execs helm, so its `$$` is helm's pid),
   * when it started (epoch milliseconds) and its argv.
   */
  pidCalls(): Promise<Array<{ readonly pid: number; readonly at: number; readonly argv: string }>>;
  /**
   * From now on, each `helm install` runs to its end and then the wrapper holds its result (does not
   * exit) until {@link releaseInstalls}: the release is installed but its caller has not heard of it.
   * A held run's pid in {@link pidCalls} is the wrapper's, not helm's.
   */
  holdInstalls(): Promise<void>;
  /** Lets held and future installs return. */
  releaseInstalls(): Promise<void>;
  /** Whether an install finished and is being held. */
  installHeld(): Promise<boolean>;
  /** Forgets the calls recorded so far. */
  reset(): Promise<void>;
  remove(): Promise<void>;
}

/** Creates a helm wrapper in a temp dir. */
export async function createHelmSpy(): Promise<HelmSpy> {
  const dir = await mkdtemp(join(tmpdir(), "hh-helm-spy-"));
  const log = join(dir, "argv.log");
  const pids = join(dir, "pids.log");
  const binary = join(dir, "helm");
  const hold = join(dir, "hold");
  const held = join(dir, "held");
  const real = join(toolchainBinDir(), "helm");
  await writeFile(log, "");
  await writeFile(pids, "");
  await writeFile(
    binary,
    "#!/bin/sh\n" +
      `now="$(date +%s%3N)"\n` +
      `printf '%s %s\\n' "$now" "$*" >> '${log}'\n` +
      `printf '%s %s %s\\n' "$$" "$now" "$*" >> '${pids}'\n` +
      `if [ "$1" = install ] && [ -e '${hold}' ]; then\n` +
      `  '${real}' "$@"; rc=$?\n` +
      `  echo "$rc" > '${held}'\n` +
      `  while [ -e '${hold}' ]; do sleep 0.2; done\n` +
      `  exit "$rc"\n` +
      `fi\n` +
      `exec '${real}' "$@"\n`,
  );
  await chmod(binary, 0o755);
  const timedCalls = async () =>
    (await readFile(log, "utf8"))
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => ({ at: Number(l.slice(0, l.indexOf(" "))), argv: l.slice(l.indexOf(" ") + 1) }));
  const pidCalls = async () =>
    (await readFile(pids, "utf8"))
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => {
        const [pid = "0", at = "0"] = l.split(" ", 2);
        return { pid: Number(pid), at: Number(at), argv: l.slice(pid.length + at.length + 2) };
      });
  return {
    binary,
    timedCalls,
    pidCalls,
    calls: async () => (await timedCalls()).map((c) => c.argv),
    holdInstalls: () => writeFile(hold, ""),
    releaseInstalls: async () => {
      await rm(hold, { force: true });
      await rm(held, { force: true });
    },
    installHeld: async () => {
      try {
        await readFile(held);
        return true;
      } catch {
        return false;
      }
    },
    reset: async () => {
      await writeFile(log, "");
      await writeFile(pids, "");
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
