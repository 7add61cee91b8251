/**
 * Reading the parts of a kubeconfig helm-handoff needs without a cluster call (the context, its
 * cluster, server URL and CA), with errors that name what to fix. Credentials, proxies and TLS
 * options are applied by `@kubernetes/client-node` when a call is made (`kubeClient`).
 *
 * @module
 */
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { SpecError } from "../errors.js";
import { describe, urlForMessage } from "../spec/fields.js";
import { yamlErrorSummary } from "../util/yaml-error.js";

/** One context of a kubeconfig, resolved. */
export interface KubeconfigTarget {
  /** Context name. */
  readonly context: string;
  /** Cluster name. */
  readonly cluster: string;
  /** API server URL, normalized (no trailing slash). */
  readonly server: string;
  /** DER of the first CA certificate, if the cluster names one. */
  readonly caDer: Buffer | undefined;
  /**
   * What a plain HTTPS request needs, when the context asks for nothing more (see
   * {@link PlainAccess}); undefined when it uses an `exec` plugin, an auth provider, a token file,
   * impersonation or a proxy, which only `@kubernetes/client-node` (like helm) knows how to do.
   */
  readonly plainAccess: PlainAccess | undefined;
}

/** TLS settings and credentials taken as they are from a kubeconfig: client certificate, token or basic auth. */
export interface PlainAccess {
  /** The cluster's CA bundle as given (PEM or DER). */
  readonly ca: Buffer | undefined;
  /** `insecure-skip-tls-verify`. */
  readonly insecure: boolean;
  /** `tls-server-name`. */
  readonly serverName: string | undefined;
  /** Client certificate and key (PEM), when the user has them. */
  readonly cert: Buffer | undefined;
  readonly key: Buffer | undefined;
  /** The `Authorization` header value for a token or basic auth. */
  readonly authorization: string | undefined;
}

/** The keys of a cluster and of a user that a plain request can honour. */
const PLAIN_CLUSTER_KEYS = new Set([
  "server",
  "certificate-authority",
  "certificate-authority-data",
  "insecure-skip-tls-verify",
  "tls-server-name",
  "extensions",
]);
const PLAIN_USER_KEYS = new Set([
  "client-certificate",
  "client-certificate-data",
  "client-key",
  "client-key-data",
  "token",
  "username",
  "password",
  "extensions",
]);

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function named(list: unknown, name: string, key: string): Obj | undefined {
  if (!Array.isArray(list)) return undefined;
  for (const item of list) {
    if (isObj(item) && item.name === name && isObj(item[key])) return item[key] as Obj;
  }
  return undefined;
}

function dataOrFile(section: Obj, dataKey: string, fileKey: string, field: string): Buffer | undefined {
  const data = section[dataKey];
  if (typeof data === "string" && data !== "") return Buffer.from(data, "base64");
  const file = section[fileKey];
  if (typeof file === "string" && file !== "") {
    try {
      filesRead++;
      return readFileSync(file);
    } catch (e) {
      throw new SpecError(
        "kubeconfig",
        `kubeconfig ${field} ${fileKey} ${JSON.stringify(file)} cannot be read (${(e as NodeJS.ErrnoException).code ?? "error"}): embed it as ${dataKey} or fix the path`,
      );
    }
  }
  return undefined;
}

/** Targets already read, by context and text: a provider process reads one kubeconfig many times. */
const parsed = new Map<string, KubeconfigTarget>();
const PARSED_MAX = 16;
/** Files (CA, client certificate or key) read so far: a kubeconfig naming files is read afresh each time. */
let filesRead = 0;

/**
 * Resolves one context of a kubeconfig (its `current-context` unless `context` is given). The
 * kubeconfig is parsed once per process: the identity, the readiness wait, the relabel client
 * and the runner all get the same target object for the same text (the last 16 are kept; one
 * that names files is read again each time, since the files may change).
 * @throws SpecError (field `kubeconfig`) when the text is not a kubeconfig or the context, cluster or server is missing
 */
export function readKubeconfig(
  kubeconfig: string,
  options: { readonly context?: string } = {},
): KubeconfigTarget {
  const key = `${options.context ?? ""}\0${kubeconfig}`;
  const known = parsed.get(key);
  if (known !== undefined) return known;
  const before = filesRead;
  const target = parseKubeconfig(kubeconfig, options);
  if (filesRead !== before) return target;
  if (parsed.size >= PARSED_MAX) parsed.delete(parsed.keys().next().value ?? "");
  parsed.set(key, target);
  return target;
}

