/**
 * Node's on-disk compile cache in the provider processes: the package's plugin, and Pulumi's
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
import type * as nodeModule from "node:module";

let flushOnInterrupt = false;

/**
 * Turns on the compile cache for modules loaded from now on, and writes it when the engine ends
 * the process. Idempotent.
 */
function keepCompileCache(): void {
  const { enableCompileCache, flushCompileCache } = require("node:module") as Partial<typeof nodeModule>;
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

export = keepCompileCache;
