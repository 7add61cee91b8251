/**
 * The entry point of the `helm-handoff` Pulumi plugin: the package's `main`. Pulumi's Node.js
 * plugin host (`@pulumi/pulumi/cmd/run-plugin`) `require`s the package directory and, when it gets
 * a function, calls it with `process.argv` set to the engine's arguments. Requiring this file
 * has no other effect; the function loads the provider (`provider.ts`) and serves it.
 *
 * @module
 */
export = async function servePlugin(): Promise<void> {
  // Node's on-disk compile cache for helm-handoff and its dependencies (Node >= 22.1).
  require("node:module").enableCompileCache?.();
  // The plugin host registers ts-node for TypeScript plugins, whose stack-trace hook maps every
  // frame through source maps. This package ships JavaScript, and the Pulumi SDK takes a full
  // stack for each resource it registers: with the hook, ten `ClusterAddon`s take 0.2 s longer
  // to construct. Plain V8 stack traces (paths into dist/) are enough in this process.
  (Error as { prepareStackTrace?: unknown }).prepareStackTrace = undefined;
  const { serve } = await import("./provider.js");
  await serve(process.argv.slice(2));
};
