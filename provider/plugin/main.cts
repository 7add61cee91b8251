/**
 * The entry point of the `helm-handoff` Pulumi plugin, reached two ways:
 * - run directly: the engine finds the executable `pulumi-resource-helm-handoff` at the package
 *   root (a two-line `sh` script) and runs it, which runs this file with `node` and the engine's
 *   arguments. That skips Pulumi's Node.js plugin host, which loads TypeScript and ts-node before
 *   any plugin (0.5 s or more of every plugin start);
 * - through the plugin host (`PulumiPlugin.yaml`, `runtime: nodejs`), where Pulumi has no
 *   executable to run (Windows, `pulumi package get-schema` of the directory): the host
 *   `require`s the package's `main` (this file) and, when it gets a function, calls it with
 *   `process.argv` set to the engine's arguments.
 * Either way the function loads the provider (`provider.ts`) and serves it.
 *
 * @module
 */
async function servePlugin(): Promise<void> {
  // Node's on-disk compile cache for helm-handoff and its dependencies (Node >= 22.1).
  require("node:module").enableCompileCache?.();
  const { serve } = await import("./provider.js");
  await serve(process.argv.slice(2));
}

if (require.main === module) {
  servePlugin().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}

export = servePlugin;
