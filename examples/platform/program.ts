/**
 * The platform-repo example: bootstrap a CNI and a GitOps controller into a new cluster with
 * `ClusterAddon` (ApplyOnce), then create the GitOps root object that takes the CNI over, built
 * from the CNI's handoff record with `@pulumi/kubernetes`, and export the handoff records.
 *
 * The root object is a Flux `HelmRelease` (plus its `HelmRepository`) by default, or an Argo CD
 * `Application`, with the **same release name, namespace and storage namespace** as the
 * bootstrapped release, so the controller upgrades that release instead of installing a second one.
 * The root object is created once and then left to GitOps: `retainOnDelete` (a `pulumi destroy`
 * leaves it) and `ignoreChanges: ["spec"]` (a later change in this program does not fight GitOps).
 *
 * A platform repo writes the same with its cluster's kubeconfig (e.g. `eks.Cluster#kubeconfigJson`)
 * and its own chart repository. The charts must come from an `https://`/`http://` or `oci://`
 * repository the GitOps controller can reach: a local chart path cannot be handed off.
 *
 * @module
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { type ChartSource, type HandoffRecord, makeHandoffRecord } from "helm-handoff";
import {
  argoCdApplicationObject,
  fluxHelmReleaseObject,
  fluxSourceObject,
  type KubeObject,
} from "helm-handoff/gitops";
import { ClusterAddon } from "helm-handoff/pulumi";

/** Which GitOps root object takes the CNI over. */
export type RootObjectKind = "flux" | "argocd";

/** Settings of one run of the platform program. */
export interface PlatformSettings {
  /** kubeconfig content of the target cluster (kept secret). */
  readonly kubeconfig: pulumi.Input<string>;
  /** Where the two charts come from: a repository the GitOps controller can reach. */
  readonly charts: { readonly cni: ChartSource; readonly gitops: ChartSource };
  /** The CNI's values at bootstrap (also written into the root object, so the takeover changes nothing). */
  readonly cniValues: Record<string, unknown>;
  /**
   * Namespace of the GitOps controller; the root object is created there too.
   * @default "gitops-system"
   */
  readonly gitopsNamespace?: string;
  /**
   * The root object: a Flux `HelmRelease` + `HelmRepository`, or an Argo CD `Application`.
   * @default "flux"
   */
  readonly rootObject?: RootObjectKind;
  /**
   * Wait for the add-ons' workloads to become ready (`helm install --wait`).
   * @default true
   */
  readonly wait?: boolean;
}

/** Where a created root object lives. */
export interface RootObjectRef {
  /** `apiVersion` of the object. */
  readonly apiVersion: string;
  /** `kind` of the object. */
  readonly kind: string;
  /** Its namespace. */
  readonly namespace: string;
  /** Its name. */
  readonly name: string;
}

/** The stack outputs of {@link platform}. */
export interface PlatformOutputs {
  /** The CNI's handoff record (see `HandoffRecord` in docs/strategies.md). */
  readonly cniHandoff: pulumi.Output<HandoffRecord>;
  /** The GitOps controller's handoff record. */
  readonly gitopsHandoff: pulumi.Output<HandoffRecord>;
  /** The root objects created from the CNI's record, in apply order. */
  readonly rootObjects: pulumi.Output<RootObjectRef[]>;
}

/** The program: two ApplyOnce add-ons, then the GitOps root object that takes the CNI over. */
export function platform(settings: PlatformSettings): PlatformOutputs {
  const gitopsNamespace = settings.gitopsNamespace ?? "gitops-system";
  const install = { wait: settings.wait ?? true };

  const cni = new ClusterAddon("cni", {
    kubeconfig: settings.kubeconfig,
    chart: settings.charts.cni,
    namespace: "kube-system",
    values: settings.cniValues,
    install,
    strategy: "ApplyOnce",
  });
  const gitops = new ClusterAddon("gitops", {
    kubeconfig: settings.kubeconfig,
    chart: settings.charts.gitops,
    namespace: gitopsNamespace,
    createNamespace: true,
    values: { replicas: 1 },
    install,
    strategy: "ApplyOnce",
  });

  // An explicit provider: never the ambient ~/.kube/config.
  const provider = new k8s.Provider("cluster", { kubeconfig: pulumi.secret(settings.kubeconfig) });

  // The objects' shape (apiVersion, kind, name, namespace) depends only on plain settings, so it is
  // known at preview; their spec comes from the CNI's handoff record once the release is installed.
  const build = rootObjectBuilders(settings.rootObject ?? "flux", gitopsNamespace, settings.cniValues);
  const shape = makeHandoffRecord({
    clusterId: "preview",
    server: "preview",
    releaseName: "cni",
    namespace: "kube-system",
    chart: settings.charts.cni,
    chartVersion: "0.0.0",
    revision: 0,
    strategy: "ApplyOnce",
    installedAt: new Date(0),
  });
  const created: k8s.apiextensions.CustomResource[] = [];
  const refs: RootObjectRef[] = [];
  for (const toObject of build) {
    const plain = toObject(shape);
    const name = plain.metadata.name ?? "cni";
    const namespace = plain.metadata.namespace ?? gitopsNamespace;
    const resource = new k8s.apiextensions.CustomResource(
      `cni-${plain.kind.toLowerCase()}`,
      {
        apiVersion: plain.apiVersion,
        kind: plain.kind,
        metadata: { name, namespace },
        spec: cni.handoff.apply((record) => toObject(record).spec),
      },
      {
        provider,
        dependsOn: [cni, gitops, ...created],
        // Created once, then GitOps owns it: no delete on destroy, no update from this program.
        retainOnDelete: true,
        ignoreChanges: ["spec"],
      },
    );
    created.push(resource);
    refs.push({ apiVersion: plain.apiVersion, kind: plain.kind, namespace, name });
  }

  return {
    cniHandoff: cni.handoff,
    gitopsHandoff: gitops.handoff,
    rootObjects: pulumi.all(created.map((r) => r.id)).apply(() => refs),
  };
}

/** The functions building the root objects from a handoff record, in apply order. */
function rootObjectBuilders(
  kind: RootObjectKind,
  namespace: string,
  values: Record<string, unknown>,
): Array<(record: HandoffRecord) => KubeObject> {
  if (kind === "argocd") return [(r) => argoCdApplicationObject(r, { namespace, values })];
  return [(r) => fluxSourceObject(r, { namespace }), (r) => fluxHelmReleaseObject(r, { namespace, values })];
}
