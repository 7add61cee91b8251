import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash, X509Certificate } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, it, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { processExists } from "../../../core/util/process.js";
import {
  type ApiResponse,
  type ObjectStatus,
  sendRequest,
  type TlsCredentials,
} from "../../../local-cluster/control-plane/api.js";
import { findBinary, toolchainBinDir } from "../../../local-cluster/control-plane/binaries.js";
import { KWOK_NODE_NAME } from "../../../local-cluster/control-plane/workloads.js";
import {
  type LocalCluster,
  type LocalClusterOptions,
  startLocalCluster,
} from "../../../local-cluster/index.js";

/** Generous: two clusters start at once on a 2-core machine. */
const START = { timeout: 240_000 };
const STEP = { timeout: 120_000 };

/** Starts clusters in parallel; stops the ones that started if another one failed. */
async function startAll(options: LocalClusterOptions[]): Promise<LocalCluster[]> {
  const results = await Promise.allSettled(options.map((o) => startLocalCluster(o)));
  const failed = results.find((r) => r.status === "rejected");
  if (failed) {
    await Promise.all(results.map((r) => (r.status === "fulfilled" ? r.value.stop() : undefined)));
    throw failed.reason;
  }
  return results.map((r) => (r as PromiseFulfilledResult<LocalCluster>).value);
}

function isGone(pid: number): boolean {
  return !processExists(pid);
}

/** Polls until `check` returns something other than undefined, or fails after `ms` with `what`. */
async function eventually<T>(
  what: string,
  ms: number,
  check: () => Promise<T | undefined> | T | undefined,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) assert.fail(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(100);
  }
}

async function assertAllGone(pids: readonly number[], ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (pids.some((pid) => !isGone(pid)) && Date.now() < deadline) await sleep(100);
  assert.deepEqual(
    pids.filter((pid) => !isGone(pid)),
    [],
    "these processes are still running",
  );
}

function caFingerprintOf(kubeconfig: string): string {
  const config = parse(kubeconfig) as { clusters: { cluster: { "certificate-authority-data": string } }[] };
  const pem = Buffer.from(config.clusters[0]!.cluster["certificate-authority-data"], "base64").toString(
    "utf8",
  );
  return createHash("sha256").update(new X509Certificate(pem).raw).digest("hex");
}

/** etcd's client and peer URLs, from its command line. */
function etcdUrls(cluster: LocalCluster): { client: string; peer: string } {
  const etcd = cluster.processes().find((p) => p.name === "etcd");
  assert.ok(etcd, "etcd runs");
  const argv = readFileSync(`/proc/${etcd.pid}/cmdline`, "utf8").split("\0");
  const flag = (name: string) => argv[argv.indexOf(name) + 1] ?? "";
  return { client: flag("--listen-client-urls"), peer: flag("--listen-peer-urls") };
}

/** The certificate and key `NAME.crt` / `NAME.key` of a cluster's pki directory. */
function clientCert(dir: string, name: string): { cert: string; key: string } {
  const file = (ext: string) => readFileSync(join(dir, "pki", `${name}.${ext}`), "utf8");
  return { cert: file("crt"), key: file("key") };
}

