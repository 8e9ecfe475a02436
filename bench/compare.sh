#!/usr/bin/env bash
# Compare jsprof with the reference engine (Chrome DevTools trace engine,
# npm @paulirish/trace_engine 0.0.65, run by tools/oracle/dump-profile-calls.mjs)
# on the same input files: wall-clock time of the whole process (median of
# RUNS runs) and peak RSS.
#
# Usage: bench/compare.sh [FILE...]
#   FILE      .cpuprofile or trace, plain or gzip. gzip input is decompressed once
#             to a temp file and both tools are timed on the plain JSON.
#             Default: ../shared/corpus/devtools/large-profile.cpuprofile.gz
#             (relative to the repo root) plus every other .cpuprofile(.gz)
#             under ../shared/corpus.
# Environment:
#   JSPROF    jsprof binary (default: built with `CGO_ENABLED=0 go build -o $tmp/jsprof ./cmd/jsprof`, static as shipped)
#   RUNS      runs per tool and file (default 3; the median time is reported)
#   RSS_TOOL  how to measure peak RSS: auto (default), gnu-time, python, proc
#
# One line per file: file, raw MB (decompressed; 1 MB = 10^6 bytes), jsprof
# median s, engine median s, engine/jsprof time ratio, jsprof peak RSS MB,
# jsprof RSS / raw size, engine peak RSS MB. Peak RSS is the maximum over the runs.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
root="$(cd "$script_dir/.." && pwd -P)"
runs="${RUNS:-3}"
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "compare.sh: RUNS must be a positive integer (got '$runs')" >&2
  exit 2
fi

