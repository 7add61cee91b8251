/**
 * Who owns a handed-off release now, decided from an {@link Observation} (pure: no I/O). The
 * answer is one of a closed set of states, each with what to do, and the exit code a CI gate
 * reads: `handed-off` (0); `not-taken-over` (3: still helm-handoff's, applied as manifests by cdk8s
 * with no Helm release yet (a record at revision 0), or a GitOps object exists but has not acted
 * yet); or a problem (1): `stalled` (the controller tried and failed), `drifted`
 * (Argo CD reports objects out of sync, missing, or tracked by another Application), `missing`
 * (no release), `foreign` (someone unknown wrote the current revision), `contested` (two GitOps
 * objects claim the release), `unreachable` (the cluster could not be read at all: in a fleet, an API
 * server that does not answer, a missing or malformed kubeconfig Secret, a Cluster being deleted).
 * A release a Cluster API carrier (HelmChartProxy, ClusterResourceSet) bootstrapped is judged with
 * that carrier named ({@link CarrierBootstrap}): its own revision is "not taken over yet", not someone
 * else's write.
 *
 * @module
 */

import { markedByHelmHandoff, OWNER_NAME_LABEL } from "../lifecycle/ownership.js";
import type { ArgoClaim, FluxClaim, LiveObject, Observation } from "./observe.js";
import type { HandoffRecord } from "./record.js";

/** The closed set of handoff states. */
export type HandoffState =
  | "handed-off"
  | "not-taken-over"
  | "stalled"
  | "drifted"
  | "missing"
  | "foreign"
  | "contested"
  | "unreachable";

/** Who owns the release now: one of six shapes, told apart by `kind`. */
export type ReleaseOwnerNow =
  | {
      /** helm-handoff: the current revision carries its mark. */
      readonly kind: "helm-handoff";
      /** The writing resource's readable name (`PROJECT.STACK.NAME`). */
      readonly ownerName: string;
      /** The current revision. */
      readonly revision: number;
    }
  | {
      /** A Flux HelmRelease names the release. */
      readonly kind: "flux";
      /** `namespace/name` of the HelmRelease. */
      readonly helmRelease: string;
      /** The newest revision in its history, if any. */
      readonly revision: number | undefined;
      /** Its Ready condition's status. */
      readonly ready: string;
    }
  | {
      /** An Argo CD Application names the release. */
      readonly kind: "argocd";
      /** `namespace/name` of the Application. */
      readonly application: string;
      /** Its sync status. */
      readonly sync: string;
      /** Its health status. */
      readonly health: string;
      /** The release's objects as it holds them. */
      readonly objects: ObjectCounts;
    }
  | {
      /** The Cluster API carrier that bootstrapped the release still holds it (no GitOps object names it). */
      readonly kind: "carrier";
      /** `Kind namespace/name` of the carrier, e.g. `HelmChartProxy default/cni`. */
      readonly carrier: string;
      /** The current revision (0: applied as manifests, no Helm release). */
      readonly revision: number;
    }
  | {
      /** Someone helm-handoff cannot name wrote the current revision. */
      readonly kind: "unknown";
      /** The current revision. */
      readonly revision: number;
    }
  | {
      /** Nobody (no release), or more than one claimant. */
      readonly kind: "none";
    };

/** The release's objects as Argo CD holds them. */
export interface ObjectCounts {
  /** Objects of the release. */
  readonly total: number;
  /** Tracked by the Application. */
  readonly tracked: number;
  /** Not in the cluster. */
  readonly missing: number;
  /** Reported OutOfSync by the Application. */
  readonly drifted: number;
  /** Tracked by another Application. */
  readonly foreign: number;
}

/** The verdict on one handed-off release. */
export interface HandoffStatus {
  /** `namespace/name` of the release. */
  readonly release: string;
  /** The state. */
  readonly state: HandoffState;
  /** Who owns it now. */
  readonly owner: ReleaseOwnerNow;
  /** Since when (ISO 8601), when the cluster records it. */
  readonly since: string | undefined;
  /** What the state means, in a sentence. */
  readonly message: string;
  /** What to do next (empty when nothing is needed). */
  readonly action: string;
  /** 0 handed off, 3 not taken over yet, 1 a problem. */
  readonly exitCode: 0 | 1 | 3;
}

