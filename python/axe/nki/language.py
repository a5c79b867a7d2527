"""`neuronxcc.nki.language` (nl) as the interpreter runs it: tensors, loops, indices, HBM<->SBUF data movement and
the element-wise and reduction operators, each with the rules of its page in the NKI API reference
(https://awsdocs-neuron.readthedocs-hosted.com/en/v2.26.0/general/nki/api/nki.language.html).

Compute happens in float32 (the engines' arithmetic, per the architecture guide) and the result is rounded to the
output dtype. Results of compute APIs are new SBUF tiles; assign them into a PSUM tensor with `t[...] = ...`.
"""

from __future__ import annotations

import builtins
import sys
from typing import Any, Callable, Optional

import numpy as np

from . import _core
from ._core import (
    PSUM,
    PRIVATE_HBM,
    SBUF,
    SHARED_HBM,
    Index,
    ParDim,
    Range,
    Tensor,
    align,
    as_f32,
    current_run,
    dtype_name,
    dtype_of,
    fail,
    fit,
    new_alloc,
    operand,
    promote,
    temp,
    tile,
)

# ------------------------------------------------------------------------------------------ dtypes and buffers

float32 = np.float32
float16 = np.float16
int32 = np.int32
bfloat16 = _core.bfloat16
tfloat32 = _core.tfloat32
float8_e4m3 = _core.float8_e4m3
float8_e5m2 = _core.float8_e5m2

sbuf = SBUF
psum = PSUM
private_hbm = PRIVATE_HBM
hbm = PRIVATE_HBM  # the docs: "HBM - Alias of private_hbm"
shared_hbm = SHARED_HBM

_HBM = (PRIVATE_HBM, SHARED_HBM)


class tile_size:
    """Hardware tile-size constants of trn1 (nl.tile_size; the programming model's TC#1-TC#3)."""

    pmax = _core.PMAX
    psum_fmax = _core.PSUM_FMAX
    gemm_stationary_fmax = _core.GEMM_STATIONARY_FMAX
    gemm_moving_fmax = _core.GEMM_MOVING_FMAX
    bn_stats_fmax = 512  # architecture guide: bn_stats's free dim cannot exceed 512


def par_dim(n: int) -> ParDim:
    """Mark `n` as the partition dimension in an on-chip tensor's shape (dims before it are block dims)."""
    if not _core._is_int(n):
        fail("tensor-rank", f"nl.par_dim: size must be an int, got {n!r}")
    return ParDim(int(n))


# ------------------------------------------------------------------------------------------ creation


def _create(api: str, shape: Any, dtype: Any, buffer: Any, init: Optional[float], caller: Any) -> Tensor:
    run = current_run(api)
    buf = SBUF if buffer is None else buffer
    if not isinstance(buf, _core.Buffer):
        fail("unsupported", f"{api}: buffer {buffer!r} is not supported (nl.sbuf, nl.psum, nl.hbm, nl.shared_hbm)")
    if dtype is None:
        fail("dtype", f"{api}: dtype is required")
    if _core._is_int(shape):
        shape = (shape,)
    if buf is SHARED_HBM and (run.loops or caller.f_code is not run.kernel_code):
        fail("shared-hbm-scope", f"{api}: shared_hbm tensors can only be created in the kernel's top-level scope "
             f"(not in a loop or a helper function)")
    t = new_alloc(api, buf, dtype, tuple(shape), init)
    if buf is SHARED_HBM:
        run.shared.append(t._alloc)
    return t


def ndarray(shape: Any, dtype: Any = None, *, buffer: Any = None, name: str = "", **kwargs: Any) -> Tensor:
    """A new uninitialized tensor (nki.language.ndarray) in `buffer` (default SBUF). Uninitialized floats read as
    NaN, so a kernel that uses memory it never wrote produces NaNs."""
    return _create("nl.ndarray", shape, dtype, buffer, None, sys._getframe(1))


def zeros(shape: Any, dtype: Any = None, *, buffer: Any = None, name: str = "", **kwargs: Any) -> Tensor:
    """A new tensor filled with zeros (nki.language.zeros); HBM tensors cannot have an init value."""
    return _create("nl.zeros", shape, dtype, buffer, 0.0, sys._getframe(1))


def ones(shape: Any, dtype: Any = None, *, buffer: Any = None, name: str = "", **kwargs: Any) -> Tensor:
    """A new tensor filled with ones (nki.language.ones)."""
    return _create("nl.ones", shape, dtype, buffer, 1.0, sys._getframe(1))


