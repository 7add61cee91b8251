#!/usr/bin/env bash
# Makes the test toolchain available in ONE bin directory:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/helm-handoff/toolchain/bin
# Each tool is reused from PATH when its version fits, otherwise built from Go
# modules (or, for node, installed from the npm registry) and cached by version
# under .../toolchain/store/NAME-VERSION. A second run is a cache hit.
#
# Usage: scripts/toolchain.sh [GROUP FLAG...] [--print-bin]
# With no group flag, everything the tests use. Group flags add up; node is always there:
#   --node                node only
#   --unit, --helm        helm (`npm run test:unit`)
#   --cluster             etcd and kube-apiserver (`helm-handoff-local up`)
#   --workloads           --cluster, kube-controller-manager, kube-scheduler and kwok
#   --gitops flux|argocd  --cluster and that GitOps controller (Argo CD: with Redis and helm)
#   --capi                --cluster, the Cluster API core manager and CAAPH (`helm-handoff-local up --capi`)
#   --pulumi              the pulumi CLI with its Node.js language host and the dynamic-provider shim
#   --pulumi-kubernetes   pulumi-resource-kubernetes (the peer `helm.v3.Release`'s provider)
#   --languages           --pulumi, the YAML, Go and Python hosts and the SDK generators
#   --demo                what `npm run demo` needs: --helm --workloads --pulumi
#   --print-bin           print the bin directory on stdout (all progress goes to stderr)
# Only everything adds the OCI registry and the upstream CRDs (scripts/crds.sh), which only tests use.
#
# Every cold build says how long it usually takes and reports every minute while it runs.
# Safe to run twice at once (one flock per tool and version; laying out bin/ tolerates the other
# run); a failed build leaves nothing behind (builds happen in a temp dir renamed into place).
set -euo pipefail

# ---- pinned versions (change here, nowhere else; Pulumi's and the GitOps controllers' are in
# toolchain-pulumi.sh and toolchain-gitops.sh) -----------------------------------------------
NODE_MAJOR=24
HELM_VERSION=v4.3.1
ETCD_VERSION=v3.6.16
K8S_VERSION=v1.36.3
KWOK_VERSION=v0.8.0
REGISTRY_VERSION=v3.1.2
# Bump when a recipe below changes, so stale builds are not reused.
RECIPE=1

CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/helm-handoff/toolchain"
BIN="$CACHE_ROOT/bin"
STORE="$CACHE_ROOT/store"
LOCKS="$CACHE_ROOT/locks"
TMP="$CACHE_ROOT/tmp"
LOG="$CACHE_ROOT/build-times.log"
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "$BIN" "$STORE" "$LOCKS" "$TMP"
export CGO_ENABLED=0 GOFLAGS=-buildvcs=false

say() { printf '[toolchain] %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# Finds a binary on PATH outside our own bin dir.
ambient() {
  local name="$1" dir
  local IFS=:
  for dir in $PATH; do
    [[ "$dir" == "$BIN" ]] && continue
    [[ -x "$dir/$name" ]] && { printf '%s\n' "$dir/$name"; return 0; }
  done
  return 1
}

# link NAME TARGET: point bin/NAME at TARGET (atomic replace).
link() {
  local tmp="$BIN/.$1.$BASHPID.tmp"
  ln -sfn "$2" "$tmp" && mv -Tf "$tmp" "$BIN/$1"
}


# How long each cold build took on a 2-core machine with both lanes building (build-times.log),
# by the store key's tool name: said when a build starts, so a long one is not taken for a hang.
expected() {
  case "$1" in
    node-*) echo "10 s" ;;
    helm-controller-* | source-controller-*) echo "6 min" ;;
    argocd-*) echo "15 min" ;;
    capi-manager-*) echo "7 min" ;;
    caaph-manager-*) echo "9 min" ;;
    redis-*) echo "10 s" ;;
    helm-*) echo "5 min" ;;
    etcd-*) echo "1 min" ;;
    kube-*) echo "12 min" ;;
    kwok-*) echo "4 min" ;;
    registry-*) echo "3 min" ;;
    pulumi-kubernetes-*) echo "11 min" ;;
    pulumi-language-* | pulumi-gen-*) echo "1 min" ;;
    pulumi-*) echo "10 min" ;;
    *) echo "a few minutes" ;;
  esac
}

