"""Axe from Python: the layout algebra, and compiled kernels that run on a GPU or on the simulator.

Layouts (from the native module, the `axe-layout` crate): `axe.Layout("S[(8,4):(4@laneid,1@laneid)]")`,
`axe.tma_plan(...)`, `axe.mma_plan(...)`, `axe.LayoutError`.

Kernels: `axe.compile(text_or_path, chip=None)` compiles axe IR in process (the same compiler as `axe-opt` and
`axe-translate`, cached by text, chip and compiler version) into an `axe.Module`; `axe.load(record, ptx=...)`
reads what the tools wrote. A module's kernels are called on tensors (`kernel.py`): torch or CuPy tensors on a
GPU run there through the CUDA driver (`cuda.py`), numpy arrays run on the simulator (`sim.py`). A call that
breaks the kernel's launch record raises `axe.LaunchError` before anything runs.

The kernel half is plain Python: `axe.load` and GPU launches work where the native module is not built (a GPU
machine with only the compiled artifacts).
"""

from .record import Expr, KernelRecord, LaunchError, LaunchRecord
from .kernel import Kernel, Module, load

try:
    from ._native import *  # noqa: F401,F403  (the layout algebra)
    from ._native import __version__, compile  # noqa: F401
except ImportError as _missing:  # the native module is not built: kernels from artifacts only
    __version__ = "0.1.0"
    _native_error = _missing

    def compile(*args, **kwargs):  # type: ignore[no-redef]
        """Unavailable: the native module (the compiler) is not built here; `axe.load` reads compiled artifacts."""
        raise ImportError(f"axe.compile needs the native module, which is not importable: {_native_error}")
