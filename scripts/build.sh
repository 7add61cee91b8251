#!/usr/bin/env bash
# Compiles (`tsc -p TSCONFIG`, default tsconfig.json; `npm run build`, and every script that runs
# compiled code), marks every `bin` of package.json executable (tsc writes its files without the
# bit, and npm's links in node_modules/.bin point at them), then bundles the package's provider
# plugin into dist/provider/bundle/: the engine starts that process on every `up`, and one file per
# lazily loaded part (with `yaml` inside) loads faster than the ~100 files it is made of. Chunks
# keep each module once, so a part loaded later shares the modules already loaded; packages the
# plugin loads only to install (`@kubernetes/client-node`) and type-only ones stay outside.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
"$root/node_modules/.bin/tsc" -p "${1:-tsconfig.json}"
mapfile -t bins < <(node -p 'Object.values(require("./package.json").bin ?? {}).join("\n")')
for bin in "${bins[@]}"; do
  [[ -z "$bin" || ! -f "$bin" ]] || chmod +x "$bin"
done
rm -rf dist/provider/bundle
"$root/node_modules/.bin/esbuild" dist/provider/plugin/provider.js --bundle --splitting \
  --format=esm --platform=node --target=node22 --outdir=dist/provider/bundle --log-level=warning \
  --external:@kubernetes/client-node --external:@pulumi/pulumi \
  --banner:js="import { createRequire as __helmHandoffRequire } from 'node:module'; const require = __helmHandoffRequire(import.meta.url);"
