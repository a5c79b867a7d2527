"""Launching on an NVIDIA GPU through the CUDA driver API, loaded at run time (`libcuda.so.1` via ctypes: no
build step, no CUDA toolkit, and the same code on every driver since CUDA 12.0).

Per kernel and CUDA context: the module is loaded once, from the cubin when it was assembled for this device's
architecture, else from the PTX (the driver compiles it); the dynamic shared memory limit is raised to what the
record asks. Per launch: every tensor map is encoded with `cuTensorMapEncodeTiled` from the checked fields
(`bind.MapFields`) and stored in device memory (the kernel's tensor-map parameter is the map's address); the
launch is `cuLaunchKernelEx` with the record's grid, block, cluster and dynamic shared memory, on the caller's
stream (cooperative for a kernel that calls NVSHMEM, after `nvshmem.check`; `nvshmem.py`). Encoded maps are
kept by content and never rewritten in place: a launch still in flight keeps reading
the map it was given (the TMA unit caches descriptors; rewriting one under it would need a
`fence.proxy.tensormap`).
"""

from __future__ import annotations

import ctypes
import sys
import threading
from typing import Any, Dict, Optional, Tuple

from .bind import Bound

_lock = threading.Lock()
_driver: Optional["Driver"] = None

CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 16
CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2
CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9
CU_MEMORYTYPE_HOST = 1
CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97
CU_LAUNCH_ATTRIBUTE_COOPERATIVE = 2
CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4
CU_JIT_INFO_LOG_BUFFER = 3
CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4
CU_JIT_ERROR_LOG_BUFFER = 5
CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6

_CTYPE = {
    "u8": ctypes.c_uint8,
    "u16": ctypes.c_uint16,
    "u32": ctypes.c_uint32,
    "u64": ctypes.c_uint64,
    "s8": ctypes.c_int8,
    "s16": ctypes.c_int16,
    "s32": ctypes.c_int32,
    "s64": ctypes.c_int64,
    "b32": ctypes.c_uint32,
    "b64": ctypes.c_uint64,
    "f32": ctypes.c_float,
    "f64": ctypes.c_double,
}


class CudaError(RuntimeError):
    """A CUDA driver call failed: `.call` (the function), `.code` and `.name` (CUresult)."""

    def __init__(self, call: str, code: int, name: str, detail: str = ""):
        super().__init__(f"{call} failed: {name} ({code})" + (f": {detail}" if detail else ""))
        self.call, self.code, self.name = call, code, name


class _LaunchAttribute(ctypes.Structure):
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", ctypes.c_uint32 * 16)]


class _LaunchConfig(ctypes.Structure):
    _fields_ = [
        ("gridDimX", ctypes.c_uint),
        ("gridDimY", ctypes.c_uint),
        ("gridDimZ", ctypes.c_uint),
        ("blockDimX", ctypes.c_uint),
        ("blockDimY", ctypes.c_uint),
        ("blockDimZ", ctypes.c_uint),
        ("sharedMemBytes", ctypes.c_uint),
        ("hStream", ctypes.c_void_p),
        ("attrs", ctypes.POINTER(_LaunchAttribute)),
        ("numAttrs", ctypes.c_uint),
    ]