def full(
    shape: Any, fill_value: float, dtype: Any = None, *, buffer: Any = None, name: str = "", **kwargs: Any
) -> Tensor:
    """A new tensor filled with `fill_value` (nki.language.full)."""
    return _create("nl.full", shape, dtype, buffer, float(fill_value), sys._getframe(1))


# ------------------------------------------------------------------------------------------ loops and indices


def affine_range(*args: int, **kwargs: Any) -> Range:
    """Loop over range(*args) whose iterations are independent (nki.language.affine_range): an element written in
    one iteration may not be written or read by another (NkiError 'affine-dependency'); `+=` accumulation is
    allowed, as the docs allow associative reductions."""
    return Range("affine", args)


def sequential_range(*args: int, **kwargs: Any) -> Range:
    """Loop over range(*args) with loop-carried dependencies allowed (nki.language.sequential_range)."""
    return Range("sequential", args)


def static_range(*args: int) -> Range:
    """Loop over range(*args), fully unrolled by the compiler (nki.language.static_range)."""
    return Range("static", args)


def arange(*args: int) -> Index:
    """Index values start..stop-1 (nki.language.arange); index tensors with `nl.arange(n)[:, None]` (partition) and
    `nl.arange(n)[None, :]` (free)."""
    for a in args:
        if not _core._is_int(a):
            fail("index", f"nl.arange: bounds must be ints, got {a!r}")
    return Index(np.arange(*[int(a) for a in args]))


class _Grid(tuple):
    """The result of nl.mgrid[...]: one Index per axis, also as `.p` (partition) and `.x`, `.y`, `.z` (free)."""

    @property
    def p(self) -> Index:
        return self[0]

    @property
    def x(self) -> Index:
        return self[1]

    @property
    def y(self) -> Index:
        return self[2]

    @property
    def z(self) -> Index:
        return self[3]


class _MGrid:
    """nki.language.mgrid: `nl.mgrid[0:128, 0:512]` gives index expressions of shapes [128, 1] and [1, 512] (numpy's
    open grid; indexing with it gives the same tile as numpy's dense mgrid)."""

    def __getitem__(self, key: Any) -> Any:
        items = key if isinstance(key, tuple) else (key,)
        axes = []
        for i, s in enumerate(items):
            if not isinstance(s, slice):
                fail("index", f"nl.mgrid: expected slices like 0:128, got {s!r}")
            start = 0 if s.start is None else s.start
            step = 1 if s.step is None else s.step
            if not all(_core._is_int(v) for v in (start, s.stop, step)):
                fail("index", f"nl.mgrid: slice bounds must be ints, got {s!r}")
            values = np.arange(int(start), int(s.stop), int(step))
            shape = [1] * len(items)
            shape[i] = values.size
            axes.append(Index(values.reshape(shape)))
        if not isinstance(key, tuple):
            return Index(axes[0].values.reshape(-1))
        return _Grid(axes)


mgrid = _MGrid()


def program_id(axis: int) -> int:
    """SPMD launch grids are not modeled: raises NkiError."""
    fail("unsupported", "nl.program_id: SPMD launch grids are not supported by this interpreter")


# ------------------------------------------------------------------------------------------ data movement


def _no_mask(api: str, mask: Any) -> None:
    if mask is not None:
        fail("unsupported", f"{api}: mask= is not supported by this interpreter")


def load(src: Tensor, *, mask: Any = None, dtype: Any = None, **kwargs: Any) -> Tensor:
    """HBM -> a new SBUF tile (nki.language.load). The source must be in HBM; the tile's first dim is its partition
    dim (<= pmax); `dtype` converts (rounding to nearest even)."""
    api = "nl.load"
    _no_mask(api, mask)
    current_run(api).tick()
    src = operand(src, api, "src", _HBM)
    dt = src.dtype if dtype is None else dtype_of(dtype, api)
    return temp(api, SBUF, dt, src._read())


def load_transpose2d(src: Tensor, *, mask: Any = None, dtype: Any = None, **kwargs: Any) -> Tensor:
    """HBM [a, b] -> a new SBUF tile [b, a] (nki.language.load_transpose2d); b <= pmax."""
    api = "nl.load_transpose2d"
    _no_mask(api, mask)
    current_run(api).tick()
    src = operand(src, api, "src", _HBM)
    if src.ndim != 2:
        fail("tensor-rank", f"{api}: the source must be 2D, got shape {list(src.shape)}")
    dt = src.dtype if dtype is None else dtype_of(dtype, api)
    return temp(api, SBUF, dt, src._read().T)