const EXIT: Readonly<Record<HandoffState, 0 | 1 | 3>> = {
  "handed-off": 0,
  "not-taken-over": 3,
  stalled: 1,
  drifted: 1,
  missing: 1,
  foreign: 1,
  contested: 1,
  unreachable: 1,
};

/**
 * The Cluster API carrier that bootstrapped a release in a workload cluster: the record's revision
 * is the carrier's (CAAPH's install, revision N; a ClusterResourceSet's objects, revision 0).
 */
export interface CarrierBootstrap {
  /** `Kind namespace/name` of the carrier, e.g. `HelmChartProxy default/cni`. */
  readonly by: string;
  /** Whether the carrier says it has delivered the release to this cluster (HelmReleaseProxy deployed, binding applied). */
  readonly delivered: boolean;
  /** What to run to see the carrier's side of it. */
  readonly inspect: string;
}

function status(
  release: string,
  state: HandoffState,
  owner: ReleaseOwnerNow,
  since: string | undefined,
  message: string,
  action: string,
): HandoffStatus {
  return { release, state, owner, since, message, action, exitCode: EXIT[state] };
}

const named = (c: { namespace: string; name: string }) => `${c.namespace}/${c.name}`;

/** Counts the release's objects against one Application. */
export function countObjects(app: ArgoClaim, objects: readonly LiveObject[]): ObjectCounts {
  const ids = new Set([app.name, `${app.namespace}_${app.name}`]);
  const outOfSync = new Set(
    app.resources.filter((r) => r.status === "OutOfSync").map((r) => `${r.kind}/${r.namespace}/${r.name}`),
  );
  let tracked = 0;
  let missing = 0;
  let foreign = 0;
  let drifted = 0;
  for (const o of objects) {
    if (!o.exists) missing++;
    else if (o.trackedBy !== undefined && ids.has(o.trackedBy)) tracked++;
    else if (o.trackedBy !== undefined) foreign++;
    if (outOfSync.has(`${o.ref.kind}/${o.ref.namespace}/${o.ref.name}`)) drifted++;
  }
  return { total: objects.length, tracked, missing, drifted, foreign };
}

function judgeFlux(release: string, hr: FluxClaim, obs: Observation, record: HandoffRecord): HandoffStatus {
  const stored = obs.release?.latest;
  const owner: ReleaseOwnerNow = {
    kind: "flux",
    helmRelease: named(hr),
    revision: hr.latest?.version,
    ready: hr.ready.status,
  };
  const describe = `kubectl describe helmrelease -n ${hr.namespace} ${hr.name}`;
  if (stored === undefined && record.revision === 0) {
    return status(
      release,
      "not-taken-over",
      owner,
      undefined,
      `Flux HelmRelease ${named(hr)} names the release but has not installed it over the applied objects yet (Ready: ${hr.ready.status}${hr.ready.reason ? ` ${hr.ready.reason}` : ""}); Helm has no release ${release}`,
      `wait for helm-controller, or ask for a reconcile now: flux reconcile helmrelease -n ${hr.namespace} ${hr.name} (or annotate it with reconcile.fluxcd.io/requestedAt)`,
    );
  }
  if (stored === undefined) {
    return status(
      release,
      "missing",
      owner,
      undefined,
      `Flux HelmRelease ${named(hr)} names the release, but Helm has no release ${release}`,
      describe,
    );
  }
  const failure = hr.ready.status === "False" ? hr.ready : hr.failed;
  if (failure !== undefined) {
    return status(
      release,
      "stalled",
      owner,
      failure.since || undefined,
      `Flux HelmRelease ${named(hr)} failed (${failure.reason}: ${failure.message}); the release is at revision ${stored.revision} (${stored.status})`,
      `fix what the message says in the HelmRelease (${describe}); helm-handoff does not write to the release`,
    );
  }
  const tookOver =
    hr.latest !== undefined && hr.latest.version === stored.revision && stored.revision > record.revision;
  if (tookOver && hr.ready.status === "True" && stored.status === "deployed") {
    return status(
      release,
      "handed-off",
      owner,
      hr.firstDeployedByFlux ?? hr.ready.since,
      `handed off to Flux HelmRelease ${named(hr)}: revision ${stored.revision} deployed by helm-controller, Ready`,
      "",
    );
  }
  return status(
    release,
    "not-taken-over",
    owner,
    undefined,
    `Flux HelmRelease ${named(hr)} names the release but has not upgraded it yet (Ready: ${hr.ready.status}${hr.ready.reason ? ` ${hr.ready.reason}` : ""}); the release is at revision ${stored.revision} (${stored.status})`,
    `wait for helm-controller, or ask for a reconcile now: flux reconcile helmrelease -n ${hr.namespace} ${hr.name} (or annotate it with reconcile.fluxcd.io/requestedAt)`,
  );
}

