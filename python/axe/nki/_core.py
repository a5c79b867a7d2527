"""The interpreter's machine: dtypes and their rounding, HBM/SBUF/PSUM tensors and their views, index expressions,
the rules every access obeys, and the bookkeeping of one kernel run (liveness of on-chip memory, `affine_range`
iterations, outputs).

Every rule cites the page of AWS's NKI documentation it models (Neuron SDK 2.21-2.26, "Beta 1", trn1 /
NeuronCore-v2); `RULES` maps each rule's id (`NkiError.rule`) to that page.
"""

from __future__ import annotations

import heapq
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

_DOCS = "https://awsdocs-neuron.readthedocs-hosted.com/en/v2.26.0/general/nki/"
DOC_PM = _DOCS + "programming_model.html"
DOC_ARCH = _DOCS + "arch/trainium_inferentia2_arch.html"
DOC_ERRORS = _DOCS + "api/nki.errors.html"
DOC_SHARED = _DOCS + "api/nki.api.shared.html"
DOC_KNOWN = _DOCS + "nki_known_issues.html"
DOC_BLOCK = _DOCS + "nki_block_dimension_migration_guide.html"
DOC_MATMUL_LATEST = "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/api/generated/nki.isa.nc_matmul.html"


def api_doc(name: str) -> str:
    """The API reference page of `name` (e.g. `nki.isa.nc_matmul`)."""
    return _DOCS + f"api/generated/{name}.html"


# trn1 (NeuronCore-v2) numbers. nl.tile_size and the tile-size constraints TC#1-3: programming model page;
# SBUF 24 MiB and PSUM 2 MiB over 128 partitions, 8 PSUM banks of 512 fp32 per partition: architecture guide.
PMAX = 128
PSUM_FMAX = 512
GEMM_STATIONARY_FMAX = 128
GEMM_MOVING_FMAX = 512
SBUF_PARTITION_BYTES = 192 * 1024
PSUM_PARTITION_BYTES = 16 * 1024
PSUM_BANKS = 8
PSUM_BANK_BYTES = PSUM_PARTITION_BYTES // PSUM_BANKS


def _err(code: str) -> str:
    return f"{DOC_ERRORS} ({code})"


# rule id -> the page it comes from (NkiError.rule is one of these keys).
RULES: Dict[str, str] = {
    "partition-limit": DOC_PM + " (TC#1); " + _err("err_num_partition_exceed_arch_limit"),
    "partition-stride": DOC_ARCH + " (Accessing SBUF/PSUM tensors: no P dimension striding)",
    "not-a-tile": _err("err_failed_to_infer_tile_from_local_tensor"),
    "tensor-rank": DOC_PM + " (on-chip tensors: a partition dim, then free dims)",
    "psum-bank": DOC_PM + " (TC#2, psum_fmax); " + DOC_ARCH + " (a PSUM bank holds 512 fp32 per partition)",
    "psum-capacity": DOC_ARCH + " (PSUM 16KiB per partition in 8 banks); " + DOC_BLOCK + " (liveness of tiles)",
    "sbuf-capacity": DOC_ARCH + " (SBUF 192KiB per partition); " + DOC_BLOCK + " (liveness of tiles)",
    "out-of-bounds": _err("err_tensor_access_out_of_bound"),
    "index": DOC_PM + " (Tensor Indexing)",
    "index-1d-arange": _err("err_1d_arange_not_supported"),
    "index-mixing": _err("err_unsupported_mixing_basic_advanced_tensor_indexing"),
    "memory": _err("err_unsupported_memory"),
    "shape": _err("err_store_dst_shape_smaller_than_other_shape"),
    "dtype": DOC_SHARED + " (Supported Data Types)",
    "store-psum": api_doc("nki.language.store") + " (the value is an SBUF tile)",
    "store-dtype": api_doc("nki.language.store") + " (no dtype conversion documented)",
    "immutable-input": _err("err_cannot_update_immutable_parameter"),
    "matmul-contraction": api_doc("nki.isa.nc_matmul") + " (partition sizes identical and <= 128)",
    "matmul-stationary-fmax": api_doc("nki.isa.nc_matmul") + "; " + DOC_PM + " (TC#3)",
    "matmul-moving-fmax": api_doc("nki.isa.nc_matmul") + "; " + DOC_PM + " (TC#3)",
    "matmul-dtype": api_doc("nki.isa.nc_matmul") + "; " + DOC_MATMUL_LATEST + " (Data types)",
    "matmul-tiling": api_doc("nki.isa.nc_matmul") + " (tile_position, tile_size)",
    "transpose-size": api_doc("nki.isa.nc_transpose") + "; " + _err("err_size_of_dimension_exceed_arch_limit"),
    "reduce-axis": api_doc("nki.language.sum") + " (axis: free dims, the last contiguous ones)",
    "partition-mismatch": _err("err_num_partition_mismatch"),
    "affine-dependency": api_doc("nki.language.affine_range") + "; " + _err("err_unexpected_output_dependencies"),
    "output": DOC_KNOWN + " (shared_hbm tensors are returned); " + _err("err_tensor_output_not_written_to"),
    "shared-hbm-scope": _err("err_shared_hbm_must_in_kernel_level"),
    "hbm-init": _err("err_hbm_tensor_with_init_value_not_supported"),
    "activation": api_doc("nki.isa.activation") + "; " + _err("err_activation_bias_invalid_type"),
    "unsupported": "not in this interpreter's subset (the docstring of python/axe/nki/__init__.py lists it)",
    "outside-kernel": _err("err_nki_api_outside_of_nki_kernel"),
    "truth-value": _err("err_dynamic_control_flow_not_supported"),
}