# ensure KEY BUILDER BIN_NAMES...: run BUILDER OUT_DIR once per KEY, under a
# lock, into a temp dir that is renamed to store/KEY only on success.
ensure() {
  local key="$1" builder="$2"; shift 2
  local dest="$STORE/$key"
  if [[ ! -f "$dest/.complete" ]]; then
    exec {lockfd}>"$LOCKS/$key.lock"
    if ! flock -n "$lockfd"; then
      say "$key: another build holds the lock; waiting"
      flock "$lockfd"
    fi
    if [[ ! -f "$dest/.complete" ]]; then
      # Every recipe but node's (npm) and Redis's (Debian packages) builds with Go.
      [[ "$builder" == build_node || "$builder" == build_redis ]] || command -v go >/dev/null ||
        die "$key: go is not on PATH; install Go >= 1.26 (https://go.dev/doc/install)"
      local work start
      work="$(mktemp -d "$TMP/$key.XXXXXX")"
      start=$SECONDS
      say "$key: building (cold; usually about $(expected "$key") on 2 cores)"
      (set -e; "$builder" "$work/out" "$work") &
      local pid=$! rc=0 next=$((SECONDS + 60))
      while kill -0 "$pid" 2>/dev/null; do
        sleep 1
        if ((SECONDS >= next)); then
          say "$key: still building ($(((SECONDS - start) / 60)) min so far)"
          next=$((SECONDS + 60))
        fi
      done
      wait "$pid" || rc=$?
      if ((rc != 0)); then
        rm -rf "$work"
        exec {lockfd}>&-
        die "$key: build failed (nothing was installed)"
      fi
      touch "$work/out/.complete"
      rm -rf "$dest"
      mv -T "$work/out" "$dest"
      rm -rf "$work"
      printf '%s\t%s\t%ss\n' "$(date -u +%FT%TZ)" "$key" "$((SECONDS - start))" >>"$LOG"
      say "$key: built in $((SECONDS - start))s"
    fi
    exec {lockfd}>&-
  fi
  local b
  for b in "$@"; do link "$b" "$dest/$b"; done
}

# ---- recipes ---------------------------------------------------------------
# A recipe gets OUT (create it, put binaries there) and WORK (scratch).

build_node() {
  mkdir -p "$1"
  (cd "$2" && npm init -y >/dev/null && npm install --no-audit --no-fund --silent "node@$NODE_MAJOR" >&2)
  cp -a "$2/node_modules/node/bin/node" "$1/node"
  "$1/node" --version >/dev/null
}

build_helm() {
  mkdir -p "$1"
  GOBIN="$1" go install -trimpath \
    -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=$HELM_VERSION -X helm.sh/helm/v4/internal/version.gitTreeState=clean" \
    "helm.sh/helm/v4/cmd/helm@$HELM_VERSION"
}

# wrapper WORK MODULE: a throwaway module in WORK/wrap.
wrapper() {
  mkdir -p "$1/wrap" && cd "$1/wrap"
  go mod init "$2" >/dev/null 2>&1
}

build_etcd() {
  local out="$1"; wrapper "$2" local/etcdbin
  go get -tool "go.etcd.io/etcd/server/v3@$ETCD_VERSION" >&2
  go build -trimpath -ldflags "-s -w" -o "$out/etcd" go.etcd.io/etcd/server/v3
}

