#!/usr/bin/env bash
# The Python package's tests: installs python/ into .venv the way `pip install ./python` does (maturin as the
# PEP 517 backend, here the one scripts/setup.sh pinned in .venv, a debug build stripped of its symbols to keep
# the wheel small), then runs pytest on python/tests against the axe-layout CLI built by `cargo build`.
# Exits non-zero if the build or any test fails; pytest's summary is the last line.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
venv="$ROOT/.venv"

# maturin's backend runs the `maturin` of PATH; --no-deps: numpy is pinned by setup.sh, and nothing is fetched.
PATH="$venv/bin:$PATH" MATURIN_PEP517_ARGS="--profile dev --strip" \
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-build-isolation --no-deps --force-reinstall ./python
# One BLAS thread: the NKI interpreter (axe.nki) multiplies thousands of small tiles, where OpenBLAS's threads on
# a 2-core machine cost ten times their work.
OPENBLAS_NUM_THREADS=1 AXE_LAYOUT="${CARGO_TARGET_DIR:-$ROOT/target}/debug/axe-layout" \
  "$venv/bin/python" -m pytest -p no:cacheprovider -q python/tests