def store(dst: Tensor, value: Any, *, mask: Any = None, **kwargs: Any) -> None:
    """An SBUF tile -> HBM (nki.language.store). The destination must be in HBM and writable (an output, or an
    input annotated nt.mutable_tensor); the value's shape must broadcast to it and its dtype match it.

    A PSUM value is refused unless the run allows it (`axe.nki.run(..., allow_psum_store=True)`): the nl.store page
    says the compiler then inserts a PSUM -> SBUF copy, which this interpreter asks kernels to write explicitly."""
    api = "nl.store"
    _no_mask(api, mask)
    run = current_run(api)
    run.tick()
    dst = operand(dst, api, "dst", _HBM)
    if isinstance(value, Tensor):
        if value.buffer is PSUM and not run.allow_psum_store:
            fail("store-psum", f"{api}: the value is a PSUM tile {list(value.shape)}; data goes PSUM -> SBUF -> HBM: "
                 f"copy it to SBUF first (nl.copy), or run with allow_psum_store=True to model the compiler's copy")
        value = operand(value, api, "value", (SBUF, PSUM))
        aligned = fit(api, tuple(value.shape), tuple(dst.shape))
        if value.dtype is not dst.dtype:
            fail("store-dtype", f"{api}: the value is {dtype_name(value.dtype)} but the destination is "
                 f"{dtype_name(dst.dtype)}; convert it on chip first (nl.copy(x, dtype=...))")
        values = value._read().reshape(aligned)
    elif _core._is_scalar(value):
        values = np.asarray(value)
    else:
        fail("memory", f"{api}: the value must be an SBUF tile or a scalar, got {type(value).__name__}")
    dst._write(values)


def copy(src: Tensor, *, mask: Any = None, dtype: Any = None, **kwargs: Any) -> Tensor:
    """A new SBUF tile with `src`'s values (nki.language.copy; `src` in SBUF or PSUM), converted to `dtype`."""
    api = "nl.copy"
    _no_mask(api, mask)
    current_run(api).tick()
    src = tile(src, api, "src")
    return temp(api, SBUF, src.dtype if dtype is None else dtype_of(dtype, api), src._read())


# ------------------------------------------------------------------------------------------ matmul, transpose


def matmul(x: Tensor, y: Tensor, *, transpose_x: bool = False, mask: Any = None, **kwargs: Any) -> Tensor:
    """`x @ y` into a new float32 PSUM tile (nki.language.matmul, which calls nki.isa.nc_matmul).

    transpose_x=True: x is already [K, M] (the stationary operand), y is [K, N]. transpose_x=False: x is [M, K]
    with M, K <= 128 and the compiler transposes it first (modeled: the same checks on x.T)."""
    from . import isa

    return isa._matmul("nl.matmul", x, y, transpose_x, mask, ("x", "y"))


def transpose(x: Tensor, *, dtype: Any = None, mask: Any = None, **kwargs: Any) -> Tensor:
    """Swap the partition and free dims of a 2D tile (nki.language.transpose): both <= 128. Modeled as
    nki.isa.nc_transpose with the engine chosen by the compiler (Tensor Engine for an SBUF input: result in PSUM)."""
    from . import isa

    api = "nl.transpose"
    if isinstance(x, Tensor) and x.ndim != 2:
        fail("tensor-rank", f"{api}: parameter x{list(x.shape)} exceeds the max supported number of dimensions of 2")
    return isa._transpose(api, x, dtype, mask, isa.unknown_engine)


# ------------------------------------------------------------------------------------------ element-wise


def _scalar_dtype(v: Any) -> Any:
    # weakly typed scalars: integer -> int32, floating -> float32 (nki.api.shared "Weakly Typed Scalar")
    return np.int32 if isinstance(v, (int, np.integer)) else np.float32


def _binary(api: str, fn: Callable, x: Any, y: Any, dtype: Any, mask: Any) -> Tensor:
    _no_mask(api, mask)
    current_run(api).tick()
    vals, dts = [], []
    for name, v in (("x", x), ("y", y)):
        if isinstance(v, Tensor):
            t = tile(v, api, name)
            vals.append(as_f32(t._read()))
            dts.append(t.dtype)
        elif _core._is_scalar(v):
            vals.append(np.float32(v))
            dts.append(_scalar_dtype(v))
        else:
            fail("memory", f"{api}: operand '{name}' must be a tile or a scalar, got {type(v).__name__}")
    if not any(isinstance(v, Tensor) for v in (x, y)):
        fail("memory", f"{api}: at least one operand must be a tile")
    ndim = builtins.max(np.ndim(v) for v in vals)
    shapes = [align(np.shape(v), ndim) for v in vals]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        fail("shape", f"{api}: tiles {list(np.shape(vals[0]))} and {list(np.shape(vals[1]))} do not broadcast "
             f"(tiles line up from the partition dim)")
    vals = [v.reshape(s) for v, s in zip(vals, shapes)]
    dt = promote(dts[0], dts[1]) if dtype is None else dtype_of(dtype, api)
    with np.errstate(all="ignore"):
        result = np.asarray(fn(vals[0], vals[1]), dtype=np.float32)
    return temp(api, SBUF, dt, np.broadcast_to(result, shape))