/** `"status N"` for a response, `"error CODE"` for a failed request. */
async function outcome(response: Promise<ApiResponse>): Promise<string> {
  try {
    return `status ${(await response).status}`;
  } catch (error) {
    return `error ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
  }
}

describe("two local clusters started at once", () => {
  let one: LocalCluster;
  let two: LocalCluster;

  before(async () => {
    [one, two] = (await startAll([{ name: "one" }, { name: "two" }])) as [LocalCluster, LocalCluster];
  }, START);

  after(async () => {
    await Promise.all([one?.stop(), two?.stop()]);
  });

  it("have different identities (kube-system UID and CA fingerprint)", async () => {
    assert.notEqual(one.identity.uid, two.identity.uid);
    assert.notEqual(one.identity.caFingerprint, two.identity.caFingerprint);
    for (const cluster of [one, two]) {
      assert.match(cluster.identity.caFingerprint, /^[0-9a-f]{64}$/);
      assert.equal(cluster.identity.caFingerprint, caFingerprintOf(cluster.kubeconfig));
      const res = await cluster.request("GET", "/api/v1/namespaces/kube-system");
      assert.equal(res.json<ObjectStatus>().metadata?.uid, cluster.identity.uid);
      assert.equal(await cluster.ready, cluster.identity);
    }
  });

  it("both answer /readyz on their own loopback URL", async () => {
    assert.notEqual(one.server, two.server);
    for (const cluster of [one, two]) {
      assert.match(cluster.server, /^https:\/\/127\.0\.0\.1:\d+$/);
      const res = await cluster.request("GET", "/readyz");
      assert.equal(res.status, 200);
      assert.equal(res.text, "ok");
    }
  });

  it("serve etcd only over TLS, to clients with a certificate of their own cluster's CA", async () => {
    const rangeAll = { key: "Lw==", range_end: "MA==", count_only: true }; // every key from "/"
    for (const [cluster, other] of [
      [one, two],
      [two, one],
    ] as const) {
      const { client, peer } = etcdUrls(cluster);
      assert.match(client, /^https:\/\/127\.0\.0\.1:\d+$/);
      assert.match(peer, /^https:\/\/127\.0\.0\.1:\d+$/);
      const ca = readFileSync(join(cluster.dir, "pki", "ca.crt"), "utf8");
      const range = (url: string, tls?: TlsCredentials) =>
        outcome(
          sendRequest(`${url}/v3/kv/range`, { method: "POST", body: rangeAll, ...(tls ? { tls } : {}) }),
        );
      assert.deepEqual(await range(client.replace("https:", "http:")), "error ECONNRESET", "plain HTTP");
      assert.equal(
        await range(client, { ca }),
        "error ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED",
        "no certificate",
      );
      assert.equal(await range(peer, { ca }), "error ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED", "peer URL");
      assert.equal(
        await range(client, { ca, ...clientCert(other.dir, "etcd-client") }),
        "error ERR_SSL_TLSV1_ALERT_UNKNOWN_CA",
        "the other cluster's etcd client certificate",
      );
      const allowed = await sendRequest(`${client}/v3/kv/range`, {
        method: "POST",
        body: rangeAll,
        tls: { ca, ...clientCert(cluster.dir, "etcd-client") },
      });
      assert.equal(allowed.status, 200, "kube-apiserver's etcd client certificate");
      assert.ok(Number(allowed.json<{ count?: string }>().count) > 0, allowed.text);
    }
  });

  it("write the kubeconfig as a 0600 file holding the returned text", () => {
    for (const cluster of [one, two]) {
      assert.equal(statSync(cluster.kubeconfigPath).mode & 0o777, 0o600);
      assert.equal(readFileSync(cluster.kubeconfigPath, "utf8"), cluster.kubeconfig);
      const config = parse(cluster.kubeconfig) as {
        "current-context": string;
        clusters: { cluster: { server: string } }[];
      };
      assert.equal(config["current-context"], cluster.name);
      assert.equal(config.clusters[0]?.cluster.server, cluster.server);
      assert.deepEqual(readdirSync(cluster.logDir).sort(), ["etcd.log", "kube-apiserver.log"]);
    }
  });

  it("keep their data when the API server is stopped or killed and started again", STEP, async () => {
    const server = one.server;
    const created = await one.request("POST", "/api/v1/namespaces/default/configmaps", {
      metadata: { name: "survivor" },
      data: { answer: "42" },
    });
    assert.equal(created.status, 201, created.text);
    for (const halt of [() => one.stopApiServer(), () => one.killApiServer()]) {
      await halt();
      assert.deepEqual(
        one.processes().map((p) => p.name),
        ["guard", "etcd"],
      );
      await assert.rejects(one.request("GET", "/readyz"), { code: "ECONNREFUSED" });
      await one.startApiServer();
      assert.equal(one.server, server);
      const read = await one.request("GET", "/api/v1/namespaces/default/configmaps/survivor");
      assert.equal(read.status, 200);
      assert.deepEqual(read.json<{ data: unknown }>().data, { answer: "42" });
    }
    await assert.rejects(one.startApiServer(), {
      message: 'kube-apiserver of local cluster "one" is already running',
    });
  });

  it("report a daemon that fails to start with the last lines of its log", STEP, async () => {
    await one.stopApiServer();
    const port = Number(new URL(one.server).port);
    const squatter = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => squatter.listen(port, "127.0.0.1", resolve));
    try {
      const error = await one.startApiServer().then(
        () => assert.fail("startApiServer should fail while its port is taken"),
        (e: unknown) => e as Error,
      );
      const log = `${one.logDir}/kube-apiserver.log`;
      assert.ok(
        error.message.startsWith(
          `kube-apiserver exited with code 1 while waiting for kube-apiserver to answer /readyz; last lines of ${log}:\n`,
        ),
        error.message,
      );
      assert.match(error.message, /address already in use/);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
    await one.startApiServer();
    assert.equal((await one.request("GET", "/readyz")).status, 200);
  });

  it("leave no process and no temp dir behind after stop()", STEP, async () => {
    const pids = two.processes().map((p) => p.pid);
    assert.equal(pids.length, 3);
    await two.stop();
    await assertAllGone(pids, 5_000);
    assert.equal(existsSync(two.dir), false);
    await two.stop();
  });
});

test(
  "with workloads: true, the fake node becomes Ready and a Deployment's pod becomes Ready",
  START,
  async () => {
    const started = Date.now();
    const cluster = await startLocalCluster({ name: "work", workloads: true });
    try {
      console.log(`# cluster with workloads ready in ${Date.now() - started} ms`);
      assert.equal(cluster.nodeName, KWOK_NODE_NAME);
      const node = (await cluster.request("GET", `/api/v1/nodes/${KWOK_NODE_NAME}`)).json<{
        metadata: { labels: Record<string, string> };
        spec: { providerID: string; taints?: unknown[] };
        status: { conditions: { type: string; status: string }[] };
      }>();
      assert.equal(node.spec.providerID, `kwok://${KWOK_NODE_NAME}`);
      assert.equal(node.metadata.labels.type, "kwok");
      assert.deepEqual(node.spec.taints ?? [], []);
      assert.equal(node.status.conditions.find((c) => c.type === "Ready")?.status, "True");

      const labels = { app: "web" };
      const created = await cluster.request("POST", "/apis/apps/v1/namespaces/default/deployments", {
        metadata: { name: "web" },
        spec: {
          replicas: 1,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: { containers: [{ name: "web", image: "registry.k8s.io/pause:3.10" }] },
          },
        },
      });
      assert.equal(created.status, 201, created.text);
      const deployed = Date.now();
      await eventually("the Deployment to have 1 ready replica", 60_000, async () => {
        const res = await cluster.request("GET", "/apis/apps/v1/namespaces/default/deployments/web");
        return res.json<ObjectStatus>().status?.readyReplicas === 1 ? true : undefined;
      });
      console.log(`# deployment ready in ${Date.now() - deployed} ms`);
    } finally {
      await cluster.stop();
    }
  },
);

