/**
 * Where a chart comes from, jsii-shaped: `ChartSource` factories (a chart repository, an OCI
 * registry, a local path) and their options, turned into the chart source of `helm-handoff/cdk8s`.
 */
import type * as coreTypes from "helm-handoff";
import { defined } from "./defined.js";

/** Options of a chart in a chart repository or an OCI registry. */
export interface ChartRepositoryOptions {
  /**
   * An exact version (`"1.2.3"`) or a semver range helm understands (`"^1.2"`).
   * @default the latest version the repository offers
   */
  readonly version?: string;
  /** User name for the repository's basic auth (needs `password`). @default no authentication */
  readonly username?: string;
  /** Password for the repository's basic auth (needs `username`); never put in argv. @default no authentication */
  readonly password?: string;
  /** Path of a CA bundle to verify the repository's TLS certificate. @default the system's CAs */
  readonly caFile?: string;
  /** Skip TLS verification of the repository. @default false */
  readonly insecureSkipTlsVerify?: boolean;
  /** Use plain HTTP for an OCI registry (`fromOci` only). @default false */
  readonly plainHttp?: boolean;
}

/** Where the chart comes from: a chart repository, an OCI registry or a local path. */
export class ChartSource {
  /**
   * A chart in an HTTP(S) chart repository.
   * @param repo - repository URL, e.g. `https://charts.example.org`
   * @param name - the chart's name in the repository, e.g. `cni`
   */
  public static fromRepository(
    repo: string,
    name: string,
    options: ChartRepositoryOptions = {},
  ): ChartSource {
    return new ChartSource(repoSource(repo, name, options));
  }

  /**
   * A chart in an OCI registry.
   * @param repo - the registry path, e.g. `oci://registry.example.org/charts` (`oci://` is added when missing)
   * @param name - the chart's name, without tag or digest
   */
  public static fromOci(repo: string, name: string, options: ChartRepositoryOptions = {}): ChartSource {
    const url = /^oci:\/\//i.test(repo) ? repo : `oci://${repo}`;
    return new ChartSource(repoSource(url, name, options));
  }

  /**
   * A chart on the local file system.
   * @param path - a chart directory (with `Chart.yaml`) or a packaged `.tgz`, relative to the working directory
   */
  public static fromPath(path: string): ChartSource {
    return new ChartSource({ path });
  }

  /** @internal */
  public readonly _source: coreTypes.ChartSource;

  private constructor(source: coreTypes.ChartSource) {
    this._source = source;
  }
}

function repoSource(repo: string, name: string, o: ChartRepositoryOptions): coreTypes.ChartSource {
  return defined({
    repo,
    name,
    version: o.version,
    username: o.username,
    password: o.password,
    caFile: o.caFile,
    insecureSkipTlsVerify: o.insecureSkipTlsVerify,
    plainHttp: o.plainHttp,
  }) as coreTypes.ChartSource;
}
