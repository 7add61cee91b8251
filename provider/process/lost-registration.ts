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
 * registered or the runtime has stopped its calls; in the second case it logs an error, which
 * makes the runtime fail the program, so the update fails and deletes nothing. When the engine
 * really is shutting down, the update was ending anyway. It reads the runtime's per-run state
 * (`terminated`, set when the runtime stops its calls), which the SDK does not type: where that is
 * missing, the guard does nothing.
 *
 * @module
 */
import * as log from "@pulumi/pulumi/log/index.js";
import type { Resource } from "@pulumi/pulumi/resource.js";
import { rpcKeepAlive } from "@pulumi/pulumi/runtime/settings.js";
import * as runtimeState from "@pulumi/pulumi/runtime/state.js";

/** The runtime's per-run state, as far as the guard reads it. */
interface RunState {
  readonly terminated?: boolean;
}

/** How often the guard looks whether the runtime stopped its calls. */
const POLL_MS = 50;

/** The runs (the runtime's per-run state) whose program already got the guard's error. */
const failedRuns = new WeakSet<object>();

/** Fails the program when the runtime stops its calls before `resource` is registered. */
export function failProgramOnLostRegistration(resource: Resource, name: string): void {
  const getStore = (runtimeState as unknown as { getStore?: () => RunState | undefined }).getStore;
  const run = getStore?.();
  const urn = (resource.urn as unknown as { promise?: () => Promise<unknown> }).promise?.();
  if (run === undefined || urn === undefined) return;
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
    if (!failedRuns.has(run)) {
      failedRuns.add(run);
      // The error counts even when the engine can no longer be told (its channel is closed).
      log
        .error(
          `helm-handoff: the engine stopped answering while ${name} was being registered (it is shutting down, or a provider process died); ` +
            "the program fails so that the update deletes nothing it did not see. Run the same operation again.",
        )
        .catch(() => undefined);
    }
    finish();
  };
  look();
}
