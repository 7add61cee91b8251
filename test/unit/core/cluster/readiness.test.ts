import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { waitForApiServer } from "../../../../core/cluster/readiness.js";
import { CredentialsRejectedError, DeadlineExceededError } from "../../../../core/errors.js";
import { Duration } from "../../../../core/spec/duration.js";

function kubeconfig(server: string, token = "t0ken-for-readiness"): string {
  return `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "${server}"}}]
contexts: [{name: ctx, context: {cluster: c, user: u}}]
current-context: ctx
users: [{name: u, user: {token: ${token}}}]
`;
}

/** A kubeconfig whose user runs `script` (a shell script body) as its exec credential plugin. */
function execKubeconfig(server: string, dir: string, script: string): string {
  const plugin = join(dir, "plugin.sh");
  writeFileSync(plugin, `#!/bin/sh\n${script}\n`);
  chmodSync(plugin, 0o755);
  return `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "${server}"}}]
contexts: [{name: ctx, context: {cluster: c, user: u}}]
current-context: ctx
users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: "${plugin}", interactiveMode: Never}}}]
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

test("the token an exec credential plugin prints is sent, and a 401 to it fails at once as rejected credentials", async () => {
  const dir = mkdtempSync(join(tmpdir(), "readiness-exec-"));
  const seen: (string | undefined)[] = [];
  const { server, url } = await serve((_n, auth) => {
    seen.push(auth);
    return 401;
  });
  try {
    const credential = JSON.stringify({
      apiVersion: "client.authentication.k8s.io/v1",
      kind: "ExecCredential",
      status: { token: "t0ken-from-plugin" },
    });
    const err = await waitForApiServer(execKubeconfig(url, dir, `echo '${credential}'`), {
      deadline: Duration.seconds(10),
    }).catch((e: unknown) => e);
    assert.ok(err instanceof CredentialsRejectedError);
    assert.deepEqual(seen, ["Bearer t0ken-from-plugin"]);
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a failing exec credential plugin is retried until the deadline, its message in every wait report", async () => {
  const dir = mkdtempSync(join(tmpdir(), "readiness-exec-"));
  const { server, url } = await serve(() => 200);
  const waits: string[] = [];
  try {
    const err = await waitForApiServer(
      execKubeconfig(url, dir, "echo 'token service unavailable' >&2; exit 1"),
      { deadline: Duration.seconds(1), onWait: (w) => waits.push(w.reason) },
    ).catch((e: unknown) => e);
    assert.ok(err instanceof DeadlineExceededError);
    assert.ok(waits.length >= 1);
    for (const reason of waits) {
      assert.equal(
        reason,
        "the kubeconfig's credentials or proxy could not be set up: token service unavailable",
      );
    }
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
