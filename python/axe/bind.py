"""Binding a call's arguments to a kernel's parameters, and every check before a launch.

`bind(record, args, kwargs, device)` matches the arguments to the record's parameters (positionally, then by
name), reads each tensor without copying it (`arrays.describe`), and refuses, with a `LaunchError` that names the
parameter and the rule, anything the kernel was not compiled for:
- a missing, extra or doubly given argument; a scalar outside its PTX type; a tensor where a scalar belongs or
  the other way round; a tensor on the wrong device;
- every precondition of the record (`M % 16 == 0`, `A % 16 == 0` on a pointer's address, ...), by its text;
- for each pointer with a view in the record: the tensor's rank, dtype and extents, row-major and packed;
- for each tensor map: the tensor's rank, dtype, extents and byte strides against the map's expressions, a
  densely packed innermost dimension, and the driver's rules for `cuTensorMapEncodeTiled` (global address
  16-byte aligned, strides multiples of 16 and below 2^40, extents in 1..2^32, box within the extents' rules).
What depends on the process's state is checked by the backend that has it: NVSHMEM's symmetric buffers by
`nvshmem.check`, the tensors' device against the CUDA context by `cuda.py`.

What comes out (`Bound`) is everything a backend needs: the value of every parameter (an address or a number),
the grid, and the evaluated fields of each tensor map, so the GPU and the simulator launch the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from .arrays import Array, describe
from .record import SM_COUNT, KernelRecord, LaunchError, TensorMap

# cuTensorMapEncodeTiled's data types (CUtensorMapDataType) -> the tensor dtypes each may map.
MAP_DTYPES = {
    "UINT8": {"uint8", "int8", "float8_e4m3fn", "float8_e5m2"},
    "UINT16": {"uint16", "int16"},
    "UINT32": {"uint32"},
    "INT32": {"int32"},
    "UINT64": {"uint64"},
    "INT64": {"int64"},
    "FLOAT16": {"float16"},
    "FLOAT32": {"float32"},
    "FLOAT64": {"float64"},
    "BFLOAT16": {"bfloat16"},
    "FLOAT32_FTZ": {"float32"},
    "TFLOAT32": {"float32"},
    "TFLOAT32_FTZ": {"float32"},
}

# MLIR element types -> the tensor dtypes that hold them (an integer type is signless: either signedness).
VIEW_DTYPES = {
    "f16": {"float16"},
    "bf16": {"bfloat16"},
    "f32": {"float32"},
    "f64": {"float64"},
    "i8": {"int8", "uint8"},
    "i16": {"int16", "uint16"},
    "i32": {"int32", "uint32"},
    "i64": {"int64", "uint64"},
    "f8E4M3FN": {"float8_e4m3fn"},
    "f8E5M2": {"float8_e5m2"},
}

_INT_RANGES = {
    "u8": (0, 2**8 - 1),
    "u16": (0, 2**16 - 1),
    "u32": (0, 2**32 - 1),
    "u64": (0, 2**64 - 1),
    "s8": (-(2**7), 2**7 - 1),
    "s16": (-(2**15), 2**15 - 1),
    "s32": (-(2**31), 2**31 - 1),
    "s64": (-(2**63), 2**63 - 1),
    "b32": (-(2**31), 2**32 - 1),
    "b64": (-(2**63), 2**64 - 1),
}


@dataclass(frozen=True)
class MapFields:
    """The evaluated arguments of one `cuTensorMapEncodeTiled` call (arrays innermost first)."""

    param_index: int
    data_type: int
    rank: int
    global_address: int
    global_dims: Tuple[int, ...]
    global_strides: Tuple[int, ...]
    box_dims: Tuple[int, ...]
    element_strides: Tuple[int, ...]
    interleave: int
    swizzle: int
    l2_promotion: int
    oob_fill: int


@dataclass(frozen=True)
class Bound:
    """A checked call: the value of every parameter in PTX order (addresses for tensor maps and pointers, numbers
    for scalars), the tensors by parameter index, the grid, block, cluster, dynamic shared bytes and the maps."""

    record: KernelRecord
    values: Tuple[Any, ...]
    arrays: Dict[int, Array]
    env: Dict[str, int]
    grid: Tuple[int, int, int]
    maps: Tuple[MapFields, ...]


def _match(record: KernelRecord, args: Sequence[Any], kwargs: Mapping[str, Any]) -> List[Any]:
    names = [p.name for p in record.params]
    if len(args) > len(names):
        raise LaunchError(record.name, f"takes {len(names)} arguments ({', '.join(names)}), got {len(args)}")
    given: Dict[str, Any] = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names:
            raise LaunchError(record.name, f"no parameter {key!r} (parameters: {', '.join(names)})")
        if key in given:
            raise LaunchError(record.name, "given twice", param=key)
        given[key] = value
    missing = [n for n in names if n not in given]
    if missing:
        raise LaunchError(record.name, f"missing argument(s) {', '.join(missing)} (parameters: {', '.join(names)})")
    return [given[n] for n in names]


def _scalar(record: KernelRecord, name: str, ptx_type: str, value: Any) -> Any:
    if describe(value) is not None:
        raise LaunchError(record.name, f"a scalar ({ptx_type}) is expected, got a tensor", param=name)
    if ptx_type.startswith("f"):
        try:
            return float(value)
        except (TypeError, ValueError):
            raise LaunchError(record.name, f"a number ({ptx_type}) is expected, got {type(value).__name__}", param=name)
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise LaunchError(record.name, f"an integer ({ptx_type}) is expected, got {type(value).__name__}", param=name)
    value = int(value.__index__())
    low, high = _INT_RANGES.get(ptx_type, (-(2**63), 2**64 - 1))
    if not low <= value <= high:
        raise LaunchError(record.name, f"{value} does not fit {ptx_type} ({low}..{high})", param=name)
    return value


def _check_map(record: KernelRecord, tm: TensorMap, array: Array, env: Mapping[str, int]) -> MapFields:
    name = tm.param

    def fail(message: str, precondition: Optional[str] = None):
        raise LaunchError(record.name, message, param=name, precondition=precondition)

    if len(array.shape) != tm.rank:
        fail(f"a rank-{tm.rank} tensor is expected (the tensor map's rank), got shape {list(array.shape)}")
    allowed = MAP_DTYPES.get(tm.data_type_name, set())
    if array.dtype not in allowed:
        fail(f"dtype {array.dtype}, but the tensor map's data type is {tm.data_type_name} ({', '.join(sorted(allowed))})")
    dims = tuple(int(d(env)) for d in tm.global_dims)
    strides = tuple(int(s(env)) for s in tm.global_strides_bytes)
    for i, (want, expr) in enumerate(zip(dims, tm.global_dims)):
        axis = tm.rank - 1 - i
        if array.shape[axis] != want:
            fail(f"dimension {axis} has extent {array.shape[axis]}, but the kernel expects {expr.text} = {want}")
    if array.strides[-1] != array.itemsize and array.shape[-1] != 1:
        fail(f"the last dimension must be contiguous (stride {array.itemsize} bytes), got {array.strides[-1]} bytes")
    for i, (want, expr) in enumerate(zip(strides, tm.global_strides_bytes)):
        axis = tm.rank - 2 - i
        if array.shape[axis] != 1 and array.strides[axis] != want:
            fail(
                f"dimension {axis} has stride {array.strides[axis]} bytes, but the kernel expects "
                f"{expr.text} = {want} bytes"
            )
    address = int(tm.global_address(env))
    align = 32 if tm.interleave == 2 else 16
    if address % align:
        fail(f"address {address:#x} is not {align}-byte aligned (cuTensorMapEncodeTiled's rule for globalAddress)")
    for i, d in enumerate(dims):
        if not 1 <= d <= 2**32:
            fail(f"extent {d} of tensor-map dimension {i} is outside 1..2^32 (cuTensorMapEncodeTiled)")
    for i, s in enumerate(strides):
        if s % 16 or s >= 2**40:
            fail(f"stride {s} bytes of tensor-map dimension {i + 1} must be a multiple of 16 below 2^40 (cuTensorMapEncodeTiled)")
    return MapFields(
        tm.param_index,
        tm.data_type,
        tm.rank,
        address,
        dims,
        strides,
        tm.box_dims,
        tm.element_strides,
        tm.interleave,
        tm.swizzle,
        tm.l2_promotion,
        tm.oob_fill,
    )


def _check_view(record: KernelRecord, view, array: Array, env: Mapping[str, int]) -> None:
    """The tensor behind a pointer: the view's rank, dtype and extents, row-major and densely packed."""

    def fail(message: str):
        raise LaunchError(record.name, message, param=view.param)

    if len(array.shape) != len(view.dims):
        fail(f"a rank-{len(view.dims)} tensor is expected, got shape {list(array.shape)}")
    allowed = VIEW_DTYPES.get(view.dtype, set())
    if array.dtype not in allowed:
        fail(f"dtype {array.dtype}, but the kernel reads {view.dtype} ({', '.join(sorted(allowed)) or 'no known dtype'})")
    for axis, (extent, expr) in enumerate(zip(array.shape, view.dims)):
        want = int(expr(env))
        if extent != want:
            fail(f"dimension {axis} has extent {extent}, but the kernel expects {expr.text} = {want}")
    if not array.is_row_major():
        fail(f"the kernel reads it row-major and densely packed; got strides {list(array.strides)} bytes")


