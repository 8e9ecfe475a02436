#!/usr/bin/env bash
# Install the pinned Firefox Profiler CLI (npm @firefox-devtools/profiler-cli
# 0.10.0, which bundles the Profiler's own loader and call tree) into
# tools/firefox/node_modules. Idempotent: does nothing when the pinned version
# is already installed. Needs `node` and `npm` on PATH and access to the npm
# registry on first run.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"

want=0.10.0
pkg=node_modules/@firefox-devtools/profiler-cli/package.json

command -v node >/dev/null 2>&1 || { echo "tools/firefox/install.sh: node not found on PATH" >&2; exit 1; }

installed_version() {
  [[ -f $pkg ]] || return 0
  node -e 'process.stdout.write(String(require(process.argv[1]).version || ""))' "./$pkg" 2>/dev/null || true
}

if [[ "$(installed_version)" == "$want" ]]; then
  exit 0
fi

command -v npm >/dev/null 2>&1 || { echo "tools/firefox/install.sh: npm not found on PATH" >&2; exit 1; }
echo "tools/firefox/install.sh: installing @firefox-devtools/profiler-cli@$want (npm ci)" >&2
# The package declares node >= 24 but runs on Node 20; npm only warns.
npm ci --no-audit --no-fund >&2

got="$(installed_version)"
if [[ "$got" != "$want" ]]; then
  echo "tools/firefox/install.sh: expected profiler-cli $want, found '${got:-none}'" >&2
  exit 1
fi