test(
  "with apiServerDelay, the kubeconfig exists before /readyz answers and readiness arrives after the delay",
  START,
  async () => {
    const delay = 10_000;
    const started = Date.now();
    const cluster = await startLocalCluster({ name: "late", apiServerDelay: delay });
    try {
      // It returned before the API server started: the port refuses connections (checked below).
      assert.equal(readFileSync(cluster.kubeconfigPath, "utf8"), cluster.kubeconfig);
      assert.equal(statSync(cluster.kubeconfigPath).mode & 0o777, 0o600);
      assert.throws(() => cluster.identity, {
        message: 'local cluster "late" is not ready yet: await cluster.ready first',
      });
      await assert.rejects(cluster.request("GET", "/readyz"), { code: "ECONNREFUSED" });
      const identity = await cluster.ready;
      assert.ok(Date.now() - started >= delay, "readiness should not arrive before the delay");
      console.log(`# delayed cluster ready ${Date.now() - started - delay} ms after the delay`);
      assert.equal(cluster.identity, identity);
      assert.equal((await cluster.request("GET", "/readyz")).status, 200);
    } finally {
      await cluster.stop();
    }
  },
);

test("stop() during apiServerDelay rejects ready and leaves no process behind", START, async () => {
  const cluster = await startLocalCluster({ name: "early", apiServerDelay: 60_000 });
  const guardAndEtcd = await eventually("etcd to be started", 10_000, () => {
    const pids = cluster.processes().map((p) => p.pid);
    return pids.length === 2 ? pids : undefined;
  });
  await cluster.stop();
  await assert.rejects(cluster.ready, { message: 'local cluster "early" was stopped' });
  await assertAllGone(guardAndEtcd, 5_000);
  assert.equal(existsSync(cluster.dir), false);
});

