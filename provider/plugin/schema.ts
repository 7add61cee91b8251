/**
 * The Pulumi package schema of `helm-handoff`: what a Python, Go, C# or YAML program sees of
 * `ClusterAddon` (`helm-handoff:index:ClusterAddon`, written `helm-handoff:ClusterAddon` in YAML).
 * The inputs are `ClusterAddonArgs` of the Node.js front end, with the same names, defaults and
 * documentation. It is a custom resource: the package's provider stores each add-on as one release
 * resource (`helmHandoffProvider`). Kept by hand: a test compares it with what the provider accepts.
 *
 * @module
 */

const ANY = { $ref: "pulumi.json#/Any" } as const;
const DURATION = {
  oneOf: [{ type: "string" }, { type: "number" }],
  description: 'A duration: a string such as `"90s"`, `"5m"`, `"1h30m"`, or a number of seconds.',
} as const;

/** The input properties of `ClusterAddon`, documented as in `ClusterAddonArgs`. */
const inputProperties = {
  kubeconfig: {
    type: "string",
    secret: true,
    description: "kubeconfig content of the target cluster. Kept secret end to end.",
  },
  clusterId: {
    type: "string",
    description:
      "Explicit cluster identity. When it changes, the add-on is installed on the (new) cluster.\nDefault: derived from the kubeconfig's API server URL and CA fingerprint, without a cluster call.",
  },
  chart: {
    $ref: "#/types/helm-handoff:index:Chart",
    description: "Where the chart comes from: `repo` + `name` (+ `version`), or `path`.",
  },
  releaseName: {
    type: "string",
    plain: true,
    description: "Helm release name (at most 53 characters, lowercase DNS-1123). Default: the resource name.",
  },
  namespace: { type: "string", description: 'Namespace of the release. Default: "default".' },
  adopt: {
    type: "boolean",
    plain: true,
    description:
      "Reconcile only: take over a release of this name that this add-on did not write (installed by hand or by another tool, upgraded by someone else since, or another stack's), instead of failing with an OwnershipError. Default: false.",
  },
  createNamespace: {
    type: "boolean",
    plain: true,
    description:
      "Create the namespace when it does not exist (`helm install --create-namespace`). Default: false.",
  },
  values: {
    type: "object",
    additionalProperties: ANY,
    secret: true,
    description: "Chart values. Kept secret in state, argv and logs. Default: the chart's defaults.",
  },
  valueFiles: {
    type: "array",
    items: { type: "string" },
    plain: true,
    description:
      "Values files (YAML), relative to the program's directory, read when the program runs and merged before `values` (later files win). Default: none.",
  },
  install: {
    $ref: "#/types/helm-handoff:index:InstallOptions",
    plain: true,
    description:
      "Options of each install or upgrade attempt. Default: wait for resources to be ready, 5 minute attempts.",
  },
  retry: {
    $ref: "#/types/helm-handoff:index:RetryPolicy",
    plain: true,
    description: "Retry policy of the first install. Default: 15 minute deadline, backoff 2s to 30s.",
  },
  strategy: {
    $ref: "#/types/helm-handoff:index:Strategy",
    plain: true,
    description:
      "`ApplyOnce`: install once, then never touch the release again (no upgrade, no drift correction, no uninstall). `Reconcile`: upgrade on change, uninstall on delete; a revision someone else wrote (a person's `helm upgrade`, a controller) is refused with `OwnershipError` unless `adopt: true`, which takes it back. Default: ApplyOnce.",
  },
} as const;

/** The names of `ClusterAddon`'s inputs, in schema order. */
export const CLUSTER_ADDON_INPUTS = Object.keys(inputProperties);

/** The inputs the SDKs take as plain values (`plain: true` above), as `ClusterAddonArgs` types them. */
export const PLAIN_INPUTS: readonly string[] = Object.entries(inputProperties)
  .filter(([, p]) => "plain" in p && p.plain)
  .map(([name]) => name);