class Driver:
    """The CUDA driver library, initialised once per process."""

    def __init__(self):
        try:
            self.lib = ctypes.CDLL("libcuda.so.1")
        except OSError as e:
            raise RuntimeError(f"no CUDA driver (libcuda.so.1): {e}") from None
        self.call("cuInit", 0)

    def call(self, name: str, *args) -> None:
        result = getattr(self.lib, name)(*args)
        if result != 0:
            text = ctypes.c_char_p()
            self.lib.cuGetErrorName(result, ctypes.byref(text))
            raise CudaError(name, result, (text.value or b"?").decode())

    def context(self, device_hint: int = 0) -> int:
        """The calling thread's current context; the device's primary context (made current) when there is none,
        as the runtime API (PyTorch, CuPy) does."""
        ctx = ctypes.c_void_p()
        self.call("cuCtxGetCurrent", ctypes.byref(ctx))
        if not ctx.value:
            self.call("cuDevicePrimaryCtxRetain", ctypes.byref(ctx), ctypes.c_int(device_hint))
            self.call("cuCtxSetCurrent", ctx)
        return int(ctx.value)  # type: ignore[arg-type]

    def device(self) -> int:
        dev = ctypes.c_int()
        self.call("cuCtxGetDevice", ctypes.byref(dev))
        return dev.value

    def attribute(self, attribute: int, device: int) -> int:
        value = ctypes.c_int()
        self.call("cuDeviceGetAttribute", ctypes.byref(value), attribute, device)
        return value.value

    def sm_count(self) -> int:
        """The SMs of the current context's device (its primary context made current when there is none)."""
        self.context()
        return self.attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, self.device())

    def compute_capability(self, device: int) -> Tuple[int, int]:
        return (
            self.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
            self.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
        )

    def pointer_device(self, address: int) -> Optional[int]:
        """The ordinal of the device whose memory `address` is, or None when it is host memory or unknown to CUDA."""
        kind = ctypes.c_uint()
        result = self.lib.cuPointerGetAttribute(
            ctypes.byref(kind), CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ctypes.c_uint64(address)
        )
        if result != 0 or kind.value == CU_MEMORYTYPE_HOST:
            return None
        ordinal = ctypes.c_int()
        if self.lib.cuPointerGetAttribute(
            ctypes.byref(ordinal), CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, ctypes.c_uint64(address)
        ):
            return None
        return ordinal.value

    def load(self, image: bytes, is_ptx: bool) -> int:
        module = ctypes.c_void_p()
        if not is_ptx:
            self.call("cuModuleLoadData", ctypes.byref(module), ctypes.c_char_p(image))
            return int(module.value)  # type: ignore[arg-type]
        log = ctypes.create_string_buffer(1 << 14)
        options = (ctypes.c_int * 2)(CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
        values = (ctypes.c_void_p * 2)(ctypes.cast(log, ctypes.c_void_p), ctypes.c_void_p(len(log)))
        text = image if image.endswith(b"\0") else image + b"\0"
        result = self.lib.cuModuleLoadDataEx(ctypes.byref(module), ctypes.c_char_p(text), 2, options, values)
        if result != 0:
            name = ctypes.c_char_p()
            self.lib.cuGetErrorName(result, ctypes.byref(name))
            raise CudaError("cuModuleLoadDataEx", result, (name.value or b"?").decode(), log.value.decode(errors="replace"))
        return int(module.value)  # type: ignore[arg-type]

    def function(self, module: int, name: str) -> int:
        fn = ctypes.c_void_p()
        self.call("cuModuleGetFunction", ctypes.byref(fn), ctypes.c_void_p(module), name.encode())
        return int(fn.value)  # type: ignore[arg-type]

    def alloc(self, size: int) -> int:
        ptr = ctypes.c_uint64()
        self.call("cuMemAlloc_v2", ctypes.byref(ptr), ctypes.c_size_t(size))
        return ptr.value

    def copy_to_device(self, dst: int, data: bytes) -> None:
        self.call("cuMemcpyHtoD_v2", ctypes.c_uint64(dst), ctypes.c_char_p(data), ctypes.c_size_t(len(data)))

    def encode_tensor_map(self, fields) -> bytes:
        """`cuTensorMapEncodeTiled` on the checked fields; the 128-byte CUtensorMap."""
        rank = fields.rank
        buf = ctypes.create_string_buffer(128 + 64)
        at = (ctypes.addressof(buf) + 63) & ~63
        self.call(
            "cuTensorMapEncodeTiled",
            ctypes.c_void_p(at),
            ctypes.c_int(fields.data_type),
            ctypes.c_uint32(rank),
            ctypes.c_void_p(fields.global_address),
            (ctypes.c_uint64 * rank)(*fields.global_dims),
            (ctypes.c_uint64 * max(rank - 1, 1))(*fields.global_strides),
            (ctypes.c_uint32 * rank)(*fields.box_dims),
            (ctypes.c_uint32 * rank)(*fields.element_strides),
            ctypes.c_int(fields.interleave),
            ctypes.c_int(fields.swizzle),
            ctypes.c_int(fields.l2_promotion),
            ctypes.c_int(fields.oob_fill),
        )
        return ctypes.string_at(at, 128)


def driver() -> Driver:
    """The process's driver (created on first use; raises RuntimeError where there is no CUDA driver)."""
    global _driver
    with _lock:
        if _driver is None:
            _driver = Driver()
        return _driver


def available() -> bool:
    """Whether a CUDA driver and at least one GPU are present."""
    try:
        d = driver()
        count = ctypes.c_int()
        d.call("cuDeviceGetCount", ctypes.byref(count))
        return count.value > 0
    except (RuntimeError, OSError):
        return False


class _MapStore:
    """Device memory for encoded tensor maps, by content: 128-byte slots in 64 KiB chunks, never freed or
    rewritten while the process lives (a launch in flight may still read any of them)."""

    CHUNK = 1 << 16

    def __init__(self, drv: Driver):
        self.drv = drv
        self.slots: Dict[bytes, int] = {}
        self.base = 0
        self.used = self.CHUNK

    def address(self, encoded: bytes) -> int:
        found = self.slots.get(encoded)
        if found is not None:
            return found
        if self.used + 128 > self.CHUNK:
            self.base = self.drv.alloc(self.CHUNK)  # cuMemAlloc is at least 256-byte aligned
            self.used = 0
        at = self.base + self.used
        self.used += 128
        self.drv.copy_to_device(at, encoded)
        self.slots[encoded] = at
        return at


_stores: Dict[int, _MapStore] = {}


def _map_store(drv: Driver, ctx: int) -> _MapStore:
    with _lock:
        store = _stores.get(ctx)
        if store is None:
            store = _stores[ctx] = _MapStore(drv)
        return store


def default_stream(bound: Bound) -> int:
    """The caller's current stream: PyTorch's when the tensors are torch tensors, CuPy's for CuPy arrays, else
    the legacy default stream (0)."""
    kinds = {type(a.obj).__module__.split(".")[0] for a in bound.arrays.values()}
    if "torch" in kinds and "torch" in sys.modules:
        return int(sys.modules["torch"].cuda.current_stream().cuda_stream)
    if "cupy" in kinds and "cupy" in sys.modules:
        return int(sys.modules["cupy"].cuda.get_current_stream().ptr)
    return 0


def stream_handle(stream: Any) -> int:
    """A CUstream from an int, a torch.cuda.Stream (`.cuda_stream`) or a cupy Stream (`.ptr`)."""
    if stream is None:
        return 0
    for attr in ("cuda_stream", "ptr", "handle"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    return int(stream)


class CudaKernel:
    """One kernel loaded into the current CUDA context (per context, on first launch)."""

    def __init__(self, name: str, chip: str, ptx: Optional[bytes], cubin: Optional[bytes], symmetric: bool = False):
        self.name, self.chip, self.ptx, self.cubin = name, chip, ptx, cubin
        self.symmetric = symmetric  # calls NVSHMEM: nvshmemx_cumodule_init after loading
        self._loaded: Dict[int, Tuple[int, str]] = {}
        self.loaded_from: Optional[str] = None

    def _function(self, drv: Driver, ctx: int, dynamic_shared: int, cluster) -> int:
        found = self._loaded.get(ctx)
        if found is not None:
            return found[0]
        dev = drv.device()
        major, minor = drv.compute_capability(dev)
        want = self.chip.removeprefix("sm_")
        arch_specific = want.endswith("a")
        digits = want.rstrip("a")
        need = (int(digits[:-1]), int(digits[-1]))
        if arch_specific and (major, minor) != need or not arch_specific and (major, minor) < need:
            raise RuntimeError(
                f"{self.name} is compiled for {self.chip}; this GPU is sm_{major}{minor}"
                + (" (an sm_XXa kernel runs only on that exact architecture)" if arch_specific else "")
            )
        module, source, errors = None, None, []
        if self.cubin is not None:  # the driver refuses a cubin for another architecture: then the PTX
            try:
                module, source = drv.load(self.cubin, is_ptx=False), "cubin"
            except CudaError as e:
                errors.append(str(e))
        if module is None and self.ptx is not None:
            module, source = drv.load(self.ptx, is_ptx=True), "ptx"
        if module is None:
            raise RuntimeError(f"{self.name}: no loadable image ({'; '.join(errors) or 'neither cubin nor PTX'})")
        fn = drv.function(module, self.name)
        if self.symmetric:
            from . import nvshmem

            nvshmem.cumodule_init(module)
        if dynamic_shared > 48 * 1024:
            limit = drv.attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev)
            if dynamic_shared > limit:
                raise RuntimeError(f"{self.name} needs {dynamic_shared} bytes of shared memory; this GPU allows {limit}")
            drv.call("cuFuncSetAttribute", ctypes.c_void_p(fn), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, dynamic_shared)
        if cluster[0] * cluster[1] * cluster[2] > 8:
            drv.call("cuFuncSetAttribute", ctypes.c_void_p(fn), CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)
        self._loaded[ctx] = (fn, source)  # type: ignore[assignment]
        self.loaded_from = source
        return fn

    def prepare(self, bound: Bound) -> "CudaLaunch":
        """Loads the kernel (once per context), checks that every tensor is on this context's device, encodes the
        tensor maps and packs the parameters: what stays is one `cuLaunchKernelEx` per `launch()`."""
        drv = driver()
        first = next(iter(bound.arrays.values()), None)
        hint = drv.pointer_device(first.address) if first is not None else None
        ctx = drv.context(hint or 0)
        dev = drv.device()
        for index, array in bound.arrays.items():
            where = drv.pointer_device(array.address)
            if where != dev:
                from .record import LaunchError

                place = "host memory" if where is None else f"device {where}"
                raise LaunchError(
                    bound.record.name,
                    f"the tensor is in {place}, not on device {dev} (the current CUDA context's)",
                    param=bound.record.params[index].name,
                )
        rec = bound.record
        if rec.symmetric:
            from . import nvshmem

            nvshmem.check(bound)
        fn = self._function(drv, ctx, rec.dynamic_shared_bytes, rec.cluster)
        values = list(bound.values)
        store = _map_store(drv, ctx)
        for fields in bound.maps:
            values[fields.param_index] = store.address(drv.encode_tensor_map(fields))
        return CudaLaunch(drv, fn, bound, values)


class CudaLaunch:
    """A prepared launch: `launch(stream)` issues it again with the same arguments (what a timing loop wants)."""

    def __init__(self, drv: Driver, fn: int, bound: Bound, values):
        self.drv, self.fn, self.bound = drv, fn, bound
        rec = bound.record
        self._holders = [_CTYPE.get(p.ptx_type, ctypes.c_uint64)(v) for p, v in zip(rec.params, values)]
        self._params = (ctypes.c_void_p * max(len(self._holders), 1))(
            *[ctypes.cast(ctypes.byref(h), ctypes.c_void_p) for h in self._holders]
        )
        attrs = (_LaunchAttribute * 2)()
        n_attrs = 0
        if tuple(rec.cluster) != (1, 1, 1):
            attrs[n_attrs].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
            attrs[n_attrs].value[0], attrs[n_attrs].value[1], attrs[n_attrs].value[2] = rec.cluster
            n_attrs += 1
        if rec.symmetric:  # a collective launch: every CTA resident at once (nvshmemx_collective_launch's rule)
            attrs[n_attrs].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE
            attrs[n_attrs].value[0] = 1
            n_attrs += 1
        self._attrs = attrs
        gx, gy, gz = bound.grid
        bx, by, bz = rec.block
        self._config = _LaunchConfig(gx, gy, gz, bx, by, bz, rec.dynamic_shared_bytes, None, attrs, n_attrs)

    def launch(self, stream: Any = None) -> None:
        self._config.hStream = stream_handle(stream) if stream is not None else default_stream(self.bound)
        self.drv.call("cuLaunchKernelEx", ctypes.byref(self._config), ctypes.c_void_p(self.fn), self._params, None)
