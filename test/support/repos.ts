/**
 * The chart sources the tests serve on loopback: an HTTP chart repository
 * ({@link startHttpChartRepo}: a node:http server with an `index.yaml`, optionally flapping with
 * 503s) and an OCI registry ({@link startOciRegistry}: the `registry` binary of distribution v3,
 * from PATH), both serving the charts packaged by `charts.ts`. Test-only code.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { findOnPath } from "../../core/util/paths.js";
import {
  type ChartRef,
  type ExtraVersions,
  type PackageChartsOptions,
  type PackagedChart,
  packageCharts,
  runHelm,
} from "./charts.js";

// ---------------------------------------------------------------------------------------------------------
// HTTP chart repository

/** One request the HTTP chart repository received. */
export interface RepoRequest {
  /** HTTP method. */
  readonly method: string;
  /** Request path, e.g. `/index.yaml`. */
  readonly path: string;
  /** Status answered. */
  readonly status: number;
}

/** Options of {@link startHttpChartRepo}. */
export interface HttpChartRepoOptions {
  /** Charts to serve: names in test/charts/ or absolute chart directories. */
  readonly charts: readonly ChartRef[];
  /** Extra versions per chart name, as in {@link PackageChartsOptions.versions}. */
  readonly versions?: ExtraVersions;
  /** Answer 503 to the first N requests, whatever they ask for (a flapping repository). @default 0 */
  readonly failFirst?: number;
  /**
   * Serve HTTPS with this certificate and key (PEM file paths; the certificate must name
   * 127.0.0.1, as a local cluster's serving certificate does). @default plain HTTP
   */
  readonly tls?: { readonly cert: string; readonly key: string };
  /** Serve everything under this path segment (a token in the URL, as hosted registries issue them). @default the root */
  readonly secretPath?: string;
}

/** A running HTTP chart repository. */
export interface HttpChartRepo {
  /** Base URL, `http(s)://127.0.0.1:PORT[/secretPath]` (no trailing slash): `helm pull --repo URL NAME --version V`. */
  readonly url: string;
  /** The archives served (also listed in the served index.yaml). */
  readonly charts: readonly PackagedChart[];
  /** How many requests were received so far, failed and held ones included. */
  requests(): number;
  /** Every request received so far, in order. */
  log(): readonly RepoRequest[];
  /** Answer 503 to the next `n` requests as well. */
  failNext(n: number): void;
  /** Hold every request received in the next `ms` milliseconds until that time has passed (a stalled repository). */
  stallFor(ms: number): void;
  /** Ends a stall and cancels the 503s still due: the repository answers normally again. */
  heal(): void;
  /** Stops the server (closing open connections) and removes the archives. */
  close(): Promise<void>;
}

/**
 * Starts a chart repository on 127.0.0.1 (random port) serving `index.yaml` (made by
 * `helm repo index --url`) and the packaged charts.
 *
 * @throws Error when packaging or indexing fails.
 */
