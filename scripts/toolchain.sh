#!/usr/bin/env bash
# Makes the test toolchain available in ONE bin directory:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/helm-handoff/toolchain/bin
# Each tool is reused from PATH when its version fits, otherwise built from Go
# modules (or, for node, installed from the npm registry) and cached by version
# under .../toolchain/store/NAME-VERSION. A second run is a cache hit.
#
# Usage: scripts/toolchain.sh [--demo] [--print-bin]
#   --demo        only what `npm run demo` needs: node, helm, etcd, the Kubernetes binaries, kwok,
#                 and the pulumi CLI with its Node.js language host (no registry, no
#                 pulumi-resource-kubernetes, no YAML/Go/Python hosts or SDK generators, no CRDs)
#   --print-bin   print the bin directory on stdout (all progress goes to stderr)
#
# Every cold build says how long it usually takes and reports every minute while it runs.
# Safe to run twice at once (one flock per tool and version; laying out bin/ tolerates the other
# run); a failed build leaves nothing behind (builds happen in a temp dir renamed into place).
set -euo pipefail

# ---- pinned versions (change here, nowhere else) ---------------------------
NODE_MAJOR=24
HELM_VERSION=v4.3.1
ETCD_VERSION=v3.6.16
K8S_VERSION=v1.36.3
KWOK_VERSION=v0.8.0
REGISTRY_VERSION=v3.1.2
PULUMI_VERSION=v3.274.1
# Tag v4.25.0 of pulumi-kubernetes is served only as this pseudo-version.
PULUMI_K8S_MODULE_VERSION=v4.0.0-20260115033456-f47bc2d6f199
PULUMI_K8S_VERSION=4.25.0
PULUMI_YAML_VERSION=v1.25.0
# The last Go language host the module proxy serves: inside sdk/v3 (later hosts are a module of
# their own, github.com/pulumi/pulumi/sdk/go/pulumi-language-go/v3, which the proxy refuses).
PULUMI_GO_HOST_SDK_VERSION=v3.62.0
# The last Node.js language host the module proxy serves: inside sdk/v3 up to v3.68.0 (later hosts
# are github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3, which the proxy refuses).
PULUMI_NODEJS_HOST_SDK_VERSION=v3.68.0
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
command -v go >/dev/null || die "go is not on PATH; install Go >= 1.26 (https://go.dev/doc/install)"

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

# Where the pulumi CLI and its bundled plugins are laid out (see lay_out_pulumi).
LAYOUT="$CACHE_ROOT/pulumi/bin"

# place SRC NAME: hard link (or copy) SRC to $LAYOUT/NAME atomically, then link bin/NAME to it.
# Two runs at once may place the same file: a rename onto the very file already there (the other
# run's hard link to the same SRC) is refused by mv, and is already done.
place() {
  mkdir -p "$LAYOUT"
  if [[ ! "$1" -ef "$LAYOUT/$2" ]] && ! cmp -s "$1" "$LAYOUT/$2"; then
    local tmp="$LAYOUT/.$2.$BASHPID.tmp"
    ln -f "$1" "$tmp" 2>/dev/null || cp -f "$1" "$tmp"
    if ! mv -Tf "$tmp" "$LAYOUT/$2" 2>/dev/null; then
      cmp -s "$tmp" "$LAYOUT/$2" || { rm -f "$tmp"; die "$2: could not be placed in $LAYOUT"; }
      rm -f "$tmp"
    fi
  fi
  link "$2" "$LAYOUT/$2"
}

# How long each cold build took on a 2-core machine with both lanes building (build-times.log),
# by the store key's tool name: said when a build starts, so a long one is not taken for a hang.
expected() {
  case "$1" in
    node-*) echo "10 s" ;;
    helm-controller-* | source-controller-*) echo "6 min" ;;
    argocd-*) echo "15 min" ;;
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

build_kube() {
  local out="$1"; wrapper "$2" local/kubebin
  # Derive the replace lines from the tag's own go.mod: every staging module
  # (replaced there with ./staging/src/k8s.io/X) maps to its published v0.x tag.
  local gomod minor="${K8S_VERSION#v1.}"
  gomod="$(go list -m -f '{{.GoMod}}' "k8s.io/kubernetes@$K8S_VERSION")"
  grep -E '^\s*k8s\.io/[a-z0-9-]+ => \./staging/' "$gomod" |
    awk -v v="v0.$minor" '{ printf "replace %s => %s %s\n", $1, $1, v }' >>go.mod
  say "kube: $(grep -c '^replace' go.mod) replace lines derived from $gomod"
  go get -tool "k8s.io/kubernetes/cmd/kube-apiserver@$K8S_VERSION" \
    "k8s.io/kubernetes/cmd/kube-controller-manager@$K8S_VERSION" \
    "k8s.io/kubernetes/cmd/kube-scheduler@$K8S_VERSION" >&2
  local pkg=k8s.io/component-base/version
  local ld="-s -w -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=${minor%%.*} -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  local b
  for b in kube-apiserver kube-controller-manager kube-scheduler; do
    say "kube: go build $b"
    go build -trimpath -ldflags "$ld" -o "$out/$b" "k8s.io/kubernetes/cmd/$b"
  done
}

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

