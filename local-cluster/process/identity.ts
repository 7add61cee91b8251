/**
 * What identifies a running process beyond its pid, which the kernel hands out again once the
 * process is gone: its start time (clock ticks since boot, field 22 of `/proc/PID/stat`) and its
 * command line. `helm-handoff-local up` records both next to its pid, and `down` signals that pid
 * only while both still match, so a stale state file never gets another process killed. Linux
 * only (`/proc`), like the rest of the local cluster.
 *
 * @module
 */
import { readFileSync } from "node:fs";

/** A process's start time and command line, as `/proc` shows them. */
export interface ProcessIdentity {
  /** Start time in clock ticks since boot, as a decimal string. */
  readonly startTime: string;
  /** The command line, one element per argument. */
  readonly cmdline: readonly string[];
}

/** The identity of the running process `pid`; `undefined` when there is none (or only a zombie). */
export function processIdentity(pid: number): ProcessIdentity | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 2, the command name, is in parentheses and may hold spaces: fields 3… follow the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const [state, startTime] = [fields[0], fields[22 - 3]];
    if (state === undefined || startTime === undefined || state === "Z" || state === "X") return undefined;
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    if (cmdline.at(-1) === "") cmdline.pop();
    return { startTime, cmdline };
  } catch {
    return undefined;
  }
}

/** Whether `pid` is still the process `recorded` describes (same start time and command line). */
export function isSameProcess(pid: number, recorded: ProcessIdentity | undefined): boolean {
  const now = processIdentity(pid);
  if (now === undefined || recorded === undefined) return false;
  return (
    now.startTime === recorded.startTime &&
    now.cmdline.length === recorded.cmdline.length &&
    now.cmdline.every((arg, i) => arg === recorded.cmdline[i])
  );
}
