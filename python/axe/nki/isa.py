"""`neuronxcc.nki.isa` (nisa) as the interpreter runs it: Tensor Engine matmul and transpose, copies, a few
Vector/Scalar Engine instructions, each with the rules of its page in the NKI API reference
(https://awsdocs-neuron.readthedocs-hosted.com/en/v2.26.0/general/nki/api/nki.isa.html).
"""

from __future__ import annotations

from typing import Any, Sequence, Tuple

import numpy as np

from . import _core
from ._core import (
    PSUM,
    PRIVATE_HBM,
    SBUF,
    SHARED_HBM,
    Tensor,
    as_f32,
    current_run,
    dtype_name,
    dtype_of,
    fail,
    operand,
    temp,
    tile,
)

tensor_engine = "tensor"
vector_engine = "vector"
scalar_engine = "scalar"
gpsimd_engine = "gpsimd"
unknown_engine = "unknown"


class engine:
    """nki.isa.engine: which engine runs an instruction."""

    tensor = tensor_engine
    vector = vector_engine
    scalar = scalar_engine
    gpsimd = gpsimd_engine
    unknown = unknown_engine


# nc_matmul input dtypes (nki.isa.nc_matmul: float8_e4m3/float8_e5m2/bfloat16/float16/tfloat32/float32)
_MATMUL_DTYPES = (_core.float8_e4m3, _core.float8_e5m2, _core.bfloat16, np.float16, _core.tfloat32, np.float32)
_FP32_LIKE = (_core.tfloat32, np.float32)


def _no_mask(api: str, mask: Any) -> None:
    if mask is not None:
        fail("unsupported", f"{api}: mask= is not supported by this interpreter")


def nc_matmul(stationary: Tensor, moving: Tensor, *, is_stationary_onezero: bool = False,
              is_moving_onezero: bool = False, is_transpose: bool = False, tile_position: Sequence[int] = (),
              tile_size: Sequence[int] = (), mask: Any = None, **kwargs: Any) -> Tensor:
    """`stationary.T @ moving` on the Tensor Engine into a new float32 PSUM tile [M, N] (nki.isa.nc_matmul).

    Both operands are SBUF tiles with the same partition size K <= 128 (the contraction); the stationary free
    size M <= gemm_stationary_fmax (128), the moving free size N <= gemm_moving_fmax (512: one PSUM bank of fp32).
    Accumulate into a PSUM tensor with `acc += nisa.nc_matmul(...)`."""
    api = "nc_matmul"
    _check_tiling(api, stationary, tile_position, tile_size)
    return _matmul(api, stationary, moving, True, mask, ("stationary", "moving"))


def _check_tiling(api: str, stationary: Any, position: Sequence[int], size: Sequence[int]) -> None:
    """PE tiling (nki.isa.nc_matmul): tile_position and tile_size are set together; on NeuronCore-v2 a PE tile is
    64 or 128 rows/columns (32 only from NeuronCore-v3), starts at a multiple of its size, stays in the 128x128
    array and holds the stationary tile."""
    if not position and not size:
        return
    if len(position) != 2 or len(size) != 2:
        fail("matmul-tiling", f"{api}: tile_position {tuple(position)} and tile_size {tuple(size)} must both be "
             f"(row, column) pairs")
    for what, p, s in (("row", position[0], size[0]), ("column", position[1], size[1])):
        if s not in (64, 128):
            fail("matmul-tiling", f"{api}: tile_size {what} {s} must be 64 or 128 on NeuronCore-v2")
        if p % s or p + s > 128:
            fail("matmul-tiling", f"{api}: tile_position {what} {p} must be a multiple of {s} within 128")
    if isinstance(stationary, Tensor) and stationary.ndim == 2:
        k, m = stationary.shape
        if k > size[0] or m > size[1]:
            fail("matmul-tiling", f"{api}: the stationary tile [{k}, {m}] does not fit tile_size {tuple(size)}")


