"""What the launcher needs to know about a tensor argument, read without copying it: its address, shape, strides
in bytes, dtype and device.

GPU tensors are read through `__cuda_array_interface__` (CuPy, Numba, PyTorch) or, for PyTorch dtypes the
interface cannot name (bfloat16, the fp8 types), through the tensor's own attributes; host arrays (the
simulator's) through numpy's `__array_interface__`, and host arrays of those dtypes as their bits (`bits`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Tuple

# numpy's typestr (kind + size) -> the dtype name this package uses.
_TYPESTR = {
    "f2": "float16",
    "f4": "float32",
    "f8": "float64",
    "i1": "int8",
    "i2": "int16",
    "i4": "int32",
    "i8": "int64",
    "u1": "uint8",
    "u2": "uint16",
    "u4": "uint32",
    "u8": "uint64",
}
_ITEMSIZE = {
    "float16": 2,
    "bfloat16": 2,
    "float32": 4,
    "float64": 8,
    "int8": 1,
    "int16": 2,
    "int32": 4,
    "int64": 8,
    "uint8": 1,
    "uint16": 2,
    "uint32": 4,
    "uint64": 8,
    "float8_e4m3fn": 1,
    "float8_e5m2": 1,
}


@dataclass(frozen=True)
class Array:
    """A tensor argument: `address` (bytes), `shape`, `strides` (bytes, one per dimension), `dtype` (e.g.
    `float16`), `device` (`cuda` or `cpu`), and the object itself (kept alive for the launch)."""

    address: int
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]
    dtype: str
    device: str
    obj: Any

    @property
    def itemsize(self) -> int:
        return _ITEMSIZE[self.dtype]

    def is_row_major(self) -> bool:
        """Whether the elements are densely packed, last dimension fastest (a C-contiguous tensor)."""
        expect = self.itemsize
        for extent, stride in zip(reversed(self.shape), reversed(self.strides)):
            if extent != 1 and stride != expect:
                return False
            expect *= extent
        return True


def _dense_strides(shape: Tuple[int, ...], itemsize: int) -> Tuple[int, ...]:
    strides = []
    step = itemsize
    for extent in reversed(shape):
        strides.append(step)
        step *= extent
    return tuple(reversed(strides))


def _from_interface(obj: Any, face: dict, device: str) -> Optional[Array]:
    typestr = str(face.get("typestr", ""))
    dtype = _TYPESTR.get(typestr[1:])
    if dtype is None:
        return None
    shape = tuple(int(d) for d in face["shape"])
    strides = face.get("strides")
    strides = _dense_strides(shape, _ITEMSIZE[dtype]) if strides is None else tuple(int(s) for s in strides)
    return Array(int(face["data"][0]), shape, strides, dtype, device, obj)


def _torch_dtype(obj: Any) -> Optional[str]:
    name = str(getattr(obj, "dtype", "")).replace("torch.", "")
    return name if name in _ITEMSIZE else None


@dataclass(frozen=True)
class Bits:
    """A host array whose elements are the bits of another dtype of the same size (`axe.bits`): numpy has neither
    bfloat16 nor the FP8 types, so the simulator takes them as `uint16` and `uint8` arrays named this way."""

    array: Any
    dtype: str


def bits(array: Any, dtype: str) -> Bits:
    """`array` (a numpy array of unsigned integers) read as elements of `dtype` (`bfloat16`, `float8_e4m3fn`,
    `float8_e5m2`, or any dtype of this package of the same size): pass the result where the kernel takes such a
    tensor; results are written into `array`."""
    described = describe(array)
    if described is None or not described.dtype.startswith("uint"):
        raise TypeError(f"axe.bits takes a numpy array of unsigned integers, got {type(array).__name__}")
    if dtype not in _ITEMSIZE:
        raise TypeError(f"axe.bits: unknown dtype {dtype!r} (one of {', '.join(sorted(_ITEMSIZE))})")
    if _ITEMSIZE[dtype] != described.itemsize:
        raise TypeError(
            f"axe.bits: {dtype} elements are {_ITEMSIZE[dtype]} bytes, the array's {described.dtype} "
            f"{described.itemsize}"
        )
    return Bits(array, dtype)


def describe(obj: Any) -> Optional[Array]:
    """The [`Array`] of `obj`, or None when it is not a tensor this package can pass (a Python scalar, a list,
    an unsupported dtype)."""
    if isinstance(obj, Bits):
        inner = describe(obj.array)
        if inner is None:
            return None
        return Array(inner.address, inner.shape, inner.strides, obj.dtype, inner.device, inner.obj)
    if type(obj).__module__.startswith("torch") and hasattr(obj, "data_ptr"):
        dtype = _torch_dtype(obj)
        if dtype is None:
            return None
        size = _ITEMSIZE[dtype]
        device = "cuda" if getattr(obj, "is_cuda", False) else "cpu"
        return Array(
            int(obj.data_ptr()),
            tuple(int(d) for d in obj.shape),
            tuple(int(s) * size for s in obj.stride()),
            dtype,
            device,
            obj,
        )
    face = getattr(obj, "__cuda_array_interface__", None)
    if isinstance(face, dict):
        return _from_interface(obj, face, "cuda")
    face = getattr(obj, "__array_interface__", None)
    if isinstance(face, dict):
        return _from_interface(obj, face, "cpu")
    return None
