/**
 * The strategy table: per strategy and per step of the resource lifecycle, which helm calls may
 * run. This file answers "what may ApplyOnce do after handoff?": nothing. Its first successful
 * `create` is the handoff; after it, no step allows any helm call (diff, read, update and delete
 * are answered from the stored state); each front end says so in its own words (the Pulumi
 * engine's: `provider/state/engine-options.ts`). Every write of either
 * strategy (upgrade, rollback, uninstall, relabel) touches only a release whose current revision
 * this resource wrote (`ownershipOf`); one it did not write is adopted as it is (ApplyOnce) or
 * refused with an `OwnershipError` (Reconcile). The Pulumi provider's steps and the lifecycle
 * (`ensureRelease`, `removeRelease`) read this table, and every runner they create refuses a call
 * the table does not list (`HelmCallNotAllowedError`), so a rule cannot be broken by a forgotten `if`.
 *
 * @module
 */
import type { HelmCallName, HelmCallPolicy } from "../helm/types.js";
import type { Strategy } from "../spec/index.js";

/** A step of the resource lifecycle, as a Pulumi dynamic provider sees it. */
export type LifecycleStep = "check" | "diff" | "create" | "read" | "update" | "delete";

/** The helm calls each step of the lifecycle may make. */
export interface StepCalls {
  /** Validating inputs: never helm. */
  readonly check: readonly HelmCallName[];
  /** Planning a change: never helm (decided from the stored state). */
  readonly diff: readonly HelmCallName[];
  /** The first install (or adoption, or recovery). */
  readonly create: readonly HelmCallName[];
  /** Refresh. */
  readonly read: readonly HelmCallName[];
  /** A change of the spec. */
  readonly update: readonly HelmCallName[];
  /** Delete (destroy, replace). */
  readonly delete: readonly HelmCallName[];
}

/** What one strategy allows. */
export interface StrategyRules {
  /** The helm calls each step may make; an empty list means no helm process at all. */
  readonly helm: StepCalls;
  /**
   * What a create or update does with a release whose current revision this resource did not
   * write (see `ownershipOf`): `"adopt"` it as it is, with no helm write (whatever its state), or
   * `"refuse"` with an `OwnershipError` that names its owner. Releases it did write are repaired
   * (rolled back, uninstalled, waited for) and, where the step allows, upgraded.
   */
  readonly notOurs: "adopt" | "refuse";
}

/**
 * Install (a create tries it first), adopt, recover a stuck release of ours, clean up a partial
 * install of ours, and re-mark a revision our rollback made (`relabel`: helm copies the target's labels).
 */
const FIRST_INSTALL: readonly HelmCallName[] = [
  "version",
  "install",
  "status",
  "history",
  "rollback",
  "uninstall",
  "relabel",
];
/** The same, plus comparing values and upgrading (Reconcile). */
const CONVERGE: readonly HelmCallName[] = [...FIRST_INSTALL, "getValues", "upgrade"];

/** The table. */
export const STRATEGY_TABLE: { readonly [S in Strategy]: StrategyRules } = {
  ApplyOnce: {
    helm: { check: [], diff: [], create: FIRST_INSTALL, read: [], update: [], delete: [] },
    notOurs: "adopt",
  },
  Reconcile: {
    helm: {
      check: [],
      diff: [],
      create: CONVERGE,
      read: ["version", "status", "getValues"],
      update: CONVERGE,
      delete: ["version", "status", "uninstall"],
    },
    notOurs: "refuse",
  },
};

/** The helm calls `strategy` allows at `step`. */
export function allowedHelmCalls(strategy: Strategy, step: LifecycleStep): ReadonlySet<HelmCallName> {
  return new Set(STRATEGY_TABLE[strategy].helm[step]);
}

/** Whether `strategy` lets `step` run helm at all. */
export function mayCallHelm(strategy: Strategy, step: LifecycleStep): boolean {
  return STRATEGY_TABLE[strategy].helm[step].length > 0;
}

/** Whether `strategy` lets `step` make `call`. */
export function mayCall(strategy: Strategy, step: LifecycleStep, call: HelmCallName): boolean {
  return STRATEGY_TABLE[strategy].helm[step].includes(call);
}

/** The runner policy of `strategy` at `step` (see `HelmRunnerOptions.policy`). */
export function helmPolicy(strategy: Strategy, step: LifecycleStep): HelmCallPolicy {
  return { allowed: allowedHelmCalls(strategy, step), context: `${strategy} ${step}` };
}
