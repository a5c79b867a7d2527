#!/usr/bin/env bash
# Every test: formatting, clippy, cargo tests, a one-minute fuzz smoke run
# (scripts/fuzz.sh --debug 60: every fuzz target, regression seeds first), the
# Python package's pytest suite (scripts/test-python.sh), then the lit suite on
# the built tools (test/Browser runs the explorer page in headless Chromium,
# which scripts/setup-browser.sh installs; the C++ package in cmake/ is built
# first, for the mlir-opt-22 plugin tests). Prints lit's result as a plain
# "N passed, N failed" line at the end and exits non-zero if any step failed.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh" || exit 1
cd "$ROOT"

status=0
step() {
  echo "==> $*" >&2
  "$@" || { echo "FAILED: $*" >&2; status=1; }
}

step cargo fmt --all --check
step cargo clippy --workspace --all-targets -- -D warnings
# One build of every target, first: `cargo test` then only runs, and fuzz.sh and memcheck.sh build the same
# selection (--workspace --all-targets), so dependencies are built with one feature set. Each selection that
# unifies features differently (`--bins` leaves out dev-dependencies, `-p` leaves out members) builds its own
# copy of mlir-sys, tblgen and every test binary that links them: gigabytes each.
step cargo build --workspace --all-targets
step cargo test --workspace --no-fail-fast
step scripts/fuzz.sh --debug 60
step scripts/memcheck.sh # axe-opt/axe-translate under valgrind on a fixed sample of lit tests and fuzz inputs
step scripts/test-python.sh
step scripts/setup-browser.sh # Chromium for test/Browser (the explorer page), counted in lit's total
# The C++ package (cmake/): lit's upstream comparisons load its target/cmake/AxePlugin.so (%axe_plugin) into
# mlir-opt-22. Same flags as test/Embed/cmake-package.test, so the build is shared and a re-run only re-checks.
step cmake -G Ninja -S cmake -B target/cmake -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$ROOT/target/cmake-install" >/dev/null
step ninja -C target/cmake >/dev/null

echo "==> lit test" >&2
log="$(mktemp)"
.venv/bin/lit -v test >"$log" 2>&1
lit_status=$?
cat "$log"
count() { sed -n "s/^ *$1: *\([0-9][0-9]*\).*/\1/p" "$log" | head -n1; }
passed=$(( $(count Passed || true) + 0 ))
failed=0
for kind in Failed Unresolved "Timed Out" "Unexpectedly Passed"; do
  failed=$(( failed + $(count "$kind" || true) + 0 ))
done
rm -f "$log"
if [ "$lit_status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
[ "$failed" -eq 0 ] || status=1

echo "$passed passed, $failed failed"
exit "$status"
