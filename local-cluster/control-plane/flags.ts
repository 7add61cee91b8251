/**
 * The command-line flags of each local-cluster daemon, as pure functions of the ports, paths and
 * PKI, so a flag is written once: etcd (TLS on its client and peer URLs, client certificates from
 * the cluster's CA required), kube-apiserver (envtest style, talking to etcd with its own client
 * certificate), kube-controller-manager, kube-scheduler and kwok.
 *
 * @module
 */
import type { ClusterPki } from "./certs.js";

/** The service range; its first address (10.0.0.1) is the `kubernetes` Service IP. */
export const SERVICE_CIDR = "10.0.0.0/24";
/** Pod IPs that kwok hands out (kept apart from the service range). */
export const POD_CIDR = "10.244.0.0/16";

/** The loopback https:// URL of an etcd port. */
export const etcdUrl = (port: number): string => `https://127.0.0.1:${port}`;

/**
 * etcd on loopback, single member, no fsync (test data only). Client and peer URLs are TLS with the
 * etcd certificate, and every client must present a certificate of the cluster's CA: a local user
 * without one can neither read the release Secrets nor join as a peer.
 */
export function etcdArgs(dataDir: string, clientPort: number, peerPort: number, pki: ClusterPki): string[] {
  return [
    "--name",
    "helm-handoff",
    "--data-dir",
    dataDir,
    "--listen-client-urls",
    etcdUrl(clientPort),
    "--advertise-client-urls",
    etcdUrl(clientPort),
    "--listen-peer-urls",
    etcdUrl(peerPort),
    "--initial-advertise-peer-urls",
    etcdUrl(peerPort),
    "--initial-cluster",
    `helm-handoff=${etcdUrl(peerPort)}`,
    "--cert-file",
    pki.etcdCert,
    "--key-file",
    pki.etcdKey,
    "--client-cert-auth",
    "--trusted-ca-file",
    pki.caCert,
    "--peer-cert-file",
    pki.etcdCert,
    "--peer-key-file",
    pki.etcdKey,
    "--peer-client-cert-auth",
    "--peer-trusted-ca-file",
    pki.caCert,
    "--unsafe-no-fsync",
  ];
}

/** What {@link apiServerArgs} needs. */
export interface ApiServerFlags {
  /** etcd client URL. */
  readonly etcdUrl: string;
  /** Secure port on 127.0.0.1. */
  readonly port: number;
  /** Generated certificates and keys. */
  readonly pki: ClusterPki;
  /** Whether pods will run (then the ServiceAccount admission plugin stays enabled). */
  readonly workloads: boolean;
}

/** kube-apiserver in the style of controller-runtime's envtest, with RBAC and client-certificate auth. */
export function apiServerArgs({ etcdUrl: etcdServers, port, pki, workloads }: ApiServerFlags): string[] {
  return [
    "--etcd-servers",
    etcdServers,
    "--etcd-cafile",
    pki.caCert,
    "--etcd-certfile",
    pki.etcdClientCert,
    "--etcd-keyfile",
    pki.etcdClientKey,
    "--bind-address",
    "127.0.0.1",
    "--secure-port",
    String(port),
    "--advertise-address",
    "127.0.0.1",
    "--tls-cert-file",
    pki.servingCert,
    "--tls-private-key-file",
    pki.servingKey,
    "--client-ca-file",
    pki.caCert,
    "--service-cluster-ip-range",
    SERVICE_CIDR,
    "--allow-privileged=true",
    "--authorization-mode",
    "RBAC",
    "--service-account-issuer",
    `https://127.0.0.1:${port}/`,
    "--service-account-key-file",
    pki.serviceAccountPub,
    "--service-account-signing-key-file",
    pki.serviceAccountKey,
    "--profiling=false",
    // Without the controller-manager nobody creates the default ServiceAccounts pods would need.
    ...(workloads ? [] : ["--disable-admission-plugins", "ServiceAccount"]),
  ];
}

/** kube-controller-manager with every default controller, serving our certificate on `port`. */
export function controllerManagerArgs(
  kubeconfig: string,
  port: number,
  pki: ClusterPki,
  name: string,
): string[] {
  return [
    ...componentArgs(kubeconfig, port, pki),
    "--service-account-private-key-file",
    pki.serviceAccountKey,
    "--root-ca-file",
    pki.caCert,
    "--use-service-account-credentials",
    "--controllers=*",
    "--cluster-name",
    name,
  ];
}

/** kube-scheduler, serving our certificate on `port`. */
export function schedulerArgs(kubeconfig: string, port: number, pki: ClusterPki): string[] {
  return componentArgs(kubeconfig, port, pki);
}

/** What the controller-manager and the scheduler share: one replica, loopback, our serving certificate. */
function componentArgs(kubeconfig: string, port: number, pki: ClusterPki): string[] {
  return [
    "--kubeconfig",
    kubeconfig,
    "--leader-elect=false",
    "--bind-address",
    "127.0.0.1",
    "--secure-port",
    String(port),
    "--tls-cert-file",
    pki.servingCert,
    "--tls-private-key-file",
    pki.servingKey,
  ];
}

/** kwok managing the nodes labelled `type=kwok`, with one `--config` per stage file. */
export function kwokArgs(kubeconfig: string, stageFiles: readonly string[]): string[] {
  return [
    "--kubeconfig",
    kubeconfig,
    "--manage-all-nodes=false",
    "--manage-nodes-with-label-selector",
    "type=kwok",
    "--cidr",
    POD_CIDR,
    "--node-ip",
    "127.0.0.1",
    "--node-lease-duration-seconds",
    "40",
    ...stageFiles.flatMap((file) => ["--config", file]),
  ];
}

/** Where a Cluster API manager (the core manager or CAAPH) listens and what it reads. */
export interface CapiManagerFlags {
  /** The management cluster's admin kubeconfig file. */
  readonly kubeconfig: string;
  /** The webhook server's port: it listens on every interface (neither manager has a flag for its host). */
  readonly webhookPort: number;
  /** A directory with `tls.crt` and `tls.key` for the webhook server. */
  readonly webhookCertDir: string;
  /** The health endpoint's port on 127.0.0.1 (`/readyz`, `/healthz`). */
  readonly healthPort: number;
}

/**
 * A Cluster API manager (the core manager and CAAPH take the same flags): one replica, health on
 * loopback, metrics and diagnostics off (`0`), and the webhook server's certificate (it has a readyz
 * check, so it must serve even though no webhook configuration points at it).
 */
export function capiManagerArgs(flags: CapiManagerFlags): string[] {
  return [
    "--kubeconfig",
    flags.kubeconfig,
    "--leader-elect=false",
    `--webhook-port=${flags.webhookPort}`,
    `--webhook-cert-dir=${flags.webhookCertDir}`,
    `--health-addr=127.0.0.1:${flags.healthPort}`,
    "--diagnostics-address=0",
    "--insecure-diagnostics",
  ];
}
