#!/usr/bin/env bash
# Compile figures in one run, next to Triton 3.9 where the job is the same (no GPU is needed):
#   1. one table, Axe vs Triton, for the TMA copy and the three GEMMs (sm_80 cp.async + mma.sync, sm_90a TMA +
#      wgmma, sm_100a TMA + tcgen05; 128x128x64 tiles, 3 stages, 4 warps, f16 in, f32 acc, f16 out, M/N/K i32):
#      median compile time (Axe: axe-opt | axe-translate as processes; Triton: in process, cache off, and as a
#      fresh process with its import; ptxas time), PTX instructions, ptxas registers and spill bytes, SASS in
#      all and in the K loop, static + dynamic shared memory; also as Markdown  (bench/gemm_vs_triton.py)
#   2. the TMA copy's start-up: each side as fresh processes (wall, CPU, peak memory)  (bench/tma_copy_vs_triton.py)
#   3. Axe in process: one reused Compiler, per compile      (cargo bench -p axe-mlir --bench compile)
#   4. scaling with module size, 1k and 10k axe ops, TMA and gemm workloads (bench/scaling.py)
#   5. the layout algebra: eval, canonicalize, tile, slice    (cargo bench -p axe-layout --bench algebra)
#
# Sets up what is missing, only when it is missing: the base setup (scripts/setup.sh: LLVM 22, .venv with
# ptxas), .venv-bench with triton 3.9 (~1 GB, kept out of the test suite; cuobjdump from Triton's wheel, else
# nvidia-cuda-cuobjdump from PyPI), and the release build of the tools. Extra arguments go to the table
# (e.g. --repeat 10, --only gemm_sm90a, --keep DIR to keep both sides' PTX and cubins).
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
if ! compgen -G "$venv/lib/python3*/site-packages/triton/backends/nvidia/bin/cuobjdump" >/dev/null &&
  ! compgen -G "$venv/lib/python3*/site-packages/nvidia/cu*/bin/cuobjdump" >/dev/null; then
  "$venv/bin/pip" install --quiet --disable-pip-version-check nvidia-cuda-cuobjdump
fi

cargo build --quiet --release -p axe-mlir --bins
echo "== 1. Axe vs Triton: TMA copy and GEMMs"
"$venv/bin/python" bench/gemm_vs_triton.py "$@"
echo
echo "== 2. TMA copy: Axe vs Triton, start-up"
"$venv/bin/python" bench/tma_copy_vs_triton.py
echo
echo "== 3. Axe in process (reused Compiler)"
cargo bench --quiet -p axe-mlir --bench compile -- --quick 2>/dev/null | grep -E "time:|compile"
echo
echo "== 4. Scaling with module size"
python3 bench/scaling.py --ops 1000,10000 --repeat 3
echo
echo "== 5. Layout algebra (criterion --quick)"
cargo bench --quiet -p axe-layout --bench algebra -- --quick 2>/dev/null | grep -vE "thrpt|^$|Warning|change:|^ +(No change|Change|Performance)" 
echo
echo "== 6. GEMM + reduce-scatter overlap: a model on stated inputs, not a measurement (docs/distributed.md)"
python3 bench/gemm_rs_overlap.py
