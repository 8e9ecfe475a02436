#!/usr/bin/env bash
# Install the pinned DevTools trace engine (npm @paulirish/trace_engine 0.0.65)
# into tools/oracle/node_modules. Idempotent: does nothing when the pinned
# version is already installed. Needs `node` and `npm` on PATH and access to
# the npm registry on first run.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"

want=0.0.65
pkg=node_modules/@paulirish/trace_engine/package.json

installed_version() {
  [[ -f $pkg ]] || return 0
  node -e 'process.stdout.write(String(require(process.argv[1]).version || ""))' "./$pkg" 2>/dev/null || true
}

if [[ "$(installed_version)" == "$want" ]]; then
  exit 0
fi

command -v npm >/dev/null 2>&1 || { echo "tools/oracle/install.sh: npm not found on PATH" >&2; exit 1; }
echo "tools/oracle/install.sh: installing @paulirish/trace_engine@$want (npm ci)" >&2
npm ci --no-audit --no-fund >&2

got="$(installed_version)"
if [[ "$got" != "$want" ]]; then
  echo "tools/oracle/install.sh: expected trace_engine $want, found '${got:-none}'" >&2
  exit 1
fi