function judgeArgo(release: string, app: ArgoClaim, obs: Observation): HandoffStatus {
  const objects = countObjects(app, obs.objects);
  const owner: ReleaseOwnerNow = {
    kind: "argocd",
    application: named(app),
    sync: app.sync,
    health: app.health,
    objects,
  };
  const summary = `Application ${named(app)}: ${app.sync}, ${app.health}, ${objects.tracked} of ${objects.total} objects tracked`;
  const sync = `argocd app sync ${app.namespace}/${app.name}`;
  if (
    objects.total > 0 &&
    objects.tracked === objects.total &&
    app.sync === "Synced" &&
    app.health === "Healthy"
  ) {
    return status(release, "handed-off", owner, app.lastSyncedAt, `handed off to Argo CD ${summary}`, "");
  }
  const untouched = objects.tracked === 0 && objects.missing === 0 && objects.foreign === 0;
  const problem =
    objects.missing > 0 || objects.foreign > 0 || objects.drifted > 0 || app.health === "Degraded";
  if (!untouched && problem) {
    const parts = [
      objects.missing > 0 ? `${objects.missing} missing` : "",
      objects.foreign > 0 ? `${objects.foreign} tracked by another Application` : "",
      objects.drifted > 0 ? `${objects.drifted} out of sync` : "",
    ].filter(Boolean);
    return status(
      release,
      parts.length === 0 ? "stalled" : "drifted",
      owner,
      app.lastSyncedAt,
      `Argo CD ${summary}${parts.length > 0 ? ` (${parts.join(", ")})` : ""}`,
      `look at the Application's diff and events (argocd app diff ${app.namespace}/${app.name}), then ${sync}`,
    );
  }
  if (!untouched) {
    return status(
      release,
      "not-taken-over",
      owner,
      undefined,
      `Argo CD ${summary}: the takeover is under way`,
      `wait for the sync to finish, or run ${sync}`,
    );
  }
  return status(
    release,
    "not-taken-over",
    owner,
    undefined,
    `Argo CD ${summary}: Argo CD has not written the objects yet ("Synced" alone does not mean it took them over)`,
    `sync the Application once so that Argo CD writes its tracking annotation: ${sync}`,
  );
}

/** The verdict on a release whose cluster could not be read: `why` names the cause. */
export function unreachable(release: string, why: string, action: string): HandoffStatus {
  return status(release, "unreachable", { kind: "none" }, undefined, why, action);
}

/**
 * The verdict on a release nobody took over yet, when a carrier bootstrapped it: still as the
 * carrier left it (its revision, or its objects at revision 0), or not delivered by it yet.
 */