class NkiError(Exception):
    """A kernel broke a rule of NKI or of the hardware. `rule` is the rule's id (a key of `RULES`, which names the
    documentation page); the message names the API, the numbers, and the kernel's source line."""

    def __init__(self, rule: str, message: str):
        super().__init__(message)
        self.rule = rule
        self.message = message


class Unsupported(NkiError, AttributeError):
    """An API this interpreter does not model (also an AttributeError, so `hasattr(nl, name)` is False)."""


def fail(rule: str, message: str) -> None:
    """Raise NkiError(rule, message + where in the kernel it happened)."""
    raise NkiError(rule, message + _where())


def _where() -> str:
    run = Run.current
    if run is None:
        return ""
    frame: Any = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename == run.filename:
            return f" (kernel line {frame.f_lineno})"
        frame = frame.f_back
    return ""


# ---------------------------------------------------------------------------------------------------- dtypes


class DType:
    """An NKI dtype numpy lacks (bfloat16, tfloat32, the fp8 formats): values are kept in float32, rounded."""

    def __init__(self, name: str, itemsize: int):
        self.name = name
        self.itemsize = itemsize

    def __repr__(self) -> str:
        return f"nl.{self.name}"

    def __str__(self) -> str:
        return self.name

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, str) and other == self.name)

    def __hash__(self) -> int:
        return hash(self.name)


bfloat16 = DType("bfloat16", 2)
tfloat32 = DType("tfloat32", 4)
float8_e4m3 = DType("float8_e4m3", 1)
float8_e5m2 = DType("float8_e5m2", 1)

# canonical dtype -> (name, bytes, storage dtype, kind). nki.language's float32/float16/int32 are numpy's types
# (the docs define them so); the rest are DType objects.
_INFO: Dict[Any, Tuple[str, int, Any, str]] = {
    np.float32: ("float32", 4, np.float32, "float"),
    np.float16: ("float16", 2, np.float16, "float"),
    np.int32: ("int32", 4, np.int32, "int"),
    bfloat16: ("bfloat16", 2, np.float32, "float"),
    tfloat32: ("tfloat32", 4, np.float32, "float"),
    float8_e4m3: ("float8_e4m3", 1, np.float32, "float"),
    float8_e5m2: ("float8_e5m2", 1, np.float32, "float"),
}
_BY_NAME = {info[0]: dt for dt, info in _INFO.items()}


def dtype_of(x: Any, api: str = "dtype") -> Any:
    """The canonical NKI dtype for `x` (an nl dtype, a numpy type or dtype, or a name), or NkiError."""
    if isinstance(x, DType):
        return x
    if isinstance(x, str) and x in _BY_NAME:
        return _BY_NAME[x]
    try:
        name = np.dtype(x).name
    except TypeError:
        name = None
    if name in _BY_NAME:
        return _BY_NAME[name]
    fail("dtype", f"{api}: dtype {x!r} is not supported (float32, float16, bfloat16, tfloat32, float8_e4m3, "
         f"float8_e5m2, int32)")


def dtype_name(dt: Any) -> str:
    return _INFO[dt][0]


def itemsize(dt: Any) -> int:
    return _INFO[dt][1]


def is_float(dt: Any) -> bool:
    return _INFO[dt][3] == "float"


def _round_bits(x: np.ndarray, drop: int) -> np.ndarray:
    """float32 -> float32 keeping 23-drop mantissa bits, round to nearest even (bfloat16: drop 16, tf32: 13)."""
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    half = (1 << (drop - 1)) - 1
    bits = (bits + half + ((bits >> drop) & 1)) & ~np.uint64((1 << drop) - 1)
    out = (bits & 0xFFFFFFFF).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), np.float32(np.nan), out)


def _round_minifloat(x: np.ndarray, mantissa: int, bias: int, max_finite: float) -> np.ndarray:
    """float32 -> float32 holding the nearest value (ties to even) of an IEEE-style binary format with `mantissa`
    bits, exponent bias `bias`, subnormals, and infinities beyond `max_finite`."""
    x64 = np.asarray(x, dtype=np.float64)
    _, e = np.frexp(np.abs(x64))
    quantum = np.ldexp(1.0, np.maximum(e - 1, 1 - bias) - mantissa)
    with np.errstate(invalid="ignore"):
        r = np.round(x64 / quantum) * quantum
        r = np.where(np.abs(r) > max_finite, np.copysign(np.inf, x64), r)
    return np.where(np.isnan(x64), np.nan, r).astype(np.float32)


