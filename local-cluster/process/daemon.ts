/**
 * The daemons of a local cluster as child processes: `Daemon` (start, log to a file, stop with
 * SIGTERM then SIGKILL, exit status) and `Guard`, a detached watchdog that kills every daemon
 * when the process that started them dies, even by SIGKILL.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { Socket } from "node:net";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";

/** How a daemon ended. */
export interface ExitStatus {
  /** Exit code, or null when a signal ended it. */
  readonly code: number | null;
  /** The signal that ended it, if any. */
  readonly signal: NodeJS.Signals | null;
}

/** What to run for one daemon. */
export interface DaemonSpec {
  /** Short name used in messages, e.g. `kube-apiserver`. */
  readonly name: string;
  /** Absolute path of the executable. */
  readonly command: string;
  /** Arguments (never a shell string). */
  readonly args: readonly string[];
  /** Working directory. */
  readonly cwd: string;
  /** Log file; stdout and stderr are appended to it. */
  readonly logFile: string;
  /** Environment. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
}

/** Marks the start of one run in a daemon's log, so that {@link Daemon.logTail} shows only that run. */
const RUN_MARKER = "\n==== helm-handoff: started ";

/** Process groups of daemons still running, killed synchronously if this process exits. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/**
 * A long-running child process in its own process group (`detached: true`), with its output appended to a
 * log file. The child does not keep the event loop alive except while {@link stop} or {@link kill} waits.
 */
export class Daemon {
  /** The daemon's name, e.g. `etcd`. */
  readonly name: string;
  /** Process id, also the id of its process group. */
  readonly pid: number;
  /** The log file. */
  readonly logFile: string;
  /** Settles when the process has exited. */
  readonly exited: Promise<ExitStatus>;
  #status: ExitStatus | undefined;
  readonly #child: ChildProcess;

  private constructor(spec: DaemonSpec, child: ChildProcess, pid: number, exited: Promise<ExitStatus>) {
    this.name = spec.name;
    this.logFile = spec.logFile;
    this.#child = child;
    this.pid = pid;
    this.exited = exited.then((status) => {
      this.#status = status;
      liveGroups.delete(pid);
      return status;
    });
  }

  /**
   * Starts a daemon and registers its process group with `guard` at once.
   *
   * @throws Error when the executable cannot be started.
   */
  static async start(spec: DaemonSpec, guard: Guard): Promise<Daemon> {
    const fd = openSync(spec.logFile, "a", 0o600);
    let child: ChildProcess;
    try {
      writeSync(fd, `${RUN_MARKER}${new Date().toISOString()}: ${spec.command} ${spec.args.join(" ")}\n`);
      child = spawn(spec.command, spec.args, {
        cwd: spec.cwd,
        env: spec.env ?? process.env,
        detached: true,
        stdio: ["ignore", fd, fd],
      });
    } finally {
      closeSync(fd);
    }
    const exited = new Promise<ExitStatus>((resolve) => {
      child.once("exit", (code, signal) => resolve({ code, signal }));
      child.once("error", () => resolve({ code: -1, signal: null }));
    });
    const pid = child.pid;
    if (pid === undefined) {
      const error = await new Promise<Error>((resolve) => child.once("error", resolve));
      throw new Error(`could not start ${spec.name} (${spec.command}): ${error.message}`);
    }
    guard.watch(pid);
    installExitHook();
    liveGroups.add(pid);
    child.unref();
    const daemon = new Daemon(spec, child, pid, exited);
    void daemon.exited.then(() => guard.forget(pid));
    return daemon;
  }

  /** Whether the process has not exited yet. */
  get running(): boolean {
    return this.#status === undefined;
  }

  /** The exit status, once the process has exited. */
  get status(): ExitStatus | undefined {
    return this.#status;
  }

  /**
   * Sends SIGTERM to the process group, waits up to `graceMs`, then sends SIGKILL; resolves once it exited.
   *
   * @param graceMs - how long to wait for a clean exit before SIGKILL.
   */
  async stop(graceMs: number): Promise<void> {
    if (!this.running) return;
    this.#child.ref();
    signalGroup(this.pid, "SIGTERM");
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([this.exited, timedOut]);
    clearTimeout(timer);
    if (this.running) await this.kill();
  }

  /** Sends SIGKILL to the process group and resolves once the process exited. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.#child.ref();
    signalGroup(this.pid, "SIGKILL");
    await this.exited;
  }

  /** A one-line description of how the process ended, e.g. `exited with code 1`. */
  describeExit(): string {
    const status = this.#status;
    if (status === undefined) return "is still running";
    return status.signal ? `was killed by ${status.signal}` : `exited with code ${status.code}`;
  }

  /** The last `lines` lines this run of the daemon wrote to its log. */
  logTail(lines = 25): string {
    let text: string;
    try {
      text = readFileSync(this.logFile, "utf8");
    } catch {
      return "";
    }
    const start = text.lastIndexOf(RUN_MARKER);
    const run = start >= 0 ? text.slice(text.indexOf("\n", start + 1) + 1) : text;
    return run.trimEnd().split("\n").slice(-lines).join("\n");
  }

  /** An error message with the log tail, for a daemon that failed to start. */
  failure(what: string): string {
    return `${what}; last lines of ${this.logFile}:\n${this.logTail()}`;
  }
}

/**
 * The link to one guard process (see guard.ts): it holds the read end of a pipe from this process and,
 * when the pipe closes because this process died, kills every watched process group with SIGKILL and
 * removes the watched directories.
 */
export class Guard {
  /** The guard's process id. */
  readonly pid: number;
  readonly #child: ChildProcess;
  readonly #stdin: Socket;
  readonly #exited: Promise<void>;
  #running = true;

  private constructor(child: ChildProcess, pid: number, stdin: Socket) {
    this.#child = child;
    this.pid = pid;
    this.#stdin = stdin;
    this.#exited = new Promise((resolve) => child.once("exit", () => resolve()));
    void this.#exited.then(() => {
      this.#running = false;
    });
  }

  /** Whether the guard process has not exited yet. */
  get running(): boolean {
    return this.#running;
  }

  /**
   * Starts a guard that removes `dir` (recursively) when this process dies.
   *
   * @param dir - the cluster's temporary directory.
   */
  static start(dir: string): Guard {
    const script = fileURLToPath(new URL("./guard.js", import.meta.url));
    const child = spawn(process.execPath, [script], {
      cwd: tmpdir(),
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
    });
    const stdin = child.stdin;
    if (child.pid === undefined || !(stdin instanceof Socket)) {
      throw new Error(`could not start the guard process (${process.execPath} ${script})`);
    }
    stdin.on("error", () => {});
    child.on("error", () => {});
    child.unref();
    stdin.unref();
    const guard = new Guard(child, child.pid, stdin);
    guard.#send({ dir });
    return guard;
  }

  /** Asks the guard to SIGKILL process group `pgid` if this process dies. */
  watch(pgid: number): void {
    this.#send({ watch: pgid });
  }

  /** Tells the guard that process group `pgid` has exited (its id may be reused). */
  forget(pgid: number): void {
    this.#send({ forget: pgid });
  }

  /** Closes the pipe (the guard then cleans up whatever is left) and waits until the guard has exited. */
  async close(): Promise<void> {
    this.#child.ref();
    if (!this.#stdin.destroyed) this.#stdin.end();
    await this.#exited;
  }

  #send(message: Record<string, string | number>): void {
    if (this.#stdin.writable) this.#stdin.write(`${JSON.stringify(message)}\n`);
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const pgid of liveGroups) signalGroup(pgid, "SIGKILL");
  });
}
