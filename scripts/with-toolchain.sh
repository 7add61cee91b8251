#!/usr/bin/env bash
# Runs a command with the toolchain's bin dir (node 24, helm, etcd, kube-*, kwok, pulumi with its
# bundled plugins and language hosts laid out as a Pulumi install has them) first on PATH, then
# the project's node_modules/.bin.
# Builds whatever is missing first (see scripts/toolchain.sh); with a leading `--demo`, only what the
# demo needs.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
profile=()
if [[ "${1:-}" == --demo ]]; then
  profile=(--demo)
  shift
fi
bin="$("$root/scripts/toolchain.sh" "${profile[@]}" --print-bin)"
export PATH="$bin:$root/node_modules/.bin:$PATH"
export HELM_HANDOFF_TOOLCHAIN_BIN="$bin"
exec "$@"
