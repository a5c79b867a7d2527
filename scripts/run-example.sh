#!/usr/bin/env bash
# The main job on a bundled example: lower examples/NAME.mlir to PTX, print the PTX, check it with ptxas (summary
# on stderr), and write the PTX, the cubin and the launch record (axe-translate --emit=launch) under
# target/examples/. NAME defaults to tma_copy (the README's command):
#   scripts/run-example.sh              # examples/tma_copy.mlir, sm_90a
#   scripts/run-example.sh gemm_sm90a   # examples/gemm_sm90a.mlir, the chip of its axe.target
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
cd "$ROOT"

name="${1:-tma_copy}"
name="${name%.mlir}"
name="${name#examples/}"
input="examples/$name.mlir"
if [[ ! -f "$input" ]]; then
  echo "run-example: no $input (examples: $(cd examples && ls *.mlir | sed 's/\.mlir$//' | tr '\n' ' '))" >&2
  exit 1
fi
# The chip is the example's axe.target (sm_90a when it names none).
chip="$( (grep -o 'axe.target = "sm_[0-9a-z]*"' "$input" || true) | head -1 | sed 's/.*"\(sm_[0-9a-z]*\)"/\1/')"
chip="${chip:-sm_90a}"
case "$name" in
  tma_copy) passes=(--lower-tma --lower-to-nvvm) ;;
  # Every lowering (collectives only change kernels that copy across devices), then shared memory into the
  # dynamic window (a GEMM needs more than 48 KB).
  *) passes=(--lower-roles --lower-tile-loops --lower-staged-copies --lower-tma --lower-mma --lower-copy --lower-collectives --lower-to-nvvm --axe-hoist-allocas
             --axe-dynamic-shared) ;;
esac

cargo build --quiet -p axe-mlir --bins
out="target/examples"
mkdir -p "$out"
target/debug/axe-opt "${passes[@]}" "$input" -o "$out/$name.nvvm.mlir"
target/debug/axe-translate --emit=ptx --chip="$chip" "$out/$name.nvvm.mlir" -o "$out/$name.$chip.ptx"
target/debug/axe-translate --emit=launch --chip="$chip" "$out/$name.nvvm.mlir" -o "$out/$name.$chip.launch.json"
cat "$out/$name.$chip.ptx"

ptxas=("$ROOT"/.venv/lib/python3*/site-packages/nvidia/cu*/bin/ptxas)
"${ptxas[0]}" -arch="$chip" -v "$out/$name.$chip.ptx" -o "$out/$name.$chip.cubin" 2>&1 |
  sed 's/^/ptxas: /' >&2
echo "wrote $out/$name.$chip.ptx, $out/$name.$chip.cubin and $out/$name.$chip.launch.json" >&2
