/**
 * The PKI of a local cluster, made with `openssl`: a CA, the API server's serving certificate
 * (loopback and the `kubernetes` Service IP), the admin client certificate and the service-
 * account key pair, all in the cluster's private temp dir.
 *
 * @module
 */
import { execFile } from "node:child_process";
import { createHash, X509Certificate } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The service IP of the `kubernetes` Service: the first address of the service range 10.0.0.0/24. */
export const SERVICE_IP = "10.0.0.1";

/** Paths of the PEM files generated for one cluster (all in one `pki` directory). */
export interface ClusterPki {
  /** The cluster's own CA: it signs the serving and client certificates and is the client CA. */
  readonly caCert: string;
  /** The CA's private key. */
  readonly caKey: string;
  /** Serving certificate for 127.0.0.1 and localhost (also 10.0.0.1 and the kubernetes.default names). */
  readonly servingCert: string;
  /** The serving certificate's key. */
  readonly servingKey: string;
  /** Client certificate CN=admin, O=system:masters. */
  readonly adminCert: string;
  /** The admin client certificate's key. */
  readonly adminKey: string;
  /** etcd's certificate for 127.0.0.1 and localhost, serving its client and peer URLs (also a peer client). */
  readonly etcdCert: string;
  /** The etcd certificate's key. */
  readonly etcdKey: string;
  /** Client certificate CN=kube-apiserver-etcd-client: the only client etcd lets in, kube-apiserver. */
  readonly etcdClientCert: string;
  /** The etcd client certificate's key. */
  readonly etcdClientKey: string;
  /** RSA private key that signs service-account tokens. */
  readonly serviceAccountKey: string;
  /** Public half of {@link serviceAccountKey}. */
  readonly serviceAccountPub: string;
  /** sha256 of the CA certificate's DER encoding, lowercase hex without colons. */
  readonly caFingerprint: string;
}

/**
 * Generates a fresh CA, serving, admin and etcd certificates (EC P-256) and a service-account RSA
 * key pair in `dir` with the `openssl` CLI (argument arrays only, never a shell).
 *
 * @param dir - an empty directory; created when missing.
 * @param clusterName - written into the CA's common name.
 */
export async function generatePki(dir: string, clusterName: string): Promise<ClusterPki> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = (name: string) => join(dir, name);
  const pki: Omit<ClusterPki, "caFingerprint"> = {
    caCert: file("ca.crt"),
    caKey: file("ca.key"),
    servingCert: file("serving.crt"),
    servingKey: file("serving.key"),
    adminCert: file("admin.crt"),
    adminKey: file("admin.key"),
    etcdCert: file("etcd.crt"),
    etcdKey: file("etcd.key"),
    etcdClientCert: file("etcd-client.crt"),
    etcdClientKey: file("etcd-client.key"),
    serviceAccountKey: file("sa.key"),
    serviceAccountPub: file("sa.pub"),
  };
  const serviceAccount = (async () => {
    await openssl(
      "genpkey",
      "-algorithm",
      "RSA",
      "-pkeyopt",
      "rsa_keygen_bits:2048",
      "-out",
      pki.serviceAccountKey,
    );
    await openssl("pkey", "-in", pki.serviceAccountKey, "-pubout", "-out", pki.serviceAccountPub);
  })();
  await newCertificate(dir, "ca", `/CN=helm-handoff-local-ca-${clusterName}`, pki.caCert, pki.caKey, [
    "basicConstraints = critical,CA:TRUE",
    "keyUsage = critical,keyCertSign,cRLSign,digitalSignature",
    "subjectKeyIdentifier = hash",
  ]);
  const signedBy = ["-CA", pki.caCert, "-CAkey", pki.caKey];
  const leaf = (usage: string) => [
    "basicConstraints = critical,CA:FALSE",
    "keyUsage = critical,digitalSignature,keyEncipherment",
    `extendedKeyUsage = ${usage}`,
    "authorityKeyIdentifier = keyid",
  ];
  const sans = [
    `IP:127.0.0.1`,
    "DNS:localhost",
    `IP:${SERVICE_IP}`,
    "DNS:kubernetes",
    "DNS:kubernetes.default",
    "DNS:kubernetes.default.svc",
    "DNS:kubernetes.default.svc.cluster.local",
  ];
  await Promise.all([
    newCertificate(
      dir,
      "serving",
      "/CN=kube-apiserver",
      pki.servingCert,
      pki.servingKey,
      [...leaf("serverAuth"), `subjectAltName = ${sans.join(",")}`],
      signedBy,
    ),
    newCertificate(
      dir,
      "admin",
      "/O=system:masters/CN=admin",
      pki.adminCert,
      pki.adminKey,
      leaf("clientAuth"),
      signedBy,
    ),
    newCertificate(
      dir,
      "etcd",
      "/CN=etcd",
      pki.etcdCert,
      pki.etcdKey,
      [...leaf("serverAuth,clientAuth"), "subjectAltName = IP:127.0.0.1,DNS:localhost"],
      signedBy,
    ),
    newCertificate(
      dir,
      "etcd-client",
      "/CN=kube-apiserver-etcd-client",
      pki.etcdClientCert,
      pki.etcdClientKey,
      leaf("clientAuth"),
      signedBy,
    ),
    serviceAccount,
  ]);
  return { ...pki, caFingerprint: caFingerprint(readFileSync(pki.caCert, "utf8")) };
}