def _unary(api: str, fn: Callable, x: Any, dtype: Any, mask: Any) -> Tensor:
    _no_mask(api, mask)
    current_run(api).tick()
    t = tile(x, api, "x")
    dt = t.dtype if dtype is None else dtype_of(dtype, api)
    with np.errstate(all="ignore"):
        result = np.asarray(fn(as_f32(t._read())), dtype=np.float32)
    return temp(api, SBUF, dt, result)


def add(x: Any, y: Any, *, dtype: Any = None, mask: Any = None, **kwargs: Any) -> Tensor:
    """x + y element-wise (nki.language.add); tiles broadcast like numpy, scalars too; the dtype promotes."""
    return _binary("nl.add", np.add, x, y, dtype, mask)


def subtract(x: Any, y: Any, *, dtype: Any = None, mask: Any = None, **kwargs: Any) -> Tensor:
    """x - y element-wise (nki.language.subtract)."""
    return _binary("nl.subtract", np.subtract, x, y, dtype, mask)


def multiply(x: Any, y: Any, *, dtype: Any = None, mask: Any = None, **kwargs: Any) -> Tensor:
    """x * y element-wise (nki.language.multiply)."""
    return _binary("nl.multiply", np.multiply, x, y, dtype, mask)


def divide(x: Any, y: Any, *, dtype: Any = None, mask: Any = None, **kwargs: Any) -> Tensor:
    """x / y element-wise (nki.language.divide)."""
    return _binary("nl.divide", np.divide, x, y, dtype, mask)


def maximum(x: Any, y: Any, *, dtype: Any = None, mask: Any = None, **kwargs: Any) -> Tensor:
    """max(x, y) element-wise (nki.language.maximum)."""
    return _binary("nl.maximum", np.maximum, x, y, dtype, mask)


def minimum(x: Any, y: Any, *, dtype: Any = None, mask: Any = None, **kwargs: Any) -> Tensor:
    """min(x, y) element-wise (nki.language.minimum)."""
    return _binary("nl.minimum", np.minimum, x, y, dtype, mask)


def exp(x: Tensor, *, dtype: Any = None, mask: Any = None, **kwargs: Any) -> Tensor:
    """e**x element-wise (nki.language.exp)."""
    return _unary("nl.exp", np.exp, x, dtype, mask)


def log(x: Tensor, *, dtype: Any = None, mask: Any = None, **kwargs: Any) -> Tensor:
    """Natural log element-wise (nki.language.log)."""
    return _unary("nl.log", np.log, x, dtype, mask)


def sqrt(x: Tensor, *, dtype: Any = None, mask: Any = None, **kwargs: Any) -> Tensor:
    """Square root element-wise (nki.language.sqrt)."""
    return _unary("nl.sqrt", np.sqrt, x, dtype, mask)


def rsqrt(x: Tensor, *, dtype: Any = None, mask: Any = None, **kwargs: Any) -> Tensor:
    """1 / sqrt(x) element-wise (nki.language.rsqrt)."""
    return _unary("nl.rsqrt", lambda v: np.float32(1) / np.sqrt(v), x, dtype, mask)


def reciprocal(x: Tensor, *, dtype: Any = None, mask: Any = None, **kwargs: Any) -> Tensor:
    """1 / x element-wise (nki.language.reciprocal)."""
    return _unary("nl.reciprocal", np.reciprocal, x, dtype, mask)


def negative(x: Tensor, *, dtype: Any = None, mask: Any = None, **kwargs: Any) -> Tensor:
    """-x element-wise (nki.language.negative)."""
    return _unary("nl.negative", np.negative, x, dtype, mask)


def abs(x: Tensor, *, dtype: Any = None, mask: Any = None, **kwargs: Any) -> Tensor:  # noqa: A001
    """|x| element-wise (nki.language.abs)."""
    return _unary("nl.abs", np.abs, x, dtype, mask)


