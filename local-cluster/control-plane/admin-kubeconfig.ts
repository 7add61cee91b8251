/**
 * The kubeconfig of a local cluster (admin client certificate, inline CA) and the 0600 file
 * writer used for it and for the other secrets of the cluster dir.
 *
 * @module
 */
import { chmodSync, writeFileSync } from "node:fs";
import { stringify } from "yaml";
import type { TlsCredentials } from "./api.js";

/**
 * A kubeconfig with one cluster, one admin user (client certificate) and one context, all named after
 * the cluster; certificates are embedded, so the file works from any directory.
 *
 * @param name - cluster, user and context name.
 * @param server - the API server URL.
 * @param tls - the cluster CA and the admin client certificate and key (PEM).
 */
export function buildKubeconfig(name: string, server: string, tls: Required<TlsCredentials>): string {
  const base64 = (pem: string) => Buffer.from(pem, "utf8").toString("base64");
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster: { server, "certificate-authority-data": base64(tls.ca) } }],
    users: [
      {
        name: `${name}-admin`,
        user: { "client-certificate-data": base64(tls.cert), "client-key-data": base64(tls.key) },
      },
    ],
    contexts: [{ name, context: { cluster: name, user: `${name}-admin` } }],
    "current-context": name,
    preferences: {},
  });
}

/** Writes `content` to `path` with mode 0600 (also when the file existed or the umask is wider). */
export function writePrivateFile(path: string, content: string): void {
  writeFileSync(path, content, { mode: 0o600 });
  chmodSync(path, 0o600);
}
