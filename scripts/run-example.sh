#!/usr/bin/env bash
# The main job on the bundled example: lower examples/tma_copy.mlir to PTX for
# sm_90a, print the PTX, and check it with ptxas (summary on stderr).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
cd "$ROOT"

cargo build --quiet -p axe-mlir --bins
out="target/examples"
mkdir -p "$out"
target/debug/axe-opt --lower-tma --lower-to-nvvm examples/tma_copy.mlir -o "$out/tma_copy.nvvm.mlir"
target/debug/axe-translate --emit=ptx --chip=sm_90a "$out/tma_copy.nvvm.mlir" -o "$out/tma_copy.sm_90a.ptx"
cat "$out/tma_copy.sm_90a.ptx"

ptxas=("$ROOT"/.venv/lib/python3*/site-packages/nvidia/cu*/bin/ptxas)
"${ptxas[0]}" -arch=sm_90a -v "$out/tma_copy.sm_90a.ptx" -o "$out/tma_copy.sm_90a.cubin" 2>&1 |
  sed 's/^/ptxas: /' >&2
echo "wrote $out/tma_copy.sm_90a.ptx and $out/tma_copy.sm_90a.cubin" >&2