build_pulumi() {
  local out="$1"; wrapper "$2" local/pulumibin
  go get -tool "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi@$PULUMI_VERSION" "github.com/pulumi/pulumi/sdk/v3@$PULUMI_VERSION" >&2
  go build -trimpath -tags osusergo,grpcnotrace \
    -ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$PULUMI_VERSION" \
    -o "$out/pulumi" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
}

build_pulumi_k8s() {
  local out="$1"; wrapper "$2" local/pulumik8sbin
  cp "$REPO_ROOT/scripts/pulumi-resource-kubernetes/main.go" main.go
  go get "github.com/pulumi/pulumi-kubernetes/provider/v4@$PULUMI_K8S_MODULE_VERSION" >&2
  go mod tidy >&2
  local dir
  dir="$(go list -m -f '{{.Dir}}' github.com/pulumi/pulumi-kubernetes/provider/v4)"
  # What upstream's generate.go does: stamp the version into the schema.
  SRC="$dir/cmd/pulumi-resource-kubernetes" V="$PULUMI_K8S_VERSION" "$BIN/node" -e '
    const fs = require("node:fs"), src = process.env.SRC;
    const schema = JSON.parse(fs.readFileSync(`${src}/schema.json`, "utf8"));
    schema.version = process.env.V;
    fs.writeFileSync("schema-embed.json", JSON.stringify(schema));
    fs.copyFileSync(`${src}/terraform-mapping.json`, "terraform-mapping-embed.json");'
  go build -trimpath \
    -ldflags "-s -w -X github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version.Version=$PULUMI_K8S_VERSION" \
    -o "$out/pulumi-resource-kubernetes" .
}

# The YAML language host, for the test of helm-handoff as a plugin package used by a YAML program.
build_pulumi_yaml() {
  mkdir -p "$1"
  GOBIN="$1" go install -trimpath -ldflags "-s -w -X github.com/pulumi/pulumi-yaml/pkg/version.Version=$PULUMI_YAML_VERSION" \
    "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml@$PULUMI_YAML_VERSION"
}

# The Go language host, for the test of a Go program using the package (an old host: see the pin).
build_pulumi_go_host() {
  local out="$1"; wrapper "$2" local/pulumigohost
  go get "github.com/pulumi/pulumi/sdk/v3/go/pulumi-language-go@$PULUMI_GO_HOST_SDK_VERSION" >&2
  go build -trimpath -ldflags "-s -w" -o "$out/pulumi-language-go" github.com/pulumi/pulumi/sdk/v3/go/pulumi-language-go
}

# The Node.js language host, for `pulumi up` of a TypeScript or JavaScript project directory (an old
# host: see the pin, and docs/toolchain.md for what it lacks).
build_pulumi_nodejs_host() {
  local out="$1"; wrapper "$2" local/pulumi-nodejs-host
  go get "github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs@$PULUMI_NODEJS_HOST_SDK_VERSION" >&2
  go build -trimpath \
    -ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$PULUMI_NODEJS_HOST_SDK_VERSION" \
    -o "$out/pulumi-language-nodejs" github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs
}

# Pulumi's Go and Python SDK generators at the CLI's version, for the tests of docs/languages.md's
# Go and Python programs (scripts/pulumi-gen-sdk/main.go; its hash is part of the store key).
build_pulumi_gen_sdk() {
  local out="$1"; wrapper "$2" local/pulumigensdk
  cp "$REPO_ROOT/scripts/pulumi-gen-sdk/main.go" main.go
  go get "github.com/pulumi/pulumi/pkg/v3@$PULUMI_VERSION" >&2
  go mod tidy >&2
  go build -trimpath -ldflags "-s -w" -o "$out/pulumi-gen-sdk" .
}

# ---- Python: a Python program using the package ---------------------------
# Python's language host, for the test of docs/languages.md's Python program (the Python SDK
# itself, `pulumi`, comes from PyPI in that test's virtualenv).
# The last Python host the module proxy serves is inside sdk/v3 (later hosts are a module of their
# own, github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python/v3, which the proxy refuses;
# sdk/v3 v3.80.0 no longer has the host). It runs its `pulumi-language-python-exec` script (of the
# same version) from beside its own resolved executable, so both live in one directory.
PULUMI_PYTHON_HOST_SDK_VERSION=v3.79.0

