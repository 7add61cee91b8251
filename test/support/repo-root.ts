/**
 * The repository root, found from this module's own location, so that tests, benches and their
 * support code reach the charts, fixtures, scripts and the package itself whether they run from
 * the sources or from the compiled files under dist/.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let cachedRoot: string | undefined;

/**
 * The repository root: the nearest directory above this module whose package.json is named `helm-handoff`.
 * Works from the sources (test/support/) and from the compiled files (dist/test/support/).
 *
 * @throws Error when no such package.json is found.
 */
export function repoRoot(): string {
  if (cachedRoot !== undefined) return cachedRoot;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const manifest: unknown = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      if (typeof manifest === "object" && manifest !== null && "name" in manifest) {
        if (manifest.name === "helm-handoff") {
          cachedRoot = dir;
          return dir;
        }
      }
    } catch {
      // no (readable) package.json here: go up
    }
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error("repository root not found: no package.json named helm-handoff above");
    dir = parent;
  }
}