# build_kube OUT WORK [BINARY...]: the Kubernetes binaries (default: all three) from one wrapper module.
build_kube() {
  local out="$1" work="$2"; shift 2
  local bins=("$@")
  ((${#bins[@]})) || bins=(kube-apiserver kube-controller-manager kube-scheduler)
  wrapper "$work" local/kubebin
  # Derive the replace lines from the tag's own go.mod: every staging module
  # (replaced there with ./staging/src/k8s.io/X) maps to its published v0.x tag.
  local gomod minor="${K8S_VERSION#v1.}"
  gomod="$(go list -m -f '{{.GoMod}}' "k8s.io/kubernetes@$K8S_VERSION")"
  grep -E '^\s*k8s\.io/[a-z0-9-]+ => \./staging/' "$gomod" |
    awk -v v="v0.$minor" '{ printf "replace %s => %s %s\n", $1, $1, v }' >>go.mod
  say "kube: $(grep -c '^replace' go.mod) replace lines derived from $gomod"
  local b tools=()
  for b in "${bins[@]}"; do tools+=("k8s.io/kubernetes/cmd/$b@$K8S_VERSION"); done
  go get -tool "${tools[@]}" >&2
  local pkg=k8s.io/component-base/version
  local ld="-s -w -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=${minor%%.*} -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  for b in "${bins[@]}"; do
    say "kube: go build $b"
    go build -trimpath -ldflags "$ld" -o "$out/$b" "k8s.io/kubernetes/cmd/$b"
  done
}
build_kube_apiserver() { build_kube "$1" "$2" kube-apiserver; }

build_kwok() {
  local out="$1"
  mkdir -p "$out"
  GOBIN="$out" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
  # The bare binary has no stages: keep the module's fast stages beside it.
  local dir
  dir="$(go list -m -f '{{.Dir}}' "sigs.k8s.io/kwok@$KWOK_VERSION" 2>/dev/null || true)"
  [[ -n "$dir" ]] || { go mod download "sigs.k8s.io/kwok@$KWOK_VERSION"; dir="$(go env GOMODCACHE)/sigs.k8s.io/kwok@$KWOK_VERSION"; }
  # The same set as kwok's kustomize/stage/fast: fast node + pod stages, heartbeat with lease.
  mkdir -p "$out/kwok-stages"
  local f
  for f in "$dir"/kustomize/stage/node/fast/*.yaml "$dir"/kustomize/stage/node/heartbeat-with-lease/*.yaml \
    "$dir"/kustomize/stage/pod/fast/*.yaml; do
    [[ "$(basename "$f")" == kustomization.yaml ]] || cp "$f" "$out/kwok-stages/"
  done
  chmod -R u+w "$out/kwok-stages"
}

# An OCI registry on loopback, for oci:// charts in tests.
build_registry() {
  local out="$1"; wrapper "$2" local/registrybin
  go get -tool "github.com/distribution/distribution/v3/cmd/registry@$REGISTRY_VERSION" >&2
  go build -trimpath -ldflags "-s -w" -o "$out/registry" github.com/distribution/distribution/v3/cmd/registry
}

# The pulumi CLI, its plugins and the other languages' hosts: their recipes and pins.
# shellcheck source=scripts/toolchain-pulumi.sh
source "$REPO_ROOT/scripts/toolchain-pulumi.sh"
# The GitOps controllers (Flux, Argo CD, Redis): their recipes and pins.
# shellcheck source=scripts/toolchain-gitops.sh
source "$REPO_ROOT/scripts/toolchain-gitops.sh"
# The Cluster API controllers (the core manager, CAAPH): their recipes and pins.
# shellcheck source=scripts/toolchain-capi.sh
source "$REPO_ROOT/scripts/toolchain-capi.sh"

# ---- what runs -------------------------------------------------------------

node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

lane_node() {
  local n
  if n="$(ambient node)" && (( $(node_major "$n") >= 22 )); then
    say "node: reusing $n ($("$n" --version))"; link node "$n"
  else
    [[ -n "${n:-}" ]] && say "node: $n is $("$n" --version), older than 22; using node $NODE_MAJOR from npm"
    ensure "node-$NODE_MAJOR-r$RECIPE" build_node node
  fi
  return 0
}

etcd_tool() {
  local e
  if e="$(ambient etcd)" && "$e" --version 2>/dev/null | grep -q 'etcd Version: 3\.6\.'; then
    say "etcd: reusing $e"; link etcd "$e"
  else
    ensure "etcd-$ETCD_VERSION-r$RECIPE" build_etcd etcd
  fi
}

helm_tool() {
  local h
  if h="$(ambient helm)" && [[ "$("$h" version --template '{{.Version}}' 2>/dev/null)" == v4.* ]]; then
    say "helm: reusing $h"; link helm "$h"
  else
    ensure "helm-$HELM_VERSION-r$RECIPE" build_helm helm
  fi
}

# kube_tools BINARY...: the Kubernetes binaries, each from PATH at the pinned minor or from the store.
# The three build together (they share most packages); kube-apiserver alone, when no other is
# asked for, builds alone unless the three are built already.
kube_tools() {
  local b k missing=()
  for b in "$@"; do
    if k="$(ambient "$b")" && "$k" --version 2>/dev/null | grep -q "Kubernetes ${K8S_VERSION%.*}\."; then
      say "$b: reusing $k"; link "$b" "$k"
    else
      missing+=("$b")
    fi
  done
  ((${#missing[@]})) || return 0
  local all="kube-$K8S_VERSION-r$RECIPE"
  if [[ "${missing[*]}" == kube-apiserver && ! -f "$STORE/$all/.complete" ]]; then
    ensure "kube-apiserver-$K8S_VERSION-r$RECIPE" build_kube_apiserver kube-apiserver
  else
    ensure "$all" build_kube "${missing[@]}"
  fi
}

# ---- what to build -----------------------------------------------------------
# Groups of tools. A run with no group flag builds every group (what `npm test` uses); flags name
# the groups a command needs (see usage), and node is always there.
declare -A WANT=()
SELECTED=""
want() { SELECTED=1; local g; for g in "$@"; do WANT[$g]=1; done; }
wants() { [[ -z "$SELECTED" || -n "${WANT[$1]:-}" ]]; }

# Two lanes for two cores (each go build already uses both), the longest builds first in each.
lane_a() {
  if wants helm; then helm_tool; fi
  if wants workloads; then
    kube_tools kube-apiserver kube-controller-manager kube-scheduler
  elif wants cluster; then
    kube_tools kube-apiserver
  fi
  if wants argocd; then argocd_tools; fi
  if wants flux; then flux_tools; fi
  return 0
}

lane_b() {
  if wants cluster; then etcd_tool; fi
  if wants pulumi; then pulumi_tools; fi
  # kwok is always taken from its module: the binary alone lacks the stages.
  if wants workloads; then ensure "kwok-$KWOK_VERSION-r$RECIPE-stages2" build_kwok kwok kwok-stages; fi
  if wants tests; then ensure "registry-$REGISTRY_VERSION-r$RECIPE" build_registry registry; fi
  if wants pulumi-kubernetes; then pulumi_kubernetes_tool; fi
  if wants languages; then language_tools; fi
  if wants capi; then capi_tools; fi
  # Upstream CRDs (Cluster API, CAAPH, Flux, Argo CD) for server-side dry runs in tests.
  if wants tests; then "$REPO_ROOT/scripts/crds.sh" >&2; fi
  return 0
}

USAGE="usage: scripts/toolchain.sh [--node] [--unit] [--demo] [--helm] [--cluster] [--workloads] [--gitops flux|argocd] [--capi] [--pulumi] [--pulumi-kubernetes] [--languages] [--print-bin]"

main() {
  local t0=$SECONDS print=""
  while (($#)); do
    case "$1" in
      --node) want ;;
      --unit | --helm) want helm ;;
      --demo) want helm cluster workloads pulumi ;;
      --cluster) want cluster ;;
      --workloads) want cluster workloads ;;
      --gitops)
        [[ "${2:-}" == flux || "${2:-}" == argocd ]] || die "--gitops takes flux or argocd ($USAGE)"
        # Argo CD's repo-server renders charts with helm.
        want cluster "$2"; [[ "$2" == flux ]] || want helm; shift ;;
      --capi) want cluster capi ;;
      --pulumi) want pulumi ;;
      --pulumi-kubernetes) want pulumi-kubernetes ;;
      --languages) want pulumi languages ;;
      --print-bin) print=1 ;;
      *) die "unknown argument $1 ($USAGE)" ;;
    esac
    shift
  done
  lane_node
  lane_a 2> >(sed -u 's/^/[a] /' >&2) & local a=$!
  lane_b 2> >(sed -u 's/^/[b] /' >&2) & local b=$!
  local rc=0
  wait "$a" || rc=1
  wait "$b" || rc=1
  (( rc == 0 )) || die "some tools failed to build (see above)"
  local what="everything"
  [[ -z "$SELECTED" ]] || what="node ${!WANT[*]}"
  say "ready in $((SECONDS - t0))s: $BIN ($what)"
  [[ -n "$print" ]] && printf '%s\n' "$BIN"
  return 0
}

main "$@"