function parseKubeconfig(kubeconfig: string, options: { readonly context?: string }): KubeconfigTarget {
  let doc: unknown;
  try {
    doc = parseYaml(kubeconfig);
  } catch (e) {
    throw new SpecError(
      "kubeconfig",
      `kubeconfig is not valid YAML: ${yamlErrorSummary(e)} (pass the kubeconfig's content, not its path)`,
    );
  }
  if (!isObj(doc)) {
    throw new SpecError(
      "kubeconfig",
      "kubeconfig is invalid: must be a YAML mapping with clusters, contexts and users (kind: Config)",
    );
  }
  const contextName =
    options.context ?? (typeof doc["current-context"] === "string" ? doc["current-context"] : "");
  if (contextName === "") {
    throw new SpecError(
      "kubeconfig",
      "kubeconfig has no current-context: set current-context in the kubeconfig or pass the context option",
    );
  }
  const ctx = named(doc.contexts, contextName, "context");
  if (ctx === undefined) {
    throw new SpecError(
      "kubeconfig",
      `kubeconfig context ${JSON.stringify(contextName)} is not defined in contexts: fix current-context or add that context`,
    );
  }
  const clusterName = typeof ctx.cluster === "string" ? ctx.cluster : "";
  const cluster = named(doc.clusters, clusterName, "cluster");
  if (cluster === undefined) {
    throw new SpecError(
      "kubeconfig",
      `kubeconfig cluster ${JSON.stringify(clusterName)} (of context ${JSON.stringify(contextName)}) is not defined in clusters`,
    );
  }
  const rawServer = cluster.server;
  let server: string;
  try {
    if (typeof rawServer !== "string" || rawServer === "") throw new Error("missing");
    const u = new URL(rawServer);
    server = `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, "")}`;
  } catch {
    throw new SpecError(
      "kubeconfig",
      `kubeconfig cluster ${JSON.stringify(clusterName)} has no valid server URL (got ${typeof rawServer === "string" ? JSON.stringify(urlForMessage(rawServer)) : rawServer === undefined || rawServer === null ? "null" : describe(rawServer)}): set clusters[].cluster.server, e.g. "https://127.0.0.1:6443"`,
    );
  }
  const caRaw = dataOrFile(
    cluster,
    "certificate-authority-data",
    "certificate-authority",
    `cluster ${JSON.stringify(clusterName)}`,
  );
  let caDer: Buffer | undefined;
  if (caRaw !== undefined) {
    const text = caRaw.toString("utf8");
    try {
      caDer = (text.includes("-----BEGIN") ? new X509Certificate(text) : new X509Certificate(caRaw)).raw;
    } catch {
      throw new SpecError(
        "kubeconfig",
        `kubeconfig cluster ${JSON.stringify(clusterName)} has a certificate authority that is not a PEM or DER certificate`,
      );
    }
  }
  return {
    context: contextName,
    cluster: clusterName,
    server,
    caDer,
    plainAccess: readablePlainAccess(
      cluster,
      named(doc.users, typeof ctx.user === "string" ? ctx.user : "", "user"),
      {
        ca: caRaw,
        clusterName,
        proxied: Object.keys(ctx).some(
          (k) => k !== "cluster" && k !== "user" && k !== "namespace" && k !== "extensions",
        ),
      },
    ),
  };
}

/**
 * The plain access of a context, or undefined when a credential file cannot be read here: reading a kubeconfig
 * for its target never fails on the user's credentials (client-node then reports them at the call).
 */
function readablePlainAccess(...args: Parameters<typeof plainAccess>): PlainAccess | undefined {
  try {
    return plainAccess(...args);
  } catch {
    return undefined;
  }
}

function plainAccess(
  cluster: Obj,
  user: Obj | undefined,
  seen: { readonly ca: Buffer | undefined; readonly clusterName: string; readonly proxied: boolean },
): PlainAccess | undefined {
  const u = user ?? {};
  if (seen.proxied) return undefined;
  if (Object.keys(cluster).some((k) => !PLAIN_CLUSTER_KEYS.has(k))) return undefined;
  if (Object.keys(u).some((k) => !PLAIN_USER_KEYS.has(k))) return undefined;
  const field = `user of cluster ${JSON.stringify(seen.clusterName)}`;
  const token = typeof u.token === "string" && u.token !== "" ? u.token : undefined;
  const basic =
    typeof u.username === "string" && typeof u.password === "string"
      ? Buffer.from(`${u.username}:${u.password}`).toString("base64")
      : undefined;
  return {
    ca: seen.ca,
    insecure: cluster["insecure-skip-tls-verify"] === true,
    serverName: typeof cluster["tls-server-name"] === "string" ? cluster["tls-server-name"] : undefined,
    cert: dataOrFile(u, "client-certificate-data", "client-certificate", field),
    key: dataOrFile(u, "client-key-data", "client-key", field),
    authorization:
      token !== undefined ? `Bearer ${token}` : basic !== undefined ? `Basic ${basic}` : undefined,
  };
}
