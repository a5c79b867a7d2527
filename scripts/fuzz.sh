#!/usr/bin/env bash
# Fuzz every target of axe-fuzz (fuzz/) for SECONDS of wall-clock time in all (default 600) and print the
# table per target: runs, planned (the entry point accepted the input; a tool exited 0), refused (it refused,
# naming its rule where the target requires one; a tool's diagnostic and exit 1), failures (planned + refused +
# failures = runs), time, slowest input and memory peak. Exits non-zero on any failure; failing inputs are
# saved under target/fuzz-crashes/<target>/ with a reproducer command.
#
#   scripts/fuzz.sh [SECONDS]                    release build of the harness, 2 worker threads
#   scripts/fuzz.sh --debug 60                   debug build (what scripts/test.sh runs: nothing new to compile)
#   scripts/fuzz.sh --jobs 4 3600 -- --target 'layout-*' --seed 7    more workers, extra axe-fuzz arguments
#   scripts/fuzz.sh --runs 1000000 -- --target 'layout-*'            a count per target instead of a time
#
# Each target's row is printed (stderr, "axe-fuzz: done ...") as it ends, so an interrupted long run still
# reports the targets it finished.
# The process targets run the tools in target/debug (built here if missing); AXE_FUZZ_TOOLS=DIR picks others,
# e.g. target/release after `cargo build --release --bins`.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

profile=release
jobs=2
seconds=600
runs=""
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --debug) profile=debug ;;
    --release) profile=release ;;
    --jobs) jobs="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) seconds="$1" ;;
  esac
  shift
done

# Debug builds use scripts/test.sh's selection (--workspace --all-targets), so nothing is rebuilt with another
# feature set (the note in scripts/test.sh).
tools="${AXE_FUZZ_TOOLS:-target/debug}"
if [ "$profile" = release ]; then
  [ "$tools" != target/debug ] || cargo build --quiet --workspace --all-targets
  cargo build --quiet --release -p axe-fuzz
else
  cargo build --quiet --workspace --all-targets
fi

budget=(--seconds "$seconds")
[ -n "$runs" ] && budget=(--runs "$runs")
exec "target/$profile/axe-fuzz" "${budget[@]}" --jobs "$jobs" --tools "$tools" "${extra[@]}"
