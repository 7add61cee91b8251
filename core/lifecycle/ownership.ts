/**
 * Whose is a release: the one ownership rule every write of helm-handoff obeys. Every install,
 * upgrade and rollback helm-handoff runs marks the revision it creates with release labels: the
 * owner (a stable id of the Pulumi resource or program that wrote it, and a readable name), the
 * instance (which incarnation of that resource: a replacement has a new one) and the revision
 * number itself. helm copies labels forward (an upgrade merges the previous revision's, a rollback
 * copies the target's), so a GitOps controller's or a person's later revision still carries our
 * owner label, but with a stale revision number: the current revision is ours only when its
 * revision label equals its own number. {@link ownershipOf} maps a release into a closed set:
 * - `ours`: this owner and instance wrote the current revision;
 * - `replaced`: this owner wrote it, as another instance (a replacement, or a create that was
 *   killed before its state was saved): a create or update takes it over, a delete leaves it;
 * - `overwritten`: our owner label, but someone else wrote the current revision on top of ours;
 * - `other-owner`: another helm-handoff resource (another stack, or another add-on) wrote it;
 * - `foreign`: no owner label: helm-handoff did not write it (a person, GitOps, another tool).
 * - `forged`: our owner label and revision, but not the mark only this resource's key makes;
 * - `claimed`: our marks, but another controller manages the release now (an Argo CD Application
 *   tracks its objects, a Flux HelmRelease names it, another field manager writes them): Argo CD
 *   never writes a Helm revision, so the labels alone cannot show it (`handoff/claims.ts` reads it).
 * An owner with a secret `key` (a Pulumi add-on: made at its first check, kept in its state, carried
 * to its replacements) labels with an owner id keyed by it and marks each revision with an HMAC of
 * the owner id, instance, revision and release ({@link MARK_LABEL}): nobody without the key can
 * compute the id from the resource's name, nor mark another revision or instance as ours. An owner
 * without a key (state written before keys, or a caller of the core API) reads and writes the
 * plain labels as before. A write (upgrade, rollback, uninstall, relabel) proceeds only on what
 * {@link mayWrite} allows, after re-reading the release right before it (`ensureRelease` and the
 * repairs); anything else is adopted as it is (ApplyOnce) or refused with an
 * {@link OwnershipError} (Reconcile). Pure.
 *
 * @module
 */
import { createHash, createHmac } from "node:crypto";
import { HelmHandoffError } from "../errors.js";
import type { ReleaseInfo } from "../helm/types.js";

/** The release label carrying the stable id of the resource that wrote the revision. */
export const OWNER_LABEL = "helm-handoff.dev/owner";
/** The release label carrying a readable name of that resource (for messages only). */
export const OWNER_NAME_LABEL = "helm-handoff.dev/owner-name";
/** The release label carrying the instance of that resource (a replacement has another). */
export const INSTANCE_LABEL = "helm-handoff.dev/instance";
/** The release label carrying the revision helm-handoff's write created. */
export const OWN_REVISION_LABEL = "helm-handoff.dev/revision";

/** The release label carrying the keyed mark of the revision (owners with a key only). */
export const MARK_LABEL = "helm-handoff.dev/mark";

/** Who writes: the resource (stable across runs) and its current instance. */
export interface ReleaseOwner {
  /** Stable id of the owning resource, e.g. a hash of its Pulumi URN, keyed by {@link ReleaseOwner.key} when it has one (a label value). */
  readonly id: string;
  /**
   * The owner's secret key (`id` is then the plain id keyed with it): each revision it writes
   * carries a `helm-handoff.dev/mark` label only this key makes, and a revision without a valid
   * one is not ours.
   * @default none: the plain labels are trusted (state written before keys, core API callers)
   */
  readonly key?: string;
  /** Readable name of the owner for messages, e.g. `platform.prod.cni` (a label value). */
  readonly name: string;
  /** This instance of the resource: made at its create, kept by its updates (a label value). */
  readonly instance: string;
}

