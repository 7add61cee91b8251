#!/usr/bin/env bash
# `npm run package:jsii [-- --out DIR] [--targets python,java] [--skip-build]`: the jsii construct
# library of constructs-jsii/ (helm-handoff's cdk8s constructs for Python, Java, Go and .NET apps),
# written under one folder (default dist/jsii):
#   js/helm-handoff-cdk8s@VERSION.jsii.tgz        the npm tarball (what the Python and Java packages embed)
#   python/helm_handoff_cdk8s-VERSION-py3-none-any.whl (and the sdist)
#   java/dev/helm-handoff/helm-handoff-cdk8s/VERSION/…  a Maven repository layout (jar, sources, javadoc, pom)
# `--targets` picks among js, python, java (default all three; js is always written); `--generate go,dotnet`
# also writes the Go module's and the .NET project's code (go/, dotnet/) without building them (the cdk8s
# Go module and NuGet are out of reach here, see docs/cdk8s.md).
#
# The package is built in a staging copy (a temp dir), so that runs in parallel do not share a tree:
# its node_modules holds this checkout's `npm pack` tarball unpacked as helm-handoff (a bundled
# dependency: jsii accepts a non-jsii dependency only when it is bundled) with the one runtime
# dependency its cdk8s entry point loads, yaml, also bundled; cdk8s and constructs (peers) and the
# jsii tools come from constructs-jsii/node_modules (`npm ci` there on first use). Maven's local
# repository is ~/.m2/repository (not a temp one per build), so later builds download nothing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jsii_dir="$root/constructs-jsii"
out="$root/dist/jsii"
targets="js,python,java"
generate=""
build=1
while (($#)); do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --targets) targets="js,$2"; shift 2 ;;
    --generate) generate="$2"; shift 2 ;;
    --skip-build) build=0; shift ;;
    *) echo "package-jsii: unknown argument $1 (expected --out DIR, --targets LIST, --generate LIST, --skip-build)" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
out="$(cd "$out" && pwd)"

node_major="$(node -p 'process.versions.node.split(".").map(Number).join(" ")')"
read -r major minor _ <<<"$node_major"
if ((major < 22 || (major == 22 && minor < 12))); then
  echo "package-jsii: Node.js >= 22.12 is needed (found $(node --version)): run it through scripts/with-toolchain.sh" >&2
  exit 1
fi

# The jsii tools and the peers' minimum versions, once per checkout (flock: test files build in parallel).
(
  flock 9
  # npm ci writes node_modules/.package-lock.json: older than package-lock.json means stale.
  if [[ ! -x "$jsii_dir/node_modules/.bin/jsii-pacmak" ||
    "$jsii_dir/package-lock.json" -nt "$jsii_dir/node_modules/.package-lock.json" ]]; then
    npm ci --prefix "$jsii_dir" --no-audit --no-fund --loglevel=error
  fi
) 9<"$jsii_dir/package.json"

if ((build)); then
  (cd "$root" && tsc -p tsconfig.build.json)
fi

stage="$(mktemp -d "${TMPDIR:-/tmp}/helm-handoff-jsii-XXXXXX")"
trap 'rm -rf "$stage"' EXIT
cp -r "$jsii_dir/package.json" "$jsii_dir/README.md" "$jsii_dir/src" "$root/LICENSE" "$stage/"
mkdir -p "$stage/node_modules/helm-handoff"
tarball="$(cd "$root" && npm pack --ignore-scripts --json --pack-destination "$stage" | node -e \
  'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s)[0].filename))')"
tar xzf "$stage/$tarball" -C "$stage/node_modules/helm-handoff" --strip-components=1
rm "$stage/$tarball"
cp -r "$root/node_modules/yaml" "$stage/node_modules/yaml"
for dep in cdk8s constructs; do
  ln -s "$jsii_dir/node_modules/$dep" "$stage/node_modules/$dep"
done
# The published package.json: helm-handoff at this checkout's version and yaml at the installed one,
# both bundled.
# shellcheck disable=SC2016 # JavaScript in single quotes: its ${...} are template literals, not the shell's
(cd "$stage" && node -e '
const fs = require("node:fs");
const pkg = JSON.parse(fs.readFileSync("package.json", "utf8"));
const version = (name) => JSON.parse(fs.readFileSync(`node_modules/${name}/package.json`, "utf8")).version;
delete pkg.private;
pkg.dependencies = { "helm-handoff": version("helm-handoff"), yaml: version("yaml") };
pkg.bundledDependencies = ["helm-handoff", "yaml"];
fs.writeFileSync("package.json", `${JSON.stringify(pkg, null, 2)}\n`);
')

bin="$jsii_dir/node_modules/.bin"
(cd "$stage" && "$bin/jsii" --silence-warnings=reserved-word)
IFS=, read -ra target_list <<<"$targets"
(cd "$stage" && "$bin/jsii-pacmak" --targets "${target_list[@]}" --outdir "$out" \
  --maven-local-repository "$HOME/.m2/repository" --no-fingerprint --force)
# pacmak's Maven build also installs the jar into the local repository: remove it (it is in $out/java),
# or a Maven project would keep using that copy of the version instead of the layout it names.
if [[ ",$targets," == *,java,* ]]; then
  rm -rf "$HOME/.m2/repository/dev/helm-handoff/helm-handoff-cdk8s/$(node -p 'require(process.argv[1]).version' "$jsii_dir/package.json")"
fi
if [[ -n "$generate" ]]; then
  IFS=, read -ra generate_list <<<"$generate"
  (cd "$stage" && "$bin/jsii-pacmak" --targets "${generate_list[@]}" --outdir "$out" --code-only \
    --no-fingerprint --force)
fi
echo "package-jsii: wrote $out" >&2
