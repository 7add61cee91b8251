/**
 * The strategy table: per strategy and per step of the resource lifecycle, which helm calls may
 * run, and what the Pulumi engine is told to freeze. This file answers "what may ApplyOnce do
 * after handoff?": nothing. Its first successful `create` is the handoff; after it, no step
 * allows any helm call (diff, read, update and delete are answered from the stored state), the
 * engine ignores changes to the spec inputs and never deletes the release. Even a create (a new
 * add-on, or a replace) repairs only a release whose current revision helm-handoff made itself;
 * a release someone else wrote (e.g. GitOps, whose last upgrade failed) is adopted as it is. The Pulumi provider
 * (`provider/dynamic.ts`, `provider/component.ts`) and the lifecycle (`core/install.ts`) read
 * this table, and every runner they create refuses a call the table does not list
 * (`HelmCallNotAllowedError`), so a rule cannot be broken by a forgotten `if`.
 *
 * @module
 */
import type { HelmCallName, HelmCallPolicy } from "../helm/types.js";
import type { Strategy } from "../spec.js";

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
  /** Input keys the engine ignores after create (`ignoreChanges`; never `"*"`). */
  readonly frozenInputs: readonly string[];
  /** Whether a delete leaves the release on the cluster (`retainOnDelete`). */
  readonly retainOnDelete: boolean;
  /**
   * Which releases found in a bad state (failed, pending, unknown) a create may repair (roll back,
   * uninstall, wait for): `"own"`, only a revision helm-handoff made (see `ownership.ts`); anything
   * else is adopted as it is, with no helm write. `"any"`: every release of that name.
   */
  readonly repairs: "own" | "any";
}

/** Install (a create tries it first), adopt, recover a stuck release, clean up a partial install. */
const FIRST_INSTALL: readonly HelmCallName[] = [
  "version",
  "install",
  "status",
  "history",
  "rollback",
  "uninstall",
];
/** The same, plus comparing values and upgrading (Reconcile). */
const CONVERGE: readonly HelmCallName[] = [...FIRST_INSTALL, "getValues", "upgrade"];

/** The table. */
export const STRATEGY_TABLE: { readonly [S in Strategy]: StrategyRules } = {
  ApplyOnce: {
    helm: { check: [], diff: [], create: FIRST_INSTALL, read: [], update: [], delete: [] },
    frozenInputs: ["spec", "values", "chartPassword", "releaseName", "namespace"],
    retainOnDelete: true,
    repairs: "own",
  },
  Reconcile: {
    helm: {
      check: [],
      diff: [],
      create: CONVERGE,
      read: ["version", "status", "getValues"],
      update: CONVERGE,
      delete: ["version", "uninstall"],
    },
    frozenInputs: [],
    retainOnDelete: false,
    repairs: "any",
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
