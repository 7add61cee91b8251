# shellcheck shell=bash
# The real GitOps controllers, for the handoff tests and `helm-handoff-local up --gitops`: Flux's
# helm-controller and source-controller, and Argo CD (application-controller and repo-server are
# one `argocd` binary, the role chosen by the name it runs as), each built from its Go module with
# its CRDs copied beside it, and Redis (Argo CD's cache) from Debian's packages, unpacked without
# root. Sourced by scripts/toolchain.sh, whose `ensure`, `wrapper`, `say` and `link` it uses; the
# pins are here so that the two files stay small.

HELM_CONTROLLER_VERSION=v1.6.3
SOURCE_CONTROLLER_VERSION=v1.9.6
# source-controller v1.9.6 asks for github.com/fluxcd/pkg/artifact v0.18.3, whose zip the module
# proxy refuses (403, as v0.18.2); v0.18.1 is served and builds: replaced to that in the wrapper.
FLUX_ARTIFACT_VERSION=v0.18.1
ARGOCD_VERSION=v3.6.2
# Argo CD v3.6 needs Go >= 1.27: the go command fetches this toolchain from the module proxy, for
# this build step only.
ARGOCD_GO=go1.27.3

# copy_replaces MODULE@VERSION: a module's own `replace` directives (one-line and block form) into
# the wrapper's go.mod: replaces apply only in the main module, and these builds need them. Local
# ones (`=> ./api`) are left out: the wrapper takes those modules at the required version.
copy_replaces() {
  local gomod
  gomod="$(go mod download -json "$1" | sed -n 's/^\s*"GoMod": "\(.*\)",\?$/\1/p')"
  awk '/=> *\.\.?\// { next }
    /^replace \($/ { on = 1; next } on && /^\)$/ { on = 0 } on && /=>/ { print "replace " $0 } /^replace [^(]/ { print }' \
    "$gomod" >>go.mod
  say "${1%@*}: $(grep -c '^replace' go.mod) replace lines copied from its go.mod"
}

# flux_controller OUT WORK NAME MODULE@VERSION: `go build` the module's root package, CRDs beside.
flux_controller() {
  local out="$1" name="$3" mod="$4"; wrapper "$2" "local/$name"
  copy_replaces "$mod"
  if [[ "$name" == source-controller ]]; then
    go mod edit -replace "github.com/fluxcd/pkg/artifact=github.com/fluxcd/pkg/artifact@$FLUX_ARTIFACT_VERSION"
  else
    # helm-controller builds against Flux's fork of Helm (github.com/fluxcd/helm/v4 v4.2.4-flux.1),
    # which the module proxy refuses (403): it is built against upstream Helm instead (docs/toolchain.md).
    go mod edit -dropreplace helm.sh/helm/v4
  fi
  go get "$mod" >&2
  go build -trimpath -ldflags "-s -w" -o "$out/$name" "${mod%@*}"
  local dir; dir="$(go list -m -f '{{.Dir}}' "${mod%@*}")"
  mkdir -p "$out/$name-crds"
  cp "$dir"/config/crd/bases/*.yaml "$out/$name-crds/"
  chmod -R u+w "$out/$name-crds"
}
build_helm_controller() { flux_controller "$1" "$2" helm-controller "github.com/fluxcd/helm-controller@$HELM_CONTROLLER_VERSION"; }
build_source_controller() { flux_controller "$1" "$2" source-controller "github.com/fluxcd/source-controller@$SOURCE_CONTROLLER_VERSION"; }

build_argocd() {
  local out="$1"; wrapper "$2" local/argocdbin
  export GOTOOLCHAIN="$ARGOCD_GO"
  go mod edit -go="${ARGOCD_GO#go}"
  # Argo CD's own go.mod replaces k8s.io/* with published tags.
  copy_replaces "github.com/argoproj/argo-cd/v3@$ARGOCD_VERSION"
  go get "github.com/argoproj/argo-cd/v3/cmd@$ARGOCD_VERSION" >&2
  # The application-controller serves its metrics on 0.0.0.0 and has no flag to change it: built
  # from a copy of the module that serves them on loopback, as every local-cluster process listens.
  cp -r "$(go list -m -f '{{.Dir}}' github.com/argoproj/argo-cd/v3)" argo-cd
  chmod -R u+w argo-cd
  sed -i 's|metricsAddr := fmt.Sprintf("0.0.0.0:%d", metricsPort)|metricsAddr := fmt.Sprintf("127.0.0.1:%d", metricsPort)|' \
    argo-cd/controller/appcontroller.go
  grep -q 'fmt.Sprintf("127.0.0.1:%d", metricsPort)' argo-cd/controller/appcontroller.go ||
    die "argocd: the application-controller's metrics address was not found to patch"
  go mod edit -replace "github.com/argoproj/argo-cd/v3=./argo-cd"
  go build -trimpath -ldflags "-s -w -X github.com/argoproj/argo-cd/v3/common.version=${ARGOCD_VERSION#v}" \
    -o "$out/argocd" github.com/argoproj/argo-cd/v3/cmd
  local dir; dir="$(go list -m -f '{{.Dir}}' github.com/argoproj/argo-cd/v3)"
  mkdir -p "$out/argocd-crds"
  cp "$dir"/manifests/crds/application-crd.yaml "$dir"/manifests/crds/appproject-crd.yaml "$out/argocd-crds/"
  chmod -R u+w "$out/argocd-crds"
}

# Redis from Debian's packages, unpacked (no root, no service): the server and the libraries it
# links that a base system lacks, run through a wrapper that points the loader at them.
REDIS_PACKAGES=(redis-server redis-tools liblzf1 libjemalloc2)
build_redis() {
  local out="$1" work="$2"
  mkdir -p "$out/root"
  (cd "$work" && apt-get download "${REDIS_PACKAGES[@]}" >&2)
  local deb
  for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$out/root"; done
  # Debian's redis-server is a link to redis-check-rdb, which picks its role by argv[0].
  cat >"$out/redis-server" <<'SH'
#!/usr/bin/env bash
root="$(dirname "$(readlink -f "$0")")/root"
LD_LIBRARY_PATH="$root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec -a redis-server "$root/usr/bin/redis-check-rdb" "$@"
SH
  chmod 755 "$out/redis-server"
}

candidate() { apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p'; }

redis_tool() {
  local r
  if r="$(ambient redis-server)"; then
    say "redis-server: reusing $r"; link redis-server "$r"
  else
    local v; v="$(candidate redis-server)"
    if [[ -z "$v" || "$v" == "(none)" ]]; then
      say "redis-server: no Debian package list yet; running apt-get update"
      apt-get update -qq >&2 || die "redis-server: apt-get update failed (run it as root, then try again)"
      v="$(candidate redis-server)"
      [[ -n "$v" && "$v" != "(none)" ]] || die "redis-server: Debian offers no redis-server package"
    fi
    ensure "redis-${v//[:~+]/_}-r$RECIPE" build_redis redis-server
  fi
}

# Both run on lane a, after kube (Argo CD is the longest build of all), while lane b builds Pulumi's plugins.
flux_tools() {
  ensure "helm-controller-$HELM_CONTROLLER_VERSION-r$RECIPE-2" build_helm_controller helm-controller helm-controller-crds
  ensure "source-controller-$SOURCE_CONTROLLER_VERSION-r$RECIPE" build_source_controller source-controller source-controller-crds
}
argocd_tools() {
  ensure "argocd-$ARGOCD_VERSION-r$RECIPE-loopback" build_argocd argocd argocd-crds
  redis_tool
}
