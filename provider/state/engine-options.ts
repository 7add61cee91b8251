/**
 * The strategy table (`core/lifecycle/strategy.ts`) in the Pulumi engine's words. The table says
 * which helm calls each step may make; a strategy whose update may make none freezes the inputs
 * the program asks for after the first install ({@link frozenInputsOf}: the engine's
 * `ignoreChanges`, and the check of the package's provider), and one whose delete may make none
 * leaves the release on the cluster (`retainOnDelete`).
 *
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import { mayCallHelm } from "../../core/lifecycle/strategy.js";
import type { Strategy } from "../../core/spec/index.js";
import type { ReleaseInputs } from "./shape.js";

/** The inputs that say what to install: frozen after the first install when updates make no helm call. */
const SPEC_INPUTS = ["spec", "values", "chartPassword", "chartRepo", "releaseName", "namespace"] as const;

/** The inputs `strategy` freezes after the first install; identity, strategy and owner stay compared. */
export function frozenInputsOf(strategy: Strategy): readonly (keyof ReleaseInputs)[] {
  return mayCallHelm(strategy, "update") ? [] : SPEC_INPUTS;
}

/** Whether a delete under `strategy` leaves the release on the cluster. */
export function retainsOnDelete(strategy: Strategy): boolean {
  return !mayCallHelm(strategy, "delete");
}

/**
 * The engine's options the strategy puts on a dynamic release resource, over the user's, which
 * cannot turn them off: ApplyOnce's frozen inputs (`ignoreChanges`) and `retainOnDelete`.
 * Reconcile replaces in place.
 */
export function strategyOptions(
  strategy: Strategy,
  opts: pulumi.CustomResourceOptions,
): pulumi.CustomResourceOptions {
  const frozen = frozenInputsOf(strategy);
  const retain = retainsOnDelete(strategy);
  if (!retain && frozen.length === 0) return { deleteBeforeReplace: false, ...opts };
  return {
    ...opts,
    ignoreChanges: [...frozen, ...(opts.ignoreChanges ?? [])],
    retainOnDelete: retain || opts.retainOnDelete === true,
  };
}