def to_storage(values: Any, dt: Any) -> np.ndarray:
    """`values` rounded to dtype `dt`, in its storage type (float32 for the dtypes numpy lacks).

    float16 and bfloat16 round to nearest even (numpy's cast; the bit trick). float8_e4m3 is the legacy IEEE-style
    format (bias 7, max 240, with infinities), float8_e5m2 max 57344. int32: round half to even, saturating, NaN
    -> 0 (the docs do not say how hardware converts)."""
    v = np.asarray(values)
    if dt is np.int32:
        if v.dtype.kind in "iub":
            return v.astype(np.int32)
        f = np.nan_to_num(v.astype(np.float64), nan=0.0)
        return np.clip(np.rint(f), -(2.0**31), 2.0**31 - 1).astype(np.int32)
    f32 = v.astype(np.float32)
    if dt is np.float32:
        return f32
    if dt is np.float16:
        with np.errstate(over="ignore"):
            return f32.astype(np.float16)
    if dt is bfloat16:
        return _round_bits(f32, 16)
    if dt is tfloat32:
        return _round_bits(f32, 13)
    if dt is float8_e4m3:
        return _round_minifloat(f32, 3, 7, 240.0)
    if dt is float8_e5m2:
        return _round_minifloat(f32, 2, 15, 57344.0)
    raise AssertionError(dt)


def as_f32(values: np.ndarray) -> np.ndarray:
    return np.asarray(values).astype(np.float32)


def promote(a: Any, b: Any) -> Any:
    """NKI type promotion of two dtypes (nki.api.shared "NKI Type Promotion"): float beats int; of two floats the
    wider, with (float16, bfloat16) -> float32 and (float8_e4m3, float8_e5m2) -> bfloat16."""
    if a is b:
        return a
    if not is_float(a):
        return b if is_float(b) else np.int32
    if not is_float(b):
        return a
    pair = {a, b}
    if pair == {np.float16, bfloat16}:
        return np.float32
    if pair == {float8_e4m3, float8_e5m2}:
        return bfloat16
    rank = {float8_e4m3: 0, float8_e5m2: 0, bfloat16: 1, np.float16: 1, tfloat32: 2, np.float32: 3}
    return a if rank[a] >= rank[b] else b


# ---------------------------------------------------------------------------------------------------- buffers


class Buffer:
    """A memory: `nl.sbuf`, `nl.psum`, `nl.hbm` (= `nl.private_hbm`), `nl.shared_hbm`."""

    def __init__(self, name: str, on_chip: bool):
        self.name = name
        self.on_chip = on_chip

    def __repr__(self) -> str:
        return f"nl.{self.name}"


SBUF = Buffer("sbuf", True)
PSUM = Buffer("psum", True)
PRIVATE_HBM = Buffer("private_hbm", False)
SHARED_HBM = Buffer("shared_hbm", False)


def memory_name(buf: Buffer) -> str:
    return buf.name if buf.on_chip else "hbm"


class ParDim(int):
    """`nl.par_dim(n)`: marks the partition dimension of an on-chip tensor's shape; dims before it are blocks."""

    def __repr__(self) -> str:
        return f"par_dim({int(self)})"


class Shape(tuple):
    """A tensor's shape: a tuple of ints that also compares equal to a list (the docs write `x.shape == [2, 2]`)."""

    def __eq__(self, other: object) -> bool:
        if isinstance(other, list):
            other = tuple(other)
        return tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = tuple.__hash__


# ---------------------------------------------------------------------------------------------------- one run


class Run:
    """The state of one kernel execution: a clock (one tick per instruction), every allocation, the stack of open
    `nl` loops, and what the kernel may write. `Run.current` is the run in progress (None outside a kernel)."""

    current: Optional["Run"] = None

    def __init__(self, filename: str, allow_psum_store: bool = False):
        self.filename = filename
        self.kernel_code: Any = None
        self.allow_psum_store = allow_psum_store
        self.time = 0
        self.allocs: List[Alloc] = []
        self.loops: List[Loop] = []
        self.shared: List[Alloc] = []

    def tick(self) -> int:
        self.time += 1
        return self.time


def current_run(api: str) -> Run:
    run = Run.current
    if run is None:
        raise NkiError("outside-kernel", f"{api}: called outside an NKI kernel (decorate it with @nki.jit and call it)")
    return run


class Loop:
    """An open `nl.affine_range` / `sequential_range` / `static_range` loop. An affine loop remembers, per tensor
    allocated before it, which iteration last wrote each element, to find writes or reads that cross iterations."""

    def __init__(self, kind: str, started: int, trips: int):
        self.kind = kind
        self.started = started
        self.iteration = 0
        self.writers: Dict[int, np.ndarray] = {}
        self.index_dtype = np.int16 if trips < 2**15 else np.int32


class Alloc:
    """One tensor's memory: its buffer, dtype, full shape, partition axis (`pdim`, None in HBM), the values, and
    the access record: per block (the dims before the partition dim) the first and last instruction that touched
    it, from which the end of the run computes the live on-chip bytes at every moment."""

    def __init__(self, run: Run, buffer: Buffer, dt: Any, shape: Tuple[int, ...], pdim: Optional[int], data, where):
        self.id = len(run.allocs)
        self.buffer = buffer
        self.dtype = dt
        self.shape = shape
        self.pdim = pdim
        self.data = data
        self.where = where
        self.created = run.time
        self.temp = False  # the result of an instruction, not a declared tensor
        self.escaped = False  # a temp used other than as the value of an assignment
        self.writable = True
        self.written = False
        blocks = shape[:pdim] if pdim is not None else ()
        self.block_ids = np.arange(int(np.prod(blocks, dtype=np.int64))).reshape(blocks)
        self.first = np.full(self.block_ids.size, -1, dtype=np.int64)
        self.last = np.full(self.block_ids.size, -1, dtype=np.int64)
        run.allocs.append(self)

    def free_bytes(self) -> int:
        """Bytes per partition of one (P, F...) tile of this tensor."""
        return itemsize(self.dtype) * int(np.prod(self.shape[self.pdim + 1 :], dtype=np.int64))

    def describe(self) -> str:
        dims = ", ".join(f"par_dim({n})" if i == self.pdim and i else str(n) for i, n in enumerate(self.shape))
        return f"{self.buffer.name} {dtype_name(self.dtype)}[{dims}]{self.where}"

    def touch(self, run: Run, key: Tuple[Any, ...]) -> None:
        if self.pdim is None or not self.buffer.on_chip:
            return
        ids = np.asarray(self.block_ids[tuple(key[: self.pdim])]).reshape(-1)
        fresh = self.first[ids] < 0
        self.first[ids[fresh]] = run.time
        self.last[ids] = run.time