export async function startHttpChartRepo(options: HttpChartRepoOptions): Promise<HttpChartRepo> {
  const packaged = await packageCharts({
    charts: options.charts,
    ...(options.versions === undefined ? {} : { versions: options.versions }),
  });
  const log: RepoRequest[] = [];
  let failing = Math.max(0, options.failFirst ?? 0);
  let stalledUntil = 0;
  let received = 0;
  let files = new Map<string, { file: string; type: string }>();

  /** Records the request and sends `status`, with `served` as the body when it is 200. */
  const answer = (
    request: IncomingMessage,
    response: ServerResponse,
    status: number,
    served?: { body: Buffer; type: string },
  ): void => {
    const path = new URL(request.url ?? "/", "http://repo.invalid").pathname;
    log.push({ method: request.method ?? "GET", path, status });
    if (status !== 200 || served === undefined) {
      response.writeHead(status, { "content-type": "text/plain" });
      response.end(status === 503 ? "flapping: try again\n" : "not found\n");
      return;
    }
    response.writeHead(200, { "content-type": served.type, "content-length": served.body.length });
    response.end(request.method === "HEAD" ? undefined : served.body);
  };

  const receive = (request: IncomingMessage, response: ServerResponse): void => {
    received++;
    handle(request, response);
  };
  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    const stall = stalledUntil - Date.now();
    if (stall > 0) {
      setTimeout(() => handle(request, response), stall);
      return;
    }
    if (failing > 0) {
      failing--;
      answer(request, response, 503);
      return;
    }
    const path = new URL(request.url ?? "/", "http://repo.invalid").pathname;
    const served = files.get(path);
    if ((request.method !== "GET" && request.method !== "HEAD") || served === undefined) {
      answer(request, response, 404);
      return;
    }
    readFile(served.file).then(
      (body) => answer(request, response, 200, { body, type: served.type }),
      () => answer(request, response, 404),
    );
  };
  const server =
    options.tls === undefined
      ? createServer(receive)
      : createHttpsServer(
          { cert: readFileSync(options.tls.cert), key: readFileSync(options.tls.key) },
          receive,
        );
  try {
    await new Promise<void>((resolveListen, reject) => {
      server.once("error", reject);
      server.listen({ host: "127.0.0.1", port: 0 }, () => resolveListen());
    });
    const { port } = server.address() as AddressInfo;
    const prefix = options.secretPath === undefined ? "" : `/${options.secretPath}`;
    const url = `${options.tls === undefined ? "http" : "https"}://127.0.0.1:${port}${prefix}`;
    await runHelm(["repo", "index", packaged.dir, "--url", url]);
    files = new Map([
      [`${prefix}/index.yaml`, { file: join(packaged.dir, "index.yaml"), type: "application/x-yaml" }],
    ]);
    for (const entry of await readdir(packaged.dir)) {
      if (entry.endsWith(".tgz"))
        files.set(`${prefix}/${entry}`, { file: join(packaged.dir, entry), type: "application/gzip" });
    }
    return {
      url,
      charts: packaged.charts,
      requests: () => received,
      log: () => [...log],
      failNext(n: number): void {
        failing += Math.max(0, n);
      },
      stallFor(ms: number): void {
        stalledUntil = Math.max(stalledUntil, Date.now() + ms);
      },
      heal(): void {
        failing = 0;
        stalledUntil = 0;
      },
      async close(): Promise<void> {
        await closeServer();
        await packaged.remove();
      },
    };
  } catch (error) {
    await closeServer();
    await packaged.remove();
    throw error;
  }

  function closeServer(): Promise<void> {
    if (!server.listening) return Promise.resolve();
    return new Promise((resolveClose) => {
      server.close(() => resolveClose());
      server.closeAllConnections();
    });
  }
}

// ---------------------------------------------------------------------------------------------------------
// OCI registry

/** A chart pushed to the OCI registry. */
export interface PushedChart {
  /** `oci://HOST/charts/NAME` (without version): `helm pull REF --version V --plain-http`. */
  readonly ref: string;
  /** Chart name. */
  readonly name: string;
  /** Chart version (the OCI tag). */
  readonly version: string;
  /** Manifest digest, `sha256:…`, as helm printed it. */
  readonly digest: string;
}

/** Options of {@link startOciRegistry}. */
export interface OciRegistryOptions {
  /** The registry executable. @default `registry` looked up on PATH */
  readonly command?: string;
  /** How long to wait for `/v2/` to answer. @default 20000 */
  readonly startTimeoutMs?: number;
  /** Environment for `helm push`. @default private helm homes shared by this module */
  readonly helmEnv?: NodeJS.ProcessEnv;
}

