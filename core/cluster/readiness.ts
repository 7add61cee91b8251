/**
 * Waiting until a cluster's API server answers `/readyz`.
 *
 * @module
 */

import { CredentialsRejectedError } from "../errors.js";
import { Duration } from "../spec/duration.js";
import { retry } from "../util/retry.js";
import { type KubeClient, type KubeResponse, kubeClient } from "./client.js";

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
  /** Cancels the wait. @default not cancellable */
  readonly signal?: AbortSignal;
  /** Called after each failed probe. @default nothing is reported */
  readonly onWait?: (info: ApiServerWaitInfo) => void;
  /** Kubeconfig context. @default the current-context */
  readonly context?: string;
  /** Timeout of one probe. @default 5 seconds */
  readonly probeTimeout?: Duration;
  /** Smallest wait between probes. @default 100 milliseconds */
  readonly minBackoff?: Duration;
  /** Largest wait between probes (a probe is one cheap GET, so the install starts within this of readiness). @default 500 milliseconds */
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
 * Polls `GET /readyz` with the kubeconfig's CA, credentials (client certificate, token, basic auth
 * or an `exec` credential plugin), `proxy-url` and `tls-server-name` (see `kubeClient`) until
 * it answers 200.
 *
 * A 401 or 403 fails at once with {@link CredentialsRejectedError}: waiting cannot fix wrong
 * credentials. A failing `exec` plugin counts as "not ready yet" (a cloud CLI may fail until the
 * cluster exists) and is retried until the deadline; its message is in the wait reports.
 *
 * @throws DeadlineExceededError listing the probes when the deadline passes
 * @throws SpecError when the kubeconfig is unusable
 */
export async function waitForApiServer(
  kubeconfig: string,
  options: WaitForApiServerOptions,
): Promise<ApiServerReady> {
  const client = await kubeClient(
    kubeconfig,
    options.context !== undefined ? { context: options.context } : {},
  );
  const probeTimeout = options.probeTimeout ?? Duration.seconds(5);
  let attempts = 0;
  try {
    await retry(
      async (n) => {
        attempts = n;
        await probe(client, probeTimeout, options.signal);
      },
      {
        deadline: options.deadline,
        minBackoff: options.minBackoff ?? Duration.millis(100),
        maxBackoff: options.maxBackoff ?? Duration.millis(500),
        isRetryable: (e) => !(e instanceof CredentialsRejectedError),
        what: `waiting for the API server ${client.server} to answer /readyz`,
        ...(options.signal !== undefined ? { signal: options.signal } : {}),
        onRetry: (info) =>
          options.onWait?.({
            attempt: info.attempt,
            reason: info.error instanceof Error ? info.error.message : String(info.error),
            delay: info.delay,
          }),
      },
    );
  } finally {
    client.close();
  }
  return { server: client.server, attempts };
}

async function probe(client: KubeClient, timeout: Duration, signal: AbortSignal | undefined): Promise<void> {
  let res: KubeResponse;
  try {
    res = await client.get("/readyz", { timeout, ...(signal !== undefined ? { signal } : {}) });
  } catch (e) {
    throw new NotReady(e instanceof Error ? e.message : String(e));
  }
  if (res.status === 200) return;
  if (res.status === 401 || res.status === 403) throw new CredentialsRejectedError(client.server, res.status);
  const body = res.body.trim().split("\n").slice(-3).join("; ");
  throw new NotReady(`HTTP ${res.status} from /readyz${body ? `: ${body.slice(0, 200)}` : ""}`);
}
