"""Compiled kernels as Python callables: `axe.compile(...)` or `axe.load(...)` gives a `Module`; each of its
kernels is a `Kernel` that is called on tensors and runs on a GPU or on the simulator.

    module = axe.compile(open("examples/gemm_sm90a.mlir").read())
    gemm = module.gemm_sm90a              # or module["gemm_sm90a"], or module.kernel when there is one
    gemm(a, b, c, M, N, K)                # torch/CuPy tensors on a GPU: the GPU; numpy arrays: the simulator

Where a call runs is explicit (`device="gpu"` or `device="sim"`, or `AXE_DEVICE=gpu|sim` in the environment) or
automatic: where the tensors are (GPU tensors: the GPU; numpy arrays: the simulator, with a one-time warning
that says so, as Triton's interpreter mode does). Every call is checked first (`bind`): a bad argument raises
`LaunchError` and never reaches a device.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any, Dict, Optional, Sequence, Union

from .arrays import describe
from .bind import Bound, bind
from .record import KernelRecord, LaunchError, LaunchRecord

DEVICES = ("auto", "gpu", "sim")

#: The SMs the simulator stands for when a persistent kernel's grid reads `sm_count`: few, so that each CTA walks
#: several tiles (the persistent loop is what the simulator should exercise).
SIM_SM_COUNT = 4


class Kernel:
    """One kernel of a compiled module: its launch record (`.record`), and what runs it (the PTX/cubin for a GPU,
    the axe IR for the simulator)."""

    def __init__(self, module: "Module", record: KernelRecord):
        self.module = module
        self.record = record
        self.name = record.name
        self._cuda = None
        self._told_sim = False
        self.last_device: Optional[str] = None

    def __repr__(self) -> str:
        params = ", ".join(p.name for p in self.record.params)
        return f"<axe.Kernel {self.name}({params}) for {self.module.chip}>"

    def _device(self, device: Optional[str], args: Sequence[Any], kwargs: Dict[str, Any]) -> str:
        device = device or os.environ.get("AXE_DEVICE") or "auto"
        if device not in DEVICES:
            raise ValueError(f"device must be one of {', '.join(DEVICES)}, got {device!r}")
        if device != "auto":
            return device
        for value in list(args) + list(kwargs.values()):
            array = describe(value)
            if array is not None:
                if array.device == "cuda":
                    return "gpu"
                if not self._told_sim:
                    warnings.warn(
                        f"axe: {self.name} runs on the simulator (its tensors are host arrays; pass GPU tensors or "
                        f"device='gpu' for the GPU, device='sim' to choose the simulator without this warning)",
                        stacklevel=3,
                    )
                    self._told_sim = True
                return "sim"
        raise LaunchError(self.name, "no tensor argument to decide where to run: pass device='gpu' or 'sim'")

    def bind(
        self,
        *args,
        device: str = "gpu",
        grid: Optional[Sequence[int]] = None,
        sm_count: Optional[int] = None,
        **kwargs,
    ) -> Bound:
        """Checks a call without running it; what the launch would use (grid, parameter values, tensor maps).
        `sm_count` is the SMs a persistent kernel's grid is sized for (on the simulator `SIM_SM_COUNT` when not
        given; on the GPU it must be given when the grid reads it, as bind queries no device)."""
        where = "cuda" if device == "gpu" else "cpu"
        if sm_count is None and where == "cpu":
            sm_count = SIM_SM_COUNT
        return bind(self.record, args, kwargs, where, grid, sm_count)

    def prepare(self, *args, grid: Optional[Sequence[int]] = None, sm_count: Optional[int] = None, **kwargs):
        """A checked GPU launch with these arguments, ready to issue again and again (`.launch(stream=None)`),
        for timing loops: the checks and the tensor-map encoding happen once, here. A persistent kernel's grid is
        sized for the current device's SMs unless `sm_count` says otherwise."""
        from . import cuda

        if sm_count is None and self.record.reads_sm_count():
            bind(self.record, args, kwargs, "cuda", grid, 1)  # the argument checks first: they need no device
            sm_count = cuda.driver().sm_count()
        bound = bind(self.record, args, kwargs, "cuda", grid, sm_count)
        if self._cuda is None:
            ptx, cubin = self.module.ptx, self.module.cubin
            self._cuda = cuda.CudaKernel(
                self.name,
                self.module.chip,
                ptx.encode() if isinstance(ptx, str) else ptx,
                cubin,
                symmetric=bool(self.record.symmetric),
            )
        return self._cuda.prepare(bound)

    def __call__(
        self,
        *args,
        device: Optional[str] = None,
        stream: Any = None,
        grid: Optional[Sequence[int]] = None,
        sm_count: Optional[int] = None,
        **kwargs,
    ):
        """Runs the kernel on `args` (in parameter order, or by name). On the GPU the launch is asynchronous on
        `stream` (default: the current stream of the tensors' framework); on the simulator it runs every CTA of
        the grid and writes the results back into the numpy arrays. A persistent kernel's grid (`min(tiles,
        sm_count)` in its launch record) is sized for the GPU's SMs there, for `SIM_SM_COUNT` on the simulator
        (so its CTAs walk several tiles), unless `sm_count` is given."""
        where = self._device(device, args, kwargs)
        self.last_device = where
        if where == "gpu":
            self.prepare(*args, grid=grid, sm_count=sm_count, **kwargs).launch(stream)
            return None
        from . import sim

        bound = bind(self.record, args, kwargs, "cpu", grid, SIM_SM_COUNT if sm_count is None else sm_count)
        sim.run(self, bound)
        return None