def _matmul(api: str, x: Any, y: Any, transposed: bool, mask: Any, names: Tuple[str, str]) -> Tensor:
    """The Tensor Engine matmul behind nc_matmul and nl.matmul: checks, then x.T @ y (or x @ y) in float32."""
    _no_mask(api, mask)
    current_run(api).tick()
    x = operand(x, api, names[0], (SBUF,))
    y = operand(y, api, names[1], (SBUF,))
    for name, t in zip(names, (x, y)):
        if t.ndim != 2:
            fail("tensor-rank", f"{api}: the {name} tile must be 2D [partition, free], got {list(t.shape)}")
        if t.dtype not in _MATMUL_DTYPES:
            fail("matmul-dtype", f"{api}: the {name} tile is {dtype_name(t.dtype)}; the Tensor Engine takes "
                 f"float8_e4m3/float8_e5m2/bfloat16/float16/tfloat32/float32")
    if (x.dtype in _FP32_LIKE) != (y.dtype in _FP32_LIKE):
        fail("matmul-dtype", f"{api}: {dtype_name(x.dtype)} x {dtype_name(y.dtype)}: if one input is "
             f"tfloat32/float32 the other must be too")
    xv, yv = as_f32(x._read()), as_f32(y._read())
    if not transposed:  # nl.matmul(x[M, K], y[K, N]): the compiler transposes x into the stationary operand
        if x.shape[1] > _core.PMAX:
            fail("matmul-stationary-fmax", f"{api}: x's free size {x.shape[1]} exceeds 128 (x [M, K] is transposed "
                 f"into the stationary operand [K, M])")
        if x.shape[1] != y.shape[0]:
            fail("matmul-contraction", f"{api}: x's free size {x.shape[1]} must match y's partition size "
                 f"{y.shape[0]} (the contraction)")
        xv = xv.T
    (k1, m), (k2, n) = xv.shape, yv.shape
    if k1 != k2:
        fail("matmul-contraction", f"{api}: the partition (contraction) sizes differ: {names[0]} has {k1}, "
             f"{names[1]} has {k2}")
    if k1 > _core.PMAX:
        fail("matmul-contraction", f"{api}: the contraction size {k1} exceeds pmax {_core.PMAX}")
    if m > _core.GEMM_STATIONARY_FMAX:
        fail("matmul-stationary-fmax", f"{api}: the stationary tile's free size {m} exceeds gemm_stationary_fmax "
             f"{_core.GEMM_STATIONARY_FMAX}")
    if n > _core.GEMM_MOVING_FMAX:
        fail("matmul-moving-fmax", f"{api}: the moving tile's free size {n} exceeds gemm_moving_fmax "
             f"{_core.GEMM_MOVING_FMAX}")
    return temp(api, PSUM, np.float32, np.ascontiguousarray(xv.T) @ np.ascontiguousarray(yv))


def nc_transpose(data: Tensor, *, mask: Any = None, dtype: Any = None, engine: str = unknown_engine,
                 **kwargs: Any) -> Tensor:
    """Swap the partition axis and the (flattened) free axes of a tile (nki.isa.nc_transpose).

    Tensor Engine: input in SBUF, at most 128x128, result in PSUM. Vector Engine: at most 32x32, SBUF or PSUM in,
    result in SBUF. With no engine given, this interpreter picks the Tensor Engine for an SBUF input and the Vector
    Engine for a PSUM input (the docs leave the choice to the compiler)."""
    return _transpose("nc_transpose", data, dtype, mask, engine)


def _transpose(api: str, data: Any, dtype: Any, mask: Any, eng: str) -> Tensor:
    _no_mask(api, mask)
    current_run(api).tick()
    t = tile(data, api, "data")
    p = t.shape[0]
    f = int(np.prod(t.shape[1:], dtype=np.int64))
    if eng == unknown_engine:
        eng = tensor_engine if t.buffer is SBUF else vector_engine
    if eng == tensor_engine:
        if t.buffer is not SBUF:
            fail("memory", f"{api}: the Tensor Engine reads its input from SBUF, but the tile is in PSUM")
        limit, out = 128, PSUM
    elif eng == vector_engine:
        limit, out = 32, SBUF
    else:
        fail("unsupported", f"{api}: engine {eng!r} cannot transpose (tensor or vector engine)")
    if p > limit or f > limit:
        fail("transpose-size", f"{api}: a [{p}, {f}] tile exceeds the {eng} engine's transpose limit "
             f"[{limit}, {limit}]")
    dt = t.dtype if dtype is None else dtype_of(dtype, api)
    return temp(api, out, dt, t._read().reshape(p, f).T)


def tensor_copy(src: Tensor, *, mask: Any = None, dtype: Any = None, engine: str = unknown_engine,
                **kwargs: Any) -> Tensor:
    """A new SBUF tile with `src`'s values (nki.isa.tensor_copy); GpSimd cannot read PSUM."""
    api = "tensor_copy"
    _no_mask(api, mask)
    current_run(api).tick()
    t = tile(src, api, "src")
    if engine == gpsimd_engine and t.buffer is PSUM:
        fail("memory", f"{api}: the GpSimd Engine cannot access PSUM")
    return temp(api, SBUF, t.dtype if dtype is None else dtype_of(dtype, api), t._read())


def dma_copy(*, dst: Tensor, src: Tensor, mask: Any = None, dst_rmw_op: Any = None, **kwargs: Any) -> None:
    """Copy `src` into `dst` with a DMA (nki.isa.dma_copy): any memories, the same shape and dtype."""
    api = "dma_copy"
    _no_mask(api, mask)
    if dst_rmw_op is not None:
        fail("unsupported", f"{api}: dst_rmw_op is not supported by this interpreter")
    current_run(api).tick()
    every = (SBUF, PSUM, PRIVATE_HBM, SHARED_HBM)
    d = operand(dst, api, "dst", every)
    s = operand(src, api, "src", every)
    if tuple(d.shape) != tuple(s.shape):
        fail("shape", f"{api}: src shape {list(s.shape)} differs from dst shape {list(d.shape)}")
    if d.dtype is not s.dtype:
        fail("store-dtype", f"{api}: src is {dtype_name(s.dtype)} but dst is {dtype_name(d.dtype)}")
    d._write(s._read())