/** A running OCI registry (distribution v3): plain HTTP, no auth, storage in a temp dir. */
export interface OciRegistry {
  /** `127.0.0.1:PORT`. */
  readonly host: string;
  /** `oci://127.0.0.1:PORT/charts`: charts pushed by {@link push} are `URL/NAME`. */
  readonly url: string;
  /** The registry's log file (in its temp dir, removed by {@link close}). */
  readonly logFile: string;
  /** `helm push TGZ oci://HOST/charts --plain-http`. @throws Error when helm fails. */
  push(chartTgz: string): Promise<PushedChart>;
  /** Kills the registry and removes its temp dir. */
  close(): Promise<void>;
}

/**
 * Runs in a small Node process between this process and the registry (argv: TEMP_DIR COMMAND ARGS...): it
 * kills the registry (SIGKILL) when its stdin, a pipe from this process, closes, which also happens when this
 * process dies by SIGKILL, and when it gets SIGTERM, SIGINT or SIGHUP. The registry itself ignores stdin.
 * When it stopped the registry, it removes TEMP_DIR (a registry that exited by itself leaves it, with its log,
 * to this process). It exits with the registry's code.
 */
const WATCHDOG = `
const { spawn } = require("node:child_process");
const { rmSync } = require("node:fs");
const [dir, command, ...args] = process.argv.slice(1);
const child = spawn(command, args, { stdio: ["ignore", "inherit", "inherit"] });
let stopping = false;
const stop = () => { stopping = true; try { child.kill("SIGKILL"); } catch {} };
const finish = (code) => {
  if (stopping) try { rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }); } catch {}
  process.exit(code);
};
process.stdin.on("end", stop);
process.stdin.on("error", stop);
process.stdin.resume();
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, stop);
child.on("error", (error) => { console.error("watchdog: " + error.message); finish(127); });
child.on("exit", (code, signal) => finish(code ?? (signal ? 137 : 1)));
`;

/** Watchdogs still running, sent SIGTERM (which kills their registry) if this process exits. */
const liveWatchdogs = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const watchdog of liveWatchdogs) watchdog.kill("SIGTERM");
  });
}

/** The absolute path of `command` (a path, or a name on PATH), or undefined. */
function commandPath(command: string): string | undefined {
  return command.includes("/") ? resolve(command) : findOnPath(command);
}

/**
 * Starts the `registry` binary (distribution v3) on 127.0.0.1 with a port the kernel picks, filesystem
 * storage in a temp dir, plain HTTP and no auth; resolves once `GET /v2/` answers 200.
 *
 * The registry is started through a watchdog (see {@link WATCHDOG}), so it does not outlive this process,
 * even when this process is killed; an `exit` handler also stops it. The watchdog removes the temp dir
 * once it has stopped the registry.
 *
 * @throws Error when the binary is not on PATH, or when the registry exits or does not answer in time.
 */