/** Whose a release's current revision is (see the module comment). */
export type Ownership =
  | {
      /** This owner and instance wrote it. */
      readonly kind: "ours";
    }
  | {
      /** This owner wrote it, as another instance. */
      readonly kind: "replaced";
      /** The instance that wrote it. */
      readonly instance: string;
    }
  | {
      /** Someone else wrote it on top of this owner's revision. */
      readonly kind: "overwritten";
      /** The revision this owner last wrote (`""` when unmarked). */
      readonly ownRevision: string;
    }
  | {
      /** Another helm-handoff resource wrote it. */
      readonly kind: "other-owner";
      /** Its owner id. */
      readonly ownerId: string;
      /** Its readable name (`""` when unmarked). */
      readonly ownerName: string;
    }
  | {
      /** This owner's labels, but not its keyed mark: someone else wrote or altered them. */
      readonly kind: "forged";
    }
  | {
      /** This owner's marks, but another controller manages the release now. */
      readonly kind: "claimed";
      /** Who, in words, e.g. `Argo CD Application argocd/cni tracks its ConfigMap kube-system/cni-config`. */
      readonly by: string;
    }
  | {
      /** No owner label: helm-handoff did not write it. */
      readonly kind: "foreign";
    };

/** What writes a lifecycle step may make on a release: creates and updates take over their own predecessors, a delete only its own instance's. */
export type WriteIntent = "converge" | "delete";

/** The stable owner id of the resource with URN `urn`: 40 hex characters of a SHA-256. */
export function ownerIdOf(urn: string): string {
  return createHash("sha256").update(`helm-handoff owner\0${urn}`).digest("hex").slice(0, 40);
}

/** 40 hex characters of HMAC-SHA256 under `key` over the parts, NUL-separated. */
function mac(key: string, parts: readonly (string | number)[]): string {
  return createHmac("sha256", Buffer.from(key, "utf8")).update(parts.join("\0")).digest("hex").slice(0, 40);
}

/**
 * The owner id of a resource with a secret key: 40 hex characters of HMAC-SHA256 under `key` of its
 * plain id ({@link ownerIdOf}). Two stacks with the same names have different ids, and nobody can
 * compute it from the names.
 */
export function keyedOwnerId(key: string, plainId: string): string {
  return mac(key, ["helm-handoff owner", plainId]);
}

/** The mark of the revision `revision` of release `namespace/name` written by `owner`'s `instance` (owners with a key). */
function revisionMark(
  key: string,
  id: string,
  instance: string,
  revision: number,
  release: { readonly name: string; readonly namespace: string },
): string {
  return mac(key, ["helm-handoff mark", id, instance, revision, release.namespace, release.name]);
}

/**
 * A readable owner name from a Pulumi URN (`urn:pulumi:STACK::PROJECT::TYPE::NAME`):
 * `PROJECT.STACK.NAME`, made a valid label value (at most 63 characters of `[A-Za-z0-9._-]`,
 * alphanumeric at both ends).
 */
export function ownerNameOf(urn: string): string {
  const parts = urn.split("::");
  const stack = (parts[0] ?? "").split(":").pop() ?? "";
  const name = [parts[1] ?? "", stack, parts[parts.length - 1] ?? ""].join(".");
  return labelValue(name);
}

/** `text` as a valid label value (see {@link ownerNameOf}); `"unnamed"` when nothing is left. */
export function labelValue(text: string): string {
  const cleaned = text
    .replace(/[^A-Za-z0-9._-]/g, "-")
    .slice(0, 63)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, "");
  return cleaned === "" ? "unnamed" : cleaned;
}

/**
 * The labels a write by `owner` that creates `revision` of `release` sets: with the owner's key,
 * also the revision's {@link MARK_LABEL}.
 */
export function ownerLabels(
  owner: ReleaseOwner,
  revision: number,
  release?: { readonly name: string; readonly namespace: string },
): Readonly<Record<string, string>> {
  const labels: Record<string, string> = {
    [OWNER_LABEL]: owner.id,
    [OWNER_NAME_LABEL]: owner.name,
    [INSTANCE_LABEL]: owner.instance,
    [OWN_REVISION_LABEL]: String(revision),
  };
  if (owner.key !== undefined) {
    if (release === undefined) throw new Error("an owner with a key marks a named release only");
    labels[MARK_LABEL] = revisionMark(owner.key, owner.id, owner.instance, revision, release);
  }
  return labels;
}

/**
 * Whose the current revision of `release` is, seen by `owner`; `claim` is who else manages the
 * release now, when the caller read it (see `handoff/claims.ts`): a release of ours so claimed is not ours.
 */
