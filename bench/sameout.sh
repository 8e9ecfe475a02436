#!/usr/bin/env bash
# Compares what two jsprof binaries write for the same inputs: the check that a
# change meant for speed or memory changed no output. For each FILE, eight
# commands (summary --json, tree --json, tree --bottom-up --json, top --lines,
# and convert to folded, cpuprofile, trace and speedscope) are run with each
# binary; a command whose outputs or exit statuses differ is named.
#
# Usage: bench/sameout.sh OLD_BINARY NEW_BINARY FILE...
#
# A binary given by a bare name is looked for in the current directory, not on
# PATH: `sameout.sh head fa` must not run /usr/bin/head. A command that fails with
# both binaries in the same way (convert --format cpuprofile of a trace of many
# sampled threads, which asks for --thread) counts as the same, but is named
# too, so that a comparison of two errors is not read as one of two outputs.
# Exit status: 0 when every output is the same, 1 otherwise, 2 on bad usage.
set -uo pipefail

if (($# < 3)); then
  echo "usage: bench/sameout.sh OLD_BINARY NEW_BINARY FILE..." >&2
  exit 2
fi
bins=()
for b in "$1" "$2"; do
  p="$(realpath -e -- "$b" 2>/dev/null)" || { echo "sameout.sh: no such file: $b" >&2; exit 2; }
  [[ -f "$p" && -x "$p" ]] || { echo "sameout.sh: not an executable file: $b" >&2; exit 2; }
  bins+=("$p")
done
shift 2

tmp="$(mktemp -d "${TMPDIR:-/tmp}/jsprof-sameout.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

cmds=("summary --json" "tree --json" "tree --bottom-up --json" "top --lines"
  "convert --format folded" "convert --format cpuprofile" "convert --format trace"
  "convert --format speedscope")
status=0
for f in "$@"; do
  if [[ ! -f "$f" ]]; then
    echo "sameout.sh: no such file: $f" >&2
    status=1
    continue
  fi
  notes=()
  for c in "${cmds[@]}"; do
    # shellcheck disable=SC2086 # each command is its words
    "${bins[0]}" $c "$f" >"$tmp/a" 2>"$tmp/a.err"; ra=$?
    # shellcheck disable=SC2086
    "${bins[1]}" $c "$f" >"$tmp/b" 2>"$tmp/b.err"; rb=$?
    if ((ra != rb)); then
      notes+=("[$c: exit $ra vs $rb]")
      status=1
    elif ! cmp -s "$tmp/a" "$tmp/b"; then
      notes+=("[$c: differs]")
      status=1
    elif ((ra != 0)); then
      notes+=("[$c: both fail with exit $ra: $(head -c 120 "$tmp/a.err" | tr '\n' ' ')]")
    elif [[ ! -s "$tmp/a" ]]; then
      notes+=("[$c: both empty]")
    fi
  done
  if ((${#notes[@]})); then
    echo "$f: ${notes[*]}"
  else
    echo "$f: all same"
  fi
done
exit "$status"
