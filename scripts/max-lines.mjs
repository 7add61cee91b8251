#!/usr/bin/env node
// The file-size check (`npm run lint` runs it): no TypeScript or JavaScript module source in the
// repository (.ts, .cts, .mts, .mjs, .cjs; test charts, build output and dependencies aside) is over
// 450 lines, so that every file stays one topic a reader can hold. Names each file over the limit.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const MAX_LINES = 450;
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const tracked = execFileSync("git", ["ls-files", "-co", "--exclude-standard"], {
  cwd: root,
  encoding: "utf8",
})
  .split("\n")
  .filter((f) => /\.(ts|cts|mts|mjs|cjs)$/.test(f))
  .filter((f) => !/(^|\/)(node_modules|dist|charts)\//.test(f) && !f.startsWith("constructs-jsii/lib/"));

const over = [];
for (const file of tracked) {
  let text;
  try {
    text = readFileSync(join(root, file), "utf8");
  } catch {
    continue; // deleted in the worktree, not yet in the index
  }
  const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  if (lines > MAX_LINES) over.push(`${file}: ${lines} lines`);
}
if (over.length > 0) {
  console.error(`max-lines: ${over.length} file(s) over ${MAX_LINES} lines (split them by topic):`);
  for (const line of over) console.error(`  ${line}`);
  process.exit(1);
}