def new_alloc(api: str, buffer: Buffer, dt: Any, shape: Sequence[Any], init: Optional[float] = None) -> "Tensor":
    """Allocate a tensor (uninitialized memory reads as NaN, int32 as INT32_MIN) and check the tile rules: an
    on-chip tensor has a partition dim (the first, or the one marked par_dim) of at most 128 partitions and at
    least one free dim; a PSUM tile fits one 2KiB bank (TC#2: at most psum_fmax=512 elements per partition)."""
    run = current_run(api)
    dims = []
    pdim = None
    for i, n in enumerate(shape):
        if isinstance(n, ParDim):
            if pdim is not None:
                fail("tensor-rank", f"{api}: shape {tuple(shape)} marks two partition dims")
            pdim = i
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or int(n) < 1:
            fail("tensor-rank", f"{api}: shape {tuple(shape)} must be positive ints")
        dims.append(int(n))
    shape_t = tuple(dims)
    if buffer.on_chip:
        pdim = 0 if pdim is None else pdim
        if len(shape_t) - pdim < 2:
            fail("tensor-rank", f"{api}: an {buffer.name} tensor needs a partition dim and at least one free dim, "
                 f"got shape {shape_t}")
        if shape_t[pdim] > PMAX:
            fail("partition-limit", f"{api}: number of partitions {shape_t[pdim]} exceeds the architecture limit "
                 f"pmax={PMAX}")
    else:
        if pdim is not None:
            fail("tensor-rank", f"{api}: par_dim marks an on-chip partition dim; {buffer.name} has none")
        if init is not None:
            fail("hbm-init", f"{api}: creating an HBM tensor with an init value is not supported")
    dt = dtype_of(dt, api)
    garbage = np.nan if is_float(dt) else np.iinfo(np.int32).min
    data = np.full(shape_t, garbage if init is None else init, dtype=_INFO[dt][2])
    alloc = Alloc(run, buffer, dt, shape_t, pdim, to_storage(data, dt), _where())
    if buffer is PSUM:
        check_psum_tile(api, alloc)
    elif buffer is SBUF and alloc.free_bytes() > SBUF_PARTITION_BYTES:
        fail("sbuf-capacity", f"{api}: a tile of {alloc.free_bytes()} bytes per partition exceeds the SBUF "
             f"partition size {SBUF_PARTITION_BYTES} (192KiB)")
    if init is not None:  # nl.zeros / nl.full: a memset instruction writes it now
        run.tick()
        alloc.touch(run, tuple(slice(0, n, 1) for n in shape_t))
        alloc.written = True
    return Tensor(alloc)


def check_psum_tile(api: str, alloc: Alloc) -> None:
    free = int(np.prod(alloc.shape[alloc.pdim + 1 :], dtype=np.int64))
    if free > PSUM_FMAX or alloc.free_bytes() > PSUM_BANK_BYTES:
        fail("psum-bank", f"{api}: a PSUM tile of {free} {dtype_name(alloc.dtype)} elements ({alloc.free_bytes()} "
             f"bytes) per partition does not fit one PSUM bank (psum_fmax={PSUM_FMAX} elements, "
             f"{PSUM_BANK_BYTES} bytes)")


def temp(api: str, buffer: Buffer, dt: Any, values: np.ndarray) -> "Tensor":
    """A new tile holding an instruction's result (rounded to `dt`). Its partition dim is the first. A temp that
    is only ever the value of an assignment (`t[...] = nl.exp(x)`, `acc += nc_matmul(a, b)`) models an
    instruction writing straight into `t`, and takes no memory of its own."""
    run = current_run(api)
    shape = tuple(int(n) for n in np.shape(values))
    if not shape:
        fail("tensor-rank", f"{api}: the result has no partition dim; index with slices (t[0:1, 0:1]) to keep dims")
    if shape[0] > PMAX:
        fail("partition-limit", f"{api}: the result's partition dim {shape[0]} exceeds pmax={PMAX}")
    alloc = Alloc(run, buffer, dt, shape, 0, to_storage(values, dt), _where())
    alloc.temp = True
    if buffer is PSUM and len(shape) > 1:
        check_psum_tile(api, alloc)
    alloc.touch(run, (0,))
    return Tensor(alloc)


# ---------------------------------------------------------------------------------------------------- indexing


