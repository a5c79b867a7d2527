#!/usr/bin/env bash
# The GPU check: every example kernel a Hopper GPU runs (gemm_sm90a, gemm_sm90a_ws, gemm_sm80, tma_copy, and the
# FP8 GEMMs gemm_fp8_sm90a and gemm_fp8_blockscaled_sm90a against torch._scaled_mm),
# launched through the Python package's GPU path, checked against torch.matmul (exact on small integers, then
# random data within a stated tolerance), the refusals of bad arguments, and timed against cuBLAS and Triton on
# square shapes and on the weight shapes of four LLMs at M = 8192; one table (bench/gpu_check.py says what each
# column means). About 3 minutes on an H100/H200.
#
#   scripts/gpu-check.sh --prepare   # no GPU needed: compile the kernels into target/gpu-check/ (PTX, cubins,
#                                    # launch records), the only files a GPU machine without the toolchain needs
#   scripts/gpu-check.sh [--quick]   # on the GPU machine (PyTorch, the CUDA driver; Triton if present): run the
#                                    # check on target/gpu-check/, preparing it first where the tools can be built
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
out="target/gpu-check"

prepare() {
  "$ROOT/scripts/setup.sh"
  cargo build --quiet -p axe-mlir --bins
  mkdir -p "$out"
  local ptxas=("$ROOT"/.venv/lib/python3*/site-packages/nvidia/cu*/bin/ptxas)
  local passes=(--lower-roles --lower-tile-loops --lower-staged-copies --lower-tma --lower-mma --lower-copy --lower-collectives --lower-to-nvvm --axe-hoist-allocas
                --axe-dynamic-shared)
  # name chip cubin-arch (sm_80's PTX is assembled for sm_90: an sm_80 cubin does not run on Hopper)
  for job in "gemm_sm90a sm_90a sm_90a" "gemm_sm90a_ws sm_90a sm_90a" "gemm_sm80 sm_80 sm_90" "tma_copy sm_90a sm_90a" \
             "gemm_fp8_sm90a sm_90a sm_90a" "gemm_fp8_blockscaled_sm90a sm_90a sm_90a"; do
    read -r name chip arch <<<"$job"
    target/debug/axe-opt "${passes[@]}" "examples/$name.mlir" -o "$out/$name.nvvm.mlir"
    target/debug/axe-translate --emit=ptx --chip="$chip" "$out/$name.nvvm.mlir" -o "$out/$name.$chip.ptx"
    target/debug/axe-translate --emit=launch --chip="$chip" "$out/$name.nvvm.mlir" -o "$out/$name.$chip.launch.json"
    "${ptxas[0]}" -arch="$arch" "$out/$name.$chip.ptx" -o "$out/$name.$arch.cubin"
    rm "$out/$name.nvvm.mlir"
  done
  echo "gpu-check: prepared $out ($(ls "$out" | wc -l) files)" >&2
}

if [ "${1:-}" = "--prepare" ]; then
  prepare
  exit 0
fi
if [ ! -f "$out/gemm_sm90a.sm_90a.launch.json" ]; then
  prepare
fi
exec python3 bench/gpu_check.py --artifacts "$out" "$@"