/**
 * A serving certificate for 127.0.0.1 and localhost signed by the cluster's CA, written as `tls.crt`
 * and `tls.key` in `dir` (the layout controller-runtime's webhook server reads from its cert dir).
 *
 * @param dir - the directory to create (mode 0700).
 * @param pki - the cluster's PKI, whose CA signs the certificate.
 */
export async function generateWebhookCertificate(dir: string, pki: ClusterPki): Promise<void> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  await newCertificate(
    dir,
    "webhook",
    "/CN=webhook",
    join(dir, "tls.crt"),
    join(dir, "tls.key"),
    [
      "basicConstraints = critical,CA:FALSE",
      "keyUsage = critical,digitalSignature,keyEncipherment",
      "extendedKeyUsage = serverAuth",
      "authorityKeyIdentifier = keyid",
      "subjectAltName = IP:127.0.0.1,DNS:localhost",
    ],
    ["-CA", pki.caCert, "-CAkey", pki.caKey],
  );
}

/** sha256 of a PEM certificate's DER encoding, lowercase hex without colons. */
export function caFingerprint(pem: string): string {
  return createHash("sha256").update(new X509Certificate(pem).raw).digest("hex");
}

/** `openssl req -x509` with a new EC key, self-signed or signed by `signer` (`-CA`, `-CAkey`). */
async function newCertificate(
  dir: string,
  label: string,
  subject: string,
  certPath: string,
  keyPath: string,
  extensions: string[],
  signer: string[] = [],
): Promise<void> {
  const config = join(dir, `${label}.cnf`);
  writeFileSync(config, ["[req]", "distinguished_name = dn", "[dn]", "[ext]", ...extensions, ""].join("\n"));
  await openssl(
    "req",
    "-x509",
    "-new",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-noenc",
    "-days",
    "365",
    "-subj",
    subject,
    "-config",
    config,
    "-extensions",
    "ext",
    ...signer,
    "-keyout",
    keyPath,
    "-out",
    certPath,
  );
}

async function openssl(...args: string[]): Promise<void> {
  try {
    await run("openssl", args, { env: { ...process.env, OPENSSL_CONF: "/dev/null" } });
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "ENOENT") {
      throw new Error("openssl was not found on PATH; install it (Debian: apt-get install openssl)");
    }
    const stderr = error instanceof Error && "stderr" in error ? String(error.stderr).trim() : String(error);
    throw new Error(`openssl ${args[0]} failed: ${stderr}`);
  }
}
