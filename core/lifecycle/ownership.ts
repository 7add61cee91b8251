/**
 * Which revisions of a release helm-handoff made. Every install and upgrade helm-handoff runs
 * labels the release `helm-handoff.dev/revision=N`, N being the revision that call creates. helm
 * keeps a release's labels across later upgrades (and a GitOps controller's upgrade carries ours
 * forward), so the mark is ours only where N equals the release's current revision: then the
 * current revision (deployed, failed or left pending by a killed helm) is helm-handoff's own.
 * Anything else was written by someone else (GitOps, a person), and a strategy that steps aside
 * (ApplyOnce, see `strategy.ts`) adopts it as it is instead of repairing it. Pure.
 *
 * @module
 */
import type { ReleaseInfo } from "../helm/types.js";

/** The release label carrying the revision helm-handoff's last install or upgrade created. */
export const OWN_REVISION_LABEL = "helm-handoff.dev/revision";

/** The labels an install or upgrade that creates `revision` sets. */
export function ownRevisionLabels(revision: number): Readonly<Record<string, string>> {
  return { [OWN_REVISION_LABEL]: String(revision) };
}

/** Whether the release's current revision was made by helm-handoff. */
export function isOwnRevision(release: Pick<ReleaseInfo, "revision" | "labels">): boolean {
  return release.labels[OWN_REVISION_LABEL] === String(release.revision);
}
