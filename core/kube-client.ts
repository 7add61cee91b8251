/**
 * One authenticated GET against the API server a kubeconfig names, the way helm reaches it: the
 * kubeconfig is read by `@kubernetes/client-node`'s `KubeConfig`, so `exec` credential plugins run,
 * and `proxy-url`, `tls-server-name`, `insecure-skip-tls-verify`, client certificates, tokens and
 * basic auth apply as they do for helm. The package is imported on the first cluster call only
 * (`await import`), so a run that makes no cluster call (the ApplyOnce steady state) never loads
 * it. The kubeconfig is first checked by {@link readKubeconfig}, whose errors name what to fix.
 *
 * @module
 */
import * as http from "node:http";
import * as https from "node:https";
import type { KubeConfig } from "@kubernetes/client-node";
import type { Duration } from "./duration.js";
import { SpecError } from "./errors.js";
import { readKubeconfig } from "./kubeconfig.js";

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
  /** Cancels the request. @default - not cancellable */
  readonly signal?: AbortSignal;
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
  /** Closes the connections this client opened. */
  close(): void;
}

const MAX_BODY = 64 * 1024;

/**
 * Starts loading `@kubernetes/client-node` in the background (it takes ≈0.4 s), for a caller that
 * knows a cluster call is coming (a create) and has other work to do first. Never fails.
 */
export function preloadKubeClient(): void {
  import("@kubernetes/client-node").catch(() => undefined);
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

class Client implements KubeClient {
  private agent: http.Agent | undefined;

  public constructor(
    private readonly kc: KubeConfig,
    public readonly server: string,
  ) {}

  public async get(path: string, options: KubeGetOptions): Promise<KubeResponse> {
    const url = new URL(`${this.server}${path}`);
    const request: https.RequestOptions = {
      method: "GET",
      headers: { accept: "application/json, text/plain" },
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
    const send = url.protocol === "http:" ? http.request : https.request;
    return new Promise<KubeResponse>((resolve, reject) => {
      const req = send(url, request, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          if (size < MAX_BODY) chunks.push(c);
          size += c.length;
        });
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).subarray(0, MAX_BODY).toString("utf8"),
          }),
        );
        res.on("error", reject);
      });
      req.on("timeout", () => req.destroy(new Error(`no answer from ${path} within ${options.timeout}`)));
      req.on("error", reject);
      req.end();
    });
  }

  public close(): void {
    this.agent?.destroy();
  }
}
