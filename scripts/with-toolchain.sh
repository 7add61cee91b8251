#!/usr/bin/env bash
# Runs a command with the toolchain's bin dir (node 24, helm, etcd, kube-*, kwok, pulumi with its
# bundled plugins and language hosts laid out as a Pulumi install has them) first on PATH, then
# the project's node_modules/.bin.
# Builds whatever is missing first (see scripts/toolchain.sh): leading group flags of
# scripts/toolchain.sh (`--unit`, `--demo`, `--cluster`, `--gitops flux`, ...) build only those
# groups. Without one, `helm-handoff-local` (also as `npx helm-handoff-local`) gets what its
# arguments start: etcd and kube-apiserver, plus `--workloads`', `--gitops KIND`'s and `--capi`'s binaries;
# any other command gets everything.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
groups=()
while [[ "${1:-}" == --* ]]; do
  if [[ "$1" == --gitops ]]; then
    groups+=("$1" "${2:-}")
    shift
  else
    groups+=("$1")
  fi
  shift
done
(($#)) || { echo "usage: scripts/with-toolchain.sh [GROUP FLAG...] COMMAND [ARG...]" >&2; exit 2; }
command=("$@")
[[ "${command[0]}" != npx ]] || command=("${command[@]:1}")
if ((${#groups[@]} == 0)) && [[ "$(basename "${command[0]:-}")" == helm-handoff-local ]]; then
  groups=(--cluster)
  for ((i = 1; i < ${#command[@]}; i++)); do
    case "${command[i]}" in
      --workloads) groups+=(--workloads) ;;
      --gitops) groups+=(--gitops "${command[i + 1]:-}") ;;
      --gitops=*) groups+=(--gitops "${command[i]#--gitops=}") ;;
      --capi) groups+=(--capi) ;;
    esac
  done
fi
bin="$("$root/scripts/toolchain.sh" "${groups[@]}" --print-bin)"
export PATH="$bin:$root/node_modules/.bin:$PATH"
export HELM_HANDOFF_TOOLCHAIN_BIN="$bin"
exec "$@"
