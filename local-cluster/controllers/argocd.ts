/**
 * Argo CD beside a local cluster: the real application-controller and repo-server (one `argocd`
 * binary, built by the toolchain from its Go module, the role chosen by `ARGOCD_BINARY_NAME`) and
 * Redis as host processes, with the CRDs, the `argocd` namespace, the ConfigMaps and Secret the
 * controllers read, the `default` AppProject, and a cluster Secret naming this cluster by its API
 * server URL: the controller runs outside the cluster, so Applications deploy to
 * {@link GitopsControllers.destinationServer}, not `https://kubernetes.default.svc`. The
 * repo-server renders charts with the `helm` found on PATH (or the toolchain's).
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { Socket } from "node:net";
import { delimiter, dirname, join } from "node:path";
import { writePrivateFile } from "../control-plane/admin-kubeconfig.js";
import { findBinary } from "../control-plane/binaries.js";
import { freePort } from "../control-plane/ports.js";
import {
  createObjects,
  filesBeside,
  type GitopsControllers,
  type GitopsHost,
  installCrds,
  type Manifest,
  namespace,
  waitHttp,
} from "./host.js";

/** The namespace Argo CD runs in and reads its Applications from. */
export const ARGOCD_NAMESPACE = "argocd";

const PART_OF = { "app.kubernetes.io/part-of": "argocd" };
const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

/** The objects Argo CD reads at start, and the cluster Secret of this cluster. */
function bootstrapObjects(host: GitopsHost): Manifest[] {
  const ns = ARGOCD_NAMESPACE;
  return [
    namespace(ns),
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "argocd-cm", namespace: ns, labels: PART_OF },
      data: {},
    },
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "argocd-rbac-cm", namespace: ns, labels: PART_OF },
      data: {},
    },
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "argocd-secret", namespace: ns, labels: PART_OF },
      stringData: { "server.secretkey": randomBytes(32).toString("hex") },
    },
    {
      apiVersion: "argoproj.io/v1alpha1",
      kind: "AppProject",
      metadata: { name: "default", namespace: ns },
      spec: {
        sourceRepos: ["*"],
        destinations: [{ server: "*", namespace: "*" }],
        clusterResourceWhitelist: [{ group: "*", kind: "*" }],
      },
    },
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: {
        name: "local-cluster",
        namespace: ns,
        labels: { "argocd.argoproj.io/secret-type": "cluster" },
      },
      stringData: {
        name: "local-cluster",
        server: host.server,
        config: JSON.stringify({
          tlsClientConfig: {
            caData: b64(host.tls.ca),
            certData: b64(host.tls.cert),
            keyData: b64(host.tls.key),
          },
        }),
      },
    },
  ];
}

/** Resolves once a TCP connection to 127.0.0.1:port succeeds. */
function tcpOpen(port: number): Promise<true | undefined> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.setTimeout(1_000);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    for (const event of ["error", "timeout"]) {
      socket.once(event, () => {
        socket.destroy();
        resolve(undefined);
      });
    }
    socket.connect(port, "127.0.0.1");
  });
}

/** Starts Redis, the repo-server and the application-controller, and waits until each is ready. */
export async function startArgoCd(host: GitopsHost): Promise<GitopsControllers> {
  const argocd = findBinary("argocd");
  const redis = findBinary("redis-server");
  const helmDir = dirname(findBinary("helm"));
  await installCrds(host, filesBeside(argocd, "argocd-crds"));
  await createObjects(host, bootstrapObjects(host));
  const home = join(host.dir, "argocd-home");
  mkdirSync(home, { mode: 0o700 });
  const [redisPort, repoPort, repoMetrics, controllerMetrics] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const redisPassword = randomBytes(24).toString("hex");
  const env = (role: string) => ({
    ...process.env,
    ARGOCD_BINARY_NAME: role,
    ARGOCD_GPG_ENABLED: "false",
    HOME: home,
    KUBECONFIG: host.kubeconfigPath,
    PATH: `${helmDir}${delimiter}${process.env.PATH ?? ""}`,
    REDIS_PASSWORD: redisPassword,
  });
  const start = (name: string, command: string, args: string[], environment: NodeJS.ProcessEnv) =>
    host.start({
      name,
      command,
      args,
      env: environment,
      cwd: home,
      logFile: join(host.logDir, `${name}.log`),
    });
  const redisUrl = `127.0.0.1:${redisPort}`;
  // Redis asks for a password (in a 0600 config file, never in argv) that only Argo CD gets (its
  // REDIS_PASSWORD): the cache holds rendered manifests, and loopback is shared by every local user.
  const redisConfig = join(home, "redis.conf");
  writePrivateFile(
    redisConfig,
    [
      "bind 127.0.0.1",
      "protected-mode yes",
      `port ${redisPort}`,
      `requirepass ${redisPassword}`,
      'save ""',
      "appendonly no",
      "",
    ].join("\n"),
  );
  await start("redis", redis, [redisConfig], { ...process.env });
  await host.wait("redis to accept connections", ["redis"], () => tcpOpen(redisPort));
  await start(
    "argocd-repo-server",
    argocd,
    [
      "--address=127.0.0.1",
      `--port=${repoPort}`,
      "--disable-tls",
      "--client-ca-path=",
      `--redis=${redisUrl}`,
      "--metrics-address=127.0.0.1",
      `--metrics-port=${repoMetrics}`,
    ],
    env("argocd-repo-server"),
  );
  await start(
    "argocd-application-controller",
    argocd,
    [
      `--kubeconfig=${host.kubeconfigPath}`,
      `--namespace=${ARGOCD_NAMESPACE}`,
      `--repo-server=127.0.0.1:${repoPort}`,
      "--repo-server-plaintext",
      `--redis=${redisUrl}`,
      `--metrics-port=${controllerMetrics}`,
      "--status-processors=2",
      "--operation-processors=2",
    ],
    env("argocd-application-controller"),
  );
  await Promise.all([
    waitHttp(host, "argocd-repo-server", `http://127.0.0.1:${repoMetrics}/healthz`),
    waitHttp(host, "argocd-application-controller", `http://127.0.0.1:${controllerMetrics}/healthz`),
  ]);
  return { kind: "argocd", namespace: ARGOCD_NAMESPACE, destinationServer: host.server };
}