export async function startOciRegistry(options: OciRegistryOptions = {}): Promise<OciRegistry> {
  const command = options.command ?? "registry";
  const executable = commandPath(command);
  if (executable === undefined) {
    throw new Error(
      `${command} (distribution v3) not found on PATH: it is built into the toolchain's bin dir (scripts/toolchain.sh)`,
    );
  }
  const dir = await mkdtemp(join(tmpdir(), "helm-handoff-registry-"));
  const logFile = join(dir, "registry.log");
  const configFile = join(dir, "config.yml");
  // Port 0: the registry logs the address it got ("listening on 127.0.0.1:PORT"), so no port race.
  await writeFile(
    configFile,
    [
      "version: 0.1",
      "log:",
      "  level: info",
      "  formatter: text",
      "  accesslog:",
      "    disabled: true",
      "storage:",
      "  filesystem:",
      `    rootdirectory: ${JSON.stringify(join(dir, "storage"))}`,
      "  delete:",
      "    enabled: true",
      "http:",
      "  addr: 127.0.0.1:0",
      "",
    ].join("\n"),
  );
  const fd = openSync(logFile, "a", 0o600);
  let watchdog: ChildProcess;
  try {
    watchdog = spawn(process.execPath, ["-e", WATCHDOG, dir, executable, "serve", configFile], {
      cwd: dir,
      // No OpenTelemetry exporter: by default the registry would try to send traces to localhost:4318.
      env: {
        ...process.env,
        OTEL_TRACES_EXPORTER: "none",
        OTEL_METRICS_EXPORTER: "none",
        OTEL_SDK_DISABLED: "true",
      },
      stdio: ["pipe", fd, fd],
    });
  } finally {
    closeSync(fd);
  }
  const exited = new Promise<void>((resolveExit) => {
    if (watchdog.exitCode !== null || watchdog.signalCode !== null) resolveExit();
    else watchdog.once("exit", () => resolveExit());
  });
  watchdog.once("error", () => undefined);
  liveWatchdogs.add(watchdog);
  installExitHook();
  void exited.then(() => liveWatchdogs.delete(watchdog));
  // Neither the process nor its stdin pipe keeps the test process alive.
  watchdog.unref();
  const stdin = watchdog.stdin;
  if (stdin !== null && "unref" in stdin && typeof stdin.unref === "function") stdin.unref();

  let stopped = false;
  const stop = async (): Promise<void> => {
    if (!stopped) {
      stopped = true;
      watchdog.ref();
      stdin?.end();
      watchdog.kill("SIGTERM");
      await exited;
    }
    await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  };

  const logTail = (): string => {
    try {
      return readFileSync(logFile, "utf8").trimEnd().split("\n").slice(-20).join("\n");
    } catch {
      return "";
    }
  };

  let host: string;
  try {
    host = await waitForRegistry(logFile, exited, options.startTimeoutMs ?? 20_000);
  } catch (error) {
    const tail = logTail();
    await stop();
    throw new Error(`${error instanceof Error ? error.message : String(error)}; registry log:\n${tail}`);
  }
  const url = `oci://${host}/charts`;
  const helmEnv = options.helmEnv;
  return {
    host,
    url,
    logFile,
    async push(chartTgz: string): Promise<PushedChart> {
      const result = await runHelm(
        ["push", chartTgz, url, "--plain-http"],
        helmEnv === undefined ? {} : { env: helmEnv },
      );
      const output = `${result.stdout}\n${result.stderr}`;
      const pushed = /Pushed:\s*(\S+?)\/([^/\s:]+):(\S+)/.exec(output);
      const digest = /Digest:\s*(sha256:[0-9a-f]{64})/.exec(output);
      if (pushed === null || digest === null) {
        throw new Error(`unexpected output from helm push ${basename(chartTgz)}:\n${output}`);
      }
      const [, , name = "", version = ""] = pushed;
      return { ref: `${url}/${name}`, name, version, digest: digest[1] ?? "" };
    },
    close: stop,
  };
}

/** Waits until the registry logged its address and `GET http://ADDRESS/v2/` answers 200; returns the address. */
async function waitForRegistry(logFile: string, exited: Promise<void>, timeoutMs: number): Promise<string> {
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
  });
  const deadline = Date.now() + timeoutMs;
  let host: string | undefined;
  while (Date.now() < deadline) {
    if (hasExited) throw new Error("the registry exited during startup");
    if (host === undefined) {
      const listening = /listening on (127\.0\.0\.1:\d+)/.exec(readFileSync(logFile, "utf8"));
      host = listening?.[1];
    }
    if (host !== undefined) {
      try {
        const response = await fetch(`http://${host}/v2/`, { signal: AbortSignal.timeout(2_000) });
        await response.arrayBuffer();
        if (response.status === 200) return host;
      } catch {
        // not answering yet
      }
    }
    await new Promise((resolveSleep) => setTimeout(resolveSleep, 50));
  }
  throw new Error(`the registry did not answer GET /v2/ within ${timeoutMs} ms`);
}
