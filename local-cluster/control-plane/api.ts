/**
 * A minimal HTTP(S) client for a local cluster's API server (client-certificate TLS, JSON
 * bodies), used to wait for readiness and to create the objects a cluster with workloads needs,
 * without @kubernetes/client-node.
 *
 * @module
 */
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";

/** TLS material (PEM text) for talking to a cluster's API server. */
export interface TlsCredentials {
  /** CA certificate(s) trusted for the server. */
  readonly ca: string;
  /** Client certificate. */
  readonly cert?: string;
  /** Client key. */
  readonly key?: string;
}

/** A finished HTTP exchange: status code and body text. */
export class ApiResponse {
  /**
   * @param status - HTTP status code.
   * @param text - the response body.
   */
  constructor(
    /** HTTP status code. */
    readonly status: number,
    /** The response body. */
    readonly text: string,
  ) {}

  /** Whether the status is 2xx. */
  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  /** The body parsed as JSON (the type parameter is not checked). */
  json<T = unknown>(): T {
    return JSON.parse(this.text) as T;
  }
}

/** Options of {@link sendRequest}. */
export interface RequestOptions {
  /** HTTP method. @default "GET" */
  readonly method?: string;
  /** A JSON body (serialized with `JSON.stringify`). */
  readonly body?: unknown;
  /** TLS material, for https URLs. */
  readonly tls?: TlsCredentials;
  /** Give up after this many milliseconds. @default 10000 */
  readonly timeoutMs?: number;
}

/**
 * Sends one HTTP(S) request on a fresh connection (no keep-alive, so a restarted server never sees a
 * stale socket) and reads the whole response.
 *
 * @param url - an absolute http:// or https:// URL.
 * @throws the network error (e.g. ECONNREFUSED) or a timeout error.
 */
export function sendRequest(url: string, options: RequestOptions = {}): Promise<ApiResponse> {
  const { method = "GET", body, tls, timeoutMs = 10_000 } = options;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { accept: "application/json" };
  if (payload !== undefined) {
    headers["content-type"] = "application/json";
    headers["content-length"] = String(Buffer.byteLength(payload));
  }
  const send = url.startsWith("https:") ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      { method, headers, agent: false, timeout: timeoutMs, ca: tls?.ca, cert: tls?.cert, key: tls?.key },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve(new ApiResponse(res.statusCode ?? 0, Buffer.concat(chunks).toString("utf8"))),
        );
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${method} ${url} timed out after ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end(payload);
  });
}

/** The parts of a Kubernetes object the local cluster reads (metadata, status, spec); not the `KubeObject` of `helm-handoff/cdk8s`. */
export interface ObjectStatus {
  /** Object metadata. */
  readonly metadata?: { readonly name?: string; readonly uid?: string };
  /** Object status (shape depends on the kind). */
  readonly status?: {
    readonly conditions?: readonly { readonly type: string; readonly status: string }[];
    readonly readyReplicas?: number;
  };
  /** Object spec (shape depends on the kind). */
  readonly spec?: { readonly taints?: readonly { readonly key: string; readonly effect: string }[] };
}