/** The package schema for `version`. */
export function packageSchema(version: string): Record<string, unknown> {
  return {
    name: "helm-handoff",
    displayName: "helm-handoff",
    version,
    description:
      "Bootstrap the Helm add-ons a new Kubernetes cluster needs, then hand them off to the cluster's GitOps.",
    keywords: ["kubernetes", "helm", "gitops", "category/utility"],
    license: "Apache-2.0",
    language: {
      nodejs: { respectSchemaVersion: true },
      python: { respectSchemaVersion: true },
      go: { respectSchemaVersion: true },
      csharp: { rootNamespace: "HelmHandoff", respectSchemaVersion: true },
    },
    config: {},
    provider: {},
    types: {
      "helm-handoff:index:Strategy": {
        type: "string",
        description: "How the add-on is managed after its first install.",
        enum: [
          {
            value: "ApplyOnce",
            description: "Install once (or adopt), then hand off; later changes and deletes do nothing.",
          },
          {
            value: "Reconcile",
            description: "Keep the release in line with the spec; delete uninstalls it.",
          },
        ],
      },
      "helm-handoff:index:Chart": {
        type: "object",
        description:
          "A chart in an HTTP(S) chart repository or an OCI registry (`repo` + `name`), or on disk (`path`).",
        properties: {
          repo: {
            type: "string",
            description: "Repository URL: `https://…` for a chart repository, `oci://…` for a registry.",
          },
          name: { type: "string", description: 'The chart\'s name, e.g. "cilium".' },
          version: {
            type: "string",
            description:
              'An exact version ("1.2.3") or a semver range helm understands. Default: the latest version.',
          },
          username: {
            type: "string",
            description: "User name for the repository's basic auth (needs `password`).",
          },
          password: {
            type: "string",
            secret: true,
            description: "Password for the repository's basic auth. Never in argv, state or logs.",
          },
          caFile: {
            type: "string",
            description: "Path of a CA bundle to verify the repository's TLS certificate.",
          },
          insecureSkipTlsVerify: {
            type: "boolean",
            description: "Skip TLS verification of the repository. Default: false.",
          },
          plainHttp: {
            type: "boolean",
            description: "Use plain HTTP for an `oci://` registry. Default: false.",
          },
          secretRepo: {
            type: "boolean",
            description:
              "The `https://` repository URL is a secret (a token in its path): kept out of helm's argv, stored as a secret and left out of handoff records. Default: false.",
          },
          path: {
            type: "string",
            description: "Path of a chart directory or packaged `.tgz`, relative to the program's directory.",
          },
        },
      },
      "helm-handoff:index:InstallOptions": {
        type: "object",
        description: "Options of each install or upgrade attempt.",
        properties: {
          wait: {
            type: "boolean",
            description: "Wait until the release's resources are ready. Default: true.",
          },
          waitForJobs: {
            type: "boolean",
            description: "Also wait for the release's Jobs to complete. Default: false.",
          },
          timeout: {
            ...DURATION,
            description: `Timeout of one attempt. Default: 5 minutes. ${DURATION.description}`,
          },
          skipCrds: { type: "boolean", description: "Do not install the chart's CRDs. Default: false." },
          disableHooks: { type: "boolean", description: "Do not run the chart's hooks. Default: false." },
          description: { type: "string", description: "Description recorded in the release." },
        },
      },
      "helm-handoff:index:RetryPolicy": {
        type: "object",
        description: "How long and how often the first install retries transient failures.",
        properties: {
          deadline: {
            ...DURATION,
            description: `Overall deadline, all attempts included. Default: 15 minutes. ${DURATION.description}`,
          },
          minBackoff: {
            ...DURATION,
            description: `Smallest backoff between attempts. Default: 2 seconds. ${DURATION.description}`,
          },
          maxBackoff: {
            ...DURATION,
            description: `Largest backoff between attempts. Default: 30 seconds. ${DURATION.description}`,
          },
        },
      },
      "helm-handoff:index:HandoffRecord": {
        type: "object",
        description:
          "The handoff record (kind `helm-handoff.dev/HandoffRecord`, apiVersion `v1`): what the GitOps side needs to take the release over without reinstalling it.",
        properties: {
          kind: { type: "string", description: "Always `helm-handoff.dev/HandoffRecord`." },
          apiVersion: { type: "string", description: "Always `v1`." },
          cluster: { $ref: "#/types/helm-handoff:index:HandoffCluster", description: "The cluster." },
          release: { $ref: "#/types/helm-handoff:index:HandoffRelease", description: "The release." },
          chart: {
            $ref: "#/types/helm-handoff:index:HandoffChart",
            description: "The chart: its source and the version installed.",
          },
          valuesDigest: {
            type: "string",
            description:
              "`hmac-sha256:…` of the values under the secret `valuesDigestKey`; never an unkeyed hash of the values.",
          },
          revision: { type: "integer", description: "Release revision at handoff." },
          strategy: { $ref: "#/types/helm-handoff:index:Strategy", description: "The strategy in force." },
          installedAt: {
            type: "string",
            description: "When the release was installed (or last deployed), ISO 8601.",
          },
          adopted: {
            type: "boolean",
            description: "True when the release was found deployed and adopted rather than installed.",
          },
        },
        required: [
          "kind",
          "apiVersion",
          "cluster",
          "release",
          "chart",
          "valuesDigest",
          "revision",
          "strategy",
          "installedAt",
          "adopted",
        ],
      },
      "helm-handoff:index:HandoffCluster": {
        type: "object",
        description: "The cluster of a handoff record.",
        properties: {
          id: {
            type: "string",
            description:
              "Cluster identity: `sha256:…` of the API server URL and CA, or the explicit `clusterId`.",
          },
          server: { type: "string", description: "API server URL from the kubeconfig." },
        },
        required: ["id", "server"],
      },
      "helm-handoff:index:HandoffRelease": {
        type: "object",
        description: "The release of a handoff record.",
        properties: {
          name: { type: "string", description: "Release name." },
          namespace: { type: "string", description: "Namespace the release's objects go to." },
          storageNamespace: {
            type: "string",
            description:
              "Namespace of Helm's release Secrets (`sh.helm.release.v1.NAME.vN`), equal to `namespace`.",
          },
        },
        required: ["name", "namespace", "storageNamespace"],
      },
      "helm-handoff:index:HandoffChart": {
        type: "object",
        description: "The chart of a handoff record.",
        properties: {
          source: {
            $ref: "#/types/helm-handoff:index:HandoffChartSource",
            description: "Where the chart came from (never with credentials).",
          },
          version: { type: "string", description: "The chart version installed." },
        },
        required: ["source", "version"],
      },
      "helm-handoff:index:HandoffChartSource": {
        type: "object",
        description: "A chart source without credentials: `repo` + `name`, or `path`.",
        properties: {
          repo: { type: "string", description: "Repository URL (`https://…`, `http://…` or `oci://…`)." },
          name: { type: "string", description: "Chart name in the repository." },
          path: { type: "string", description: "Local chart directory or archive." },
        },
      },
      "helm-handoff:index:ReleaseStatus": {
        type: "object",
        description: "What the release looked like after the last helm call.",
        properties: {
          revision: { type: "integer", description: "Release revision (1 after the first install)." },
          status: { type: "string", description: "Helm's status of the release, e.g. `deployed`." },
          chart: { type: "string", description: "Chart name." },
          chartVersion: { type: "string", description: "Chart version." },
          appVersion: { type: "string", description: "The chart's app version." },
          firstDeployed: { type: "string", description: "When the release was first deployed (ISO 8601)." },
          lastDeployed: { type: "string", description: "When the release was last deployed (ISO 8601)." },
          attempts: { type: "integer", description: "Install attempts the create needed." },
          adopted: { type: "boolean", description: "True when an existing deployed release was taken over." },
        },
        required: [
          "revision",
          "status",
          "chart",
          "chartVersion",
          "appVersion",
          "firstDeployed",
          "lastDeployed",
          "attempts",
          "adopted",
        ],
      },
    },
    resources: {
      "helm-handoff:index:ClusterAddon": {
        description:
          "A Helm add-on bootstrapped into a cluster, then handed off to the cluster's GitOps (ApplyOnce) or kept in line (Reconcile).",
        inputProperties,
        requiredInputs: ["kubeconfig", "chart"],
        properties: {
          status: {
            $ref: "#/types/helm-handoff:index:ReleaseStatus",
            description: "Release status after the last helm call.",
          },
          clusterId: { type: "string", description: "The cluster identity the release was installed on." },
          handoff: {
            $ref: "#/types/helm-handoff:index:HandoffRecord",
            description: "The handoff record, for stack exports and the GitOps side.",
          },
          valuesDigestKey: {
            type: "string",
            secret: true,
            description:
              "The secret key of the handoff record's `valuesDigest` (HMAC-SHA256). Always secret.",
          },
        },
        required: ["status", "clusterId", "handoff", "valuesDigestKey"],
      },
    },
  };
}