build_pulumi_python_host() {
  local out="$1"; wrapper "$2" local/pulumipythonhost
  go get "github.com/pulumi/pulumi/sdk/v3/python/cmd/pulumi-language-python@$PULUMI_PYTHON_HOST_SDK_VERSION" >&2
  go build -trimpath \
    -ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$PULUMI_PYTHON_HOST_SDK_VERSION" \
    -o "$out/pulumi-language-python" github.com/pulumi/pulumi/sdk/v3/python/cmd/pulumi-language-python
  local dir
  dir="$(go list -m -f '{{.Dir}}' github.com/pulumi/pulumi/sdk/v3)"
  install -m 755 "$dir/python/cmd/pulumi-language-python-exec" "$out/pulumi-language-python-exec"
}

# python_tools REUSED: the host and its script go beside the CLI (`place`) unless REUSED is set (a
# Pulumi install on PATH), then bin/ links to the store.
python_tools() {
  local host="pulumi-language-python-$PULUMI_PYTHON_HOST_SDK_VERSION-r$RECIPE"
  if [[ -n "$1" ]]; then
    ensure "$host" build_pulumi_python_host pulumi-language-python pulumi-language-python-exec
  else
    ensure "$host" build_pulumi_python_host
    place "$STORE/$host/pulumi-language-python" pulumi-language-python
    place "$STORE/$host/pulumi-language-python-exec" pulumi-language-python-exec
  fi
}
# ---- end of Python ----------------------------------------------------------

# lay_out_pulumi: the CLI and its bundled plugins in one directory, the way a Pulumi install has
# them (~/.pulumi/bin). The CLI looks for bundled plugins (language hosts, the dynamic-provider
# shim) beside its own resolved executable and warns "using X from $PATH" when the one found on
# PATH resolves elsewhere; so the files here are real files (hard links or copies), and bin/ links
# to them.
lay_out_pulumi() {
  local cli="$1"
  place "$cli" pulumi
  local host
  for host in "pulumi-language-nodejs-$PULUMI_NODEJS_HOST_SDK_VERSION-r$RECIPE/pulumi-language-nodejs" \
    "pulumi-language-yaml-$PULUMI_YAML_VERSION-r$RECIPE/pulumi-language-yaml" \
    "pulumi-language-go-$PULUMI_GO_HOST_SDK_VERSION-r$RECIPE/pulumi-language-go"; do
    # The hosts built so far (`--demo` builds the Node.js one only).
    [[ -f "$STORE/${host%%/*}/.complete" ]] && place "$STORE/$host" "${host##*/}"
  done
  # The dynamic-provider shim every Pulumi install ships (the same script as in @pulumi/pulumi):
  # it runs the @pulumi/pulumi of the program's own directory.
  local shim="$TMP/pulumi-resource-pulumi-nodejs.$BASHPID"
  cat >"$shim" <<'SHIM'
#!/bin/sh
PULUMI_DYNAMIC_PROVIDER_SCRIPT_PATH=$(node -e "console.log(require.resolve('@pulumi/pulumi/cmd/dynamic-provider'))")
if [ ! -z "$PULUMI_DYNAMIC_PROVIDER_SCRIPT_PATH" ]; then
    node "$PULUMI_DYNAMIC_PROVIDER_SCRIPT_PATH" $@
fi
SHIM
  chmod 755 "$shim"
  place "$shim" pulumi-resource-pulumi-nodejs
  rm -f "$shim"
}

# The GitOps controllers (Flux, Argo CD, Redis): their recipes and pins.
# shellcheck source=scripts/toolchain-gitops.sh
source "$REPO_ROOT/scripts/toolchain-gitops.sh"

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

lane_a() {
  local h
  if h="$(ambient helm)" && [[ "$("$h" version --template '{{.Version}}' 2>/dev/null)" == v4.* ]]; then
    say "helm: reusing $h"; link helm "$h"
  else
    ensure "helm-$HELM_VERSION-r$RECIPE" build_helm helm
  fi
  # The demo's lane b is the shorter one: etcd goes there.
  [[ -n "$DEMO" ]] || etcd_tool
  local k
  if k="$(ambient kube-apiserver)" && "$k" --version 2>/dev/null | grep -q "Kubernetes ${K8S_VERSION%.*}\." &&
    ambient kube-controller-manager >/dev/null && ambient kube-scheduler >/dev/null; then
    say "kube: reusing $k"
    link kube-apiserver "$k"
    link kube-controller-manager "$(ambient kube-controller-manager)"
    link kube-scheduler "$(ambient kube-scheduler)"
  else
    ensure "kube-$K8S_VERSION-r$RECIPE" build_kube kube-apiserver kube-controller-manager kube-scheduler
  fi
  # The GitOps controllers (not for the demo): lane a ends with them, lane b with the Pulumi plugins.
  [[ -n "$DEMO" ]] || { argocd_tools; flux_tools; }
}

