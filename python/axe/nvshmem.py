"""Kernels that call NVSHMEM (a launch record with `symmetric` buffers): the host side of the README's launch
contract ("Distributed kernels"), through NVSHMEM's host library loaded at run time.

The framework initialises NVSHMEM, one PE per GPU, with the team `NVSHMEM_TEAM_WORLD` (PyTorch's symmetric memory
on its NVSHMEM backend, or `nvshmem_init`): an initialisation needs the job's bootstrap (torchrun, MPI, a unique
id), which is the framework's business. Before each launch of such a kernel, `check` refuses with a
`LaunchError` anything that would break the contract on this rank: NVSHMEM not initialised, a PE count other than
the mesh's, a symmetric argument that is not on the symmetric heap (`nvshmem_ptr` of it is NULL), of another
size than the record's `bytes`, or of another shape than this rank's DTensor local shape. After the module is
loaded, `cumodule_init` fills its copy of NVSHMEM's device state (`nvshmemx_cumodule_init`). The launch is
cooperative (`CU_LAUNCH_ATTRIBUTE_COOPERATIVE`: every CTA of the grid resident at once, what
`nvshmemx_collective_launch` asks of the runtime) on every PE; the kernel's own barriers order the PEs.

The host library is the process's `libnvshmem_host.so.3` when one is loaded already (the framework's: it is the
initialised one), else `$AXE_NVSHMEM_HOST`, else the `nvidia-nvshmem-cu13` wheel's.
"""

from __future__ import annotations

import ctypes
import os
from typing import Any, Optional

from .bind import Bound
from .record import LaunchError

NVSHMEM_STATUS_IS_INITIALIZED = 2
SONAME = "libnvshmem_host.so.3"
_host: Optional[Any] = None


def host():
    """The NVSHMEM host library (see the module docs for which); RuntimeError where there is none."""
    global _host
    if _host is not None:
        return _host
    candidates = [SONAME]
    if os.environ.get("AXE_NVSHMEM_HOST") and not _loaded(SONAME):
        candidates.insert(0, os.environ["AXE_NVSHMEM_HOST"])
    try:
        import nvidia.nvshmem as wheel  # the nvidia-nvshmem-cu13 wheel

        candidates += [os.path.join(p, "lib", SONAME) for p in wheel.__path__]
    except ImportError:
        pass
    errors = []
    for candidate in candidates:
        try:
            lib = ctypes.CDLL(candidate)
        except OSError as e:
            errors.append(str(e))
            continue
        lib.nvshmem_ptr.restype = ctypes.c_void_p
        lib.nvshmem_ptr.argtypes = [ctypes.c_void_p, ctypes.c_int]
        _host = lib
        return lib
    raise RuntimeError(f"no NVSHMEM host library ({'; '.join(errors)})")


def _loaded(soname: str) -> bool:
    """Whether the process has `soname` loaded already (RTLD_NOLOAD: look, never load)."""
    try:
        ctypes.CDLL(soname, mode=os.RTLD_NOLOAD | os.RTLD_GLOBAL)
        return True
    except OSError:
        return False


def check(bound: Bound, lib: Any = None) -> None:
    """Refuses (LaunchError) a launch of a kernel with symmetric buffers that breaks the contract on this PE."""
    record = bound.record
    lib = lib if lib is not None else host()
    if lib.nvshmemx_init_status() < NVSHMEM_STATUS_IS_INITIALIZED:
        raise LaunchError(
            record.name,
            "NVSHMEM is not initialised in this process: initialise it first (one PE per GPU: PyTorch's symmetric "
            "memory with the NVSHMEM backend, or nvshmem_init under nvshmrun/torchrun)",
        )
    pes, pe = int(lib.nvshmem_n_pes()), int(lib.nvshmem_my_pe())
    meshes = {len(s.local_shapes) for s in record.symmetric if s.local_shapes is not None}
    for mesh in meshes:
        if pes != mesh:
            raise LaunchError(record.name, f"the kernel is compiled for a mesh of {mesh} ranks; NVSHMEM has {pes} PEs")
    for sym in record.symmetric:
        array = bound.arrays.get(sym.arg)
        if array is None:
            raise LaunchError(record.name, "a symmetric buffer is expected", param=sym.param)
        if not lib.nvshmem_ptr(ctypes.c_void_p(array.address), pe):
            raise LaunchError(
                record.name,
                "the tensor is not on NVSHMEM's symmetric heap (allocate it with nvshmem_malloc, or PyTorch's "
                "symmetric memory on the NVSHMEM backend)",
                param=sym.param,
            )
        nbytes = array.itemsize
        for extent in array.shape:
            nbytes *= extent
        if nbytes != sym.bytes:
            raise LaunchError(
                record.name, f"{nbytes} bytes, but every rank allocates {sym.bytes} bytes for it", param=sym.param
            )
        if sym.local_shapes is not None and tuple(array.shape) != tuple(sym.local_shapes[pe]):
            raise LaunchError(
                record.name,
                f"shape {list(array.shape)}, but rank {pe}'s local shape is {list(sym.local_shapes[pe])}",
                param=sym.param,
            )


def cumodule_init(module: int, lib: Any = None) -> None:
    """`nvshmemx_cumodule_init` on a loaded CUmodule (once per module and context)."""
    lib = lib if lib is not None else host()
    status = lib.nvshmemx_cumodule_init(ctypes.c_void_p(module))
    if status != 0:
        raise RuntimeError(
            f"nvshmemx_cumodule_init failed ({status}): the module's NVSHMEM device library and the host library "
            "must come from the same NVSHMEM release"
        )
