# shellcheck shell=bash
# The real Cluster API controllers, for the tests of the cdk8s carriers and `helm-handoff-local up
# --capi`: the Cluster API core manager (its ClusterResourceSet controllers, the Cluster controller
# and the cluster cache) and the Cluster API Add-on Provider for Helm (CAAPH: HelmChartProxy), each
# built from its Go module in a wrapper module, with its CRDs copied beside the binary. Not in the
# `--demo` profile. Sourced by scripts/toolchain.sh, whose `ensure`, `wrapper` and `say` it uses;
# the pins are here so that the files stay small.

CAPI_VERSION=v1.14.2
CAAPH_VERSION=v0.6.4

# The core manager is the package sigs.k8s.io/cluster-api/core (core/main.go). Cluster API's go.mod
# replaces sigs.k8s.io/cluster-api/api with ./api, which only applies inside its own repository: the
# wrapper requires the published nested module at the same version instead.
build_capi_manager() {
  local out="$1"; wrapper "$2" local/capibin
  go mod edit -go=1.26.0
  go get "sigs.k8s.io/cluster-api/core@$CAPI_VERSION" "sigs.k8s.io/cluster-api/api@$CAPI_VERSION" >&2
  go build -trimpath -ldflags "-s -w" -o "$out/capi-manager" sigs.k8s.io/cluster-api/core
  local dir; dir="$(go list -m -f '{{.Dir}}' sigs.k8s.io/cluster-api)"
  mkdir -p "$out/capi-manager-crds"
  cp "$dir"/core/config/crd/bases/*.yaml "$out/capi-manager-crds/"
  chmod -R u+w "$out/capi-manager-crds"
  "$out/capi-manager" --help >/dev/null 2>&1 || [[ $? == 2 ]]
}

# CAAPH's main.go is at its module root; its go.mod has no replace directives.
build_caaph_manager() {
  local out="$1"; wrapper "$2" local/caaphbin
  go get "sigs.k8s.io/cluster-api-addon-provider-helm@$CAAPH_VERSION" >&2
  go build -trimpath -ldflags "-s -w" -o "$out/caaph-manager" sigs.k8s.io/cluster-api-addon-provider-helm
  local dir; dir="$(go list -m -f '{{.Dir}}' sigs.k8s.io/cluster-api-addon-provider-helm)"
  mkdir -p "$out/caaph-manager-crds"
  cp "$dir"/config/crd/bases/*.yaml "$out/caaph-manager-crds/"
  chmod -R u+w "$out/caaph-manager-crds"
}

capi_tools() {
  ensure "capi-manager-$CAPI_VERSION-r$RECIPE" build_capi_manager capi-manager capi-manager-crds
  ensure "caaph-manager-$CAAPH_VERSION-r$RECIPE" build_caaph_manager caaph-manager caaph-manager-crds
}