def square(x: Tensor, *, dtype: Any = None, mask: Any = None, **kwargs: Any) -> Tensor:
    """x * x element-wise (nki.language.square)."""
    return _unary("nl.square", np.square, x, dtype, mask)


def tanh(x: Tensor, *, dtype: Any = None, mask: Any = None, **kwargs: Any) -> Tensor:
    """tanh(x) element-wise (nki.language.tanh)."""
    return _unary("nl.tanh", np.tanh, x, dtype, mask)


def sigmoid(x: Tensor, *, dtype: Any = None, mask: Any = None, **kwargs: Any) -> Tensor:
    """1 / (1 + e**-x) element-wise (nki.language.sigmoid)."""
    return _unary("nl.sigmoid", lambda v: np.float32(1) / (np.float32(1) + np.exp(-v)), x, dtype, mask)


def relu(x: Tensor, *, dtype: Any = None, mask: Any = None, **kwargs: Any) -> Tensor:
    """max(x, 0) element-wise (nki.language.relu)."""
    return _unary("nl.relu", lambda v: np.maximum(v, np.float32(0)), x, dtype, mask)


# nl function -> its float32 numpy computation (nisa.activation / nisa.tensor_tensor take these as `op`)
UNARY = {exp: np.exp, log: np.log, sqrt: np.sqrt, reciprocal: np.reciprocal, negative: np.negative, abs: np.abs,
         square: np.square, tanh: np.tanh, copy: lambda v: v}
UNARY[rsqrt] = lambda v: np.float32(1) / np.sqrt(v)
UNARY[sigmoid] = lambda v: np.float32(1) / (np.float32(1) + np.exp(-v))
UNARY[relu] = lambda v: np.maximum(v, np.float32(0))
BINARY = {add: np.add, subtract: np.subtract, multiply: np.multiply, divide: np.divide, maximum: np.maximum,
          minimum: np.minimum}


# ------------------------------------------------------------------------------------------ reductions


def _reduce(api: str, fn: Callable, x: Tensor, axis: Any, dtype: Any, keepdims: bool, mask: Any) -> Tensor:
    _no_mask(api, mask)
    current_run(api).tick()
    t = tile(x, api, "x")
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    if not all(_core._is_int(a) for a in axes):
        fail("reduce-axis", f"{api}: axis must be an int or a tuple of ints, got {axis!r}")
    axes = tuple(sorted(int(a) % t.ndim if -t.ndim <= int(a) < t.ndim else int(a) for a in axes))
    if not axes or axes[0] < 1 or axes != tuple(range(axes[0], t.ndim)):
        fail("reduce-axis", f"{api}: axis {axis!r} of a rank-{t.ndim} tile must be free dims (not 0), the last "
             f"contiguous ones: [1], [1, 2], ...")
    dt = t.dtype if dtype is None else dtype_of(dtype, api)
    with np.errstate(all="ignore"):
        result = fn(as_f32(t._read()), axis=axes, keepdims=bool(keepdims)).astype(np.float32)
    return temp(api, SBUF, dt, result)


def max(  # noqa: A001
    x: Tensor, axis: Any, *, dtype: Any = None, mask: Any = None, keepdims: bool = False, **kwargs: Any
) -> Tensor:
    """Maximum over free axes (nki.language.max): `axis` names the last contiguous free dims."""
    return _reduce("nl.max", np.max, x, axis, dtype, keepdims, mask)


def min(  # noqa: A001
    x: Tensor, axis: Any, *, dtype: Any = None, mask: Any = None, keepdims: bool = False, **kwargs: Any
) -> Tensor:
    """Minimum over free axes (nki.language.min)."""
    return _reduce("nl.min", np.min, x, axis, dtype, keepdims, mask)


def sum(  # noqa: A001
    x: Tensor, axis: Any, *, dtype: Any = None, mask: Any = None, keepdims: bool = False, **kwargs: Any
) -> Tensor:
    """Sum over free axes (nki.language.sum), accumulated in float32."""
    return _reduce("nl.sum", np.sum, x, axis, dtype, keepdims, mask)


def mean(
    x: Tensor, axis: Any, *, dtype: Any = None, mask: Any = None, keepdims: bool = False, **kwargs: Any
) -> Tensor:
    """Arithmetic mean over free axes (nki.language.mean)."""
    return _reduce("nl.mean", np.mean, x, axis, dtype, keepdims, mask)


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise _core.Unsupported("unsupported", f"nl.{name} is not in this interpreter's subset")

