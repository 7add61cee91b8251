/**
 * Guard process, one per local cluster (started by daemon.ts, never imported).
 *
 * Reads JSON lines on stdin, a pipe from the process that owns the cluster:
 * `{"dir": PATH}` (remove PATH on cleanup), `{"watch": PGID}` (SIGKILL that process group on cleanup),
 * `{"forget": PGID}` (it exited normally). When stdin reaches EOF, which happens when the owner closes
 * it or dies (even by SIGKILL), or when the guard gets SIGTERM, SIGINT or SIGHUP, it kills every watched
 * process group, removes the directories and exits.
 */
import { rmSync } from "node:fs";

const groups = new Set<number>();
const dirs = new Set<string>();
let pending = "";
let cleaning = false;

function handle(line: string): void {
  if (line.trim() === "") return;
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (typeof message !== "object" || message === null) return;
  if ("dir" in message && typeof message.dir === "string") dirs.add(message.dir);
  if ("watch" in message && typeof message.watch === "number") groups.add(message.watch);
  if ("forget" in message && typeof message.forget === "number") groups.delete(message.forget);
}

function cleanup(): void {
  if (cleaning) return;
  cleaning = true;
  for (const pgid of groups) {
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  for (const dir of dirs) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    } catch {
      // nothing more to do
    }
  }
  process.exit(0);
}

process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk: string) => {
  pending += chunk;
  for (let newline = pending.indexOf("\n"); newline >= 0; newline = pending.indexOf("\n")) {
    handle(pending.slice(0, newline));
    pending = pending.slice(newline + 1);
  }
});
process.stdin.on("end", cleanup);
process.stdin.on("error", cleanup);
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, cleanup);
