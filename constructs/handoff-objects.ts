/**
 * The cdk8s constructs of the GitOps handoff: thin wrappers adding the plain objects of
 * `helm-handoff/gitops` to a cdk8s scope.
 *
 * @module
 */
import { ApiObject } from "cdk8s";
import { Construct } from "constructs";
import {
  type ArgoCdHandoffOptions,
  argoCdApplicationObject,
  type FluxHandoffOptions,
  fluxHandoffObjects,
} from "../core/handoff/gitops.js";
import type { HandoffRecord } from "../core/handoff/record.js";
import type { KubeObject } from "../core/util/kube-object.js";

function addObjects(scope: Construct, objects: readonly KubeObject[]): ApiObject[] {
  return objects.map((o) => new ApiObject(scope, o.kind, { ...o }));
}

/** Props of {@link FluxHandoff}. */
export interface FluxHandoffProps extends FluxHandoffOptions {
  /** The handoff record of the release to take over. */
  readonly record: HandoffRecord;
}

/** cdk8s construct: the Flux source + HelmRelease of {@link fluxHandoffObjects}. */
export class FluxHandoff extends Construct {
  /** The source object (`HelmRepository` or `OCIRepository`). */
  public readonly source: ApiObject;
  /** The `HelmRelease`. */
  public readonly helmRelease: ApiObject;

  /** Adds the Flux handoff objects for `props.record` to `scope`. */
  public constructor(scope: Construct, id: string, props: FluxHandoffProps) {
    super(scope, id);
    const [source, helmRelease] = addObjects(this, fluxHandoffObjects(props.record, props));
    if (source === undefined || helmRelease === undefined) throw new Error("unreachable");
    this.source = source;
    this.helmRelease = helmRelease;
  }
}

/** Props of {@link ArgoCdHandoff}. */
export interface ArgoCdHandoffProps extends ArgoCdHandoffOptions {
  /** The handoff record of the release to take over. */
  readonly record: HandoffRecord;
}

/** cdk8s construct: the Argo CD Application of {@link argoCdApplicationObject}. */
export class ArgoCdHandoff extends Construct {
  /** The `Application`. */
  public readonly application: ApiObject;

  /** Adds the Argo CD Application for `props.record` to `scope`. */
  public constructor(scope: Construct, id: string, props: ArgoCdHandoffProps) {
    super(scope, id);
    const [app] = addObjects(this, [argoCdApplicationObject(props.record, props)]);
    if (app === undefined) throw new Error("unreachable");
    this.application = app;
  }
}