export function ownershipOf(
  release: Pick<ReleaseInfo, "name" | "namespace" | "revision" | "labels">,
  owner: ReleaseOwner,
  claim?: string,
): Ownership {
  const marks = ownershipByMarks(release, owner);
  const ours = marks.kind === "ours" || marks.kind === "replaced";
  return ours && claim !== undefined ? { kind: "claimed", by: claim } : marks;
}

function ownershipByMarks(
  release: Pick<ReleaseInfo, "name" | "namespace" | "revision" | "labels">,
  owner: ReleaseOwner,
): Ownership {
  const labels = release.labels;
  const id = labels[OWNER_LABEL];
  if (id === undefined || id === "") return { kind: "foreign" };
  if (id !== owner.id) return { kind: "other-owner", ownerId: id, ownerName: labels[OWNER_NAME_LABEL] ?? "" };
  const ownRevision = labels[OWN_REVISION_LABEL] ?? "";
  if (ownRevision !== String(release.revision)) return { kind: "overwritten", ownRevision };
  const instance = labels[INSTANCE_LABEL] ?? "";
  if (
    owner.key !== undefined &&
    labels[MARK_LABEL] !== revisionMark(owner.key, id, instance, release.revision, release)
  ) {
    return { kind: "forged" };
  }
  return instance === owner.instance ? { kind: "ours" } : { kind: "replaced", instance };
}

/**
 * Whether the current revision carries helm-handoff's mark of that same revision (whichever
 * resource wrote it): nobody (a person, a GitOps controller) has written a revision since.
 */
export function markedByHelmHandoff(release: Pick<ReleaseInfo, "revision" | "labels">): boolean {
  return (
    (release.labels[OWNER_LABEL] ?? "") !== "" &&
    release.labels[OWN_REVISION_LABEL] === String(release.revision)
  );
}

/** Whether a write with `intent` may touch a release of this ownership. */
export function mayWrite(ownership: Ownership, intent: WriteIntent): boolean {
  return ownership.kind === "ours" || (ownership.kind === "replaced" && intent === "converge");
}

/** Why `ownership` is not ours, in words (for messages). */
export function describeOwnership(ownership: Ownership, revision: number): string {
  switch (ownership.kind) {
    case "ours":
      return `revision ${revision} was written by this resource`;
    case "replaced":
      return `revision ${revision} was written by a newer instance of this resource (its replacement, instance ${ownership.instance})`;
    case "overwritten":
      return ownership.ownRevision === ""
        ? `revision ${revision} carries this resource's owner label without a revision mark`
        : `revision ${revision} was written by someone else on top of this resource's revision ${ownership.ownRevision} (a person's helm upgrade or rollback, or a GitOps controller that took the release over)`;
    case "other-owner":
      return `revision ${revision} was written by another helm-handoff resource (${ownership.ownerName || "unnamed"}, owner id ${ownership.ownerId})`;
    case "claimed":
      return revision === 0
        ? `Helm has no release of that name, but another controller manages it: ${ownership.by}`
        : `revision ${revision} carries this resource's marks, but another controller manages the release now: ${ownership.by}`;
    case "forged":
      return `revision ${revision} carries this resource's owner label but not its keyed mark (${MARK_LABEL}): someone else wrote or altered it`;
    case "foreign":
      return `revision ${revision} was not written by helm-handoff (no ${OWNER_LABEL} label: a person, a GitOps controller or another tool installed it)`;
  }
}

/**
 * A write to a release that is not this resource's was refused (Reconcile): helm-handoff never
 * upgrades, rolls back, uninstalls or relabels a release whose current revision someone else wrote.
 */
export class OwnershipError extends HelmHandoffError {
  /** `namespace/name` of the release. */
  public readonly release: string;
  /** Whose the release is. */
  public readonly ownership: Ownership;

  /**
   * @param release - `namespace/name` of the release
   * @param revision - its current revision
   * @param ownership - whose it is (not ours)
   * @param fix - what the user can do
   */
  public constructor(release: string, revision: number, ownership: Ownership, fix: string) {
    super(
      "RELEASE_NOT_OURS",
      `release ${release} is not this resource's: ${describeOwnership(ownership, revision)}. ${fix}`,
    );
    this.release = release;
    this.ownership = ownership;
  }
}
