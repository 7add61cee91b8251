/**
 * What the package changes in a process beyond its own code, in one place: Node's compile cache
 * in the provider processes ({@link keepCompileCache}), plain V8 stack traces in the plugin
 * ({@link plainStackTraces}), no debug stack traces while an add-on registers
 * ({@link quietPromiseStacks}) and a gRPC subchannel pool of its own for each connection the
 * program's Pulumi runtime opens to an engine ({@link ownSubchannelPools}).
 *
 * @module
 */
import * as nodeModule from "node:module";

let flushOnInterrupt = false;

/**
 * Turns on the compile cache for modules loaded from now on (Node 22.12 and later), and writes it
 * when the engine ends the process: the engine ends a plugin with SIGINT, and a process that dies
 * of a signal it does not handle writes no cache, so the first SIGINT writes it and then the
 * process dies of that signal as before. Idempotent; a program's own SIGINT handling is untouched.
 */
export function keepCompileCache(): void {
  const { enableCompileCache, flushCompileCache } = nodeModule as Partial<typeof nodeModule>;
  enableCompileCache?.();
  if (flushOnInterrupt || flushCompileCache === undefined) return;
  flushOnInterrupt = true;
  process.once("SIGINT", () => {
    try {
      flushCompileCache();
    } catch {
      // A cache that cannot be written only costs the next start its speed.
    }
    process.kill(process.pid, "SIGINT");
  });
}

/**
 * Plain V8 stack traces in this process: Pulumi's plugin host registers ts-node's hook, which
 * would map every frame through source maps (this package ships JavaScript).
 */
export function plainStackTraces(): void {
  (Error as { prepareStackTrace?: unknown }).prepareStackTrace = undefined;
}

/**
 * Turns off the Pulumi SDK's debug stack traces (captured for each promise of every registered
 * property, costly with source maps installed, and pointing only into this package) until the
 * returned function restores them. A resource's own source position is still recorded.
 */
export function quietPromiseStacks(): () => void {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  return () => {
    Error.stackTraceLimit = limit;
  };
}

/**
 * Gives each gRPC client the Pulumi runtime of this process creates from `clientOptions` (the
 * SDK's `grpcClientOptions`, read by the runtime each time it connects a run to its engine) a
 * subchannel pool of its own. By default gRPC shares one connection per address across the
 * process, and the runtime never closes a finished run's clients: when an engine that went away
 * left its address's connection waiting out a reconnect backoff, and a later engine listens on the
 * same port (a long-lived Automation API process runs many), the new run's first engine call fails
 * at once with `UNAVAILABLE`. The runtime takes that as the engine shutting down, skips the program
 * and ends it as a success with nothing registered, so the update deletes every add-on (the fault
 * campaign's seed 483089). Idempotent.
 */
export function ownSubchannelPools(clientOptions: Record<string, unknown> | undefined): void {
  if (clientOptions !== undefined) clientOptions["grpc.use_local_subchannel_pool"] = 1;
}
