/**
 * The handoff constructs for Python, Java, Go and .NET cdk8s apps: `FluxHandoff` (the Flux source
 * and `HelmRelease`) and `ArgoCdHandoff` (the Argo CD `Application`) taking over a release that a
 * `ClusterAddon` bootstrapped, each delegating to its TypeScript construct of `helm-handoff/cdk8s`.
 */
import type { ApiObject } from "cdk8s";
import { Construct } from "constructs";
// The ES-module package, loaded with require() (Node >= 22.12): the one implementation.
import * as core from "helm-handoff/cdk8s";
import type { HandoffRecord } from "./cluster-addon.js";
import { defined } from "./defined.js";

/** Where helm-controller reads values of a Flux `HelmRelease` from. */
export enum FluxValuesKind {
  /** A Secret in the HelmRelease's namespace. */
  SECRET = "Secret",
  /** A ConfigMap in the HelmRelease's namespace. */
  CONFIG_MAP = "ConfigMap",
}

/** One `spec.valuesFrom` entry of a Flux `HelmRelease`. */
export interface FluxValuesReference {
  /** Secret or ConfigMap. */
  readonly kind: FluxValuesKind;
  /** Its name, in the HelmRelease's namespace. */
  readonly name: string;
  /** The key holding a values YAML (or, with `targetPath`, one value). @default "values.yaml" */
  readonly valuesKey?: string;
  /** Where the value goes (`a.b.c`), for a key holding one value. @default the key is a values YAML merged at the root */
  readonly targetPath?: string;
}

/** Props of {@link FluxHandoff}. */
export interface FluxHandoffProps {
  /** The handoff record of the release to take over. */
  readonly record: HandoffRecord;
  /** Name of the HelmRelease and of its source. @default the release name */
  readonly name?: string;
  /** Namespace of the Flux objects. @default "flux-system" */
  readonly namespace?: string;
  /** Reconcile interval of the HelmRelease and the source, e.g. "10m". @default "10m" */
  readonly interval?: string;
  /**
   * Values for the HelmRelease, written in plain text: pass the values that were installed (Flux
   * upgrades the release with exactly these). @default none
   */
  readonly values?: { [key: string]: any };
  /** Values read by helm-controller from Secrets or ConfigMaps (secret values go here). @default none */
  readonly valuesFrom?: FluxValuesReference[];
}

/** cdk8s construct: the Flux source (`HelmRepository` or `OCIRepository`) and `HelmRelease` taking a release over. */
export class FluxHandoff extends Construct {
  /** The source object (`HelmRepository` or `OCIRepository`). */
  public readonly source: ApiObject;
  /** The `HelmRelease`. */
  public readonly helmRelease: ApiObject;

  /** Adds the Flux handoff objects for `props.record` to `scope`. */
  public constructor(scope: Construct, id: string, props: FluxHandoffProps) {
    super(scope, id);
    const flux = new core.FluxHandoff(
      this,
      "Default",
      defined({
        record: props.record?._record,
        name: props.name,
        namespace: props.namespace,
        interval: props.interval,
        values: props.values,
        valuesFrom: props.valuesFrom?.map((v) =>
          defined({ kind: v.kind, name: v.name, valuesKey: v.valuesKey, targetPath: v.targetPath }),
        ),
      }) as unknown as core.FluxHandoffProps,
    );
    this.source = flux.source;
    this.helmRelease = flux.helmRelease;
  }
}

/** Automated sync of an Argo CD Application (given: on). */
export interface ArgoCdAutomatedSync {
  /** Re-apply when the live objects drift (for charts rendering differently each time, forever). @default false */
  readonly selfHeal?: boolean;
  /** Delete live objects the render no longer has. @default false */
  readonly prune?: boolean;
}

/** Props of {@link ArgoCdHandoff}. */
export interface ArgoCdHandoffProps {
  /** The handoff record of the release to take over. */
  readonly record: HandoffRecord;
  /** Name of the Application. @default the release name */
  readonly name?: string;
  /** Namespace of the Application (Argo CD's own). @default "argocd" */
  readonly namespace?: string;
  /** Argo CD project. @default "default" */
  readonly project?: string;
  /** Destination API server as Argo CD knows it. @default "https://kubernetes.default.svc" */
  readonly destinationServer?: string;
  /** Values for the render, written in plain text (keep secret values out). @default none */
  readonly values?: { [key: string]: any };
  /** Automated sync (without selfHeal or prune unless set). @default no automated sync */
  readonly automated?: ArgoCdAutomatedSync;
  /** Ask for one sync when the Application is created. @default true */
  readonly syncOnCreate?: boolean;
}

/** cdk8s construct: the Argo CD `Application` taking a release over. */
export class ArgoCdHandoff extends Construct {
  /** The `Application`. */
  public readonly application: ApiObject;

  /** Adds the Argo CD Application for `props.record` to `scope`. */
  public constructor(scope: Construct, id: string, props: ArgoCdHandoffProps) {
    super(scope, id);
    const argo = new core.ArgoCdHandoff(
      this,
      "Default",
      defined({
        record: props.record?._record,
        name: props.name,
        namespace: props.namespace,
        project: props.project,
        destinationServer: props.destinationServer,
        values: props.values,
        automated:
          props.automated === undefined
            ? undefined
            : defined({ selfHeal: props.automated.selfHeal, prune: props.automated.prune }),
        syncOnCreate: props.syncOnCreate,
      }) as unknown as core.ArgoCdHandoffProps,
    );
    this.application = argo.application;
  }
}