class Index:
    """An affine index expression over `nl.arange` / `nl.mgrid` (an int array); `+ - *` with ints keep it affine."""

    def __init__(self, values: np.ndarray):
        self.values = np.asarray(values, dtype=np.int64)

    @property
    def shape(self) -> Tuple[int, ...]:
        return self.values.shape

    def __getitem__(self, key: Any) -> "Index":
        return Index(self.values[key])

    def _other(self, other: Any) -> Any:
        if isinstance(other, Index):
            return other.values
        if isinstance(other, (int, np.integer)) and not isinstance(other, bool):
            return int(other)
        return NotImplemented

    def __add__(self, other: Any) -> "Index":
        o = self._other(other)
        return NotImplemented if o is NotImplemented else Index(self.values + o)

    __radd__ = __add__

    def __sub__(self, other: Any) -> "Index":
        o = self._other(other)
        return NotImplemented if o is NotImplemented else Index(self.values - o)

    def __rsub__(self, other: Any) -> "Index":
        o = self._other(other)
        return NotImplemented if o is NotImplemented else Index(o - self.values)

    def __mul__(self, other: Any) -> "Index":
        if isinstance(other, Index):
            fail("index", "index expressions must be affine: Index * Index is not")
        o = self._other(other)
        return NotImplemented if o is NotImplemented else Index(self.values * o)

    __rmul__ = __mul__

    def __neg__(self) -> "Index":
        return Index(-self.values)

    def __repr__(self) -> str:
        return f"Index(shape={self.values.shape})"