test("no process and no temp dir is left behind after the parent is killed with SIGKILL", START, async () => {
  const fixture = fileURLToPath(new URL("../../fixtures/crash-child.js", import.meta.url));
  const child = spawn(process.execPath, [fixture, "--workloads"], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    const lines = createInterface({ input: child.stdout });
    const [line] = (await Promise.race([
      lines[Symbol.asyncIterator]()
        .next()
        .then((r) => [r.value as string | undefined]),
      new Promise<never>((_, reject) =>
        child.once("exit", (code) => reject(new Error(`fixture exited with ${code}`))),
      ),
    ])) as [string | undefined];
    const report = JSON.parse(line ?? "{}") as { pids: number[]; dir: string };
    assert.equal(
      report.pids.length,
      6,
      "guard, etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok",
    );
    assert.equal(
      report.pids.some((pid) => isGone(pid)),
      false,
    );
    assert.equal(existsSync(report.dir), true);
    child.kill("SIGKILL");
    await assertAllGone(report.pids, 15_000);
    await eventually("the temp dir to be removed", 5_000, () => (existsSync(report.dir) ? undefined : true));
  } finally {
    child.kill("SIGKILL");
  }
});

test("a missing binary gives an error naming it and npm run toolchain", () => {
  const env = { PATH: "/nonexistent", HOME: "/nowhere" };
  assert.equal(toolchainBinDir(env), "/nowhere/.cache/helm-handoff/toolchain/bin");
  assert.equal(toolchainBinDir({ XDG_CACHE_HOME: "/xdg" }), "/xdg/helm-handoff/toolchain/bin");
  assert.throws(() => findBinary("kube-nothing", env), {
    message:
      "kube-nothing was not found on PATH nor in /nowhere/.cache/helm-handoff/toolchain/bin; run `npm run toolchain` to build the test toolchain",
  });
});

for (const gitops of ["flux", "argocd"] as const) {
  test(
    `a cluster with gitops: "${gitops}" runs the real controllers with their CRDs, and stop leaves no process behind`,
    START,
    async () => {
      const cluster = await startLocalCluster({ name: `gitops-${gitops}`, gitops });
      let pids: number[] = [];
      try {
        const names = cluster.processes().map((p) => p.name);
        const controllers =
          gitops === "flux"
            ? ["source-controller", "helm-controller"]
            : ["redis", "argocd-repo-server", "argocd-application-controller"];
        for (const name of controllers) assert.ok(names.includes(name), `${name} runs: ${names.join(", ")}`);
        assert.deepEqual(
          cluster.gitops,
          gitops === "flux"
            ? { kind: "flux", namespace: "flux-system" }
            : { kind: "argocd", namespace: "argocd", destinationServer: cluster.server },
        );
        const kinds =
          gitops === "flux"
            ? "/apis/helm.toolkit.fluxcd.io/v2/helmreleases"
            : "/apis/argoproj.io/v1alpha1/applications";
        assert.equal((await cluster.request("GET", kinds)).status, 200, `${kinds} is served`);
        pids = cluster.processes().map((p) => p.pid);
      } finally {
        await cluster.stop();
      }
      await assertAllGone(pids, 15_000);
      assert.equal(existsSync(cluster.dir), false);
    },
  );
}

test("an unknown gitops controller is refused before anything starts", async () => {
  await assert.rejects(startLocalCluster({ gitops: "jenkins" as never }), {
    message: 'invalid gitops "jenkins": use "flux" or "argocd"',
  });
});

test("an invalid cluster name is refused", async () => {
  await assert.rejects(startLocalCluster({ name: "Not_OK" }), {
    message: 'invalid cluster name "Not_OK": use lowercase letters, digits and "-"',
  });
});
