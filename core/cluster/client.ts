/**
 * Authenticated requests (a GET, or a JSON patch) to the API server a kubeconfig names, the way helm reaches it. A
 * context with plain access (a CA, `tls-server-name`, `insecure-skip-tls-verify`, a client
 * certificate, a token or basic auth, and no proxy: `PlainAccess` of {@link readKubeconfig}) is
 * reached with `node:https` directly. Anything else (`exec` credential plugins, auth providers,
 * token files, `proxy-url`, or a proxy in the environment) goes through
 * `@kubernetes/client-node`'s `KubeConfig`, as helm would do it; that package takes ≈0.4 s to
 * load, so it is imported on the first such call only. The kubeconfig is first checked by
 * {@link readKubeconfig}, whose errors name what to fix.
 *
 * @module
 */
import * as http from "node:http";
import * as https from "node:https";
import type { KubeConfig } from "@kubernetes/client-node";
import { SpecError } from "../errors.js";
import type { Duration } from "../spec/duration.js";
import { type PlainAccess, readKubeconfig } from "./kubeconfig.js";

/** The answer to {@link KubeClient.get}. */
export interface KubeResponse {
  /** The HTTP status. */
  readonly status: number;
  /** The body (at most the first 64 KiB), as UTF-8. */
  readonly body: string;
}

/** Options of {@link KubeClient.get}. */
export interface KubeGetOptions {
  /** Timeout of the request (connect and answer). */
  readonly timeout: Duration;
  /** Cancels the request. @default not cancellable */
  readonly signal?: AbortSignal;
  /** Read at most this many bytes of the answer. @default 65536 */
  readonly maxBytes?: number;
  /** The `accept` header (e.g. a metadata-only list). @default "application/json, text/plain" */
  readonly accept?: string;
}

/** A client of one API server; {@link KubeClient.close} frees its connections. */
export interface KubeClient {
  /** The API server URL (normalized: no trailing slash). */
  readonly server: string;
  /**
   * GETs `path` (e.g. `/readyz`) with the kubeconfig's credentials.
   * @throws Error when the request fails (connection, TLS, timeout) or the credentials (an `exec` plugin) or the proxy cannot be set up
   */
  get(path: string, options: KubeGetOptions): Promise<KubeResponse>;
  /**
   * Sends a JSON patch (RFC 6902, `application/json-patch+json`) to `path`; a `test` operation
   * that fails makes the API server refuse the whole patch (422).
   * @throws Error as {@link KubeClient.get}
   */
  jsonPatch(
    path: string,
    operations: readonly JsonPatchOperation[],
    options: KubeGetOptions,
  ): Promise<KubeResponse>;
  /**
   * DELETEs `path`, with `body` (a `DeleteOptions`, e.g. with preconditions) when given.
   * @throws Error as {@link KubeClient.get}
   */
  delete(path: string, options: KubeGetOptions, body?: unknown): Promise<KubeResponse>;
  /** Closes the connections this client opened. */
  close(): void;
}

/** One operation of a JSON patch. */
export interface JsonPatchOperation {
  /** `test` (the value must be there, else the patch is refused), `add` (or replace) or `remove`. */
  readonly op: "test" | "add" | "remove";
  /** JSON pointer, `/` in a key written `~1`. */
  readonly path: string;
  /** The value (not for `remove`). */
  readonly value?: unknown;
}

/** What a request sends besides its path and options. */
interface Body {
  readonly method: "GET" | "PATCH" | "DELETE";
  readonly contentType?: string;
  readonly data?: string;
}

const GET: Body = { method: "GET" };

function patchBody(operations: readonly JsonPatchOperation[]): Body {
  return { method: "PATCH", contentType: "application/json-patch+json", data: JSON.stringify(operations) };
}

const MAX_BODY = 64 * 1024;

/**
 * Starts loading `@kubernetes/client-node` in the background (it takes ≈0.4 s) when `kubeconfig`
 * needs it (no plain access, or a proxy in the environment), for a caller that knows a cluster
 * call is coming (a create) and has other work to do first. Never fails.
 */
export function preloadKubeClient(kubeconfig: string): void {
  try {
    if (readKubeconfig(kubeconfig).plainAccess !== undefined && !proxyInEnvironment()) return;
  } catch {
    return;
  }
  import("@kubernetes/client-node").catch(() => undefined);
}

function proxyInEnvironment(): boolean {
  return ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"].some(
    (k) => (process.env[k] ?? "") !== "",
  );
}

/**
 * A client of the API server of one context of `kubeconfig` (its current-context unless `context`
 * is given). Makes no request.
 * @throws SpecError (field `kubeconfig`) when the kubeconfig is not usable
 */
