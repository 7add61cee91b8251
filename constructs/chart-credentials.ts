/**
 * A chart source's credentials and TLS settings as CAAPH v0.6.4 reads them, for the HelmChartProxy
 * output, or a `SpecError` for what it cannot carry. Read from CAAPH's source: `spec.credentials`
 * (`{secret: {name, namespace}, key}`, a helm registry config JSON handed to helm's OCI registry
 * client as its credentials file) and `spec.tlsConfig` (`caSecret`, a Secret with `ca.crt`, and
 * `insecureSkipTLSVerify`) are used only by the OCI registry client
 * (`internal/helm_client.go`, `newDefaultRegistryClient`); an `https://` chart repository is
 * downloaded with no credentials, CA or TLS option at all (`LocateChart` with empty
 * `ChartPathOptions`), and the registry client has no plain-HTTP option. So: OCI credentials and
 * CA become Secrets the proxy references (the user's own, by name, or ones emitted beside the
 * proxy from `chart.username`/`chart.password`/`chart.caFile`); everything else is refused with
 * the route that works. The password never goes into the HelmChartProxy.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { SpecError } from "../core/errors.js";
import { registryConfigJson } from "../core/helm/registry-config.js";
import type { ResolvedRepoChart } from "../core/spec/index.js";
import type { KubeObject } from "../core/util/kube-object.js";

/** CAAPH's default key of the credentials Secret (`DefaultOCIKey`). */
export const CREDENTIALS_KEY = "config.json";
/** The key CAAPH reads a CA from. */
export const CA_KEY = "ca.crt";

/** A Secret in the management cluster holding an OCI registry's credentials, for `spec.credentials`. */
export interface CredentialsSecretRef {
  /** The Secret's name. */
  readonly name: string;
  /** The key holding the helm registry config JSON (`{"auths": {"HOST": {"auth": "…"}}}`). @default "config.json" */
  readonly key?: string;
  /** The Secret's namespace. @default the HelmChartProxy's namespace */
  readonly namespace?: string;
}

/** A Secret in the management cluster holding a CA bundle in key `ca.crt`, for `spec.tlsConfig.caSecret`. */
export interface CaSecretRef {
  /** The Secret's name. */
  readonly name: string;
  /** The Secret's namespace. @default the HelmChartProxy's namespace */
  readonly namespace?: string;
}

/** What the chart source adds to a HelmChartProxy. */
export interface ProxySourceFields {
  /** `spec.credentials`, `spec.tlsConfig` (only those set). */
  readonly spec: Readonly<Record<string, unknown>>;
  /** Secrets to emit beside the proxy (before it), holding what the construct was given. */
  readonly secrets: readonly KubeObject[];
}

/** Options of {@link proxySourceFields}. */
export interface ProxySourceOptions {
  /** The release name, the prefix of the emitted Secrets' names. */
  readonly releaseName: string;
  /** The HelmChartProxy's namespace, also the emitted Secrets'. @default unset */
  readonly namespace?: string | undefined;
  /** The user's credentials Secret. @default none */
  readonly credentialsSecret?: CredentialsSecretRef | undefined;
  /** The user's CA Secret. @default none */
  readonly caSecret?: CaSecretRef | undefined;
}

const NO_HTTPS_AUTH =
  "CAAPH v0.6.4 has no field for an https:// repository's credentials (spec.credentials is read only by its OCI registry client, internal/helm_client.go)";
const NO_HTTPS_TLS =
  "CAAPH v0.6.4 applies spec.tlsConfig only to its OCI registry client, not to an https:// chart repository (internal/helm_client.go)";

/**
 * The HelmChartProxy fields and Secrets for a repository chart.
 * @throws SpecError naming the chart field (or prop) CAAPH cannot carry, and the route that works
 */
