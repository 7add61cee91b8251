/**
 * Mapping an add-on spec to a Cluster API Add-on Provider for Helm (CAAPH) `HelmChartProxy`
 * (addons.cluster.x-k8s.io/v1alpha1, fields checked against the v0.6.4 CRD).
 *
 * @module
 */
import { stringify } from "yaml";
import { SpecError } from "../core/errors.js";
import type { ResolvedSpec } from "../core/spec/index.js";
import type { KubeObject } from "../core/util/kube-object.js";
import { type CaSecretRef, type CredentialsSecretRef, proxySourceFields } from "./chart-credentials.js";
import { isEmptySelector, type LabelSelector } from "./cluster-resource-set.js";
import { templateWithClusterValues } from "./cluster-value.js";

/** Options of {@link helmChartProxyObject}. */
export interface HelmChartProxyOptions {
  /** Name of the HelmChartProxy. */
  readonly name: string;
  /** Its namespace (where the Clusters are). @default unset */
  readonly namespace?: string;
  /** Selects the Clusters. */
  readonly clusterSelector: LabelSelector;
  /** The merged chart values (values files, then values). */
  readonly values: Readonly<Record<string, unknown>>;
  /** Labels of the HelmChartProxy. @default none */
  readonly labels?: Readonly<Record<string, string>>;
  /** A Secret of the user's with the OCI registry's credentials. @default none */
  readonly credentialsSecret?: CredentialsSecretRef | undefined;
  /** A Secret of the user's with the repository's CA. @default none */
  readonly caSecret?: CaSecretRef | undefined;
}

/**
 * The values as a CAAPH `valuesTemplate`: YAML in which every literal `{{` is escaped as
 * `{{ "{{" }}`, since CAAPH runs the text through Go templates over the Cluster.
 */
export function valuesTemplateOf(values: Readonly<Record<string, unknown>>): string {
  if (Object.keys(values).length === 0) return "";
  return stringify(values, { sortMapEntries: true, lineWidth: 0 }).replaceAll("{{", '{{ "{{" }}');
}

/**
 * A HelmChartProxy for `spec`: chart, repository, version, release name and namespace as given,
 * `reconcileStrategy` InstallOnce (ApplyOnce) or Continuous (Reconcile), helm options from
 * `spec.install` (wait, waitForJobs, timeout, skipCRDs, disableHooks) and
 * `options.install.createNamespace` from `spec.createNamespace`. A value holding a `ClusterValue`
 * becomes a Go template action CAAPH evaluates for each Cluster; every other `{{` stays literal.
 *
 * Credentials and CA (see `chart-credentials.ts`) become `spec.credentials` and
 * `spec.tlsConfig.caSecret` referencing a Secret: the user's, or one returned before the proxy.
 *
 * @returns the Secrets to emit (none unless the chart source gives a password or a CA file), then the HelmChartProxy
 * @throws SpecError for a local chart (CAAPH installs from repositories only), an empty selector or
 * a chart-source field CAAPH cannot carry
 */
export function helmChartProxyObjects(spec: ResolvedSpec, options: HelmChartProxyOptions): KubeObject[] {
  const c = spec.chart;
  if (c.kind === "path") {
    throw new SpecError(
      "chart",
      'output "HelmChartProxy" needs a repository chart ({ repo, name, version }): CAAPH installs from an https:// or oci:// repository, not from a local path; use output "ClusterResourceSet" for a local chart',
    );
  }
  if (isEmptySelector(options.clusterSelector)) {
    throw new SpecError(
      "clusterSelector",
      'clusterSelector is required for a HelmChartProxy: give matchLabels or matchExpressions selecting the Clusters, e.g. { matchLabels: { cni: "bootstrap" } }',
    );
  }
  const source = proxySourceFields(c, {
    releaseName: spec.releaseName,
    namespace: options.namespace,
    credentialsSecret: options.credentialsSecret,
    caSecret: options.caSecret,
  });
  const i = spec.install;
  const valuesTemplate = templateWithClusterValues(options.values, valuesTemplateOf);
  const proxy: KubeObject = {
    apiVersion: "addons.cluster.x-k8s.io/v1alpha1",
    kind: "HelmChartProxy",
    metadata: {
      name: options.name,
      ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
      ...(options.labels !== undefined ? { labels: { ...options.labels } } : {}),
    },
    spec: {
      clusterSelector: options.clusterSelector,
      repoURL: c.repo,
      chartName: c.name,
      ...(c.version !== undefined ? { version: c.version } : {}),
      releaseName: spec.releaseName,
      namespace: spec.namespace,
      reconcileStrategy: spec.strategy === "ApplyOnce" ? "InstallOnce" : "Continuous",
      ...(valuesTemplate !== "" ? { valuesTemplate } : {}),
      options: {
        wait: i.wait,
        waitForJobs: i.waitForJobs,
        timeout: i.timeout.toHelmFlag(),
        skipCRDs: i.skipCrds,
        disableHooks: i.disableHooks,
        install: { createNamespace: spec.createNamespace },
      },
      ...source.spec,
    },
  };
  return [...source.secrets, proxy];
}

/** The props only a HelmChartProxy output takes, as {@link refuseProxyOnlyProps} reads them. */
interface ProxyOnlyProps {
  readonly workloadSecrets?: unknown;
  readonly credentialsSecret?: unknown;
  readonly caSecret?: unknown;
}

/**
 * Refuses the props only the HelmChartProxy output takes with another output.
 * @throws SpecError naming the prop and what to do instead
 */
export function refuseProxyOnlyProps(props: ProxyOnlyProps, output: string): void {
  if (output !== "HelmChartProxy" && props.workloadSecrets !== undefined) {
    throw new SpecError(
      "workloadSecrets",
      `workloadSecrets only applies to output "HelmChartProxy"; with output "${output}" the chart renders at synth: give the secret in values with sensitive: true (a ClusterResourceSet carries it in Secrets), or create the Secret yourself`,
    );
  }
  for (const prop of ["credentialsSecret", "caSecret"] as const) {
    if (output !== "HelmChartProxy" && props[prop] !== undefined) {
      throw new SpecError(
        prop,
        `${prop} only applies to output "HelmChartProxy" (CAAPH reads the Secret in the management cluster); output "${output}" renders at synth: give the credentials or CA in chart instead`,
      );
    }
  }
}
