/**
 * The entry point of the `helm-handoff` Pulumi plugin (the package's `main`), reached two ways.
 * On Linux and macOS the engine runs the executable `pulumi-resource-helm-handoff` at the package
 * root, a short `sh` script that runs `node` on the package directory, so this file is the main
 * module and serves at once with the engine's arguments; that skips Pulumi's Node.js plugin host,
 * which loads TypeScript and ts-node before any plugin (README "Measured"). Where Pulumi has no
 * executable to run (Windows, or a command given the package directory itself, such as `pulumi
 * package add` or `pulumi package get-schema`), it uses `PulumiPlugin.yaml`: the plugin host
 * `require`s this file and, getting a function, calls it with `process.argv` set to the engine's
 * arguments. Either way the function turns on Node's compile cache (`keepCompileCache`), loads
 * the provider from its bundle (`scripts/build.sh` makes `dist/provider/bundle/` from
 * `provider.ts` and what it loads) and serves it.
 *
 * @module
 */
async function servePlugin(): Promise<void> {
  // Before anything else loads, so that the Pulumi SDK and helm-handoff are cached too.
  (await import("../process/edge.js")).keepCompileCache();
  const bundle: string = "../bundle/provider.js";
  const { serve } = (await import(bundle)) as typeof import("./provider.js");
  await serve(process.argv.slice(2));
}

if (require.main === module) {
  servePlugin().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}

export = servePlugin;
