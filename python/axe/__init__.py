"""Axe from Python: the layout algebra, and compiled kernels that run on a GPU or on the simulator.

Layouts (from the native module, the `axe-layout` crate): `axe.Layout("S[(8,4):(4@laneid,1@laneid)]")`,
`axe.tma_plan(...)`, `axe.mma_plan(...)`, `axe.LayoutError`.

Kernels: `axe.compile(text_or_path, chip=None)` compiles axe IR in process (the same compiler as `axe-opt` and
`axe-translate`, cached by text, chip and compiler version) into an `axe.Module`; `axe.load(record, ptx=...)`
reads what the tools wrote. A module's kernels are called on tensors (`kernel.py`): torch or CuPy tensors on a
GPU run there through the CUDA driver (`cuda.py`), numpy arrays run on the simulator (`sim.py`); numpy lacks
bfloat16 and FP8, so `axe.bits(codes, "float8_e4m3fn")` passes a `uint8` array as e4m3 (and `uint16` as bfloat16). A call that
breaks the kernel's launch record raises `axe.LaunchError` before anything runs.

The kernel half is plain Python: `axe.load` and GPU launches work where the native module is not built (a GPU
machine with only the compiled artifacts).
"""

from .arrays import bits
from .record import Expr, KernelRecord, LaunchError, LaunchRecord
from .kernel import Kernel, Module, load
from .compiler import compile

try:
    from ._native import *  # noqa: F401,F403  (the layout algebra)
    from ._native import CompileError, SimulationError, __version__  # noqa: F401
except ImportError:  # the native module is not built: kernels from artifacts only (axe.compile raises ImportError)
    __version__ = "0.1.0"

    class CompileError(ValueError):  # type: ignore[no-redef]
        """axe IR the compiler refuses (raised by the native module; this stand-in is never raised)."""

    class SimulationError(RuntimeError):  # type: ignore[no-redef]
        """A fault the simulator found (raised by the native module; this stand-in is never raised)."""
