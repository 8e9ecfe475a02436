#!/usr/bin/env bash
# Times jsprof against the DevTools engine on generated .cpuprofile shapes
# (internal/proftest.Shapes) with bench/compare.sh: a TypeScript compile
# (deep stacks, 160k nodes, 100 µs sampling), a big app (350k nodes) and a
# long fine-grained recording (3 M samples), plus, with LONG=MB, a real
# profile's samples repeated to MB megabytes (the engine is skipped there:
# it takes minutes and gigabytes).
#
# Usage: bench/shapes.sh            # the three shapes (RUNS, JSPROF as for compare.sh)
#        LONG=246 bench/shapes.sh   # also testdata/node/deep-stack.cpuprofile repeated to 246 MB
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cd "$root"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/jsprof-shapes.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
for shape in typescript many-nodes samples-heavy; do
  go run ./internal/proftest/genprofile -shape "$shape" -o "$tmp/$shape.cpuprofile" >&2
done
bash bench/compare.sh "$tmp"/*.cpuprofile
if [[ -n "${LONG:-}" ]]; then
  go run ./internal/proftest/genprofile -repeat testdata/node/deep-stack.cpuprofile -size "$LONG" -o "$tmp/long.cpuprofile" >&2
  jsprof="${JSPROF:-}"
  if [[ -z "$jsprof" ]]; then
    CGO_ENABLED=0 go build -o "$tmp/jsprof" ./cmd/jsprof
    jsprof="$tmp/jsprof"
  fi
  echo "long recording, $(stat -c %s "$tmp/long.cpuprofile") bytes: jsprof only (wall s, peak RSS KB)"
  for cmd in "summary" "tree --depth 3" "top --focus chainA" "convert --format folded -o $tmp/out.folded" \
    "convert --format pprof -o $tmp/out.pprof" "convert --format speedscope -o $tmp/out.speedscope.json"; do
    # shellcheck disable=SC2086
    /usr/bin/time -f "  %e s %M KB  jsprof $cmd" "$jsprof" $cmd "$tmp/long.cpuprofile" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    tail -n 1 "$tmp/err"
  done
fi