def _is_int(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def _oob(api: str, alloc: Alloc, dim: int, lo: int, hi: int, size: int) -> None:
    fail("out-of-bounds", f"{api}: out-of-bound access for tensor {alloc.describe()} on dimension {dim}: index "
         f"range [{lo}, {hi}] exceeds dimension size of {size}")


# ---------------------------------------------------------------------------------------------------- tensors


class Tensor:
    """A tensor in HBM, SBUF or PSUM, or a view of one (basic slicing `t[a:b, i]` or an `nl.arange`/`nl.mgrid`
    index). Indexing checks bounds; `view[...] = tile` copies (the value may broadcast to the destination);
    `view += tile` accumulates; `+ - * /` are `nl.add` etc."""

    def __init__(self, alloc: Alloc, key: Optional[Tuple[Any, ...]] = None, fancy: bool = False):
        self._alloc = alloc
        self._key = key if key is not None else tuple(slice(0, n, 1) for n in alloc.shape)
        self._fancy = fancy
        if fancy:
            arrays = [np.asarray(k) for k in self._key]
            self._shape = tuple(np.broadcast_shapes(*[a.shape for a in arrays]))
        else:
            self._shape = tuple(_slice_len(k) for k in self._key if isinstance(k, slice))
        self._pdim = self._partition_axis()

    # --- what kernels read
    @property
    def shape(self) -> Shape:
        return Shape(self._shape)

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def dtype(self) -> Any:
        return self._alloc.dtype

    @property
    def buffer(self) -> Buffer:
        return self._alloc.buffer

    def __repr__(self) -> str:
        return f"<nki {self.buffer.name} {dtype_name(self.dtype)}{list(self._shape)}>"

    def __bool__(self) -> bool:
        fail("truth-value", "the truth value of a tensor is not known when the kernel is compiled")

    def __len__(self) -> int:
        return self._shape[0] if self._shape else 0

    def _partition_axis(self) -> Optional[int]:
        pdim = self._alloc.pdim
        if pdim is None or not self._alloc.buffer.on_chip:
            return None
        item = self._key[pdim]
        if not self._fancy:
            if not isinstance(item, slice):
                return None
            return sum(1 for k in self._key[:pdim] if isinstance(k, slice))
        arr = np.broadcast_to(np.asarray(item), self._shape)
        if arr.ndim == 0:
            return None
        rows = arr.reshape(arr.shape[0], -1)
        if not np.all(rows == rows[:, :1]):
            return None
        if rows.shape[0] > 1 and not np.all(np.diff(rows[:, 0]) == 1):
            fail("partition-stride", f"indexing {self._alloc.describe()}: the partition index must be a contiguous "
                 f"range (hardware does not stride partitions)")
        return 0

    # --- indexing
    def __getitem__(self, key: Any) -> "Tensor":
        return self._index(key, "indexing")

    def _index(self, key: Any, api: str) -> "Tensor":
        items = key if isinstance(key, tuple) else (key,)
        if self._fancy:
            if all(k is Ellipsis or (isinstance(k, slice) and k == slice(None)) for k in items):
                return self
            fail("index", f"{api}: a view indexed with nl.arange/nl.mgrid can only be indexed again with [...]")
        if any(isinstance(k, Index) for k in items):
            return self._index_fancy(items, api)
        return self._index_basic(items, api)

    def _expand(self, items: Tuple[Any, ...], api: str) -> List[Any]:
        if sum(1 for k in items if k is Ellipsis) > 1:
            fail("index", f"{api}: at most one '...' in an index")
        out: List[Any] = []
        for k in items:
            if k is Ellipsis:
                out.extend([slice(None)] * (self.ndim - (len(items) - 1)))
            else:
                out.append(k)
        if len(out) > self.ndim:
            fail("index", f"{api}: {len(out)} indices for a tensor of rank {self.ndim} {list(self._shape)}")
        return out + [slice(None)] * (self.ndim - len(out))

    def _index_basic(self, items: Tuple[Any, ...], api: str) -> "Tensor":
        view_items = self._expand(items, api)
        new_key: List[Any] = []
        it = iter(view_items)
        for base_dim, old in enumerate(self._key):
            if not isinstance(old, slice):
                new_key.append(old)
                continue
            k = next(it)
            n = _slice_len(old)
            if _is_int(k):
                k = int(k)
                if not 0 <= k < n:
                    _oob(api, self._alloc, base_dim, k, k, n)
                new_key.append(old.start + old.step * k)
            elif isinstance(k, slice):
                start, stop, step = _slice_bounds(k, n, api, self._alloc, base_dim)
                count = (stop - start + step - 1) // step
                first = old.start + old.step * start
                new_key.append(slice(first, first + old.step * step * (count - 1) + 1, old.step * step))
            else:
                fail("index", f"{api}: unsupported index {k!r} (ints, slices, '...', nl.arange/nl.mgrid expressions)")
        view = Tensor(self._alloc, tuple(new_key))
        pdim = self._alloc.pdim
        if view._alloc.buffer.on_chip and isinstance(view._key[pdim], slice) and view._key[pdim].step != 1:
            fail("partition-stride", f"{api}: the partition dim of {self._alloc.describe()} cannot be strided")
        return view

    def _index_fancy(self, items: Tuple[Any, ...], api: str) -> "Tensor":
        if any(isinstance(k, slice) or k is Ellipsis for k in items):
            fail("index-mixing", f"{api}: mixing slices and nl.arange/nl.mgrid indices is not supported")
        if len(items) != self.ndim:
            fail("index", f"{api}: {len(items)} indices for a tensor of rank {self.ndim} {list(self._shape)}")
        if self.ndim >= 2 and any(isinstance(k, Index) and k.values.ndim < 2 for k in items):
            fail("index-1d-arange", f"{api}: indexing with a 1D nl.arange is not supported; use nl.arange(n)[:, None] "
                 f"or nl.arange(n)[None, :]")
        vals = []
        for k in items:
            if isinstance(k, Index):
                vals.append(k.values)
            elif _is_int(k):
                vals.append(np.int64(k))
            else:
                fail("index", f"{api}: unsupported index {k!r} next to nl.arange/nl.mgrid indices")
        try:
            np.broadcast_shapes(*[np.shape(v) for v in vals])
        except ValueError:
            fail("index", f"{api}: index shapes {[np.shape(v) for v in vals]} do not broadcast")
        new_key: List[Any] = []
        it = iter(vals)
        for base_dim, old in enumerate(self._key):
            if not isinstance(old, slice):
                new_key.append(old)
                continue
            v = next(it)
            n = _slice_len(old)
            lo, hi = int(np.min(v)), int(np.max(v))
            if lo < 0 or hi >= n:
                _oob(api, self._alloc, base_dim, lo, hi, n)
            new_key.append(old.start + old.step * v)
        return Tensor(self._alloc, tuple(new_key), fancy=True)

    # --- data access (every read and write of kernel data goes through these)
    def _read(self) -> np.ndarray:
        run = current_run("read")
        self._alloc.touch(run, self._key)
        _check_loops(run, self, write=False)
        return np.array(self._alloc.data[self._key])

    def _write(self, values: Any, accumulate: bool = False) -> None:
        run = current_run("write")
        alloc = self._alloc
        if not alloc.writable:
            fail("immutable-input", f"writing kernel input {alloc.describe()}: parameters are immutable unless "
                 f"annotated nt.mutable_tensor")
        if self._fancy and not _injective(self._key, self._shape, alloc.shape):
            fail("index", f"writing {alloc.describe()}: the destination index names an element twice (one API may "
                 f"not write an element twice)")
        alloc.touch(run, self._key)
        if not accumulate:
            _check_loops(run, self, write=True)
        if accumulate:
            values = as_f32(alloc.data[self._key]) + as_f32(values)
        alloc.data[self._key] = to_storage(np.broadcast_to(values, self._shape), alloc.dtype)
        alloc.written = True

    def _whole(self) -> bool:
        return not self._fancy and self._key == Tensor(self._alloc)._key

    # --- assignment
    def __setitem__(self, key: Any, value: Any) -> None:
        dest = self._index(key, "assignment")
        if isinstance(value, Tensor) and _same_region(dest, value):
            return  # `t[k] += x` ends with `t[k] = t[k]`: nothing to do
        dest._assign(value, accumulate=False, api="assignment")

    def __iadd__(self, value: Any) -> "Tensor":
        self._assign(value, accumulate=True, api="+=")
        return self

    def _assign(self, value: Any, accumulate: bool, api: str) -> None:
        current_run(api).tick()
        if not self.buffer.on_chip:
            fail("memory", f"{api}: the destination {self._alloc.describe()} is in HBM; write HBM with nl.store")
        if isinstance(value, Tensor):
            if not value.buffer.on_chip:
                fail("memory", f"{api}: the value {value._alloc.describe()} is in HBM; read HBM with nl.load")
            if value._pdim != 0:
                fail("not-a-tile", f"{api}: the value {list(value._shape)} of {value._alloc.describe()} is not a "
                     f"tile: its first dimension is not the partition dimension")
            aligned = fit(api, value._shape, self._shape)
            if not (value._alloc.temp and value._whole()):
                value._alloc.escaped = True
            values = value._read().reshape(aligned)
        elif _is_scalar(value):
            values = np.asarray(value, dtype=np.float64 if isinstance(value, float) else None)
        else:
            fail("index", f"{api}: cannot assign {type(value).__name__} to a tensor")
        self._write(values, accumulate=accumulate)

    # --- operators: the nl functions
    def __add__(self, other: Any) -> "Tensor":
        return _nl().add(self, other)

    def __radd__(self, other: Any) -> "Tensor":
        return _nl().add(other, self)

    def __sub__(self, other: Any) -> "Tensor":
        return _nl().subtract(self, other)

    def __rsub__(self, other: Any) -> "Tensor":
        return _nl().subtract(other, self)

    def __mul__(self, other: Any) -> "Tensor":
        return _nl().multiply(self, other)

    def __rmul__(self, other: Any) -> "Tensor":
        return _nl().multiply(other, self)

    def __truediv__(self, other: Any) -> "Tensor":
        return _nl().divide(self, other)

    def __rtruediv__(self, other: Any) -> "Tensor":
        return _nl().divide(other, self)

    def __neg__(self) -> "Tensor":
        return _nl().negative(self)


def _nl() -> Any:
    from . import language

    return language


def _is_scalar(x: Any) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)


