#!/usr/bin/env bash
# `npm run bench -- NAME`: compiles, then runs dist/bench/NAME.js on the toolchain's Node.
# NAME: pulumi-addon | pulumi-cli | peer-cli | peer-scale | cdk8s-synth | fleet | fleet-status (files in bench/); further
# arguments go to the bench. Builds or waits only for the tools that bench uses. Prints ratios; asserts nothing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
name="${1:?usage: npm run bench -- NAME (a file in bench/ without .ts)}"
if [[ -z "${HELM_HANDOFF_TOOLCHAIN_BIN:-}" ]]; then
  # What each bench uses (scripts/toolchain.sh's groups); one not listed gets everything.
  case "$name" in
    cdk8s-synth) groups=(--helm) ;;
    fleet) groups=(--helm --cluster --pulumi) ;;
    fleet-status) groups=(--helm --cluster) ;;
    pulumi-addon | pulumi-cli) groups=(--helm --workloads --pulumi) ;;
    peer-scale) groups=(--helm --workloads --pulumi --pulumi-kubernetes) ;;
    peer-cli) groups=(--helm --workloads --pulumi --pulumi-kubernetes --languages) ;;
    *) groups=() ;;
  esac
  exec "$root/scripts/with-toolchain.sh" "${groups[@]}" "$0" "$@"
fi
scripts/build.sh
# Local clusters listen on fresh ports, and helm's Kubernetes discovery cache keeps a directory per
# API server address: keep it out of ~/.kube/cache for this run, and remove it afterwards.
if [[ -z "${KUBECACHEDIR:-}" ]]; then
  KUBECACHEDIR="$(mktemp -d "${TMPDIR:-/tmp}/helm-handoff-kubecache-XXXXXX")"
  export KUBECACHEDIR
  trap 'rm -rf "$KUBECACHEDIR"' EXIT
fi
node "dist/bench/$name.js" "${@:2}"
