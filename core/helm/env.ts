/**
 * helm's environment, the same for both runners, built from an allowlist: only the variables a
 * helm process needs to run and to reach the network (`PATH`, `HOME`, `TMPDIR`, locale, proxy and
 * TLS trust variables, `KUBECACHEDIR`, Go runtime tuning) are taken from the process environment;
 * anything else, e.g. `HELM_KUBEAPISERVER`, `HELM_KUBETOKEN`, `HELM_KUBEASUSER`,
 * `HELM_KUBEINSECURE_SKIP_TLS_VERIFY`, `HELM_DRIVER`, `KUBECONFIG` or `PULUMI_ACCESS_TOKEN`, never
 * reaches helm or a chart's hooks, so every call targets exactly the kubeconfig, namespace and
 * (default `secret`) storage it names. Then `GOMAXPROCS=1` unless the user set it, the caller's
 * extra variables, helm's own homes pointed into helm-handoff's cache so that the user's
 * `~/.config/helm` is never read or written, and `DOCKER_CONFIG` pointed at the call's registry
 * config so that helm's fallback to `~/.docker/config.json` never finds the user's registry
 * credentials.
 *
 * @module
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { cacheHome } from "../util/paths.js";

/** The variables helm inherits from the process environment; everything else is left out. */
export const HELM_ENV_ALLOWED: ReadonlySet<string> = new Set([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "TMPDIR",
  "TZ",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "ALL_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "all_proxy",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "KUBECACHEDIR",
  "GOMAXPROCS",
  "GOMEMLIMIT",
  "GODEBUG",
]);

/** Options of {@link helmEnv}. */
export interface HelmEnvOptions {
  /** Directory for helm's cache/config/data homes. @default `${XDG_CACHE_HOME:-~/.cache}/helm-handoff/helm` */
  readonly helmHome?: string | undefined;
  /** Extra variables, set after the process environment. @default none */
  readonly env?: Readonly<Record<string, string>> | undefined;
  /** The call's registry config dir (`DOCKER_CONFIG`, see `registry-config.ts`), set last: not even `env` overrides it. */
  readonly dockerConfig: string;
}

/** The complete environment of one helm call's process (creates helm's home dirs, 0700, when missing). */
export function helmEnv(options: HelmEnvOptions): Record<string, string> {
  const home = options.helmHome ?? join(cacheHome(), "helm-handoff", "helm");
  const dirs = {
    HELM_CACHE_HOME: join(home, "cache"),
    HELM_CONFIG_HOME: join(home, "config"),
    HELM_DATA_HOME: join(home, "data"),
  };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true, mode: 0o700 });
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && HELM_ENV_ALLOWED.has(k)) env[k] = v;
  }
  // helm waits on the network most of the time; one OS thread per process keeps many concurrent
  // runs from fighting over the cores.
  const threads: Record<string, string> = env.GOMAXPROCS === undefined ? { GOMAXPROCS: "1" } : {};
  return { ...env, ...threads, ...options.env, ...dirs, DOCKER_CONFIG: options.dockerConfig };
}
