/**
 * helm's OCI registry credentials for one call, written as a Docker config file (`auths`, 0600)
 * in the call's private dir instead of `helm registry login`. helm reads it through
 * `--registry-config`, and its fallback to the Docker config through `DOCKER_CONFIG`, which points
 * at the same file; so helm never reads the user's `~/.docker/config.json`, never stores a password
 * in a credential helper (`docker-credential-pass`, `-secretservice`, `-osxkeychain`, …) and never
 * asks one for the user's credentials. The file always has at least one `auths` entry: with none,
 * helm (oras-go) would pick the platform's native credential helper from PATH by itself.
 *
 * @module
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The basic-auth credentials of one OCI registry. */
export interface RegistryCredential {
  /** The registry's `host[:port]`. */
  readonly host: string;
  /** User name. */
  readonly username: string;
  /** Password (a secret). */
  readonly password: string;
}

/** The dir in a call dir that holds helm's registry config (`DOCKER_CONFIG` points here). */
export function registryConfigDir(callDir: string): string {
  return join(callDir, "registry");
}

/** helm's registry config file in a call dir (the name Docker's fallback lookup expects). */
export function registryConfigFile(callDir: string): string {
  return join(registryConfigDir(callDir), "config.json");
}

/**
 * An entry for a reserved name (RFC 2606), present in every registry config: a config without any
 * entry makes helm look for a native credential helper on PATH and use it.
 */
const PLACEHOLDER_HOST = "helm-handoff.invalid";

/** The key Docker and oras-go store Docker Hub's credentials under. */
const DOCKER_HUB_KEY = "https://index.docker.io/v1/";
const DOCKER_HUB_HOSTS: ReadonlySet<string> = new Set([
  "docker.io",
  "registry-1.docker.io",
  "index.docker.io",
]);

/** The `config.json` content: the placeholder entry and, when given, `credential` under its host's keys. */
export function registryConfigJson(credential?: RegistryCredential): string {
  const auths: Record<string, { auth?: string }> = { [PLACEHOLDER_HOST]: {} };
  if (credential !== undefined) {
    const auth = Buffer.from(`${credential.username}:${credential.password}`, "utf8").toString("base64");
    auths[credential.host] = { auth };
    if (DOCKER_HUB_HOSTS.has(credential.host)) auths[DOCKER_HUB_KEY] = { auth };
  }
  return `${JSON.stringify({ auths })}\n`;
}

/** Writes (or rewrites) the call's registry config, 0700 dir and 0600 file, and returns the file's path. */
export function writeRegistryConfig(callDir: string, credential?: RegistryCredential): string {
  const file = registryConfigFile(callDir);
  mkdirPrivate(registryConfigDir(callDir));
  writeFileSync(file, registryConfigJson(credential), { mode: 0o600 });
  return file;
}

function mkdirPrivate(dir: string): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
}
