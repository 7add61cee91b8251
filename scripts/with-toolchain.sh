#!/usr/bin/env bash
# Runs a command with the toolchain's bin dir (node 24, helm, etcd, kube-*, kwok, pulumi with its
# bundled plugins laid out as a Pulumi install has them) first on PATH, then ../shared/tools when
# it exists (pulumi-language-nodejs, Pulumi's Node.js language host, which no registry here
# serves: see its README), then the project's node_modules/.bin.
# Builds whatever is missing first (see scripts/toolchain.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$("$root/scripts/toolchain.sh" --print-bin)"
tools=""
[[ -d "$root/../shared/tools" ]] && tools="$(cd "$root/../shared/tools" && pwd):"
export PATH="$bin:$tools$root/node_modules/.bin:$PATH"
export HELM_HANDOFF_TOOLCHAIN_BIN="$bin"
exec "$@"