function judgeCarrier(
  release: string,
  record: HandoffRecord,
  obs: Observation,
  carrier: CarrierBootstrap,
): HandoffStatus | undefined {
  const stored = obs.release?.latest;
  const take = `apply the handoff objects built from this record (helm-handoff/gitops: fluxHandoffObjects or argoCdApplicationObject; cdk8s: FluxHandoff or ArgoCdHandoff)`;
  const owner = (revision: number): ReleaseOwnerNow => ({ kind: "carrier", carrier: carrier.by, revision });
  if (stored === undefined && !carrier.delivered) {
    return status(
      release,
      "not-taken-over",
      owner(0),
      undefined,
      `${carrier.by} has not delivered the release to this cluster yet; no Flux HelmRelease or Argo CD Application names it`,
      `wait for the carrier (${carrier.inspect})`,
    );
  }
  if (stored === undefined && record.revision === 0) {
    return status(
      release,
      "not-taken-over",
      owner(0),
      undefined,
      `applied as manifests by ${carrier.by}, with no Helm release yet; no Flux HelmRelease or Argo CD Application names the release`,
      take,
    );
  }
  if (stored !== undefined && stored.revision === record.revision) {
    return status(
      release,
      "not-taken-over",
      owner(stored.revision),
      obs.release?.deployedAt,
      `still as ${carrier.by} installed it: revision ${stored.revision} (${stored.status}); no Flux HelmRelease or Argo CD Application names the release`,
      take,
    );
  }
  return undefined;
}

/**
 * Decides the state of the recorded release from what the cluster says; `carrier` names the Cluster
 * API carrier that bootstrapped it, when one did.
 */
export function judgeHandoff(
  record: HandoffRecord,
  obs: Observation,
  carrier?: CarrierBootstrap,
): HandoffStatus {
  const release = `${record.release.namespace}/${record.release.name}`;
  const claims = [
    ...obs.flux.map((c) => `Flux HelmRelease ${named(c)}`),
    ...obs.argo.map((c) => `Argo CD Application ${named(c)}`),
  ];
  if (claims.length > 1) {
    return status(
      release,
      "contested",
      { kind: "none" },
      undefined,
      `${claims.length} GitOps objects claim the release: ${claims.join(", ")}`,
      "keep exactly one of them: two controllers writing one release fight over it",
    );
  }
  const [flux] = obs.flux;
  if (flux) return judgeFlux(release, flux, obs, record);
  const [app] = obs.argo;
  if (app) return judgeArgo(release, app, obs);
  const carried = carrier === undefined ? undefined : judgeCarrier(release, record, obs, carrier);
  if (carried !== undefined) return carried;
  const stored = obs.release;
  if (stored === undefined && record.revision === 0) {
    return status(
      release,
      "not-taken-over",
      { kind: "none" },
      undefined,
      `applied as manifests (revision 0 in the record: a cdk8s Manifests output), with no Helm release yet; no Flux HelmRelease or Argo CD Application names the release`,
      "apply the handoff objects built from this record (helm-handoff/gitops: fluxHandoffObjects or argoCdApplicationObject; cdk8s: FluxHandoff or ArgoCdHandoff)",
    );
  }
  if (stored === undefined) {
    return status(
      release,
      "missing",
      { kind: "none" },
      undefined,
      `Helm has no release ${release}: it was uninstalled (or its storage deleted) and no GitOps object names it`,
      "find out who removed it; bootstrap it again, or let GitOps install it",
    );
  }
  const latest = stored.latest;
  if (markedByHelmHandoff(latest)) {
    return status(
      release,
      "not-taken-over",
      { kind: "helm-handoff", ownerName: latest.labels[OWNER_NAME_LABEL] ?? "", revision: latest.revision },
      stored.deployedAt,
      `still helm-handoff's: revision ${latest.revision} (${latest.status}); no Flux HelmRelease or Argo CD Application names the release`,
      "apply the handoff objects built from this record (helm-handoff/gitops: fluxHandoffObjects or argoCdApplicationObject)",
    );
  }
  return status(
    release,
    "foreign",
    { kind: "unknown", revision: latest.revision },
    stored.deployedAt,
    `revision ${latest.revision} (${latest.status}) was written by someone else, and no Flux HelmRelease or Argo CD Application names the release`,
    `find who upgraded it (helm history -n ${record.release.storageNamespace} ${record.release.name}); hand it to GitOps explicitly`,
  );
}
