/**
 * Waiting until a cluster's API server answers `/readyz`.
 *
 * @module
 */
import * as http from "node:http";
import * as https from "node:https";
import { Duration } from "./duration.js";
import { CredentialsRejectedError } from "./errors.js";
import { type KubeconfigTarget, readKubeconfig } from "./kubeconfig.js";
import { retry } from "./retry.js";

/** What {@link WaitForApiServerOptions.onWait} is told after each failed probe. */
export interface ApiServerWaitInfo {
  /** The probe that failed (1-based). */
  readonly attempt: number;
  /** Why it failed, e.g. `"connect ECONNREFUSED 127.0.0.1:6443"` or `"HTTP 500"`. */
  readonly reason: string;
  /** The wait before the next probe. */
  readonly delay: Duration;
}

/** Options of {@link waitForApiServer}. */
export interface WaitForApiServerOptions {
  /** How long to wait in total. */
  readonly deadline: Duration;
  /** Cancels the wait. @default - not cancellable */
  readonly signal?: AbortSignal;
  /** Called after each failed probe. @default - nothing is reported */
  readonly onWait?: (info: ApiServerWaitInfo) => void;
  /** Kubeconfig context. @default - the current-context */
  readonly context?: string;
  /** Timeout of one probe. @default - 5 seconds */
  readonly probeTimeout?: Duration;
  /** Smallest wait between probes. @default - 100 milliseconds */
  readonly minBackoff?: Duration;
  /** Largest wait between probes (a probe is one cheap GET, so the install starts within this of readiness). @default - 500 milliseconds */
  readonly maxBackoff?: Duration;
}

/** The result of {@link waitForApiServer}. */
export interface ApiServerReady {
  /** The API server URL. */
  readonly server: string;
  /** Probes made (1 when the server was ready at once). */
  readonly attempts: number;
}

class NotReady extends Error {}

/**
 * Polls `GET /readyz` with the kubeconfig's CA and credentials (client certificate, token or basic
 * auth) until it answers 200.
 *
 * A 401 or 403 fails at once with {@link CredentialsRejectedError}: waiting cannot fix wrong
 * credentials. Users that authenticate through `exec` or `auth-provider` plugins are probed
 * anonymously, and for them a 401/403 counts as "the server answers".
 *
 * @throws DeadlineExceededError listing the probes when the deadline passes
 * @throws SpecError when the kubeconfig is unusable
 */
export async function waitForApiServer(
  kubeconfig: string,
  options: WaitForApiServerOptions,
): Promise<ApiServerReady> {
  const target = readKubeconfig(
    kubeconfig,
    options.context !== undefined ? { context: options.context } : {},
  );
  const probeTimeout = options.probeTimeout ?? Duration.seconds(5);
  let attempts = 0;
  await retry(
    async (n) => {
      attempts = n;
      await probe(target, probeTimeout, options.signal);
    },
    {
      deadline: options.deadline,
      minBackoff: options.minBackoff ?? Duration.millis(100),
      maxBackoff: options.maxBackoff ?? Duration.millis(500),
      isRetryable: (e) => !(e instanceof CredentialsRejectedError),
      what: `waiting for the API server ${target.server} to answer /readyz`,
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      onRetry: (info) =>
        options.onWait?.({
          attempt: info.attempt,
          reason: info.error instanceof Error ? info.error.message : String(info.error),
          delay: info.delay,
        }),
    },
  );
  return { server: target.server, attempts };
}

function probe(t: KubeconfigTarget, timeout: Duration, signal: AbortSignal | undefined): Promise<void> {
  const url = new URL(`${t.server}/readyz`);
  const headers: Record<string, string> = { accept: "text/plain" };
  if (t.token !== undefined) headers.authorization = `Bearer ${t.token}`;
  else if (t.basicAuth !== undefined) {
    headers.authorization = `Basic ${Buffer.from(`${t.basicAuth.username}:${t.basicAuth.password}`).toString("base64")}`;
  }
  return new Promise<void>((resolve, reject) => {
    const onResponse = (res: http.IncomingMessage): void => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => {
        if (chunks.length < 16) chunks.push(c);
      });
      res.on("end", () => {
        const status = res.statusCode ?? 0;
        if (status === 200) resolve();
        else if ((status === 401 || status === 403) && !t.externalAuth)
          reject(new CredentialsRejectedError(t.server, status));
        else if (status === 401 || status === 403) resolve();
        else {
          const body = Buffer.concat(chunks).toString("utf8").trim().split("\n").slice(-3).join("; ");
          reject(new NotReady(`HTTP ${status} from /readyz${body ? `: ${body.slice(0, 200)}` : ""}`));
        }
      });
      res.on("error", reject);
    };
    const common = {
      method: "GET",
      headers,
      timeout: timeout.toMilliseconds(),
      ...(signal !== undefined ? { signal } : {}),
    };
    const req =
      url.protocol === "http:"
        ? http.request(url, common, onResponse)
        : https.request(
            url,
            {
              ...common,
              ...(t.caPem !== undefined ? { ca: t.caPem } : {}),
              ...(t.clientCert !== undefined ? { cert: t.clientCert } : {}),
              ...(t.clientKey !== undefined ? { key: t.clientKey } : {}),
              ...(t.tlsServerName !== undefined ? { servername: t.tlsServerName } : {}),
              rejectUnauthorized: !t.insecureSkipTlsVerify,
              agent: false,
            },
            onResponse,
          );
    req.on("timeout", () => req.destroy(new NotReady(`no answer from /readyz within ${timeout}`)));
    req.on("error", (e) => reject(e instanceof NotReady ? e : new NotReady(e.message)));
    req.end();
  });
}
