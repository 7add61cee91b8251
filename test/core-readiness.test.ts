import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { Duration } from "../core/duration.js";
import { CredentialsRejectedError, DeadlineExceededError } from "../core/errors.js";
import { waitForApiServer } from "../core/readiness.js";

function kubeconfig(server: string, token = "t0ken-for-readiness"): string {
  return `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "${server}"}}]
contexts: [{name: ctx, context: {cluster: c, user: u}}]
current-context: ctx
users: [{name: u, user: {token: ${token}}}]
`;
}

async function serve(
  handler: (n: number, auth: string | undefined) => number,
): Promise<{ server: Server; url: string }> {
  let n = 0;
  const server = createServer((req, res) => {
    n++;
    res.statusCode = handler(n, req.headers.authorization);
    res.end(res.statusCode === 200 ? "ok" : "[-]etcd failed: reason withheld");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

test("waitForApiServer returns once /readyz answers 200, sending the kubeconfig's token", async () => {
  const seen: (string | undefined)[] = [];
  const { server, url } = await serve((n, auth) => {
    seen.push(auth);
    return n < 3 ? 500 : 200;
  });
  const waits: string[] = [];
  try {
    const ready = await waitForApiServer(kubeconfig(url), {
      deadline: Duration.seconds(10),
      onWait: (w) => waits.push(w.reason),
    });
    assert.equal(ready.attempts, 3);
    assert.equal(seen[0], "Bearer t0ken-for-readiness");
    assert.deepEqual(waits, [
      "HTTP 500 from /readyz: [-]etcd failed: reason withheld",
      "HTTP 500 from /readyz: [-]etcd failed: reason withheld",
    ]);
  } finally {
    server.close();
  }
});

test("rejected credentials fail at once with a message saying so", async () => {
  let calls = 0;
  const { server, url } = await serve(() => {
    calls++;
    return 401;
  });
  try {
    await assert.rejects(
      waitForApiServer(kubeconfig(url), { deadline: Duration.seconds(10) }),
      (e: unknown) => {
        assert.ok(e instanceof CredentialsRejectedError);
        assert.equal(
          e.message,
          `the API server ${url} rejected the kubeconfig's credentials (HTTP 401 on /readyz): check the user's token or client certificate in the kubeconfig`,
        );
        return true;
      },
    );
    assert.equal(calls, 1);
  } finally {
    server.close();
  }
});

test("an API server that never answers ends in DeadlineExceededError listing the probes", async () => {
  const err = await waitForApiServer(kubeconfig("http://127.0.0.1:1"), {
    deadline: Duration.seconds(2),
  }).catch((e: unknown) => e);
  assert.ok(err instanceof DeadlineExceededError);
  assert.ok(err.attempts.length >= 2);
  assert.match(
    err.message,
    /^waiting for the API server http:\/\/127\.0\.0\.1:1 to answer \/readyz did not succeed within the deadline of 2s after \d+ attempt\(s\):\n/,
  );
  assert.match(err.message, /ECONNREFUSED/);
});
