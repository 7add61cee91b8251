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
  const { serve } = await import("./provider.js");
  await serve(process.argv.slice(2));
};
