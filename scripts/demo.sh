#!/usr/bin/env bash
# `npm run demo [-- --kubeconfig FILE]`: compiles, then runs examples/bootstrap/demo.ts
# on the toolchain's Node with the toolchain's pulumi and helm.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [[ -z "${HELM_HANDOFF_TOOLCHAIN_BIN:-}" ]]; then
  exec "$root/scripts/with-toolchain.sh" --demo "$0" "$@"
fi
scripts/build.sh
exec node dist/examples/bootstrap/demo.js "$@"