def _slice_len(s: slice) -> int:
    return (s.stop - s.start + s.step - 1) // s.step


def _slice_bounds(k: slice, n: int, api: str, alloc: Alloc, dim: int) -> Tuple[int, int, int]:
    start = 0 if k.start is None else k.start
    stop = n if k.stop is None else k.stop
    step = 1 if k.step is None else k.step
    for x in (start, stop, step):
        if not _is_int(x):
            fail("index", f"{api}: slice bounds must be ints, got {k!r}")
    start, stop, step = int(start), int(stop), int(step)
    if step < 1:
        fail("index", f"{api}: slice step {step} must be positive")
    if start < 0 or start >= n or stop > n:
        _oob(api, alloc, dim, start, stop - 1, n)
    if stop <= start:
        fail("index", f"{api}: empty slice {start}:{stop} on dimension {dim} of {alloc.describe()}")
    return start, stop, step


def _injective(key: Tuple[Any, ...], shape: Tuple[int, ...], base: Tuple[int, ...]) -> bool:
    """Whether the index arrays `key` name each element once. Quick when each array varies, strictly monotonic,
    along one axis and every axis of the result is some array's (nl.arange/nl.mgrid expressions); else exact."""
    covered = set()
    for k in key:
        arr = np.asarray(k)
        axes = [i for i, n in enumerate(arr.shape) if n > 1]
        if len(axes) > 1:
            break
        if axes:
            steps = np.diff(arr.reshape(-1))
            if not (np.all(steps > 0) or np.all(steps < 0)):
                break
            covered.add(axes[0] + len(shape) - arr.ndim)
    else:
        if all(n == 1 or i in covered for i, n in enumerate(shape)):
            return True
    flat = np.ravel_multi_index(tuple(np.broadcast_to(np.asarray(k), shape) for k in key), base)
    return np.unique(flat).size == flat.size


def _same_region(a: Tensor, b: Tensor) -> bool:
    if a._alloc is not b._alloc or a._fancy != b._fancy or a._shape != b._shape:
        return False
    if not a._fancy:
        return a._key == b._key
    return all(np.array_equal(np.broadcast_to(x, a._shape), np.broadcast_to(y, a._shape))
               for x, y in zip(a._key, b._key))


def align(shape: Tuple[int, ...], ndim: int) -> Tuple[int, ...]:
    """A tile's shape for broadcasting against rank `ndim`: tiles line up from the partition dim, so a shorter tile
    gets trailing 1s (a [128] tile is one value per partition, like [128, 1]) and a longer one loses trailing 1s."""
    shape = tuple(shape)
    if 0 < len(shape) < ndim:
        return shape + (1,) * (ndim - len(shape))
    if len(shape) > ndim and all(n == 1 for n in shape[ndim:]):
        return shape[:ndim]
    return shape


def fit(api: str, src: Tuple[int, ...], dst: Tuple[int, ...]) -> Tuple[int, ...]:
    """The value's shape, aligned (`align`), that broadcasts to the destination's; the destination must not be
    smaller than the value (err_store_dst_shape_smaller_than_other_shape)."""
    aligned = align(src, len(dst))
    try:
        ok = tuple(np.broadcast_shapes(aligned, tuple(dst))) == tuple(dst)
    except ValueError:
        ok = False
    if not ok:
        fail("shape", f"{api}: shape {list(src)} does not match the destination shape {list(dst)} (the value may "
             f"only broadcast to a destination of the same or bigger shape)")
    return aligned


