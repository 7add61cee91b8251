#!/usr/bin/env bash
# Compiles (`tsc -p TSCONFIG`, default tsconfig.json; `npm run build`, and every script that runs
# compiled code), then marks every `bin` of package.json executable: tsc writes its files without
# the bit, and npm's links in node_modules/.bin (`npx helm-handoff-local`) point at them.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
"$root/node_modules/.bin/tsc" -p "${1:-tsconfig.json}"
mapfile -t bins < <(node -p 'Object.values(require("./package.json").bin ?? {}).join("\n")')
for bin in "${bins[@]}"; do
  [[ -z "$bin" || ! -f "$bin" ]] || chmod +x "$bin"
done
