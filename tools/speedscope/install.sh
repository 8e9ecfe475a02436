#!/usr/bin/env bash
# Install the pinned speedscope npm package (which ships the file-format
# schema, dist/release/file-format-schema.json) and the ajv JSON-schema
# validator into tools/speedscope/node_modules. Idempotent: does nothing when
# the pinned versions are already installed. Needs `node` and `npm` on PATH
# and access to the npm registry on first run.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"

want_speedscope=1.25.0
want_ajv=8.20.0

installed_version() {
  local pkg="node_modules/$1/package.json"
  [[ -f $pkg ]] || return 0
  node -e 'process.stdout.write(String(require(process.argv[1]).version || ""))' "./$pkg" 2>/dev/null || true
}

ok() {
  [[ "$(installed_version speedscope)" == "$want_speedscope" && "$(installed_version ajv)" == "$want_ajv" ]] &&
    [[ -f node_modules/speedscope/dist/release/file-format-schema.json ]]
}

if ok; then
  exit 0
fi

command -v node >/dev/null 2>&1 || { echo "tools/speedscope/install.sh: node not found on PATH" >&2; exit 1; }
command -v npm >/dev/null 2>&1 || { echo "tools/speedscope/install.sh: npm not found on PATH" >&2; exit 1; }
echo "tools/speedscope/install.sh: installing speedscope@$want_speedscope and ajv@$want_ajv (npm ci)" >&2
npm ci --no-audit --no-fund >&2

if ! ok; then
  echo "tools/speedscope/install.sh: expected speedscope $want_speedscope and ajv $want_ajv, found '$(installed_version speedscope)' and '$(installed_version ajv)'" >&2
  exit 1
fi
