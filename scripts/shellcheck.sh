#!/usr/bin/env bash
# The shell check (`npm run lint` runs it): shellcheck (Debian's package `shellcheck`) on every
# shell script of the repository. A finding is fixed, or disabled on its line with the reason.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v shellcheck >/dev/null || {
  echo "shellcheck: not installed (Debian/Ubuntu: apt-get install shellcheck; .ci/run installs it)" >&2
  exit 1
}
shellcheck scripts/*.sh .ci/run pulumi-resource-helm-handoff
