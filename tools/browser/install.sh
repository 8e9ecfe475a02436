#!/usr/bin/env bash
# Install headless Chromium from Debian's `chromium` package, for the
# real-browser tests (format/svg). Idempotent: does nothing when
# /usr/bin/chromium exists. Runs `apt-get update` first when it installs.
# Needs root (as CI runs) or sudo, and access to the Debian archive.
set -euo pipefail

bin=/usr/bin/chromium
if [[ -x $bin ]]; then
  exit 0
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null 2>&1 || { echo "tools/browser/install.sh: not root and no sudo: cannot install chromium" >&2; exit 1; }
  sudo=(sudo)
fi
command -v apt-get >/dev/null 2>&1 || { echo "tools/browser/install.sh: apt-get not found (Debian's chromium package is expected)" >&2; exit 1; }

echo "tools/browser/install.sh: installing Debian's chromium package" >&2
start=$(date +%s)
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q >&2
"${sudo[@]}" apt-get install -y -q --no-install-recommends chromium >&2

if [[ ! -x $bin ]]; then
  echo "tools/browser/install.sh: apt-get succeeded but $bin is missing" >&2
  exit 1
fi
echo "tools/browser/install.sh: $("$bin" --version 2>/dev/null || echo chromium) installed in $(( $(date +%s) - start )) s" >&2