def bind(
    record: KernelRecord,
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    device: str,
    grid: Optional[Sequence[int]] = None,
    sm_count: Optional[int] = None,
) -> Bound:
    """Checks a call of `record` with `args`/`kwargs` for a `device` (`cuda` or `cpu`: where the tensors must
    live) of `sm_count` SMs (what a persistent kernel's grid reads as `sm_count`); raises `LaunchError` naming the
    parameter and the rule, before anything reaches a device."""
    given = _match(record, args, kwargs)
    values: List[Any] = []
    arrays: Dict[int, Array] = {}
    env: Dict[str, int] = {}
    if sm_count is not None:
        if sm_count < 1:
            raise LaunchError(record.name, f"sm_count must be at least 1, got {sm_count}")
        env[SM_COUNT] = sm_count
    for index, (param, value) in enumerate(zip(record.params, given)):
        if param.kind == "scalar":
            v = _scalar(record, param.name, param.ptx_type, value)
            values.append(v)
            if isinstance(v, int):
                env[param.name] = v
            continue
        array = describe(value)
        if array is None:
            what = "a tensor (its tensor map is encoded from it)" if param.kind == "tensor_map" else "a tensor"
            raise LaunchError(record.name, f"{what} is expected, got {type(value).__name__}", param=param.name)
        if array.device != device:
            where = "GPU" if device == "cuda" else "host (numpy)"
            raise LaunchError(record.name, f"the tensor is on {array.device}; this launch needs {where} tensors", param=param.name)
        arrays[index] = array
        values.append(array.address)
        env[param.name] = array.address
    for text in record.violated(env):
        names = sorted(n for n in _names(record, text) if n in env)
        shown = ", ".join(f"{n} = {env[n]:#x}" if index_is_address(record, n) else f"{n} = {env[n]}" for n in names)
        raise LaunchError(record.name, f"precondition {text} does not hold ({shown})", precondition=text)
    for view in record.views:
        array = arrays.get(view.param_index)
        if array is not None:
            _check_view(record, view, array, env)
    maps = []
    for tm in record.tensor_maps:
        array = arrays.get(tm.param_index)
        if array is None:
            raise LaunchError(record.name, "no tensor for the tensor map", param=tm.param)
        maps.append(_check_map(record, tm, array, env))
    if grid is None and sm_count is None and record.reads_sm_count():
        raise LaunchError(record.name, "the grid reads the device's SM count: pass sm_count=")
    dims = record.grid_dims(env)
    if grid is not None:
        dims = tuple(int(g) for g in grid) + (1,) * (3 - len(grid))  # type: ignore[assignment]
    if dims is None:
        raise LaunchError(record.name, "the launch record has no grid for this kernel: pass grid=(x, y, z)")
    if any(d < 1 or d > 2**31 - 1 for d in dims):
        raise LaunchError(record.name, f"grid {list(dims)} is empty or too large")
    # The PTX requires these CTAs per cluster (.reqnctapercluster): a grid that is not a multiple of them in each
    # dimension is refused by the driver with an unspecific error; say which here.
    if any(d % c for d, c in zip(dims, record.cluster)):
        raise LaunchError(
            record.name, f"grid {list(dims)} is not a multiple of the kernel's cluster {list(record.cluster)}"
        )
    return Bound(record, tuple(values), arrays, env, dims, tuple(maps))  # type: ignore[arg-type]


def _names(record: KernelRecord, text: str):
    for p in record.preconditions:
        if p.text == text:
            return p.names
    return set()


def index_is_address(record: KernelRecord, name: str) -> bool:
    try:
        return record.param(name).kind != "scalar"
    except KeyError:
        return False
