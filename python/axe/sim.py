"""Running a kernel on the simulator (`axe-sim`, through the native module): every CTA of the grid, in order,
on numpy arrays, which receive the results.

The simulator executes the axe IR the kernel was compiled from (lowered by `--lower-roles --lower-tile-loops --lower-staged-copies --lower-tma --lower-mma
--lower-copy`), so only modules that carry it (`axe.compile`, or `axe.load(..., source=...)`) can run here.
"""

from __future__ import annotations

import numpy as np

from .bind import Bound
from .record import LaunchError


def run(kernel, bound: Bound) -> None:
    """Runs `bound` (checked for the host) on the simulator and copies every buffer back into its array."""
    module = kernel.module
    if bound.record.symmetric:
        raise LaunchError(
            kernel.name,
            "a kernel with NVSHMEM symmetric buffers runs on GPUs only (the simulator runs one rank; the collective "
            "planner's model checks the plans on every rank: axe-layout collective-plan)",
        )
    if module.source is None:
        raise LaunchError(kernel.name, "the simulator runs the axe IR, which this module lacks (load it with source=)")
    try:
        from . import _native
    except ImportError as e:
        raise ImportError(f"the simulator needs the native module, which is not importable: {e}") from None
    args = []
    for index, (param, value) in enumerate(zip(bound.record.params, bound.values)):
        array = bound.arrays.get(index)
        if array is None:
            args.append(("float" if param.ptx_type.startswith("f") else "int", value))
            continue
        if not isinstance(array.obj, np.ndarray):
            raise LaunchError(
                kernel.name,
                f"the simulator takes numpy arrays, got {type(array.obj).__module__}.{type(array.obj).__name__} "
                "(a CPU torch tensor: pass tensor.numpy(), which shares its memory)",
                param=param.name,
            )
        if not array.is_row_major():
            raise LaunchError(kernel.name, "the simulator takes densely packed (C-contiguous) arrays", param=param.name)
        args.append(("buffer", array.dtype, bytes(memoryview(array.obj).cast("B"))))
    outputs = _native._simulate(module.source, module.source_name, kernel.name, list(bound.grid), args)
    for index, data in enumerate(outputs):
        array = bound.arrays.get(index)
        if array is not None and data is not None:
            memoryview(array.obj).cast("B")[:] = data
