#!/usr/bin/env bash
# Times jsprof against the DevTools engine (bench/compare.sh) on every input
# the speed and memory targets of issue 15 name, and says of each line whether
# it meets them:
#   - every .cpuprofile of 20 MB or more in ../shared/corpus and testdata, and
#     the three generated shapes (internal/proftest.Shapes): summary at least
#     20x faster than the engine, peak RSS at most the file's size;
#   - every trace of 20 MB or more there: at least 12x, at most half the size.
# Sizes are of the decompressed file (MB = 10^6 bytes). With CHROME_SHAPED=1
# the typescript shape is also written as a Chrome-shaped trace (convert
# --format trace, then internal/proftest/rechunk) and timed as a trace.
#
# A file is taken for a .cpuprofile by its name (.cpuprofile or
# .cpuprofile.gz), for a trace otherwise. Without ../shared, the shapes only
# (testdata holds no input that large).
#
# Usage: bench/targets.sh      (RUNS, JSPROF as for compare.sh)
# Exit status: 0 when every line meets its targets, 1 when a line misses one
# (marked MISS) or a run fails.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cd "$root"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/jsprof-targets.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
min=$((20 * 1000 * 1000))

files=()
# rawsize FILE: its size, decompressed when it is gzip (sniffed, not named).
rawsize() {
  if [[ "$(head -c 2 "$1" | od -An -tx1 | tr -d ' \n')" == 1f8b ]]; then
    gzip -dc "$1" | wc -c
  else
    wc -c <"$1"
  fi
}
dirs=("$root/testdata")
if [[ -d "$root/../shared/corpus" ]]; then
  dirs+=("$(cd "$root/../shared/corpus" && pwd -P)")
else
  echo "targets.sh: ../shared/corpus is absent: testdata and the generated shapes only" >&2
fi
while IFS= read -r f; do
  if (($(rawsize "$f") >= min)); then files+=("$f"); fi
done < <(find "${dirs[@]}" -type f \( -name '*.cpuprofile' -o -name '*.cpuprofile.gz' -o -name '*.json' -o -name '*.json.gz' \) | LC_ALL=C sort)

for shape in typescript many-nodes samples-heavy; do
  go run ./internal/proftest/genprofile -shape "$shape" -o "$tmp/shape-$shape.cpuprofile" >&2
  files+=("$tmp/shape-$shape.cpuprofile")
done
if [[ "${CHROME_SHAPED:-}" == 1 ]]; then
  CGO_ENABLED=0 go build -o "$tmp/jsprof-convert" ./cmd/jsprof
  "$tmp/jsprof-convert" convert --format trace "$tmp/shape-typescript.cpuprofile" -o "$tmp/ts.trace.json"
  go run ./internal/proftest/rechunk "$tmp/ts.trace.json" "$tmp/shape-typescript-chrome-shaped.json"
  rm -f "$tmp/ts.trace.json"
  files+=("$tmp/shape-typescript-chrome-shaped.json")
fi

bash bench/compare.sh "${files[@]}" | tee "$tmp/out"

# compare.sh's lines: file raw_MB jsprof_s engine_s ratio jsprof_RSS RSS/size engine_RSS
echo
echo "targets: a .cpuprofile >= 20x and RSS <= 1x its size; a trace >= 12x and RSS <= 0.5x"
awk '
  NF == 8 && $2 ~ /^[0-9.]+$/ {
    trace = ($1 !~ /\.cpuprofile(\.gz)?$/)
    want_ratio = trace ? 12 : 20; want_rss = trace ? 0.5 : 1
    ratio = $5; sub(/×$/, "", ratio); rss = $7; sub(/×$/, "", rss)
    ok = (ratio + 0 >= want_ratio) && (rss + 0 <= want_rss)
    if (!ok) miss++
    n = split($1, parts, "/")
    printf "%-4s %-45s %7s (>= %dx)  RSS %6s (<= %sx)\n", ok ? "ok" : "MISS", parts[n], $5, want_ratio, $7, want_rss
  }
  END { if (miss) { printf "%d of the lines miss a target\n", miss; exit 1 } }
' "$tmp/out"