export function proxySourceFields(c: ResolvedRepoChart, options: ProxySourceOptions): ProxySourceFields {
  const oci = c.kind === "oci";
  if (c.secretRepo) {
    throw new SpecError(
      "chart.secretRepo",
      'chart.secretRepo cannot be kept secret in a HelmChartProxy: its repoURL is plain text in the management cluster and in every HelmReleaseProxy; serve the chart from a repository whose URL is not a secret (with credentials in an OCI registry), or use output "ClusterResourceSet", which renders at synth',
    );
  }
  if (c.plainHttp) {
    throw new SpecError(
      "chart.plainHttp",
      'chart.plainHttp has no counterpart in a HelmChartProxy: CAAPH v0.6.4 makes its OCI registry client without a plain-HTTP option (internal/helm_client.go, newDefaultRegistryClient); serve the registry over TLS (its CA in chart.caFile or the caSecret prop), or use output "ClusterResourceSet", which renders at synth',
    );
  }
  if (!oci) {
    const refuse = (field: string, what: string, why: string, route: string) => {
      throw new SpecError(
        field,
        `${what} cannot reach CAAPH for ${JSON.stringify(c.repo)}: ${why}; ${route}`,
      );
    };
    const ociRoute = 'push the chart to an OCI registry (chart.repo "oci://…")';
    const renderRoute = 'or use output "ClusterResourceSet", which renders at synth with them';
    if (c.username !== undefined)
      refuse(
        "chart.username",
        "chart.username and chart.password",
        NO_HTTPS_AUTH,
        `${ociRoute} and give its credentials, ${renderRoute}`,
      );
    if (options.credentialsSecret !== undefined)
      refuse(
        "credentialsSecret",
        "credentialsSecret",
        NO_HTTPS_AUTH,
        `${ociRoute}, or drop credentialsSecret`,
      );
    if (c.caFile !== undefined)
      refuse("chart.caFile", "chart.caFile", NO_HTTPS_TLS, `${ociRoute} served with that CA, ${renderRoute}`);
    if (options.caSecret !== undefined)
      refuse("caSecret", "caSecret", NO_HTTPS_TLS, `${ociRoute}, or drop caSecret`);
    if (c.insecureSkipTlsVerify)
      refuse(
        "chart.insecureSkipTlsVerify",
        "chart.insecureSkipTlsVerify",
        NO_HTTPS_TLS,
        `${ociRoute}, ${renderRoute}`,
      );
    return { spec: {}, secrets: [] };
  }
  const both = (field: string, prop: string) => {
    throw new SpecError(
      prop,
      `${prop} and ${field} are both set: the HelmChartProxy references one Secret; give one of them`,
    );
  };
  if (c.username !== undefined && options.credentialsSecret !== undefined)
    both("chart.username and chart.password", "credentialsSecret");
  if (c.caFile !== undefined && options.caSecret !== undefined) both("chart.caFile", "caSecret");
  const secrets: KubeObject[] = [];
  const emit = (suffix: string, data: Record<string, string>): string => {
    const name = `${options.releaseName}-${suffix}`;
    const encoded = Object.fromEntries(
      Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString("base64")]),
    );
    secrets.push({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name, ...(options.namespace !== undefined ? { namespace: options.namespace } : {}) },
      type: "Opaque",
      data: encoded,
    });
    return name;
  };
  const spec: Record<string, unknown> = {};
  const ref = (name: string, namespace?: string) => ({
    name,
    ...(namespace !== undefined ? { namespace } : {}),
  });
  if (c.username !== undefined && c.password !== undefined) {
    const json = registryConfigJson({
      host: new URL(c.repo).host,
      username: c.username,
      password: c.password,
    });
    spec.credentials = {
      secret: ref(emit("registry-credentials", { [CREDENTIALS_KEY]: json })),
      key: CREDENTIALS_KEY,
    };
  } else if (options.credentialsSecret !== undefined) {
    const s = checkedRef(options.credentialsSecret, "credentialsSecret");
    spec.credentials = { secret: ref(s.name, s.namespace), key: s.key ?? CREDENTIALS_KEY };
  }
  const tls: Record<string, unknown> = {};
  if (c.caFile !== undefined) {
    tls.caSecret = ref(emit("ca", { [CA_KEY]: readFileSync(c.caFile, "utf8") }));
  } else if (options.caSecret !== undefined) {
    const s = checkedRef(options.caSecret, "caSecret");
    tls.caSecret = ref(s.name, s.namespace);
  }
  if (c.insecureSkipTlsVerify) tls.insecureSkipTLSVerify = true;
  if (Object.keys(tls).length > 0) spec.tlsConfig = tls;
  return { spec, secrets };
}

const DNS1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function checkedRef<T extends { readonly name: string; readonly namespace?: string; readonly key?: string }>(
  r: T,
  prop: string,
): T {
  if (typeof r.name !== "string" || r.name.length > 253 || !DNS1123.test(r.name)) {
    throw new SpecError(
      `${prop}.name`,
      `${prop}.name ${JSON.stringify(r.name)} is invalid: must be the name of a Secret in the management cluster (a lowercase DNS-1123 name)`,
    );
  }
  if (r.namespace !== undefined && !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(r.namespace)) {
    throw new SpecError(
      `${prop}.namespace`,
      `${prop}.namespace ${JSON.stringify(r.namespace)} is invalid: must be a namespace name`,
    );
  }
  if (r.key !== undefined && (typeof r.key !== "string" || !/^[-._a-zA-Z0-9]+$/.test(r.key))) {
    throw new SpecError(
      `${prop}.key`,
      `${prop}.key ${JSON.stringify(r.key)} is invalid: must be a Secret data key (letters, digits, "-", "_", ".")`,
    );
  }
  return r;
}
