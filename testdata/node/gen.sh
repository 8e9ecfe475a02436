#!/usr/bin/env bash
# Regenerate the V8 CPU profiles in this directory from the workload scripts.
#
#   testdata/node/gen.sh            # all workloads
#   testdata/node/gen.sh mix async  # only these
#
# Each <name>.js is run as
#   node --cpu-prof --cpu-prof-interval=100 --cpu-prof-dir=$tmp --cpu-prof-name=<name>.cpuprofile <name>.js
# and the profile is post-processed by rewrite-urls.js (absolute file:// URLs of
# this directory -> file:///jsprof/testdata/node/) into <name>.cpuprofile here.
# Profiles differ from run to run (timing, sampling); regenerate them all with
# the same Node version and record it in README.md.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"
here="$(pwd -P)"

workloads=(recursion mix async deep-stack)
if (($#)); then workloads=("$@"); fi

max_bytes=$((1024 * 1024))
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "node $(node --version)"
for name in "${workloads[@]}"; do
  [[ -f "$name.js" ]] || { echo "gen.sh: no workload $name.js" >&2; exit 1; }
  node --cpu-prof --cpu-prof-interval=100 --cpu-prof-dir="$tmp" \
    --cpu-prof-name="$name.cpuprofile" "$here/$name.js"
  node rewrite-urls.js "$tmp/$name.cpuprofile" "$name.cpuprofile" "$here"
  size=$(wc -c <"$name.cpuprofile")
  echo "$name.cpuprofile: $size bytes"
  if ((size > max_bytes)); then
    echo "gen.sh: $name.cpuprofile is larger than 1 MiB; shorten $name.js" >&2
    exit 1
  fi
done
