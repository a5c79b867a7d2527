"""An interpreter of AWS NKI kernels (Neuron SDK 2.21-2.26, the "Beta 1" API, trn1 / NeuronCore-v2), in numpy, written
from AWS's public NKI documentation: it runs a kernel's Python source on numpy arrays and raises `NkiError` where
the kernel breaks a rule of NKI or of the hardware, so that generated kernels can be checked without a Neuron
device.

    out = axe.nki.run(source, "matmul_kernel", lhsT, rhs)     # numpy in, numpy out

The source imports `neuronxcc.nki`, `neuronxcc.nki.language` and `neuronxcc.nki.isa` (and `neuronxcc.nki.typing`);
during `run` those names are this package's modules. Inputs are numpy arrays (float32, float16, int32) or
`axe.bits(uint16_array, "bfloat16")` / `axe.bits(uint8_array, "float8_e5m2")`; outputs come back as numpy arrays
(bfloat16, tfloat32 and float8 values as float32).

The subset (nl = nki.language, nisa = nki.isa):
- memories nl.sbuf, nl.psum, nl.hbm (= nl.private_hbm), nl.shared_hbm; dtypes float32, float16, bfloat16,
  tfloat32, float8_e4m3 (the legacy IEEE-style format, max 240), float8_e5m2, int32;
- nl.ndarray / zeros / ones / full (with nl.par_dim and block dims), nl.tile_size;
- indexing: ints, slices, `...`, nl.arange and nl.mgrid affine expressions; assignment `t[...] = v` and `t += v`
  into SBUF/PSUM (the value may broadcast; tiles line up from the partition dim, so a [128] tile is [128, 1]);
- loops nl.affine_range / sequential_range / static_range (and Python's range);
- nl.load, load_transpose2d, store, copy, matmul, transpose; add, subtract, multiply, divide, maximum, minimum,
  exp, log, sqrt, rsqrt, reciprocal, negative, abs, square, tanh, sigmoid, relu; max, min, sum, mean;
  the operators + - * / on tiles;
- nisa.nc_matmul (with PE tiling), nc_transpose, tensor_copy, dma_copy, memset, tensor_tensor, activation,
  reciprocal.
Refused with NkiError (rule 'unsupported'): `mask=`, SPMD grids (`kernel[2, 2]`, nl.program_id), direct allocation
(ncc.sbuf.alloc ...), indirect (tensor-valued) indices, and every API not listed.

The model: values are computed in float32 by numpy and rounded to each result's dtype (the Scalar Engine's
transcendentals are approximations on hardware: compare those with a tolerance); uninitialized memory reads as
NaN; each rule is checked when the instruction runs, except on-chip capacity, checked when the kernel returns from
the live range (first to last use) of every tile; iterations of nl.affine_range must not touch what another
iteration wrote (except `+=`).

Every rule names its documentation page in `RULES` (keyed by `NkiError.rule`).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import linecache
import sys
import types
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

import numpy as np

from . import _core, isa, language
from . import typing as nki_typing
from ._core import RULES, NkiError, Run, Tensor, fail

__all__ = ["run", "run_file", "jit", "Kernel", "NkiError", "RULES", "language", "isa"]


class Kernel:
    """A function decorated with `@nki.jit`. Called with numpy arrays (outside any kernel) it runs as a kernel and
    returns numpy arrays; called from inside a kernel it is a plain sub-function."""

    def __init__(self, fn: Any, options: Dict[str, Any]):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.options = options

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if Run.current is not None:
            return self.fn(*args, **kwargs)
        return self.execute(args, kwargs)

    def __getitem__(self, grid: Any) -> Any:
        fail("unsupported", f"{self.fn.__name__}[{grid}]: SPMD launch grids are not supported by this interpreter")

    def execute(self, args: Tuple[Any, ...], kwargs: Dict[str, Any], allow_psum_store: bool = False) -> Any:
        """Run the kernel on `args` (numpy arrays become HBM input tensors; other values pass through), check what
        is only known at the end (on-chip memory at the busiest moment, the outputs), and return the outputs."""
        run = Run(self.fn.__code__.co_filename, allow_psum_store)
        run.kernel_code = self.fn.__code__
        outer, Run.current = Run.current, run
        try:
            bound = inspect.signature(self.fn).bind(*args, **kwargs)
            mutable: List[_core.Alloc] = []
            for name, value in bound.arguments.items():
                if _is_array(value):
                    hint = self.fn.__annotations__.get(name)
                    is_mutable = isinstance(hint, type) and issubclass(hint, nki_typing.mutable_tensor)
                    bound.arguments[name] = _input(run, name, value, is_mutable)
                    if is_mutable:
                        mutable.append(bound.arguments[name]._alloc)
            result = self.fn(*bound.args, **bound.kwargs)
            _core.check_memory(run)
            return _outputs(run, result, mutable)
        finally:
            Run.current = outer


def jit(func: Any = None, **options: Any) -> Any:
    """`@nki.jit` and `@nki.jit(mode=...)`: wrap a kernel function as a `Kernel` (options are accepted and ignored)."""
    if func is None:
        return lambda f: Kernel(f, options)
    return Kernel(func, options)


def run(source: str, name: str, *inputs: Any, allow_psum_store: bool = False, filename: Optional[str] = None) -> Any:
    """Execute the kernel module `source` (with `neuronxcc.nki*` resolved to this interpreter) and run its kernel
    `name` on `inputs`; return the kernel's output(s) as a numpy array or a tuple of them.

    Raises NkiError where the kernel breaks a rule. `allow_psum_store=True` lets nl.store take a PSUM tile (the
    docs' implicit PSUM -> SBUF copy); by default that is refused."""
    filename = filename or f"<nki kernel {name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    with _neuronxcc_modules():
        namespace: Dict[str, Any] = {"__name__": "__nki_kernel__", "__file__": filename}
        exec(compile(source, filename, "exec", dont_inherit=True), namespace)
        fn = namespace.get(name)
        if fn is None or not callable(fn):
            raise NameError(f"axe.nki.run: the kernel source defines no function {name!r}")
        kernel = fn if isinstance(fn, Kernel) else Kernel(fn, {})
        return kernel.execute(inputs, {}, allow_psum_store=allow_psum_store)


def run_file(path: Union[str, Path], name: str, *inputs: Any, allow_psum_store: bool = False) -> Any:
    """`run` on the kernel source in the file `path` (tracebacks show its lines)."""
    path = Path(path)
    return run(path.read_text(), name, *inputs, allow_psum_store=allow_psum_store, filename=str(path.resolve()))


# ------------------------------------------------------------------------------------------ the neuronxcc modules


def _package(name: str, **attrs: Any) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__path__ = []  # type: ignore[attr-defined]
    module.__dict__.update(attrs)
    return module


_NKI = _package("neuronxcc.nki", jit=jit, trace=jit, language=language, isa=isa, typing=nki_typing,
                NkiError=NkiError)
_NEURONXCC = _package("neuronxcc", nki=_NKI)
_MODULES = {"neuronxcc": _NEURONXCC, "neuronxcc.nki": _NKI, "neuronxcc.nki.language": language,
            "neuronxcc.nki.isa": isa, "neuronxcc.nki.typing": nki_typing}


@contextlib.contextmanager
def _neuronxcc_modules() -> Iterator[None]:
    """Install this interpreter as `neuronxcc.nki` in sys.modules for the duration; restore what was there."""
    saved = {name: sys.modules.get(name) for name in _MODULES}
    sys.modules.update(_MODULES)
    try:
        yield
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


# ------------------------------------------------------------------------------------------ inputs and outputs

_NUMPY_DTYPES = {"float32": np.float32, "float16": np.float16, "int32": np.int32}


def _is_array(value: Any) -> bool:
    return isinstance(value, np.ndarray) or _is_bits(value)


def _is_bits(value: Any) -> bool:
    return type(value).__name__ == "Bits" and hasattr(value, "array") and hasattr(value, "dtype")


def _e5m2_table() -> np.ndarray:
    codes = np.arange(256)
    sign = np.where(codes >> 7, -1.0, 1.0)
    exp, man = (codes >> 2) & 31, codes & 3
    mag = np.where(exp == 0, man / 4 * 2.0**-14, (1 + man / 4) * 2.0 ** (exp - 15))
    mag = np.where(exp == 31, np.where(man == 0, np.inf, np.nan), mag)
    return (sign * mag).astype(np.float32)


def _input(run: Run, name: str, value: Any, mutable: bool) -> Tensor:
    """A kernel argument as an HBM tensor (a copy: the caller's array is not written)."""
    if _is_bits(value):
        codes = np.asarray(value.array)
        if value.dtype == "bfloat16" and codes.dtype == np.uint16:
            dt, data = language.bfloat16, (codes.astype(np.uint32) << 16).view(np.float32)
        elif value.dtype == "float8_e5m2" and codes.dtype == np.uint8:
            dt, data = language.float8_e5m2, _e5m2_table()[codes]
        else:
            fail("dtype", f"input {name}: axe.bits of {value.dtype} is not supported (bfloat16, float8_e5m2; NKI's "
                 f"float8_e4m3 on trn1 is not OCP float8_e4m3fn)")
    else:
        dt = _NUMPY_DTYPES.get(value.dtype.name)
        if dt is None:
            fail("dtype", f"input {name}: numpy {value.dtype} is not an NKI dtype (float32, float16, int32; bfloat16 "
                 f"and float8_e5m2 as axe.bits)")
        data = value
    if np.ndim(data) < 1:
        fail("tensor-rank", f"input {name}: a kernel tensor needs at least one dimension")
    alloc = _core.Alloc(run, _core.SHARED_HBM, dt, tuple(np.shape(data)), None, np.array(data), f" (input {name})")
    alloc.writable = mutable
    alloc.written = True
    return Tensor(alloc)


def _outputs(run: Run, result: Any, mutable: List[_core.Alloc]) -> Any:
    """The kernel's returned tensors as numpy arrays, after the output rules: outputs are whole HBM tensors, every
    shared_hbm tensor and every mutable parameter is returned, and every output was written."""
    items = result if isinstance(result, (tuple, list)) else (result,)
    if result is None or not items:
        fail("output", "the kernel returned nothing; return its shared_hbm output tensors")
    returned = []
    for i, t in enumerate(items):
        if not isinstance(t, Tensor) or t.buffer.on_chip or not t._whole():
            what = t._alloc.describe() if isinstance(t, Tensor) else type(t).__name__
            fail("output", f"output {i} is {what}: a kernel returns whole HBM tensors (created with "
                 f"buffer=nl.shared_hbm)")
        alloc = t._alloc
        if alloc.buffer is _core.PRIVATE_HBM or (alloc not in run.shared and alloc not in mutable):
            fail("output", f"output {i} {alloc.describe()} is not a kernel output: return tensors created with "
                 f"buffer=nl.shared_hbm (or parameters annotated nt.mutable_tensor)")
        if not alloc.written:
            fail("output", f"output {i} {alloc.describe()} is never written")
        returned.append(alloc)
    for alloc in run.shared + mutable:
        if alloc not in returned:
            fail("output", f"{alloc.describe()} is not returned: every shared_hbm tensor and every mutable "
                 f"parameter must be returned by the kernel")
    arrays = [np.array(a.data, dtype=a.data.dtype) for a in returned]
    return tuple(arrays) if isinstance(result, (tuple, list)) else arrays[0]
