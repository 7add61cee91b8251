/**
 * A registry front for the tests: a small Node server on loopback, plain HTTP or TLS, in its own
 * process, in front of the local OCI registry of `repos.ts`. It records the `Authorization` header of every request and,
 * when given credentials, answers 401 with a basic-auth challenge (as a registry with htpasswd auth
 * does) until a request carries exactly those; accepted requests are passed to the registry as they
 * are. So a test can pull a chart with a password, and see which credentials helm sent. Also here:
 * fake `docker-credential-*` helpers that log every call and hand out credentials of their own.
 * Test-only code.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Options of {@link startRegistryFront}. */
export interface RegistryFrontOptions {
  /** The registry behind the front, `127.0.0.1:PORT` (plain HTTP). */
  readonly backend: string;
  /** Serve TLS with this certificate and key (PEM file paths naming 127.0.0.1). @default plain HTTP */
  readonly tls?: { readonly cert: string; readonly key: string };
  /** Require these basic-auth credentials (401 with a challenge otherwise). @default answer 401 to every request */
  readonly credentials?: { readonly username: string; readonly password: string };
}

/** A running registry front. */
export interface RegistryFront {
  /** `127.0.0.1:PORT`. */
  readonly host: string;
  /** `oci://127.0.0.1:PORT/charts`, the same repository path as the registry's. */
  readonly url: string;
  /** The `Authorization` header of each request received so far (`undefined`: none). */
  authorizations(): readonly (string | undefined)[];
  /** Stops the front. */
  close(): Promise<void>;
}

/**
 * The front's program (argv: CONFIG_JSON LOG_FILE), run in its own Node process so that a test
 * may call helm synchronously (a blocked event loop in the test process could not answer). It
 * prints its port on stdout, appends one JSON line per request to LOG_FILE and exits when its
 * stdin closes.
 */
const FRONT = `
const http = require("node:http");
const https = require("node:https");
const { appendFileSync, readFileSync } = require("node:fs");
const [config, log] = [JSON.parse(process.argv[1]), process.argv[2]];
const handle = (req, res) => {
  appendFileSync(log, JSON.stringify({ authorization: req.headers.authorization ?? null }) + "\\n");
  if (config.expected === null || req.headers.authorization !== config.expected) {
    res.writeHead(401, { "www-authenticate": 'Basic realm="helm-handoff-test"', "content-type": "application/json" });
    res.end('{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}\\n');
    return;
  }
  const [hostname, port] = config.backend.split(":");
  const headers = { ...req.headers, host: config.backend };
  delete headers.authorization;
  const upstream = http.request({ hostname, port: Number(port), method: req.method, path: req.url, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on("error", () => { res.writeHead(502); res.end(); });
  req.pipe(upstream);
};
const server = config.tls === null
  ? http.createServer(handle)
  : https.createServer({ cert: readFileSync(config.tls.cert), key: readFileSync(config.tls.key) }, handle);
server.listen({ host: "127.0.0.1", port: 0 }, () => process.stdout.write(server.address().port + "\\n"));
process.stdin.on("end", () => process.exit(0));
process.stdin.on("error", () => process.exit(0));
process.stdin.resume();
`;

/** Starts a registry front on 127.0.0.1 (random port) in its own process; see the module comment. */
export async function startRegistryFront(options: RegistryFrontOptions): Promise<RegistryFront> {
  const dir = await mkdtemp(join(tmpdir(), "hh-registry-front-"));
  const log = join(dir, "requests.jsonl");
  await writeFile(log, "");
  const expected =
    options.credentials === undefined
      ? null
      : `Basic ${Buffer.from(`${options.credentials.username}:${options.credentials.password}`).toString("base64")}`;
  const config = { backend: options.backend, tls: options.tls ?? null, expected };
  const child = spawn(process.execPath, ["-e", FRONT, JSON.stringify(config), log], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolveExit) => child.once("exit", () => resolveExit()));
  const port = await new Promise<string>((resolvePort, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      if (out.includes("\n")) resolvePort(out.trim());
    });
    child.once("exit", (code) => reject(new Error(`the registry front exited with ${String(code)}`)));
  });
  const host = `127.0.0.1:${port}`;
  return {
    host,
    url: `oci://${host}/charts`,
    authorizations: () =>
      readFileSync(log, "utf8")
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => (JSON.parse(l) as { authorization: string | null }).authorization ?? undefined),
    close: async () => {
      child.stdin?.end();
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The docker credential helpers helm's store may pick: the native ones of Linux and macOS. */
export const CREDENTIAL_HELPERS = ["pass", "secretservice", "osxkeychain"] as const;

/**
 * Writes fake `docker-credential-NAME` helpers for every {@link CREDENTIAL_HELPERS} name into
 * `dir` (created): each appends its arguments and stdin to `log` and answers `get` with the
 * credentials `username`/`secret`, as a keychain holding the user's own would.
 */
export async function writeCredentialHelpers(
  dir: string,
  log: string,
  owned: { readonly username: string; readonly secret: string },
): Promise<void> {
  await mkdir(dir, { recursive: true });
  const answer = JSON.stringify({ ServerURL: "", Username: owned.username, Secret: owned.secret });
  for (const name of CREDENTIAL_HELPERS) {
    const file = join(dir, `docker-credential-${name}`);
    await writeFile(
      file,
      [
        "#!/bin/sh",
        `input="$(cat)"`,
        `printf '%s %s %s\\n' "${name}" "$*" "$input" >> ${JSON.stringify(log)}`,
        `if [ "$1" = get ]; then printf '%s\\n' ${shellQuote(answer)}; fi`,
        "",
      ].join("\n"),
    );
    await chmod(file, 0o755);
  }
}

function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}