# ---- input files (resolved before changing directory) ----
files=()
if (($#)); then
  for f in "$@"; do
    if [[ ! -f "$f" ]]; then
      echo "compare.sh: no such file: $f" >&2
      exit 2
    fi
    files+=("$(realpath "$f")")
  done
else
  corpus="$root/../shared/corpus"
  if [[ ! -d "$corpus" ]]; then
    echo "compare.sh: skipped: ../shared/corpus is absent (give FILE arguments to benchmark other files)"
    exit 0
  fi
  corpus="$(cd "$corpus" && pwd -P)"
  large="$corpus/devtools/large-profile.cpuprofile.gz"
  if [[ -f "$large" ]]; then files+=("$large"); fi
  while IFS= read -r f; do
    if [[ "$f" != "$large" ]]; then files+=("$f"); fi
  done < <(find "$corpus" -type f \( -name '*.cpuprofile' -o -name '*.cpuprofile.gz' \) | LC_ALL=C sort)
  if ((${#files[@]} == 0)); then
    echo "compare.sh: skipped: no .cpuprofile files under $corpus"
    exit 0
  fi
fi

# a relative JSPROF path is relative to the caller's directory
if [[ -n "${JSPROF:-}" && "$JSPROF" == */* ]]; then JSPROF="$(realpath -m "$JSPROF")"; fi

cd "$root"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/jsprof-bench.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

# ---- tools ----
command -v node >/dev/null 2>&1 || { echo "compare.sh: node not found on PATH" >&2; exit 1; }
tools/oracle/install.sh
engine=(node "$root/tools/oracle/dump-profile-calls.mjs")

if [[ -n "${JSPROF:-}" ]]; then
  jsprof="$JSPROF"
  if [[ "$jsprof" != */* ]]; then jsprof="$(command -v "$jsprof" || true)"; fi
  [[ -n "$jsprof" && -x "$jsprof" ]] || { echo "compare.sh: JSPROF=$JSPROF is not an executable" >&2; exit 1; }
else
  command -v go >/dev/null 2>&1 || { echo "compare.sh: go not found on PATH (or set JSPROF)" >&2; exit 1; }
  echo "building jsprof (go build ./cmd/jsprof)..." >&2
  if ! CGO_ENABLED=0 go build -o "$tmp/jsprof" ./cmd/jsprof; then
    echo "compare.sh: go build ./cmd/jsprof failed (set JSPROF to use a prebuilt binary)" >&2
    exit 1
  fi
  jsprof="$tmp/jsprof"
fi

# ---- measurement: run CMD... with stdout discarded; set WALL (s) and RSS_KB ----
rss_tool="${RSS_TOOL:-auto}"
if [[ "$rss_tool" == auto ]]; then
  if [[ -x /usr/bin/time ]] && /usr/bin/time -f %M -o "$tmp/probe" true 2>/dev/null &&
     [[ "$(cat "$tmp/probe")" =~ ^[0-9]+$ ]]; then
    rss_tool=gnu-time
  elif command -v python3 >/dev/null 2>&1 && python3 -c 'import os; os.wait4' 2>/dev/null; then
    rss_tool=python
  else
    rss_tool=proc
  fi
fi
case "$rss_tool" in gnu-time|python|proc) ;; *)
  echo "compare.sh: RSS_TOOL must be auto, gnu-time, python or proc (got '$rss_tool')" >&2; exit 2;;
esac

# Python wrapper: times the child itself (its own start-up is not counted) and
# reads the child's ru_maxrss (KiB on Linux) from wait4.
py_wrapper='
import os, subprocess, sys, time
t0 = time.perf_counter()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, ru = os.wait4(p.pid, 0)
wall = time.perf_counter() - t0
p.returncode = 0  # reaped above
with open(os.environ["BENCH_OUT"], "w") as out:
    print("%.6f %d" % (wall, ru.ru_maxrss), file=out)
sys.exit(os.waitstatus_to_exitcode(status))
'

WALL=""
RSS_KB=""
measure() { # measure ERRFILE CMD...
  local err="$1"; shift
  local t0 t1 rc=0
  case "$rss_tool" in
    gnu-time)
      t0=$EPOCHREALTIME
      /usr/bin/time -f %M -o "$tmp/rss" "$@" >/dev/null 2>"$err" || rc=$?
      t1=$EPOCHREALTIME
      WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
      RSS_KB=$(tail -n 1 "$tmp/rss")
      ;;
    python)
      BENCH_OUT="$tmp/py" python3 -c "$py_wrapper" "$@" 2>"$err" || rc=$?
      read -r WALL RSS_KB <"$tmp/py" || true
      ;;
    proc)
      # Poll VmHWM (the kernel's own high-water mark) until the process exits;
      # only growth in the last few milliseconds before exit can be missed.
      local pid hwm=0 line
      t0=$EPOCHREALTIME
      "$@" >/dev/null 2>"$err" &
      pid=$!
      while kill -0 "$pid" 2>/dev/null; do
        if line=$(grep -m1 '^VmHWM:' "/proc/$pid/status" 2>/dev/null); then
          line=${line//[!0-9]/}
          [[ -n "$line" ]] && ((line > hwm)) && hwm=$line
        fi
        sleep 0.005
      done
      wait "$pid" || rc=$?
      t1=$EPOCHREALTIME
      WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
      RSS_KB=$hwm
      ;;
  esac
  return "$rc"
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) exit 1; if (NR % 2) printf "%.3f", v[(NR + 1) / 2]; else printf "%.3f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
maxof() { sort -g | tail -n 1; }

# bench_pair: runs jsprof (summary) and the engine on $input in turn, RUNS
# times each, and sets J_RESULT and E_RESULT to "median_s peak_rss_kb", or
# "FAIL" if a run fails. In turn, not one tool's runs and then the other's:
# the machine's speed drifts over minutes (the engine's time on one file
# varied 2.3–5 s over a day), and runs side by side see the same drift.
bench_pair() {
  local jt=() jr=() et=() er=() i
  J_RESULT="" E_RESULT=""
  for ((i = 0; i < runs; i++)); do
    # The input back in the page cache before each run: this machine's
    # host takes cached pages back within a minute, and a run that reads
    # from the disk measures the disk.
    if [[ -z "$J_RESULT" ]]; then
      cat "$input" >/dev/null
      if measure "$tmp/jsprof.err" "$jsprof" summary "$input"; then
        jt+=("$WALL") jr+=("$RSS_KB")
      else
        echo "compare.sh: jsprof failed: $jsprof summary $input" >&2
        sed -n '1,20p' "$tmp/jsprof.err" >&2
        J_RESULT=FAIL
      fi
    fi
    if [[ -z "$E_RESULT" ]]; then
      cat "$input" >/dev/null
      if measure "$tmp/engine.err" "${engine[@]}" "$input" --mode min --no-entries; then
        et+=("$WALL") er+=("$RSS_KB")
      else
        echo "compare.sh: engine failed: ${engine[*]} $input" >&2
        sed -n '1,20p' "$tmp/engine.err" >&2
        E_RESULT=FAIL
      fi
    fi
  done
  [[ -n "$J_RESULT" ]] || J_RESULT="$(printf '%s\n' "${jt[@]}" | median) $(printf '%s\n' "${jr[@]}" | maxof)"
  [[ -n "$E_RESULT" ]] || E_RESULT="$(printf '%s\n' "${et[@]}" | median) $(printf '%s\n' "${er[@]}" | maxof)"
}

display_name() {
  local f="$1" c
  c="$(cd "$root/.." && pwd -P)/shared/corpus/"
  if [[ "$f" == "$c"* ]]; then
    echo "corpus/${f#"$c"}"
  elif [[ "$f" == "$root/"* ]]; then
    echo "${f#"$root/"}"
  else
    echo "$f"
  fi
}

echo "jsprof: $jsprof"
echo "engine: node tools/oracle/dump-profile-calls.mjs FILE --mode min --no-entries ($(node --version))"
echo "runs: $runs each, jsprof and the engine in turn (median wall time of the whole process), peak RSS via $rss_tool"
printf '%-58s %9s %10s %10s %9s %11s %9s %11s\n' \
  file raw_MB jsprof_s engine_s ratio jsprof_RSS RSS/size engine_RSS
failed=0
for f in "${files[@]}"; do
  input="$f"
  magic="$(head -c 2 "$f" | od -An -tx1 | tr -d ' \n')"
  if [[ "$magic" == 1f8b ]]; then
    base="$(basename "$f")"
    input="$tmp/${base%.gz}"
    [[ "$input" == "$tmp/$base" ]] && input="$tmp/$base.json"
    gzip -dc "$f" >"$input"
  fi
  bytes=$(wc -c <"$input")

  j_s=FAIL j_rss="" e_s=FAIL e_rss=""
  bench_pair
  read -r j_s j_rss <<<"$J_RESULT" || true
  read -r e_s e_rss <<<"$E_RESULT" || true

  awk -v name="$(display_name "$f")" -v bytes="$bytes" -v js="$j_s" -v jr="${j_rss:-}" \
      -v es="$e_s" -v er="${e_rss:-}" 'BEGIN {
    mb = bytes / 1e6
    jok = (js != "FAIL"); eok = (es != "FAIL")
    # "×" is appended after padding: awk may count bytes, and it is two in UTF-8
    ratio = (jok && eok && js > 0) ? sprintf("%8.1f×", es / js) : sprintf("%9s", "-")
    jrss = jok ? sprintf("%.1f", jr * 1024 / 1e6) : "-"
    rs = (jok && mb > 0) ? sprintf("%8.2f×", (jr * 1024 / 1e6) / mb) : sprintf("%9s", "-")
    erss = eok ? sprintf("%.1f", er * 1024 / 1e6) : "-"
    printf "%-58s %9.2f %10s %10s %s %11s %s %11s\n", name, mb, js, es, ratio, jrss, rs, erss
  }'
  # An engine failure is reported but not fatal (e.g. the oracle script does not
  # read the legacy `head`-format .cpuprofile); a jsprof failure makes the exit status 1.
  if [[ "$j_s" == FAIL ]]; then failed=1; fi
  if [[ "$input" != "$f" ]]; then rm -f "$input"; fi
done
exit "$failed"