export async function kubeClient(
  kubeconfig: string,
  options: { readonly context?: string } = {},
): Promise<KubeClient> {
  const target = readKubeconfig(kubeconfig, options);
  const proxyEnv = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"].some((k) => process.env[k]);
  if (target.plainAccess !== undefined && !proxyEnv)
    return new PlainClient(target.server, target.plainAccess);
  const { KubeConfig } = await import("@kubernetes/client-node");
  let kc = new KubeConfig();
  try {
    kc.loadFromString(kubeconfig, { onInvalidEntry: "filter" });
  } catch (e) {
    const why = e instanceof Error ? e.message.split("\n")[0] : String(e);
    throw new SpecError("kubeconfig", `kubeconfig cannot be loaded by @kubernetes/client-node: ${why}`);
  }
  if (target.server.startsWith("http:")) {
    // client-node refuses plain HTTP unless TLS verification is off; there is no TLS to verify, and
    // helm (client-go) talks plain HTTP to such a server, so do the same.
    const plain = new KubeConfig();
    plain.loadFromOptions({
      clusters: kc.getClusters().map((c) => (c.name === target.cluster ? { ...c, skipTLSVerify: true } : c)),
      contexts: kc.getContexts(),
      users: kc.getUsers(),
      currentContext: target.context,
    });
    kc = plain;
  }
  kc.setCurrentContext(target.context);
  return new Client(kc, target.server);
}

/** What both clients share: the two requests, as one `request` each client makes its own way. */
abstract class BaseClient implements KubeClient {
  public abstract readonly server: string;

  public get(path: string, options: KubeGetOptions): Promise<KubeResponse> {
    return this.request(path, GET, options);
  }

  public jsonPatch(
    path: string,
    operations: readonly JsonPatchOperation[],
    options: KubeGetOptions,
  ): Promise<KubeResponse> {
    return this.request(path, patchBody(operations), options);
  }

  public delete(path: string, options: KubeGetOptions, body?: unknown): Promise<KubeResponse> {
    const data = body === undefined ? {} : { contentType: "application/json", data: JSON.stringify(body) };
    return this.request(path, { method: "DELETE", ...data }, options);
  }

  public abstract close(): void;

  protected abstract request(path: string, body: Body, options: KubeGetOptions): Promise<KubeResponse>;
}

class Client extends BaseClient {
  private agent: http.Agent | undefined;

  public constructor(
    private readonly kc: KubeConfig,
    public readonly server: string,
  ) {
    super();
  }

  protected async request(path: string, body: Body, options: KubeGetOptions): Promise<KubeResponse> {
    const url = new URL(`${this.server}${path}`);
    const request: https.RequestOptions = {
      method: body.method,
      headers: {
        accept: options.accept ?? "application/json, text/plain",
        ...(body.contentType !== undefined ? { "content-type": body.contentType } : {}),
      },
      timeout: options.timeout.toMilliseconds(),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    };
    try {
      await this.kc.applyToHTTPSOptions(request);
    } catch (e) {
      const why = e instanceof Error ? e.message.trim().split("\n")[0] : String(e);
      throw new Error(`the kubeconfig's credentials or proxy could not be set up: ${why || "no message"}`);
    }
    if (request.agent instanceof http.Agent) this.agent = request.agent;
    return send(url, path, request, options, body.data);
  }

  public close(): void {
    this.agent?.destroy();
  }
}

/** A client for a context with plain access: `node:https` with the kubeconfig's TLS settings and credentials. */
class PlainClient extends BaseClient {
  private readonly agent: http.Agent;
  private readonly authorization: string | undefined;

  public constructor(
    public readonly server: string,
    access: PlainAccess,
  ) {
    super();
    this.authorization = access.authorization;
    this.agent = server.startsWith("http:")
      ? new http.Agent({ keepAlive: true })
      : new https.Agent({
          keepAlive: true,
          ...(access.ca !== undefined
            ? { ca: access.ca.includes("-----BEGIN") ? access.ca : derToPem(access.ca) }
            : {}),
          ...(access.cert !== undefined ? { cert: access.cert } : {}),
          ...(access.key !== undefined ? { key: access.key } : {}),
          ...(access.serverName !== undefined ? { servername: access.serverName } : {}),
          rejectUnauthorized: !access.insecure,
        });
  }

  protected request(path: string, body: Body, options: KubeGetOptions): Promise<KubeResponse> {
    const request: https.RequestOptions = {
      method: body.method,
      agent: this.agent,
      headers: {
        accept: options.accept ?? "application/json, text/plain",
        ...(body.contentType !== undefined ? { "content-type": body.contentType } : {}),
        ...(this.authorization !== undefined ? { authorization: this.authorization } : {}),
      },
      timeout: options.timeout.toMilliseconds(),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    };
    return send(new URL(`${this.server}${path}`), path, request, options, body.data);
  }

  public close(): void {
    this.agent.destroy();
  }
}

function derToPem(der: Buffer): string {
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join("\n")}\n-----END CERTIFICATE-----\n`;
}

/** Sends one request (with `data` as its body) and reads at most `maxBytes` (default {@link MAX_BODY}) of the answer. */
function send(
  url: URL,
  path: string,
  request: https.RequestOptions,
  options: KubeGetOptions,
  data?: string,
): Promise<KubeResponse> {
  const send = url.protocol === "http:" ? http.request : https.request;
  const max = options.maxBytes ?? MAX_BODY;
  return new Promise<KubeResponse>((resolve, reject) => {
    const req = send(url, request, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        if (size < max) chunks.push(c);
        size += c.length;
      });
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).subarray(0, max).toString("utf8"),
        }),
      );
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`no answer from ${path} within ${options.timeout}`)));
    req.on("error", reject);
    req.end(data);
  });
}
