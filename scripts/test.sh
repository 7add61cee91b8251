#!/usr/bin/env bash
# The one test command (`npm test`): toolchain, type-check + compile, then every
# suite with Node's built-in test runner on the toolchain's Node (>= 22).
# Extra arguments are passed to `node --test` (e.g. a file filter).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [[ -z "${HELM_HANDOFF_TOOLCHAIN_BIN:-}" ]]; then
  exec "$root/scripts/with-toolchain.sh" "$0" "$@"
fi
echo "[test] node $(node --version), helm $(helm version --template '{{.Version}}')" >&2
rm -rf dist
tsc -p tsconfig.json
files=("$@")
if [[ ${#files[@]} -eq 0 ]]; then
  mapfile -t files < <(find dist/test -name '*.test.js' | sort)
fi
# Local clusters listen on fresh ports, and helm's Kubernetes discovery cache keeps a directory per
# API server address: keep it out of ~/.kube/cache for this run, and remove it afterwards.
if [[ -z "${KUBECACHEDIR:-}" ]]; then
  KUBECACHEDIR="$(mktemp -d "${TMPDIR:-/tmp}/helm-handoff-kubecache-XXXXXX")"
  export KUBECACHEDIR
  trap 'rm -rf "$KUBECACHEDIR"' EXIT
fi
node --test --test-reporter=spec --test-concurrency=2 "${files[@]}"
