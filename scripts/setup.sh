#!/usr/bin/env bash
# One idempotent setup step for Axe, used by both README commands.
#
# Installs what the build and the tests need, only when it is missing:
#   - Debian packages: LLVM/MLIR 22 (headers, static libraries, mlir-opt,
#     FileCheck), libclang for bindgen, Polly and zstd for static linking,
#     g++ for dialect/cpp/registration.cpp (and libstdc++'s archive the tools link),
#     cmake + ninja for the cmake/ package, python3-venv for the venv below, valgrind for
#     scripts/memcheck.sh;
#   - .venv with lit and ptxas (PyPI nvidia-cuda-nvcc), and maturin, numpy and
#     pytest for the Python package's tests (scripts/test-python.sh), pinned;
#   - NVSHMEM's device bitcode (PyPI nvidia-nvshmem-cu13, libnvshmem_device_sm_*.bc),
#     which axe-translate links into kernels that call NVSHMEM (--lower-collectives).
# When everything is present it runs no apt-get or pip at all (a fast no-op).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

PACKAGES=(
  llvm-22-dev libmlir-22-dev mlir-22-tools libclang-22-dev libpolly-22-dev libzstd-dev g++
  cmake ninja-build python3-venv valgrind
)
PIP_PACKAGES=(lit==23.1.5 nvidia-cuda-nvcc==13.5.37 maturin==1.16.0 numpy==2.4.6 pytest==9.2.0)
NVSHMEM_PACKAGE=nvidia-nvshmem-cu13==3.8.0

# One dpkg-query for all packages; anything not "install ok installed" is missing.
mapfile -t present < <(dpkg-query -W -f='${Status} ${Package}\n' "${PACKAGES[@]}" 2>/dev/null |
  sed -n 's/^install ok installed //p')
missing=()
for package in "${PACKAGES[@]}"; do
  [[ " ${present[*]} " == *" $package "* ]] || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
  "${sudo[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q "${missing[@]}"
fi

venv="$ROOT/.venv"
ptxas_glob=("$venv"/lib/python3*/site-packages/nvidia/cu*/bin/ptxas)
numpy_glob=("$venv"/lib/python3*/site-packages/numpy/__init__.py)
if [ ! -x "$venv/bin/lit" ] || [ ! -x "${ptxas_glob[0]}" ] || [ ! -x "$venv/bin/maturin" ] ||
  [ ! -x "$venv/bin/pytest" ] || [ ! -f "${numpy_glob[0]}" ]; then
  echo "setup: creating $venv with ${PIP_PACKAGES[*]}" >&2
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "${PIP_PACKAGES[@]}"
fi
nvshmem_glob=("$venv"/lib/python3*/site-packages/nvidia/nvshmem/lib/libnvshmem_device_sm_90.bc)
if [ ! -f "${nvshmem_glob[0]}" ]; then
  echo "setup: installing $NVSHMEM_PACKAGE into $venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "$NVSHMEM_PACKAGE"
fi

command -v cargo >/dev/null || {
  echo "setup: cargo not found; install Rust (rustup) first" >&2
  exit 1
}
