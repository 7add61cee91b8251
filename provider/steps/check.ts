/**
 * Check: validates the inputs without touching a cluster (a failure names the property), gives a
 * new resource its owner key, and keeps an installed ApplyOnce add-on's frozen inputs as stored.
 *
 * @module
 */
import { createHmac } from "node:crypto";
import type * as pulumi from "@pulumi/pulumi";
import { SpecError } from "../../core/errors.js";
import { validateSpec } from "../../core/spec/index.js";
import { progressLine } from "../process/progress.js";
import { toSpec } from "../state/decode.js";
import { frozenInputsOf } from "../state/engine-options.js";
import type { ReleaseInputs } from "../state/shape.js";

/** Validates `news`; `olds` is empty for a resource about to be created. */
export async function check(olds: ReleaseInputs, news: ReleaseInputs): Promise<pulumi.dynamic.CheckResult> {
  const created = Object.keys(olds).length === 0;
  // Load what a create needs while the engine plans (an existing ApplyOnce add-on never needs it).
  if (created) preloadForCreate(news.kubeconfig);
  try {
    validateSpec(toSpec(news));
  } catch (err) {
    if (err instanceof SpecError) {
      return { failures: [{ property: err.field.split(".")[0] ?? err.field, reason: err.message }] };
    }
    throw err;
  }
  return { inputs: withOwnerKey(olds, created ? news : handedOffInputs(olds, news)) };
}

/** Starts loading the helm half and, when the kubeconfig needs it, `@kubernetes/client-node`. Never fails. */
function preloadForCreate(kubeconfig: unknown): void {
  import("./helm.js").catch(() => undefined);
  if (typeof kubeconfig !== "string") return;
  import("../../core/cluster/client.js").then((m) => m.preloadKubeClient(kubeconfig)).catch(() => undefined);
}

/**
 * The owner keys of existing resources this process has checked, by owner id. The engine checks a
 * replacement a second time without its predecessor's inputs (so that defaults are made anew),
 * always after checking it with them: the replacement takes its predecessor's key from here, and
 * with it the predecessor's release.
 */
const checkedOwnerKeys = new Map<string, string>();

/**
 * A new resource's owner key: HMAC-SHA256 under its kubeconfig (a secret only those who may
 * administer the cluster hold) of its owner id. A create that retries after one killed before its
 * state was saved makes the same key, so it recognizes the release that one left.
 */
function newOwnerKey(kubeconfig: string, ownerId: string): string {
  return createHmac("sha256", Buffer.from(kubeconfig, "utf8"))
    .update(`helm-handoff owner key\0${ownerId}`)
    .digest("base64url");
}

/** `inputs` with the stored owner key (also for a replacement), else a new one. */
function withOwnerKey(olds: ReleaseInputs, inputs: ReleaseInputs): ReleaseInputs {
  if (Object.keys(olds).length > 0) {
    checkedOwnerKeys.set(olds.ownerId, olds.ownerKey);
    return { ...inputs, ownerKey: olds.ownerKey };
  }
  const key = checkedOwnerKeys.get(inputs.ownerId) ?? newOwnerKey(String(inputs.kubeconfig), inputs.ownerId);
  return { ...inputs, ownerKey: key };
}

/**
 * The inputs of an installed ApplyOnce add-on: the frozen ones and the desired digest stay as
 * stored, and a changed spec is reported as ignored, so the stored state does not change and the
 * engine writes no checkpoint for it. A Node.js program's `ignoreChanges` freezes the same inputs
 * before this; the package's provider has only this. Another cluster (a replacement installs the
 * spec as it is now) and a change of strategy take the new inputs.
 */
function handedOffInputs(olds: ReleaseInputs, news: ReleaseInputs): ReleaseInputs {
  if (olds.strategy !== "ApplyOnce" || news.strategy !== "ApplyOnce" || olds.clusterId !== news.clusterId) {
    return news;
  }
  if (olds.desiredDigest !== news.desiredDigest) {
    progressLine(
      news.releaseName,
      `ApplyOnce: the spec changed but is ignored after handoff (release ${olds.namespace}/${olds.releaseName})`,
    );
  }
  const frozen = [...frozenInputsOf("ApplyOnce"), "desiredDigest" as const].map((key) => [key, olds[key]]);
  return { ...news, ...Object.fromEntries(frozen) };
}
