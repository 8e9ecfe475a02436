#!/usr/bin/env bash
# Generates a large synthetic Chrome trace (default 2000 MB) with
# internal/proftest/gentrace and reports jsprof summary's wall time,
# throughput and peak RSS on it. Needs ~2x SIZE_MB of free disk in TMPDIR.
#   SIZE_MB=2000 bash bench/bigtrace.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
size=${SIZE_MB:-2000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/jsprof" ./cmd/jsprof
go run ./internal/proftest/gentrace -size "$size" -o "$tmp/big.json"
bytes=$(stat -c %s "$tmp/big.json")
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f '%e %M' -o "$tmp/time" "$tmp/jsprof" summary "$tmp/big.json" >"$tmp/out"
  read -r secs kb <"$tmp/time"
else
  start=$(date +%s.%N); "$tmp/jsprof" summary "$tmp/big.json" >"$tmp/out"; end=$(date +%s.%N)
  secs=$(echo "$end - $start" | bc); kb=0
fi
grep -E 'samples|calls|events' "$tmp/out" | sed 's/^/  /'
awk -v b="$bytes" -v s="$secs" -v kb="$kb" 'BEGIN {
  printf "input %.0f MB: %.2f s, %.0f MB/s, peak RSS %.0f MB (%.2fx the input)\n", b/1e6, s, b/1e6/s, kb*1024/1e6, kb*1024/b }'