def memset(shape: Sequence[int], value: float, dtype: Any, *, mask: Any = None, **kwargs: Any) -> Tensor:
    """A new SBUF tile of `shape` filled with `value` (nki.isa.memset)."""
    api = "memset"
    _no_mask(api, mask)
    current_run(api).tick()
    return temp(api, SBUF, dtype_of(dtype, api), np.full(tuple(int(n) for n in shape), value, dtype=np.float64))


_NP_UNARY = {np.exp: np.exp, np.log: np.log, np.tanh: np.tanh, np.sqrt: np.sqrt, np.abs: np.abs,
             np.square: np.square, np.reciprocal: np.reciprocal, np.negative: np.negative, np.copy: lambda v: v}
_NP_BINARY = {f: f for f in (np.add, np.subtract, np.multiply, np.divide, np.maximum, np.minimum)}


def _op(api: str, op: Any, unary: bool) -> Any:
    """The float32 computation of an `op` argument: an nl function or the numpy function of the same name."""
    from . import language

    table = {**language.UNARY, **_NP_UNARY} if unary else {**language.BINARY, **_NP_BINARY}
    if op not in table:
        fail("unsupported", f"{api}: op {getattr(op, '__name__', op)!r} is not supported by this interpreter")
    return table[op]


def tensor_tensor(data1: Tensor, data2: Tensor, op: Any, *, dtype: Any = None, mask: Any = None,
                  **kwargs: Any) -> Tensor:
    """`op(data1, data2)` element-wise on two tiles with the same number of partitions (nki.isa.tensor_tensor)."""
    api = "tensor_tensor"
    _no_mask(api, mask)
    fn = _op(api, op, unary=False)
    current_run(api).tick()
    a, b = tile(data1, api, "data1"), tile(data2, api, "data2")
    if a.shape[0] != b.shape[0]:
        fail("partition-mismatch", f"{api}: number of partitions mismatch: data1{list(a.shape)}, "
             f"data2{list(b.shape)}")
    if tuple(a.shape) != tuple(b.shape):
        fail("shape", f"{api}: data1{list(a.shape)} and data2{list(b.shape)} must have the same shape")
    dt = _core.promote(a.dtype, b.dtype) if dtype is None else dtype_of(dtype, api)
    with np.errstate(all="ignore"):
        return temp(api, SBUF, dt, np.asarray(fn(as_f32(a._read()), as_f32(b._read())), dtype=np.float32))


def activation(op: Any, data: Tensor, *, bias: Any = None, scale: Any = 1.0, reduce_op: Any = None,
               reduce_res: Any = None, mask: Any = None, dtype: Any = None, **kwargs: Any) -> Tensor:
    """`op(data * scale + bias)` on the Scalar Engine (nki.isa.activation): `bias` a [P, 1] float32/float16/bfloat16
    tile, `scale` a scalar or a [P, 1] float32 tile."""
    api = "activation"
    _no_mask(api, mask)
    if reduce_op is not None or reduce_res is not None:
        fail("unsupported", f"{api}: reduce_op/reduce_res are not supported by this interpreter")
    fn = _op(api, op, unary=True)
    current_run(api).tick()
    t = tile(data, api, "data")
    x = as_f32(t._read())
    if isinstance(scale, Tensor):
        s = tile(scale, api, "scale")
        if s.dtype is not np.float32:
            fail("activation", f"{api}: a scale tile must be float32, got {dtype_name(s.dtype)}")
        if tuple(s.shape) != (t.shape[0], 1):
            fail("activation", f"{api}: scale must be a scalar or a [{t.shape[0]}, 1] vector, got {list(s.shape)}")
        x = x * as_f32(s._read()).reshape((t.shape[0],) + (1,) * (t.ndim - 1))
    elif _core._is_scalar(scale):
        x = x * np.float32(scale)
    else:
        fail("activation", f"{api}: scale must be a scalar or a tile, got {type(scale).__name__}")
    if bias is not None:
        b = tile(bias, api, "bias")
        if b.dtype not in (np.float32, np.float16, _core.bfloat16):
            fail("activation", f"{api}: the bias must be float32, float16 or bfloat16, got {dtype_name(b.dtype)}")
        if tuple(b.shape) != (t.shape[0], 1):
            fail("activation", f"{api}: bias must be a [{t.shape[0]}, 1] vector, got {list(b.shape)}")
        x = x + as_f32(b._read()).reshape((t.shape[0],) + (1,) * (t.ndim - 1))
    dt = t.dtype if dtype is None else dtype_of(dtype, api)
    with np.errstate(all="ignore"):
        return temp(api, SBUF, dt, np.asarray(fn(x), dtype=np.float32))


def reciprocal(data: Tensor, *, dtype: Any = None, mask: Any = None, **kwargs: Any) -> Tensor:
    """1 / data element-wise on the Vector Engine (nki.isa.reciprocal)."""
    from . import language

    return language._unary("reciprocal", np.reciprocal, data, dtype, mask)


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise _core.Unsupported("unsupported", f"nisa.{name} is not in this interpreter's subset")
