#!/usr/bin/env bash
# Compile-speed figures in one run, next to Triton 3.9 where the job is the same (no GPU is needed):
#   1. the 128x64 f16 TMA tile copy, Axe vs Triton: compile time, PTX instructions, ptxas registers; start-up
#      of each as fresh processes (wall, CPU, peak memory)   (bench/tma_copy_vs_triton.py)
#   2. Axe in process: one reused Compiler, per compile      (cargo bench -p axe-mlir --bench compile)
#   3. scaling with module size, 1k and 10k axe ops, TMA and gemm workloads (bench/scaling.py)
#   4. the layout algebra: eval, canonicalize, tile, slice    (cargo bench -p axe-layout --bench algebra)
#
# Sets up what is missing, only when it is missing: the base setup (scripts/setup.sh: LLVM 22, .venv with
# ptxas), .venv-bench with triton 3.9 (~1 GB, kept out of the test suite), and the release build of the
# tools. Extra arguments go to the TMA copy comparison (e.g. --repeat 20).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
cd "$ROOT"

venv="$ROOT/.venv-bench"
if ! "$venv/bin/python" -c 'import triton, sys; sys.exit(not triton.__version__.startswith("3.9"))' 2>/dev/null; then
  echo "bench: creating $venv with triton 3.9" >&2
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check 'triton==3.9.*'
fi

cargo build --quiet --release -p axe-mlir --bins
echo "== 1. TMA copy: Axe vs Triton"
"$venv/bin/python" bench/tma_copy_vs_triton.py "$@"
echo
echo "== 2. Axe in process (reused Compiler)"
cargo bench --quiet -p axe-mlir --bench compile -- --quick 2>/dev/null | grep -E "time:|compile"
echo
echo "== 3. Scaling with module size"
python3 bench/scaling.py --ops 1000,10000 --repeat 3
echo
echo "== 4. Layout algebra (criterion --quick)"
cargo bench --quiet -p axe-layout --bench algebra -- --quick 2>/dev/null | grep -vE "thrpt|^$|Warning|change:|^ +(No change|Change|Performance)" 