class Module:
    """A compiled module: the chip, the launch record, the PTX (and the cubin when there is one), the axe IR
    it came from (what the simulator runs), and its kernels by name (`module["name"]`, `module.name`, or
    `module.kernel` when there is exactly one)."""

    def __init__(
        self,
        record: LaunchRecord,
        ptx: Optional[Union[str, bytes]] = None,
        cubin: Optional[bytes] = None,
        source: Optional[str] = None,
        source_name: str = "<input>",
    ):
        self.record = record
        self.chip = record.chip
        self.ptx = ptx
        self.cubin = cubin
        self.source = source
        self.source_name = source_name
        self.kernels = {k.name: Kernel(self, k) for k in record.kernels}

    def __getitem__(self, name: str) -> Kernel:
        if name not in self.kernels:
            raise KeyError(f"no kernel {name!r} (kernels: {', '.join(self.kernels)})")
        return self.kernels[name]

    def __getattr__(self, name: str) -> Kernel:
        kernels = self.__dict__.get("kernels", {})
        if name in kernels:
            return kernels[name]
        raise AttributeError(name)

    @property
    def kernel(self) -> Kernel:
        """The module's only kernel."""
        if len(self.kernels) != 1:
            raise AttributeError(f"the module has {len(self.kernels)} kernels ({', '.join(self.kernels)}): name one")
        return next(iter(self.kernels.values()))

    def __repr__(self) -> str:
        return f"<axe.Module for {self.chip}: {', '.join(self.kernels)}>"


def _read(value: Optional[Union[str, bytes, os.PathLike]], binary: bool):
    if value is None:
        return None
    if isinstance(value, os.PathLike) or (isinstance(value, str) and "\n" not in value and Path(value).is_file()):
        return Path(value).read_bytes() if binary else Path(value).read_text()
    return value


def load(
    record: Union[str, bytes, os.PathLike, Dict[str, Any]],
    ptx: Optional[Union[str, bytes, os.PathLike]] = None,
    cubin: Optional[Union[bytes, os.PathLike, str]] = None,
    source: Optional[Union[str, os.PathLike]] = None,
) -> Module:
    """A module from what the tools wrote: the launch record (`axe-translate --emit=launch`; a path, JSON text or
    the decoded dict), the PTX (`--emit=ptx`) and/or a cubin (ptxas), and optionally the axe IR they were compiled
    from (for the simulator). Needs neither the compiler nor a GPU."""
    if isinstance(record, dict):
        parsed = LaunchRecord.parse(record)
    else:
        parsed = LaunchRecord.parse(_read(record, binary=False))
    name = str(source) if isinstance(source, os.PathLike) else "<input>"
    return Module(parsed, _read(ptx, binary=False), _read(cubin, binary=True), _read(source, binary=False), name)
