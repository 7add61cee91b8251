#!/usr/bin/env bash
# Runs a command with the toolchain's bin dir (node 24, helm, etcd, kube-*, kwok, pulumi with its
# bundled plugins and language hosts laid out as a Pulumi install has them) first on PATH, then
# the project's node_modules/.bin.
# Builds whatever is missing first (see scripts/toolchain.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$("$root/scripts/toolchain.sh" --print-bin)"
export PATH="$bin:$root/node_modules/.bin:$PATH"
export HELM_HANDOFF_TOOLCHAIN_BIN="$bin"
exec "$@"
