#!/usr/bin/env bash
# `npm run bench -- NAME`: compiles, then runs dist/bench/NAME.js on the toolchain's Node.
# NAME: pulumi-addon | pulumi-cli | peer-cli | peer-scale | cdk8s-synth | fleet (files in bench/); further arguments go to the bench. Prints ratios; asserts nothing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [[ -z "${HELM_HANDOFF_TOOLCHAIN_BIN:-}" ]]; then
  exec "$root/scripts/with-toolchain.sh" "$0" "$@"
fi
name="${1:?usage: npm run bench -- NAME (a file in bench/ without .ts)}"
tsc -p tsconfig.json
# Local clusters listen on fresh ports, and helm's Kubernetes discovery cache keeps a directory per
# API server address: keep it out of ~/.kube/cache for this run, and remove it afterwards.
if [[ -z "${KUBECACHEDIR:-}" ]]; then
  KUBECACHEDIR="$(mktemp -d "${TMPDIR:-/tmp}/helm-handoff-kubecache-XXXXXX")"
  export KUBECACHEDIR
  trap 'rm -rf "$KUBECACHEDIR"' EXIT
fi
node "dist/bench/$name.js" "${@:2}"
