# shellcheck shell=bash
# Pulumi's side of the toolchain: the pulumi CLI laid out with its Node.js language host and the
# dynamic-provider shim the way a Pulumi install has them (`pulumi_tools`), the peer's provider
# pulumi-resource-kubernetes (`pulumi_kubernetes_tool`), and the other languages' hosts with the
# SDK generators (`language_tools`: YAML, Go, Python). Sourced by scripts/toolchain.sh, whose
# `ensure`, `wrapper`, `say`, `die`, `ambient` and `link` it uses; the pins are here so that the
# files stay small.

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
  # shellcheck disable=SC2016 # JavaScript in single quotes: its ${...} are template literals, not the shell's
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

# pulumi_tools: the CLI with its Node.js language host and the dynamic-provider shim. Sets
# PULUMI_REUSED when the CLI is a Pulumi install on PATH (its bundled plugins are beside it).
PULUMI_REUSED=""
pulumi_tools() {
  local p
  if p="$(ambient pulumi)" && [[ "$("$p" version 2>/dev/null)" == v3.* ]]; then
    say "pulumi: reusing $p (a Pulumi install: its bundled plugins are beside it)"; link pulumi "$p"
    PULUMI_REUSED=1
  else
    ensure "pulumi-$PULUMI_VERSION-r$RECIPE" build_pulumi
  fi
  local nodejs_host="pulumi-language-nodejs-$PULUMI_NODEJS_HOST_SDK_VERSION-r$RECIPE"
  if [[ -z "$PULUMI_REUSED" ]]; then
    ensure "$nodejs_host" build_pulumi_nodejs_host
    lay_out_pulumi "$STORE/pulumi-$PULUMI_VERSION-r$RECIPE/pulumi"
  elif ambient pulumi-language-nodejs >/dev/null; then
    # A Pulumi install has its Node.js host beside the CLI (on PATH with it): build one only when not.
    say "pulumi-language-nodejs: reusing $(ambient pulumi-language-nodejs)"
  else
    ensure "$nodejs_host" build_pulumi_nodejs_host pulumi-language-nodejs
  fi
}

# pulumi_kubernetes_tool: the peer's provider, for the tests and benches of `helm.v3.Release`.
pulumi_kubernetes_tool() {
  ensure "pulumi-kubernetes-$PULUMI_K8S_VERSION-r$RECIPE" build_pulumi_k8s pulumi-resource-kubernetes
}

# language_tools: the YAML, Go and Python hosts and the SDK generators (after pulumi_tools).
language_tools() {
  local gen
  gen="$(sha256sum "$REPO_ROOT/scripts/pulumi-gen-sdk/main.go" | cut -c1-12)"
  ensure "pulumi-gen-sdk-$PULUMI_VERSION-r$RECIPE-$gen" build_pulumi_gen_sdk pulumi-gen-sdk
  if [[ -n "$PULUMI_REUSED" ]]; then
    ensure "pulumi-language-yaml-$PULUMI_YAML_VERSION-r$RECIPE" build_pulumi_yaml pulumi-language-yaml
    ensure "pulumi-language-go-$PULUMI_GO_HOST_SDK_VERSION-r$RECIPE" build_pulumi_go_host pulumi-language-go
  else
    ensure "pulumi-language-yaml-$PULUMI_YAML_VERSION-r$RECIPE" build_pulumi_yaml
    ensure "pulumi-language-go-$PULUMI_GO_HOST_SDK_VERSION-r$RECIPE" build_pulumi_go_host
    lay_out_pulumi "$STORE/pulumi-$PULUMI_VERSION-r$RECIPE/pulumi"
  fi
  python_tools "$PULUMI_REUSED"
}
