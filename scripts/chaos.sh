#!/usr/bin/env bash
# `npm run chaos -- [--seed S] [--runs N] [--addons K]`: compiles, then runs the seeded fault
# campaign (dist/test/chaos/main.js) on the toolchain's Node, with the tools it uses (helm, etcd and
# kube-apiserver, Pulumi, and the OCI registry, which only the whole toolchain has). Prints the
# figures; exits 1 when a run broke an invariant.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [[ -z "${HELM_HANDOFF_TOOLCHAIN_BIN:-}" ]]; then
  exec "$root/scripts/with-toolchain.sh" "$0" "$@"
fi
scripts/build.sh
# helm's Kubernetes discovery cache keeps a directory per API server address: keep it out of
# ~/.kube/cache for this run, and remove it afterwards.
if [[ -z "${KUBECACHEDIR:-}" ]]; then
  KUBECACHEDIR="$(mktemp -d "${TMPDIR:-/tmp}/helm-handoff-kubecache-XXXXXX")"
  export KUBECACHEDIR
  trap 'rm -rf "$KUBECACHEDIR"' EXIT
fi
node dist/test/chaos/main.js "$@"
