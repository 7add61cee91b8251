/**
 * A guard in the program's process against a deletion nobody asked for. When the engine answers an
 * add-on's registration with gRPC `UNAVAILABLE` or `CANCELLED`, Pulumi's Node.js runtime takes it
 * as the engine shutting down: it stops its calls, leaves the resource's outputs unresolved and
 * reports no error, and the Automation API's in-process language server then ends an inline
 * program as a success. But the engine also answers so when the provider behind the registration
 * died (a killed or crashed provider process), and it then finishes the update as if the program
 * had dropped every add-on it did not get to register: it deletes them, and a Reconcile add-on's
 * delete uninstalls its release. The fault campaign saw exactly that (`npm run chaos`, seed 1056).
 *
 * {@link failProgramOnLostRegistration} keeps the program from ending until the add-on is
 * registered or the runtime has stopped its calls. In the second case it fails the program (it
 * counts an error on the runtime's state, so the runtime ends the program as failed) and the
 * update deletes nothing (the runtime's `log.error` would not fail a program the CLI runs). It speaks only when the registration was really lost: when a step of
 * the update failed (the provider leaves a note, `./failed-steps.ts`), the engine stopped the
 * update for that step's error and shows it, and the guard adds nothing. Its line goes through a
 * connection of its own to the engine: the runtime closes its own as it stops its calls, and a
 * log sent there fails with `Channel has been shut down`. It reads the runtime's per-run state
 * (`terminated`, `logErrorCount`, the engine's address), which the SDK does not type: where that
 * is missing, the guard does nothing.
 *
 * @module
 */
import type { Resource } from "@pulumi/pulumi/resource.js";
import { rpcKeepAlive } from "@pulumi/pulumi/runtime/settings.js";
import * as runtimeState from "@pulumi/pulumi/runtime/state.js";
import { stepFailedSince } from "./failed-steps.js";

/** The runtime's per-run state, as far as the guard reads it. */
interface RunState {
  terminated?: boolean;
  logErrorCount?: number;
  readonly settings?: { readonly options?: { readonly engineAddr?: string } };
}

/** How often the guard looks whether the runtime stopped its calls. */
const POLL_MS = 50;

/** How long the guard's line may take to reach the engine before it goes to stderr. */
const SAY_DEADLINE_MS = 2000;

/** When each run (the runtime's per-run state) first met the guard: a failed step's note counts from then. */
const runStarts = new WeakMap<object, number>();

/** The runs whose program the guard already failed. */
const failedRuns = new WeakSet<object>();

/** What the guard says when a registration was lost. */
export function lostRegistrationMessage(name: string): string {
  return (
    `helm-handoff: the engine stopped answering while ${name} was being registered (it is shutting down, or a provider process died); ` +
    "the program fails so that the update deletes nothing it did not see. Run the same operation again."
  );
}

export function failProgramOnLostRegistration(resource: Resource, name: string): void {
  const getStore = (runtimeState as unknown as { getStore?: () => RunState | undefined }).getStore;
  const run = getStore?.();
  const urn = (resource.urn as unknown as { promise?: () => Promise<unknown> }).promise?.();
  if (run === undefined || urn === undefined) return;
  if (!runStarts.has(run)) runStarts.set(run, Date.now());
  const release = rpcKeepAlive();
  let settled = false;
  const finish = (): void => {
    if (settled) return;
    settled = true;
    release();
  };
  urn.then(finish, finish);
  const look = (): void => {
    if (settled) return;
    if (run.terminated !== true) {
      setTimeout(look, POLL_MS).unref();
      return;
    }
    // One error per program: every add-on still registering sees the same stop.
    if (failedRuns.has(run)) {
      finish();
      return;
    }
    failedRuns.add(run);
    failRun(run);
    const engine = run.settings?.options?.engineAddr;
    const stepFailed =
      engine !== undefined && engine !== "" && stepFailedSince(engine, runStarts.get(run) ?? 0);
    if (stepFailed) {
      finish();
      return;
    }
    say(engine, lostRegistrationMessage(name)).finally(finish);
  };
  look();
}

/**
 * Makes the run end as failed without a call to the engine: an inline Automation API program fails
 * when the runtime counted an error; a program the CLI runs fails by its exit code, which the
 * language host takes as "the error was already shown" (32, the runtime's own code for that).
 */
function failRun(run: RunState): void {
  run.logErrorCount = (run.logErrorCount ?? 0) + 1;
  const getLocalStore = (runtimeState as unknown as { getLocalStore?: () => unknown }).getLocalStore;
  if (getLocalStore?.() === undefined && (process.exitCode === undefined || process.exitCode === 0)) {
    process.exitCode = 32;
  }
}

/** Sends `message` to the engine as an error, on a connection of the guard's own, else to stderr. */
async function say(engine: string | undefined, message: string): Promise<void> {
  const fallback = `error: ${message}`;
  if (engine === undefined || engine === "") {
    process.stderr.write(`${fallback}\n`);
    return;
  }
  const { ERROR, sendEngineLog } = await import("../plugin/engine-log.js");
  await sendEngineLog(engine, ERROR, message, { fallback, deadlineMs: SAY_DEADLINE_MS });
}
