#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run calls this script).
# Installs what the tests need (the pinned DevTools engine from npm) first.
# Tests that use ../shared/corpus skip with a message when it is absent.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

command -v go >/dev/null || { echo "scripts/test.sh: go is not on PATH" >&2; exit 1; }
command -v node >/dev/null || { echo "scripts/test.sh: node is not on PATH (the differential tests need Node 20)" >&2; exit 1; }

echo "== installing the reference engine (tools/oracle)"
bash tools/oracle/install.sh

echo "== installing headless Chromium for the browser tests (tools/browser)"
bash tools/browser/install.sh

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './tools/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:" >&2
  echo "$unformatted" >&2
  exit 1
fi

echo "== go vet"
go vet ./...

echo "== node --test: the viewer's pure front-end modules (internal/server/ui)"
node --test internal/server/ui/test/

echo "== go test"
go test -count=1 -timeout 30m ./...

echo "== go test -race (the session is shared by concurrent callers)"
go test -race -short -count=1 ./session/ ./internal/cli/
go test -race -short -count=1 ./compare/ ./merge/ ./push/...

echo "== fuzz targets, briefly (run longer with: go test -fuzz=NAME -fuzztime=10m ./PKG)"
fuzztime=${FUZZTIME:-15s}
# Every fuzz target of every package (two packages may use the same name).
grep -rlE '^func Fuzz[A-Za-z0-9_]+\(' --include='*_test.go' . | sort | while read -r file; do
  pkg=$(dirname "$file")
  for target in $(grep -oE '^func (Fuzz[A-Za-z0-9_]+)' "$file" | sed 's/^func //'); do
    echo "-- $target in $pkg ($fuzztime)"
    go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" -fuzzminimizetime=2s "$pkg"
  done
done

echo "== benchmarks compile and run once"
go test -run='^$' -bench=. -benchtime=1x ./... >/dev/null
echo "all checks passed"
