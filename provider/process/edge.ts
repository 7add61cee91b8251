/**
 * What the package changes in a process beyond its own code, in one place: Node's compile cache
 * in the provider processes ({@link keepCompileCache}), plain V8 stack traces in the plugin
 * ({@link plainStackTraces}) and no debug stack traces while an add-on registers
 * ({@link quietPromiseStacks}).
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
