/**
 * Running a TypeScript cdk8s example of the docs as written: the first `ts` block after a heading
 * of docs/cdk8s.md, saved as `main.ts` in a temp dir with its `cdk8s` and `helm-handoff/cdk8s`
 * imports pointed at this checkout's, run by Node (which strips the types) in that dir as
 * `cdk8s synth` runs an app, and the objects it wrote to `dist/` read back. Test-only code.
 *
 * @module
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import type { KubeObject } from "../../core/util/kube-object.js";
import { codeBlockAfter } from "./markdown.js";
import { repoRoot } from "./repo-root.js";

/** A fenced block of docs/cdk8s.md: the first of `lang` after the line `heading`. */
export async function docsBlock(heading: string, lang: string): Promise<string> {
  return codeBlockAfter(await readFile(join(repoRoot(), "docs", "cdk8s.md"), "utf8"), heading, lang);
}

/**
 * Runs the `ts` block after `heading` of docs/cdk8s.md with `env` added, and returns the objects
 * it synthesized, in the order of the files cdk8s wrote.
 * @throws Error with the app's stderr when it fails
 */
export async function runDocsExample(
  heading: string,
  env: Readonly<Record<string, string>> = {},
): Promise<KubeObject[]> {
  const source = (await docsBlock(heading, "ts"))
    .replace(/from "cdk8s";/g, `from ${JSON.stringify(import.meta.resolve("cdk8s"))};`)
    .replace(
      /from "helm-handoff\/cdk8s";/g,
      `from ${JSON.stringify(new URL("../../constructs/index.js", import.meta.url).href)};`,
    );
  const dir = await mkdtemp(join(tmpdir(), "hh-docs-example-"));
  try {
    await writeFile(join(dir, "main.ts"), source);
    await promisify(execFile)(process.execPath, ["main.ts"], {
      cwd: dir,
      env: { ...process.env, ...env },
      encoding: "utf8",
    });
    const out = join(dir, "dist");
    const files = (await readdir(out)).filter((f) => f.endsWith(".yaml")).sort();
    const objects: KubeObject[] = [];
    for (const f of files) {
      for (const doc of parseAllDocuments(await readFile(join(out, f), "utf8"))) {
        const js = doc.toJS() as KubeObject | null;
        if (js !== null) objects.push(js);
      }
    }
    return objects;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
