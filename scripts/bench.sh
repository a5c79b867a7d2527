#!/usr/bin/env bash
# Compile the 128x64 f16 TMA tile copy with Axe and with Triton 3.9 in one run and print the table
# (compile time, PTX instructions, ptxas registers). No GPU is needed.
#
# Sets up what is missing, only when it is missing: the base setup (scripts/setup.sh: LLVM 22, .venv with
# ptxas), .venv-bench with triton 3.9 (~1 GB, kept out of the test suite), and the release build of the
# tools (a slow LLVM link the first time). Extra arguments go to the benchmark (e.g. --repeat 20).
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
exec "$venv/bin/python" bench/tma_copy_vs_triton.py "$@"
