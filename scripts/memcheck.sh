#!/usr/bin/env bash
# Runs axe-opt and axe-translate under valgrind's memcheck on a bounded, deterministic sample of the lit suite
# and on the fuzz harness's regression seeds plus a fixed-seed batch of generated axe-opt inputs. Exits non-zero when
# valgrind reports any invalid access or use of uninitialised memory (or a crash) in any run.
#
#   scripts/memcheck.sh                 every 8th lit test (--stride) and 12 axe-opt fuzz inputs (--runs)
#   scripts/memcheck.sh --stride 1      every lit test (slow: seconds to a minute per tool run under valgrind)
#   scripts/memcheck.sh --runs 200      more generated axe-opt inputs
#
# AXE_TOOLS_DIR picks the tools to check and AXE_FUZZ_BIN an axe-fuzz binary (default: built in target/debug).
#
# How: a folder of wrapper scripts named axe-opt and axe-translate runs the built tools (target/debug, or
# AXE_TOOLS_DIR) under `valgrind --tool=memcheck`, each run writing its own log. lit runs the sampled tests with
# AXE_TOOLS_DIR pointing at the wrappers (the RUN lines, pipes and FileCheck as usual), and axe-fuzz replays
# its seeds through them (--tools). A run's log is empty unless valgrind found something (-q); exit codes alone
# are not enough, since a RUN line under `not` turns valgrind's error exit code into a pass. Leaks are not
# checked (the tools exit right after their work). axe-layout links no C++ and is not run here.
#
# Why valgrind rather than a sanitizer build: the memory errors of issue 22 were all inside MLIR's C++ (a region
# freed on a parse error while a use still pointed into it; the lexer reading past a source text with no NUL
# after it; the LLVM IR export building an instruction with no insertion point), which a sanitizer sees only
# when LLVM itself is built with it; valgrind checks the distribution's libraries as they are.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

stride=8
runs=12
while [ $# -gt 0 ]; do
  case "$1" in
    --stride) stride="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "memcheck: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done

command -v valgrind >/dev/null || { echo "memcheck: valgrind not found (scripts/setup.sh installs it)" >&2; exit 1; }
tools="$(cd "${AXE_TOOLS_DIR:-target/debug}" && pwd)"
for tool in axe-opt axe-translate; do
  [ -x "$tools/$tool" ] || { echo "memcheck: $tools/$tool not built (cargo build --workspace --all-targets)" >&2; exit 1; }
done
fuzz="${AXE_FUZZ_BIN:-}"
if [ -z "$fuzz" ]; then
  cargo build --quiet --workspace --all-targets # scripts/test.sh's selection: nothing rebuilt
  fuzz=target/debug/axe-fuzz
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/logs" "$work/tools"
for tool in axe-opt axe-translate; do
  # Valgrind (3.19, Debian 12) gives up on the debug builds' DWARF ("Possibly corrupted debuginfo file. I can't
  # recover."), so it checks copies without debug sections; the symbol table stays, so reports name functions.
  objcopy --strip-debug "$tools/$tool" "$work/tools/$tool"
  cat >"$work/bin/$tool" <<EOF
#!/bin/sh
exec valgrind --tool=memcheck -q --error-exitcode=99 --leak-check=no --track-origins=no \\
  --log-file="$work/logs/$tool.%p.log" "$work/tools/$tool" "\$@"
EOF
  chmod +x "$work/bin/$tool"
done
# The sampled lit tests also run axe-layout; it is the built one, not under valgrind.
ln -s "$tools/axe-layout" "$work/bin/axe-layout"

# Every STRIDE-th test that runs axe-opt or axe-translate, in sorted order, plus the issue-22 reproducers.
always=(test/Tools/parse-error-memory.test test/Tools/translate-unplaced-ops.test)
mapfile -t all < <(grep -rlE --include='*.mlir' --include='*.test' 'RUN:.*axe-(opt|translate)' test | LC_ALL=C sort)
sample=()
for i in "${!all[@]}"; do
  if ((i % stride == 0)) || [[ " ${always[*]} " == *" ${all[$i]} "* ]]; then
    sample+=("${all[$i]}")
  fi
done

status=0
start=$SECONDS
echo "memcheck: ${#sample[@]} of ${#all[@]} lit tests under valgrind" >&2
AXE_TOOLS_DIR="$work/bin" .venv/bin/lit -q -j 2 "${sample[@]}" || status=1

# axe-opt: its regression seeds, then generated inputs up to RUNS, from a fixed seed. axe-translate: its regression
# seeds (its generated inputs start from lowering 13 kernels with axe-opt, minutes under valgrind).
echo "memcheck: axe-fuzz proc-axe-opt ($runs inputs) and proc-axe-translate's seeds under valgrind" >&2
"$fuzz" --runs "$runs" --seed 22 --jobs 2 --timeout 300 --root "$ROOT" --tools "$work/bin" --quiet \
  --crash-dir target/memcheck-crashes --target proc-axe-opt || status=1
"$fuzz" --root "$ROOT" --tools "$work/bin" --timeout 300 --target proc-axe-translate \
  --replay fuzz/seeds/proc-axe-translate/* >/dev/null || status=1

reported=0
for log in "$work"/logs/*.log; do
  [ -s "$log" ] || continue
  reported=$((reported + 1))
  if [ "$reported" -le 5 ]; then
    echo "memcheck: valgrind reported, $(basename "$log"):" >&2
    head -n 40 "$log" >&2
  fi
done
runs_checked=$(find "$work/logs" -name '*.log' | wc -l)
echo "memcheck: $runs_checked tool runs checked in $((SECONDS - start)) s, $reported with errors" >&2
[ "$reported" -eq 0 ] || status=1
exit "$status"