# The second lane: the pulumi CLI first (the demo's longest build besides kube), then kwok; with
# everything else the tests use after them unless DEMO is set.
lane_b() {
  local p reused=""
  if p="$(ambient pulumi)" && [[ "$("$p" version 2>/dev/null)" == v3.* ]]; then
    say "pulumi: reusing $p (a Pulumi install: its bundled plugins are beside it)"; link pulumi "$p"
    reused=1
  else
    ensure "pulumi-$PULUMI_VERSION-r$RECIPE" build_pulumi
  fi
  local nodejs_host="pulumi-language-nodejs-$PULUMI_NODEJS_HOST_SDK_VERSION-r$RECIPE"
  if [[ -z "$reused" ]]; then
    ensure "$nodejs_host" build_pulumi_nodejs_host
    lay_out_pulumi "$STORE/pulumi-$PULUMI_VERSION-r$RECIPE/pulumi"
  elif ambient pulumi-language-nodejs >/dev/null; then
    # A Pulumi install has its Node.js host beside the CLI (on PATH with it): build one only when not.
    say "pulumi-language-nodejs: reusing $(ambient pulumi-language-nodejs)"
  else
    ensure "$nodejs_host" build_pulumi_nodejs_host pulumi-language-nodejs
  fi
  # kwok is always taken from its module: the binary alone lacks the stages.
  ensure "kwok-$KWOK_VERSION-r$RECIPE-stages2" build_kwok kwok kwok-stages
  if [[ -n "$DEMO" ]]; then etcd_tool; else test_tools "$reused"; fi
}

# test_tools REUSED: what only the tests need (REUSED: the pulumi CLI is a Pulumi install on PATH).
test_tools() {
  ensure "registry-$REGISTRY_VERSION-r$RECIPE" build_registry registry
  ensure "pulumi-kubernetes-$PULUMI_K8S_VERSION-r$RECIPE" build_pulumi_k8s pulumi-resource-kubernetes
  local gen
  gen="$(sha256sum "$REPO_ROOT/scripts/pulumi-gen-sdk/main.go" | cut -c1-12)"
  ensure "pulumi-gen-sdk-$PULUMI_VERSION-r$RECIPE-$gen" build_pulumi_gen_sdk pulumi-gen-sdk
  if [[ -n "$1" ]]; then
    ensure "pulumi-language-yaml-$PULUMI_YAML_VERSION-r$RECIPE" build_pulumi_yaml pulumi-language-yaml
    ensure "pulumi-language-go-$PULUMI_GO_HOST_SDK_VERSION-r$RECIPE" build_pulumi_go_host pulumi-language-go
  else
    ensure "pulumi-language-yaml-$PULUMI_YAML_VERSION-r$RECIPE" build_pulumi_yaml
    ensure "pulumi-language-go-$PULUMI_GO_HOST_SDK_VERSION-r$RECIPE" build_pulumi_go_host
    lay_out_pulumi "$STORE/pulumi-$PULUMI_VERSION-r$RECIPE/pulumi"
  fi
  python_tools "$1"
  # Upstream CRDs (Cluster API, CAAPH, Flux, Argo CD) for server-side dry runs in tests.
  "$REPO_ROOT/scripts/crds.sh" >&2
}

DEMO=""
main() {
  local t0=$SECONDS print=""
  local arg
  for arg in "$@"; do
    case "$arg" in
      --demo) DEMO=1 ;;
      --print-bin) print=1 ;;
      *) die "unknown argument $arg (usage: scripts/toolchain.sh [--demo] [--print-bin])" ;;
    esac
  done
  lane_node
  # Two lanes for two cores; each go build already uses both.
  lane_a 2> >(sed -u 's/^/[a] /' >&2) & local a=$!
  lane_b 2> >(sed -u 's/^/[b] /' >&2) & local b=$!
  local rc=0
  wait "$a" || rc=1
  wait "$b" || rc=1
  (( rc == 0 )) || die "some tools failed to build (see above)"
  say "ready in $((SECONDS - t0))s: $BIN${DEMO:+ (what the demo needs)}"
  [[ -n "$print" ]] && printf '%s\n' "$BIN"
  return 0
}

main "$@"
