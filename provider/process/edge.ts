/**
 * What the package changes in a process beyond its own code, in one place at the process's edge:
 * Node's compile cache in the provider processes ({@link keepCompileCache}), plain V8 stack traces
 * in the plugin ({@link plainStackTraces}) and no debug stack traces while an add-on registers
 * ({@link quietPromiseStacks}).
 *
 * The compile cache is kept in the provider processes: the package's plugin, and Pulumi's
 * dynamic provider host once it loads our release code. Node writes the cache it collected when
 * the process exits, but Pulumi's engine ends a plugin with SIGINT to its process group
 * (`cmdutil.InterruptChildren`, SIGKILL 5 s later), and a Node.js process that dies of a signal it
 * does not handle writes nothing: a YAML `up` left the cache directory empty. So the first SIGINT
 * writes the cache, and the process then dies of that same signal as before (the listener is gone,
 * so the default action applies). Only provider processes call this; a program's own SIGINT
 * handling is left alone. The cache goes to `NODE_COMPILE_CACHE` when set, else to Node's default
 * directory under the OS temp dir. Node 22.12 and later; elsewhere nothing happens.
 *
 * @module
 */
import * as nodeModule from "node:module";

let flushOnInterrupt = false;

/**
 * Turns on the compile cache for modules loaded from now on, and writes it when the engine ends
 * the process. Idempotent.
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
 * Turns off the Pulumi SDK's debug stack traces for a registration of ours (a release, the
 * registration of an add-on) until the returned function restores them: the SDK
 * captures `new Error().stack` for each of the four promises of every property it registers (for
 * its leaked-promise report), and with source maps installed each capture is costly, many of
 * them before the first release reaches the engine. Those traces
 * would only point into this package; a resource's own source position is still recorded (the
 * SDK lifts the limit for it).
 */
export function quietPromiseStacks(): () => void {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  return () => {
    Error.stackTraceLimit = limit;
  };
}
