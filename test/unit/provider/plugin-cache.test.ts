/**
 * The package's provider in Pulumi's plugin cache (provider/plugin-cache.ts) and the route a
 * program's add-ons take (provider/package-provider.ts `providerRoute`), on temp directories: the
 * launcher the engine runs, written once per process and path, replaced when it names another
 * installation, kept when someone else's plugin is there; a cache that cannot be written sends the
 * add-ons to the dynamic provider with the reason; the environment variable's two words.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { providerRoute } from "../../../provider/package-provider.js";
import { cachePlugin, launcherScript, pluginCacheDir } from "../../../provider/plugin-cache.js";

const root = mkdtempSync(join(tmpdir(), "hh-plugin-cache-"));
after(() => rmSync(root, { recursive: true, force: true }));
let homes = 0;

/** A fresh PULUMI_HOME, and where the launcher of version `version` goes in it. */
function home(version = "9.9.9"): { env: NodeJS.ProcessEnv; launcher: string } {
  const dir = join(root, `home-${homes++}`);
  return {
    env: { PULUMI_HOME: dir },
    launcher: join(dir, "plugins", `resource-helm-handoff-v${version}`, "pulumi-resource-helm-handoff"),
  };
}

test("the plugin cache is PULUMI_HOME's plugins directory, by default ~/.pulumi/plugins", () => {
  assert.equal(pluginCacheDir({ PULUMI_HOME: "/x/home" }), "/x/home/plugins");
  assert.match(pluginCacheDir({}), /\/\.pulumi\/plugins$/);
});

test("the launcher runs this installation's plugin entry point with the program's node, each quoted for sh", () => {
  assert.equal(
    launcherScript("/opt/it's/node_modules/helm-handoff/dist/provider/plugin/main.cjs", "/usr/bin/node"),
    "#!/bin/sh\n# helm-handoff launcher: the package's provider from this installation (rewritten by its programs).\nexec '/usr/bin/node' '/opt/it'\\''s/node_modules/helm-handoff/dist/provider/plugin/main.cjs' \"$@\"\n",
  );
});

test("a program's first add-on writes an executable launcher for its installation under the version's plugin directory", () => {
  const { env, launcher } = home();
  assert.deepEqual(cachePlugin("/pkg/a", "9.9.9", env, "/bin/node"), { version: "9.9.9" });
  assert.equal(readFileSync(launcher, "utf8"), launcherScript("/pkg/a", "/bin/node"));
  assert.equal(statSync(launcher).mode & 0o777, 0o755);
});

test("a launcher that names another installation is replaced, and a plugin someone else put there is kept", () => {
  const stale = home();
  mkdirSync(join(stale.launcher, ".."), { recursive: true });
  writeFileSync(stale.launcher, launcherScript("/pkg/gone", "/bin/node"));
  assert.deepEqual(cachePlugin("/pkg/b", "9.9.9", stale.env, "/bin/node"), { version: "9.9.9" });
  assert.equal(readFileSync(stale.launcher, "utf8"), launcherScript("/pkg/b", "/bin/node"));

  const installed = home();
  mkdirSync(join(installed.launcher, ".."), { recursive: true });
  writeFileSync(installed.launcher, "a released plugin binary");
  assert.deepEqual(cachePlugin("/pkg/c", "9.9.9", installed.env, "/bin/node"), { version: "9.9.9" });
  assert.equal(readFileSync(installed.launcher, "utf8"), "a released plugin binary");
});

test("a file where the plugins directory should be leaves the add-ons on the dynamic provider, with the reason in the warning", () => {
  const blocked = home();
  mkdirSync(blocked.env.PULUMI_HOME as string, { recursive: true });
  writeFileSync(join(blocked.env.PULUMI_HOME as string, "plugins"), "not a directory");
  const route = providerRoute("/nonexistent-project", blocked.env);
  assert.equal(route.kind, "dynamic");
  assert.match(
    (route as { warning?: string }).warning ?? "",
    /^helm-handoff: ClusterAddons use Pulumi's dynamic provider host: \/.+\/plugins\/resource-helm-handoff-v\d+\.\d+\.\d+\/pulumi-resource-helm-handoff cannot be written \(ENOTDIR\)$/,
  );
});

test("by default a program's add-ons go to the package's provider in the plugin cache, at the package's version", () => {
  const fresh = home();
  const route = providerRoute("/nonexistent-project", fresh.env);
  assert.equal(route.kind, "package");
  const version = (route as { version?: string }).version ?? "";
  assert.match(version, /^\d+\.\d+\.\d+/);
  assert.match(
    readFileSync(fresh.launcher.replace("9.9.9", version), "utf8"),
    /^#!\/bin\/sh\n# helm-handoff launcher:/,
  );
});

test("HELM_HANDOFF_PULUMI_PROVIDER=dynamic asks for the dynamic provider, and another word is refused naming the two", () => {
  const fresh = home();
  assert.deepEqual(
    providerRoute("/nonexistent-project", { ...fresh.env, HELM_HANDOFF_PULUMI_PROVIDER: "dynamic" }),
    {
      kind: "dynamic",
    },
  );
  assert.throws(
    () => providerRoute("/nonexistent-project", { ...fresh.env, HELM_HANDOFF_PULUMI_PROVIDER: "fast" }),
    {
      message:
        'HELM_HANDOFF_PULUMI_PROVIDER=fast: say "dynamic" (Pulumi\'s dynamic provider host) or "package" (the package\'s provider, the default)',
    },
  );
});