def _check_loops(run: Run, view: Tensor, write: bool) -> None:
    """`nl.affine_range` promises its iterations are independent: an element written in one iteration may not be
    written or read in another (accumulation with `+=` is an associative reduction and is allowed). Tensors
    allocated inside the loop are new in each iteration and need no check."""
    alloc = view._alloc
    for loop in run.loops:
        if loop.kind != "affine" or alloc.created >= loop.started:
            continue
        writers = loop.writers.get(alloc.id)
        if writers is None:
            if not write:
                continue
            writers = loop.writers[alloc.id] = np.full(alloc.shape, -1, dtype=loop.index_dtype)
        seen = np.asarray(writers[view._key])
        other = seen[(seen >= 0) & (seen != loop.iteration)]
        if other.size:
            what = "writes" if write else "reads"
            fail("affine-dependency", f"affine_range: iteration {loop.iteration} {what} elements of "
                 f"{alloc.describe()} that iteration {int(other.flat[0])} wrote; iterations of nl.affine_range must "
                 f"be independent (use nl.sequential_range, or accumulate with +=)")
        if write:
            writers[view._key] = loop.iteration


class Range:
    """The iterator of `nl.affine_range`, `nl.sequential_range`, `nl.static_range`: the ints of `range(*args)`."""

    def __init__(self, kind: str, args: Tuple[Any, ...]):
        for a in args:
            if not _is_int(a):
                fail("index", f"{kind}_range: bounds must be ints, got {a!r}")
        self.kind = kind
        self.range = range(*[int(a) for a in args])

    def __len__(self) -> int:
        return len(self.range)

    def __iter__(self):
        run = current_run(f"nl.{self.kind}_range")
        loop = Loop(self.kind, run.tick(), len(self.range))
        run.loops.append(loop)
        try:
            for i, value in enumerate(self.range):
                loop.iteration = i
                yield value
        finally:
            if loop in run.loops:
                run.loops.remove(loop)


# ---------------------------------------------------------------------------------------------------- operands


def operand(x: Any, api: str, name: str, buffers: Tuple[Buffer, ...]) -> Tensor:
    """`x` as an operand of `api`: a Tensor in one of `buffers`; on-chip operands must be tiles (partition dim
    first)."""
    current_run(api)
    if not isinstance(x, Tensor):
        fail("memory", f"{api}: operand '{name}' must be a tensor, got {type(x).__name__}")
    if x.buffer not in buffers:
        want = "|".join(sorted({memory_name(b) for b in buffers}))
        fail("memory", f"{api}: expected operand '{name}' to be in address space '{want}', but got a tile in "
             f"'{memory_name(x.buffer)}' instead")
    if x.buffer.on_chip and x._pdim != 0:
        fail("not-a-tile", f"{api}: operand '{name}' {list(x._shape)} of {x._alloc.describe()} is not a tile: its "
             f"first dimension is not the partition dimension")
    x._alloc.escaped = True
    return x


def tile(x: Any, api: str, name: str) -> Tensor:
    return operand(x, api, name, (SBUF, PSUM))


# ---------------------------------------------------------------------------------------------------- end of run


def check_memory(run: Run) -> None:
    """The on-chip memory the kernel needs at its busiest moment. A tile is live from the first to the last
    instruction that touches it (per block of a par_dim tensor; a temp consumed only by an assignment is not a
    tile of its own). Live SBUF bytes per partition <= 192KiB; live PSUM tiles, each within one 2KiB bank, must
    pack into the 8 banks of a partition (first fit, largest first)."""
    units = []
    for a in run.allocs:
        if not a.buffer.on_chip or (a.temp and not a.escaped):
            continue
        size = a.free_bytes()
        for b in np.nonzero(a.first >= 0)[0]:
            units.append((int(a.first[b]), int(a.last[b]), a.id, int(b), size))
    units.sort()
    for buf in (SBUF, PSUM):
        live: Dict[Tuple[int, int], int] = {}
        ends: List[Tuple[int, Tuple[int, int]]] = []
        total = 0
        for first, last, aid, b, size in units:
            if run.allocs[aid].buffer is not buf:
                continue
            while ends and ends[0][0] < first:
                _, k = heapq.heappop(ends)
                total -= live.pop(k)
            live[(aid, b)] = size
            heapq.heappush(ends, (last, (aid, b)))
            total += size
            if buf is SBUF and total > SBUF_PARTITION_BYTES:
                _memory_fail(run, "sbuf-capacity", f"SBUF: live tiles need {total} bytes per partition, more than "
                             f"the {SBUF_PARTITION_BYTES} (192KiB) of an SBUF partition", live)
            if buf is PSUM and len(live) > PSUM_BANKS and _banks(list(live.values())) > PSUM_BANKS:
                _memory_fail(run, "psum-capacity", f"PSUM: {len(live)} live tiles ({total} bytes per partition) "
                             f"need {_banks(list(live.values()))} banks, more than the {PSUM_BANKS} PSUM banks "
                             f"of {PSUM_BANK_BYTES} bytes (16KiB per partition)", live)


def _banks(sizes: List[int]) -> int:
    free: List[int] = []
    for s in sorted(sizes, reverse=True):
        for i, room in enumerate(free):
            if room >= s:
                free[i] -= s
                break
        else:
            free.append(PSUM_BANK_BYTES - s)
    return len(free)


def _memory_fail(run: Run, rule: str, message: str, live: Dict[Tuple[int, int], int]) -> None:
    names = []
    for aid, b in list(live)[:12]:
        a = run.allocs[aid]
        block = f" block {b}" if a.block_ids.size > 1 else ""
        names.append(f"{a.describe()}{block}: {live[(aid, b)]} B")
    more = f", and {len(live) - 12} more" if len(live) > 12 else ""
    raise NkiError(rule, message + "; live: " + "; ".join(names) + more)

