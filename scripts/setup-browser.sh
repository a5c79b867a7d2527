#!/usr/bin/env bash
# Setup for the browser tests only (test/Browser: the layout explorer in headless Chromium), called by
# scripts/test.sh before lit. Installs Debian's chromium package when no Chromium is found; a fast no-op
# otherwise. The tests drive Chromium over its DevTools pipe with Python's standard library, so nothing else
# (no chromedriver, no pip package) is needed. AXE_CHROMIUM may name another Chromium binary.
set -euo pipefail

if [ -n "${AXE_CHROMIUM:-}" ] || command -v chromium >/dev/null; then
  exit 0
fi
echo "setup-browser: installing chromium (for test/Browser)" >&2
sudo=()
if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
"${sudo[@]}" apt-get update -q
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q chromium
command -v chromium >/dev/null || {
  echo "setup-browser: chromium is still not on PATH" >&2
  exit 1
}
