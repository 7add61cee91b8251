/**
 * Cluster calls on a real local cluster, for each kind of kubeconfig access: an `exec` credential
 * plugin (through `@kubernetes/client-node`'s KubeConfig) authenticates the readiness wait, the
 * kube-system UID read and helm; `proxy-url` (client-node) and `tls-server-name` (plain
 * `node:https` with the client certificate) apply as they do for helm; the same cluster reached by
 * another address has another identity but the same kube-system UID.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { parse, stringify } from "yaml";
import { kubeClient } from "../../../core/cluster/client.js";
import { clusterIdentityFromKubeconfig } from "../../../core/cluster/identity.js";
import { waitForApiServer } from "../../../core/cluster/readiness.js";
import { DeadlineExceededError } from "../../../core/errors.js";
import { HelmRunner } from "../../../core/helm/index.js";
import { ensureRelease } from "../../../core/lifecycle/ensure.js";
import { Duration } from "../../../core/spec/duration.js";
import { validateSpec } from "../../../core/spec/index.js";
import { type LocalCluster, startLocalCluster } from "../../../local-cluster/index.js";
import { localChart } from "../../support/charts.js";
import { startConnectProxy } from "../../support/connect-proxy.js";

/** The UID of the cluster's kube-system namespace, read with `kubeconfig`'s credentials (`undefined` when unreadable). */
async function kubeSystemUid(kubeconfig: string): Promise<string | undefined> {
  const client = await kubeClient(kubeconfig);
  try {
    const res = await client.get("/api/v1/namespaces/kube-system", { timeout: Duration.seconds(10) });
    const uid =
      res.status === 200
        ? (JSON.parse(res.body) as { metadata?: { uid?: string } }).metadata?.uid
        : undefined;
    return uid;
  } finally {
    client.close();
  }
}

interface Kubeconfig {
  clusters: { cluster: Record<string, unknown> }[];
  users: { user: Record<string, unknown> }[];
}

describe("cluster calls with each kind of kubeconfig access (exec plugin, proxy, tls-server-name, client certificate)", {
  timeout: 300_000,
}, () => {
  let cluster: LocalCluster;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "kube-client-"));
    cluster = await startLocalCluster({ name: "kube-client" });
    await cluster.ready;
  });
  after(async () => {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The local cluster's kubeconfig, changed by `edit`. */
  function variant(edit: (doc: Kubeconfig) => void): string {
    const doc = parse(cluster.kubeconfig) as Kubeconfig;
    edit(doc);
    return stringify(doc);
  }

  /** The cluster entry of a kubeconfig document (there is one). */
  function clusterOf(doc: Kubeconfig): Record<string, unknown> {
    const entry = doc.clusters[0];
    assert.ok(entry);
    return entry.cluster;
  }

  test("a kubeconfig whose user is an exec plugin passes the readiness wait, reads the kube-system UID, installs a release and marks its revision", async () => {
    const kubeconfig = variant((doc) => {
      const entry = doc.users[0];
      assert.ok(entry);
      const pem = (key: string): string => Buffer.from(String(entry.user[key]), "base64").toString("utf8");
      const credential = join(dir, "credential.json");
      writeFileSync(
        credential,
        JSON.stringify({
          apiVersion: "client.authentication.k8s.io/v1",
          kind: "ExecCredential",
          status: {
            clientCertificateData: pem("client-certificate-data"),
            clientKeyData: pem("client-key-data"),
          },
        }),
        { mode: 0o600 },
      );
      const plugin = join(dir, "credential-plugin.sh");
      writeFileSync(plugin, `#!/bin/sh\nexec cat '${credential}'\n`);
      chmodSync(plugin, 0o755);
      entry.user = {
        exec: { apiVersion: "client.authentication.k8s.io/v1", command: plugin, interactiveMode: "Never" },
      };
    });
    const ready = await waitForApiServer(kubeconfig, { deadline: Duration.seconds(30) });
    assert.deepEqual(ready, { server: cluster.server, attempts: 1 });
    const uid = await kubeSystemUid(kubeconfig);
    assert.match(uid ?? "", /^[0-9a-f-]{36}$/);
    assert.equal(uid, await kubeSystemUid(cluster.kubeconfig));
    const result = await ensureRelease(
      new HelmRunner({ kubeconfig }),
      validateSpec({
        chart: { path: localChart("workload") },
        releaseName: "exec-auth",
        namespace: "default",
        install: { wait: false },
      }),
      { owner: { id: "test", name: "test", instance: "1" } },
    );
    assert.equal(result.action, "installed");
    assert.equal(result.release.status, "deployed");
    // The relabel is a JSON patch through the same client (client-node, for an exec plugin).
    const runner = new HelmRunner({ kubeconfig });
    await runner.patchReleaseLabels(
      "exec-auth",
      "default",
      1,
      { "helm-handoff.dev/instance": "2" },
      "deployed",
    );
    assert.equal((await runner.status("exec-auth", "default"))?.labels["helm-handoff.dev/instance"], "2");
    await assert.rejects(
      runner.patchReleaseLabels("exec-auth", "default", 1, { "helm-handoff.dev/instance": "3" }, "failed"),
      {
        name: "ReleaseBusyError",
        message:
          "default/exec-auth: revision 1 changed before helm-handoff could mark it (HTTP 422); looking again",
      },
    );
  });

  test("a kubeconfig with proxy-url reaches the API server through the proxy", async () => {
    const proxy = await startConnectProxy();
    try {
      const kubeconfig = variant((doc) => {
        clusterOf(doc)["proxy-url"] = proxy.url;
      });
      const ready = await waitForApiServer(kubeconfig, { deadline: Duration.seconds(30) });
      assert.equal(ready.server, cluster.server);
      assert.equal(await kubeSystemUid(kubeconfig), await kubeSystemUid(cluster.kubeconfig));
      assert.deepEqual([...new Set(proxy.connects)], [new URL(cluster.server).host]);
    } finally {
      await proxy.close();
    }
  });

  test("tls-server-name is the name the serving certificate is checked against", async () => {
    const named = (name: string): string =>
      variant((doc) => {
        clusterOf(doc)["tls-server-name"] = name;
      });
    await waitForApiServer(named("kubernetes.default"), { deadline: Duration.seconds(30) });
    const err = await waitForApiServer(named("not-the-api-server.example"), {
      deadline: Duration.seconds(1),
    }).catch((e: unknown) => e);
    assert.ok(err instanceof DeadlineExceededError);
    assert.match(
      err.message,
      /Hostname\/IP does not match certificate's altnames: Host: not-the-api-server\.example\. is not in the cert's altnames/,
    );
  });

  test("the same cluster reached through localhost instead of 127.0.0.1 has another identity and the same kube-system UID", async () => {
    const byName = variant((doc) => {
      clusterOf(doc).server = cluster.server.replace("127.0.0.1", "localhost");
    });
    assert.notEqual(
      clusterIdentityFromKubeconfig(byName).clusterId,
      clusterIdentityFromKubeconfig(cluster.kubeconfig).clusterId,
    );
    const uid = await kubeSystemUid(byName);
    assert.ok(uid !== undefined);
    assert.equal(uid, await kubeSystemUid(cluster.kubeconfig));
  });
});
