#!/usr/bin/env bash
# The one test command (`npm test`): toolchain, type-check + compile, then every
# suite with Node's built-in test runner on the toolchain's Node (>= 22).
# Extra arguments are passed to `node --test` (e.g. a file filter); `--unit` runs only the unit
# tests, test/unit/ (no cluster, no engine: `npm run test:unit`), with a toolchain of Node and helm
# only; `--e2e` runs only test/e2e/, the rest (.ci/run runs the unit tests before it).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [[ -z "${HELM_HANDOFF_TOOLCHAIN_BIN:-}" ]]; then
  profile=()
  [[ "${1:-}" != --unit ]] || profile=(--unit)
  exec "$root/scripts/with-toolchain.sh" "${profile[@]}" "$0" "$@"
fi
echo "[test] node $(node --version), helm $(helm version --template '{{.Version}}')" >&2
rm -rf dist
scripts/build.sh
files=("$@")
if [[ "${1:-}" == --unit || "${1:-}" == --e2e ]]; then
  mapfile -t files < <(find "dist/test/${1#--}" -name '*.test.js' | sort)
elif [[ ${#files[@]} -eq 0 ]]; then
  mapfile -t files < <(find dist/test -name '*.test.js' | sort)
fi
# Every temp file of the run (the suites' own, local clusters', helm's) goes under one directory,
# removed at the end: nothing a test forgets or a killed process leaves stays in /tmp. helm's
# Kubernetes discovery cache too: it keeps a directory per API server address, and every local
# cluster has a new one, so it would otherwise grow in ~/.kube/cache run after run.
# A failed chaos run's transcript is the exception: it goes to the caller's temp dir and stays.
export HELM_HANDOFF_CHAOS_DIR="${HELM_HANDOFF_CHAOS_DIR:-${TMPDIR:-/tmp}/helm-handoff-chaos}"
run_tmp="$(mktemp -d "${TMPDIR:-/tmp}/helm-handoff-test-run-XXXXXX")"
trap 'rm -rf "$run_tmp"' EXIT
export TMPDIR="$run_tmp"
export KUBECACHEDIR="${KUBECACHEDIR:-$run_tmp/kube-cache}"
node --test --test-reporter=spec --test-concurrency=2 "${files[@]}"
