#!/usr/bin/env bash
# Fetches the upstream CRDs the cdk8s handoff objects are dry-run against
# (ClusterResourceSet, HelmChartProxy, Flux HelmRelease/HelmRepository/
# OCIRepository, Argo CD Application) from the projects' own Go modules with
# `go mod download`, and copies the YAML files into
#   ${XDG_CACHE_HOME:-$HOME/.cache}/helm-handoff/toolchain/crds/
# Never commit them. Cached by version (a stamp file lists the module
# versions); a second run is a no-op; safe to run twice at once (flock when
# available); the directory is filled in a temp dir and renamed into place.
#
# Usage: scripts/crds.sh [--print-dir]
#   --print-dir   print the CRD directory on stdout (progress goes to stderr)
set -euo pipefail

# ---- pinned module versions (served by the Go module proxy) ------------------
# Checked with `go list -m -versions` / `go mod download`: helm-controller and
# CAAPH have no version list on the proxy but these tags are served; newer
# source-controller tags need Go >= 1.27.
CAPI="sigs.k8s.io/cluster-api@v1.14.2"
CAAPH="sigs.k8s.io/cluster-api-addon-provider-helm@v0.6.4"
HELM_CONTROLLER="github.com/fluxcd/helm-controller@v1.6.0"
SOURCE_CONTROLLER="github.com/fluxcd/source-controller@v1.9.6"
ARGO_CD="github.com/argoproj/argo-cd/v3@v3.5.7"

# module|path inside the module (one line per file)
FILES=(
  "$CAPI|core/config/crd/bases/addons.cluster.x-k8s.io_clusterresourcesets.yaml"
  "$CAPI|core/config/crd/bases/addons.cluster.x-k8s.io_clusterresourcesetbindings.yaml"
  "$CAAPH|config/crd/bases/addons.cluster.x-k8s.io_helmchartproxies.yaml"
  "$CAAPH|config/crd/bases/addons.cluster.x-k8s.io_helmreleaseproxies.yaml"
  "$HELM_CONTROLLER|config/crd/bases/helm.toolkit.fluxcd.io_helmreleases.yaml"
  "$SOURCE_CONTROLLER|config/crd/bases/source.toolkit.fluxcd.io_helmrepositories.yaml"
  "$SOURCE_CONTROLLER|config/crd/bases/source.toolkit.fluxcd.io_ocirepositories.yaml"
  "$ARGO_CD|manifests/crds/application-crd.yaml"
)

print_dir=0
for arg in "$@"; do
  case "$arg" in
    --print-dir) print_dir=1 ;;
    *) echo "usage: $0 [--print-dir]" >&2; exit 2 ;;
  esac
done

ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/helm-handoff/toolchain"
DEST="$ROOT/crds"
say() { printf '[crds] %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }
mkdir -p "$ROOT/locks" "$ROOT/tmp"

stamp="$(printf '%s\n' "${FILES[@]}")"
if [[ -f "$DEST/.stamp" ]] && [[ "$(cat "$DEST/.stamp")" == "$stamp" ]]; then
  ((print_dir)) && printf '%s\n' "$DEST"
  exit 0
fi

command -v go >/dev/null || die "go is not on PATH; install Go >= 1.26 (https://go.dev/doc/install)"
if command -v flock >/dev/null; then
  exec 9>"$ROOT/locks/crds.lock"
  flock 9
  # another run may have finished while we waited
  if [[ -f "$DEST/.stamp" ]] && [[ "$(cat "$DEST/.stamp")" == "$stamp" ]]; then
    ((print_dir)) && printf '%s\n' "$DEST"
    exit 0
  fi
fi

work="$(mktemp -d "$ROOT/tmp/crds.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir "$work/out" "$work/gomod"

declare -A dirs=()
for entry in "${FILES[@]}"; do
  mod="${entry%%|*}"
  path="${entry#*|}"
  if [[ -z "${dirs[$mod]:-}" ]]; then
    say "go mod download $mod"
    # outside any module; GOTOOLCHAIN=local so no other Go is fetched
    json="$(cd "$work/gomod" && GOFLAGS=-mod=mod GOTOOLCHAIN=local go mod download -json "$mod")" ||
      die "go mod download $mod failed: $json"
    dir="$(printf '%s' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
    [[ -n "$dir" && -d "$dir" ]] || die "go mod download $mod gave no Dir: $json"
    dirs[$mod]="$dir"
  fi
  src="${dirs[$mod]}/$path"
  [[ -f "$src" ]] || die "$mod has no $path"
  cp "$src" "$work/out/$(basename "$path")"
  chmod 0644 "$work/out/$(basename "$path")"
done
printf '%s\n' "$stamp" >"$work/out/.stamp"

# swap into place: old dir aside, new dir in, old dir removed
if [[ -e "$DEST" ]]; then
  mv -T "$DEST" "$work/old"
fi
mv -T "$work/out" "$DEST"
say "CRDs in $DEST"
((print_dir)) && printf '%s\n' "$DEST"
exit 0
