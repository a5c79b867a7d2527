"""Kernels from Python without a GPU: compile in process, run on the simulator against A @ B computed here with
numpy in float64 (never by the code under test), every argument check failing once with its own error, the
tensor-map encoding compared field by field with the record's expressions (evaluated here by hand), the driver
calls marshalled as the CUDA driver API declares them, and the compile cache."""

import ctypes
import warnings
from pathlib import Path

import numpy as np
import pytest

import axe
from axe import cuda
from axe.record import Expr

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("AXE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def compiled(name):
    return axe.compile(ROOT / "examples" / f"{name}.mlir")


def small(shape, seed):
    """Integers in -2..2: every sum below is exact in f16 and f32."""
    return np.random.default_rng(seed).integers(-2, 3, shape).astype(np.float16)


# M, N, K with partial tiles at every edge (not multiples of 128 or 64), within each kernel's preconditions.
GEMMS = [("gemm_sm80", 136, 144, 72), ("gemm_sm90a", 144, 160, 80), ("gemm_sm100a", 144, 144, 48)]


@pytest.mark.parametrize("name,m,n,k", GEMMS)
def test_each_gemm_runs_on_the_simulator_exactly(name, m, n, k):
    kernel = compiled(name)[name]
    a, b = small((m, k), 1), small((k, n), 2)
    c = np.full((m, n), -1000.0, np.float16)  # a sentinel: a tile never written shows
    kernel(a, b, c, m, n, k, device="sim")
    want = a.astype(np.float64) @ b.astype(np.float64)
    assert np.array_equal(c.astype(np.float64), want), np.argwhere(c.astype(np.float64) != want)[:5]


def test_the_persistent_gemm_walks_several_tiles_per_cta_on_the_simulator():
    # 3 x 2 tiles of 128x256 (ragged in both), one CTA per SM: the simulator stands for SIM_SM_COUNT = 4 SMs, so
    # CTAs 0 and 1 compute two tiles each, in grouped order.
    kernel = compiled("gemm_sm90a_ws").gemm_sm90a_ws
    m, n, k = 272, 272, 80
    a, b = small((m, k), 3), small((k, n), 4)
    assert kernel.bind(a, b, np.zeros((m, n), np.float16), m, n, k, device="sim").grid == (4, 1, 1)
    assert kernel.bind(a, b, np.zeros((m, n), np.float16), m, n, k, device="sim", sm_count=132).grid == (6, 1, 1)
    with pytest.raises(axe.LaunchError, match="the grid reads the device's SM count: pass sm_count="):
        axe.bind.bind(kernel.record, (a, b, np.zeros((m, n), np.float16), m, n, k), {}, "cpu")
    c = np.full((m, n), -1000.0, np.float16)
    kernel(a, b, c, m, n, k, device="sim")
    want = a.astype(np.float64) @ b.astype(np.float64)
    assert np.array_equal(c.astype(np.float64), want), np.argwhere(c.astype(np.float64) != want)[:5]


def test_tma_copy_runs_on_the_simulator():
    kernel = compiled("tma_copy").kernel
    src = (np.arange(128 * 64) % 1999).astype(np.float16).reshape(128, 64)
    dst = np.full_like(src, -1)
    kernel(src, dst, grid=(1, 1, 1), device="sim")
    assert np.array_equal(dst, src)


def test_host_arrays_choose_the_simulator_and_say_so():
    kernel = compiled("gemm_sm90a").kernel
    m, n, k = 16, 16, 16
    a, b, c = small((m, k), 3), small((k, n), 4), np.zeros((m, n), np.float16)
    with pytest.warns(UserWarning, match="runs on the simulator"):
        kernel(a, b, c, m, n, k)
    assert kernel.last_device == "sim"
    assert np.array_equal(c.astype(np.float64), a.astype(np.float64) @ b.astype(np.float64))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kernel(a, b, c, m, n, k)  # the warning is given once per kernel


class HostBuffer:
    """A host tensor that is not a numpy array (as a CPU torch tensor is): it exposes the array interface only."""

    def __init__(self, array):
        self.array = array
        self.__array_interface__ = array.__array_interface__


def test_the_simulator_says_it_takes_numpy_arrays():
    kernel = compiled("gemm_sm90a").kernel
    a, b, c = small((16, 16), 1), small((16, 16), 2), np.zeros((16, 16), np.float16)
    with pytest.raises(axe.LaunchError, match="argument A: the simulator takes numpy arrays, got .*HostBuffer"):
        kernel(HostBuffer(a), b, c, 16, 16, 16, device="sim")


def test_device_gpu_refuses_host_arrays_before_anything_runs():
    kernel = compiled("gemm_sm90a").kernel
    a, b, c = small((16, 16), 1), small((16, 16), 2), np.zeros((16, 16), np.float16)
    with pytest.raises(axe.LaunchError, match="argument A: the tensor is on cpu; this launch needs GPU tensors"):
        kernel(a, b, c, 16, 16, 16, device="gpu")
    with pytest.raises(ValueError, match="device must be one of"):
        kernel(a, b, c, 16, 16, 16, device="tpu")


def misaligned(shape):
    """A float16 array whose address is 2 bytes past a 16-byte boundary."""
    raw = np.zeros(int(np.prod(shape)) + 16, np.float16)
    start = next(i for i in range(1, 16) if (raw[i:].ctypes.data % 16) == 2)
    return raw[start : start + int(np.prod(shape))].reshape(shape)


def sm90a_args(**change):
    m, n, k = 256, 128, 64
    args = dict(A=np.zeros((m, k), np.float16), B=np.zeros((k, n), np.float16), C=np.zeros((m, n), np.float16))
    args.update(M=m, N=n, K=k)
    args.update(change)
    return args


# Each rule once: (arguments, the precondition text it must name or None, a fragment of the message).
SM90A_REFUSALS = {
    "M % 16": (sm90a_args(M=200, A=np.zeros((200, 64), np.float16), C=np.zeros((200, 128), np.float16)), "M % 16 == 0", "M = 200"),
    "K % 16": (sm90a_args(K=20, A=np.zeros((256, 20), np.float16), B=np.zeros((20, 128), np.float16)), "K % 16 == 0", "K = 20"),
    "N % 16": (sm90a_args(N=24, B=np.zeros((64, 24), np.float16), C=np.zeros((256, 24), np.float16)), "N % 16 == 0", "N = 24"),
    "M >= 1": (sm90a_args(M=0, A=np.zeros((0, 64), np.float16), C=np.zeros((0, 128), np.float16)), "M >= 1", "M = 0"),
    "extent": (sm90a_args(M=272), None, "argument A: dimension 0 has extent 256, but the kernel expects M = 272"),
    "dtype": (sm90a_args(B=np.zeros((64, 128), np.float32)), None, "argument B: dtype float32, but the tensor map's data type is FLOAT16"),
    "rank": (sm90a_args(C=np.zeros((256, 128, 1), np.float16)), None, "argument C: a rank-2 tensor is expected"),
    "contiguous": (sm90a_args(A=np.zeros((256, 128), np.float16)[:, ::2]), None, "argument A: the last dimension must be contiguous"),
    "row stride": (sm90a_args(A=np.zeros((256, 96), np.float16)[:, :64]), None, "argument A: dimension 0 has stride 192 bytes, but the kernel expects K * 2 = 128 bytes"),
    "alignment": (sm90a_args(A=misaligned((256, 64))), None, "is not 16-byte aligned"),
    "u32": (sm90a_args(K=2**32), None, "argument K: 4294967296 does not fit u32"),
    "scalar type": (sm90a_args(M=16.0), None, "argument M: an integer (u32) is expected, got float"),
    "tensor for scalar": (sm90a_args(N=np.zeros(4, np.float16)), None, "argument N: a scalar (u32) is expected, got a tensor"),
    "scalar for tensor": (sm90a_args(C=7), None, "argument C: a tensor (its tensor map is encoded from it) is expected, got int"),
}


@pytest.mark.parametrize("case", list(SM90A_REFUSALS))
def test_each_argument_check_refuses_with_its_rule(case):
    kernel = compiled("gemm_sm90a").kernel
    args, precondition, fragment = SM90A_REFUSALS[case]
    c_before = args["C"].copy() if isinstance(args["C"], np.ndarray) else None
    with pytest.raises(axe.LaunchError) as e:
        kernel(device="sim", **args)
    assert fragment in str(e.value)
    assert e.value.precondition == precondition
    if precondition is not None:
        assert precondition in [p.text for p in kernel.record.preconditions]
    if c_before is not None:
        assert np.array_equal(args["C"], c_before), "nothing ran"


def test_missing_extra_and_repeated_arguments_are_refused():
    kernel = compiled("gemm_sm90a").kernel
    a, b, c = np.zeros((16, 16), np.float16), np.zeros((16, 16), np.float16), np.zeros((16, 16), np.float16)
    with pytest.raises(axe.LaunchError, match=r"missing argument\(s\) K"):
        kernel(a, b, c, 16, 16, device="sim")
    with pytest.raises(axe.LaunchError, match="takes 6 arguments"):
        kernel(a, b, c, 16, 16, 16, 1, device="sim")
    with pytest.raises(axe.LaunchError, match="argument M: given twice"):
        kernel(a, b, c, 16, 16, 16, M=16, device="sim")
    with pytest.raises(axe.LaunchError, match="no parameter 'Q'"):
        kernel(a, b, c, 16, 16, 16, Q=1, device="sim")


def test_pointer_preconditions_of_gemm_sm80():
    kernel = compiled("gemm_sm80").kernel
    m, n, k = 128, 128, 64
    a, b, c = np.zeros((m, k), np.float16), np.zeros((k, n), np.float16), np.zeros((m, n), np.float16)
    cases = [
        ((misaligned((m, k)), b, c, m, n, k), "A % 16 == 0"),
        ((a, misaligned((k, n)), c, m, n, k), "B % 16 == 0"),
        ((a, b, c, m, n, 60), "K % 8 == 0"),
        ((a, b, c, m, 124, k), "N % 8 == 0"),
    ]
    for args, precondition in cases:
        with pytest.raises(axe.LaunchError) as e:
            kernel(*args, device="sim")
        assert e.value.precondition == precondition, str(e.value)


def test_pointer_tensors_are_checked_against_the_records_views():
    # examples/gemm_sm80.mlir views A as M x K, B as K x N, C as M x N, f16, row-major (its axe.view ops).
    kernel = compiled("gemm_sm80").kernel
    assert [(v.param, v.dtype, [d.text for d in v.dims]) for v in kernel.record.views] == [
        ("A", "f16", ["M", "K"]),
        ("B", "f16", ["K", "N"]),
        ("C", "f16", ["M", "N"]),
    ]
    m, n, k = 128, 128, 64
    a, b, c = np.zeros((m, k), np.float16), np.zeros((k, n), np.float16), np.zeros((m, n), np.float16)
    cases = [
        ((a[:64], b, c, m, n, k), "argument A: dimension 0 has extent 64, but the kernel expects M = 128"),
        ((a, b, c[:, :64], m, n, k), "argument C: dimension 1 has extent 64, but the kernel expects N = 128"),
        ((a, b.astype(np.float32), c, m, n, k), "argument B: dtype float32, but the kernel reads f16"),
        ((np.asfortranarray(a), b, c, m, n, k), "argument A: the kernel reads it row-major and densely packed"),
        ((a.reshape(-1), b, c, m, n, k), "argument A: a rank-2 tensor is expected"),
    ]
    for args, message in cases:
        with pytest.raises(axe.LaunchError, match=message):
            kernel(*args, device="sim")


def test_tensor_maps_are_the_records_expressions_evaluated():
    kernel = compiled("gemm_sm90a").kernel
    m, n, k = 272, 144, 96
    a, b, c = np.zeros((m, k), np.float16), np.zeros((k, n), np.float16), np.zeros((m, n), np.float16)
    bound = kernel.bind(a, b, c, m, n, k, device="sim")
    # What the record says (checked by hand against examples/gemm_sm90a.mlir's tiles): A is K x M innermost
    # first with rows of K * 2 bytes and a 64 x 128 box, B is N x K with a 64 x 64 box, C is N x M with 64 x 128.
    expected = {
        0: (a.ctypes.data, (k, m), (k * 2,), (64, 128)),
        1: (b.ctypes.data, (n, k), (n * 2,), (64, 64)),
        2: (c.ctypes.data, (n, m), (n * 2,), (64, 128)),
    }
    assert [f.param_index for f in bound.maps] == [0, 1, 2]
    for fields in bound.maps:
        address, dims, strides, box = expected[fields.param_index]
        assert (fields.global_address, fields.global_dims, fields.global_strides, fields.box_dims) == (
            address,
            dims,
            strides,
            box,
        )
        assert (fields.data_type, fields.rank, fields.element_strides) == (6, 2, (1, 1))  # FLOAT16
        assert (fields.interleave, fields.swizzle, fields.l2_promotion, fields.oob_fill) == (0, 3, 2, 0)
    assert bound.grid == (-(-n // 128), -(-m // 128), 1)
    raw = kernel.record.raw["tensor_maps"]
    for fields, text in zip(bound.maps, raw):
        env = {"A": a.ctypes.data, "B": b.ctypes.data, "C": c.ctypes.data, "M": m, "N": n, "K": k}
        assert fields.global_dims == tuple(Expr(d)(env) for d in text["global_dims"])
        assert (fields.swizzle, fields.box_dims) == (text["swizzle"], tuple(text["box_dims"]))


class FakeLib:
    """Stands in for libcuda: records the arguments of cuTensorMapEncodeTiled as the driver would read them."""

    def __init__(self):
        self.calls = []

    def cuTensorMapEncodeTiled(self, out, dtype, rank, address, dims, strides, box, estrides, il, sw, l2, oob):
        r = rank.value
        self.calls.append(
            dict(
                out_aligned=out.value % 64 == 0,
                dtype=dtype.value,
                rank=r,
                address=address.value,
                dims=list(dims)[:r],
                strides=list(strides)[: r - 1],
                box=list(box)[:r],
                estrides=list(estrides)[:r],
                enums=(il.value, sw.value, l2.value, oob.value),
            )
        )
        ctypes.memset(out.value, 0xAB, 128)
        return 0


def test_the_driver_receives_the_fields_as_declared():
    kernel = compiled("gemm_sm90a").kernel
    m, n, k = 144, 160, 80
    a, b, c = np.zeros((m, k), np.float16), np.zeros((k, n), np.float16), np.zeros((m, n), np.float16)
    bound = kernel.bind(a, b, c, m, n, k, device="sim")
    driver = cuda.Driver.__new__(cuda.Driver)
    driver.lib = FakeLib()
    encoded = [driver.encode_tensor_map(f) for f in bound.maps]
    assert encoded == [b"\xab" * 128] * 3
    first = driver.lib.calls[0]
    assert first == dict(
        out_aligned=True,
        dtype=6,
        rank=2,
        address=a.ctypes.data,
        dims=[k, m],
        strides=[k * 2],
        box=[64, 128],
        estrides=[1, 1],
        enums=(0, 3, 2, 0),
    )


def test_the_launch_configuration_has_the_drivers_layout():
    # CUlaunchConfig (cuda.h, CUDA 12): seven unsigned ints, then the stream at offset 32, attrs at 40, numAttrs
    # at 48, 56 bytes; CUlaunchAttribute: the id, 4 bytes of padding, a 64-byte value: 72 bytes.
    assert ctypes.sizeof(cuda._LaunchConfig) == 56
    assert (cuda._LaunchConfig.hStream.offset, cuda._LaunchConfig.attrs.offset) == (32, 40)
    assert cuda._LaunchConfig.numAttrs.offset == 48
    assert ctypes.sizeof(cuda._LaunchAttribute) == 72 and cuda._LaunchAttribute.value.offset == 8


def test_the_cache_compiles_once(cache_dir):
    from axe import compiler

    text = (ROOT / "examples" / "tma_copy.mlir").read_text()
    compiler._memory.clear()
    before = dict(compiler.stats)
    first = axe.compile(text)
    second = axe.compile(text)
    assert compiler.stats["compiles"] == before["compiles"] + 1
    assert compiler.stats["memory_hits"] == before["memory_hits"] + 1
    compiler._memory.clear()  # a new process: the disk
    third = axe.compile(text)
    assert compiler.stats["disk_hits"] == before["disk_hits"] + 1
    assert first.ptx == second.ptx == third.ptx and list(cache_dir.glob("*.json"))
    axe.compile(text, chip="sm_100a")  # another chip is another kernel
    assert compiler.stats["compiles"] == before["compiles"] + 2
    axe.compile(text, cache=False)
    assert compiler.stats["compiles"] == before["compiles"] + 3


def test_a_compile_error_carries_the_diagnostics():
    with pytest.raises(axe.CompileError) as e:
        axe.compile("func.func @f() {\n  %0 = \"axe.nope\"() : () -> i32\n}\n", name="bad.mlir")
    assert str(e.value).startswith("bad.mlir:2:")
    with pytest.raises(axe.CompileError, match="planned for sm_90a"):
        axe.compile(ROOT / "examples" / "gemm_sm90a.mlir", chip="sm_80")


def test_a_simulator_fault_is_an_error_at_the_op():
    # The GEMM with its wait for the TMA loads removed: the wgmma reads bytes no wait has observed.
    text = (ROOT / "examples" / "gemm_sm90a.mlir").read_text()
    line = next(l for l in text.splitlines() if 'axe.mbarrier_wait ' in l)
    module = axe.compile(text.replace(line, ""), name="mutant.mlir")
    a, b, c = small((16, 16), 1), small((16, 16), 2), np.zeros((16, 16), np.float16)
    with pytest.raises(axe.SimulationError, match=r"mutant\.mlir:\d+:\d+"):
        module.kernel(a, b, c, 16, 16, 16, device="sim")


def test_expressions_follow_the_records_grammar():
    env = {"M": 300, "N": 7, "K": 64}
    assert Expr("ceildiv(M, 128)")(env) == 3
    assert Expr("K * 2 + (N + 1) * 4")(env) == 160
    assert Expr("K / 16")(env) == 4
    with pytest.raises(ValueError, match="not exact"):
        Expr("N / 2")(env)
    assert Expr("M % 16 == 12")(env) is True and Expr("N >= 8")(env) is False
    assert Expr("min(ceildiv(M, 128) * N, sm_count)")({**env, "sm_count": 132}) == 21
    assert Expr("min(ceildiv(M, 128) * N, sm_count)")({**env, "sm_count": 16}) == 16
    for bad in ["M -", "ceildiv(M)", "min(M)", "M == N == K", "M $ 2", "(M"]:
        with pytest.raises(ValueError):
            Expr(bad)


class FakeNvshmem:
    """Stands in for libnvshmem_host: an initialised job of `pes` PEs, this process PE `pe`, a symmetric heap of
    the addresses in `heap`."""

    def __init__(self, pes=4, pe=1, status=2, heap=()):
        self.pes, self.pe, self.status, self.heap = pes, pe, status, set(heap)

    def nvshmemx_init_status(self):
        return self.status

    def nvshmem_n_pes(self):
        return self.pes

    def nvshmem_my_pe(self):
        return self.pe

    def nvshmem_ptr(self, address, pe):
        return address.value if address.value in self.heap and pe == self.pe else None


def test_nvshmem_kernels_are_checked_against_the_launch_contract():
    from axe import nvshmem

    kernel = compiled("allgather").kernel
    sym = kernel.record.symmetric[0]
    assert (sym.param, sym.bytes, sym.local_shapes[1]) == ("dst", 128, (8, 4))  # examples/allgather.mlir: 8x4 f32
    src, dst = np.zeros((2, 4), np.float32), np.zeros((8, 4), np.float32)
    bound = kernel.bind(src, dst, device="sim")
    heap = {dst.ctypes.data}
    nvshmem.check(bound, FakeNvshmem(heap=heap))  # the contract holds: no error
    refusals = [
        (FakeNvshmem(status=1, heap=heap), "NVSHMEM is not initialised"),
        (FakeNvshmem(pes=2, heap=heap), "compiled for a mesh of 4 ranks; NVSHMEM has 2 PEs"),
        (FakeNvshmem(heap=()), "argument dst: the tensor is not on NVSHMEM's symmetric heap"),
    ]
    for lib, message in refusals:
        with pytest.raises(axe.LaunchError, match=message):
            nvshmem.check(bound, lib)
    small_dst = np.zeros((4, 4), np.float32)
    with pytest.raises(axe.LaunchError, match="argument dst: 64 bytes, but every rank allocates 128 bytes"):
        nvshmem.check(kernel.bind(src, small_dst, device="sim"), FakeNvshmem(heap={small_dst.ctypes.data}))
    flat = np.zeros(32, np.float32)
    with pytest.raises(axe.LaunchError, match=r"argument dst: shape \[32\], but rank 1's local shape is \[8, 4\]"):
        nvshmem.check(kernel.bind(src, flat, device="sim"), FakeNvshmem(heap={flat.ctypes.data}))


def test_nvshmem_kernels_do_not_run_on_the_simulator():
    kernel = compiled("allgather").kernel
    with pytest.raises(axe.LaunchError, match="NVSHMEM symmetric buffers runs on GPUs only"):
        kernel(np.zeros((2, 4), np.float32), np.zeros((8, 4), np.float32), device="sim")


def test_a_collective_launch_is_cooperative():
    kernel = compiled("allgather").kernel
    bound = kernel.bind(np.zeros((2, 4), np.float32), np.zeros((8, 4), np.float32), device="sim")
    launch = cuda.CudaLaunch(None, 0, bound, list(bound.values))
    assert launch._config.numAttrs == 1
    assert (launch._attrs[0].id, launch._attrs[0].value[0]) == (cuda.CU_LAUNCH_ATTRIBUTE_COOPERATIVE, 1)
    assert (launch._config.gridDimX, launch._config.blockDimX) == (1, 128)


CLUSTERED = """
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @clustered(%n: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>,
                                                      known_cluster_size = array<i32: 2, 1, 1>} {
      gpu.return
    }
  }
}
"""


def test_a_grid_off_the_kernels_cluster_shape_is_refused_before_launch():
    # The PTX requires 2 CTAs per cluster in x (.reqnctapercluster 2, 1, 1): grid x must be even.
    kernel = axe.compile(CLUSTERED, chip="sm_90a").clustered
    with pytest.raises(axe.LaunchError, match=r"grid \[3, 1, 1\] is not a multiple of the kernel's cluster \[2, 1, 1\]"):
        kernel(4, grid=(3, 1, 1), device="sim")
    kernel(4, grid=(4, 1, 1), device="sim")


def e4m3_value(code):
    """The value of an OCP e4m3 code (sign, 4 exponent bits with bias 7, 3 mantissa bits; codes with exponent 0
    are subnormal), for the finite codes drawn below."""
    sign = -1.0 if code & 0x80 else 1.0
    e, m = (code >> 3) & 0xF, code & 0x7
    return sign * (m / 8 * 2.0**-6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7))


def bf16_bits(x):
    """float64 values (exact in float32) rounded to bfloat16 bits, nearest even."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def test_the_block_scaled_fp8_gemm_runs_from_python_on_the_simulator():
    # e4m3 codes of {0, +-0.5, +-1, +-1.5, +-2, +-3} (uint8 arrays named as e4m3 by axe.bits), power-of-two
    # scales, C as bfloat16 bits: every product and sum is exact, so C is compared bit for bit with the reference
    # decoded and rounded here. 2 x 2 ragged tiles on the simulator's 4 SMs, K = 272 (three K blocks, the last 16).
    kernel = compiled("gemm_fp8_blockscaled_sm90a").gemm_fp8_blockscaled_sm90a
    m, n, k = 144, 160, 272
    rng = np.random.default_rng(7)
    codes = np.array([0x00, 0x30, 0xB0, 0x38, 0xB8, 0x3C, 0xBC, 0x40, 0xC0, 0x44, 0xC4], np.uint8)
    a, bt = rng.choice(codes, (m, k)), rng.choice(codes, (n, k))
    kb, nb = -(-k // 128), -(-n // 128)
    sfa = 2.0 ** rng.integers(-2, 3, (kb, m)).astype(np.float32)
    sfb = 2.0 ** rng.integers(-2, 3, (nb, kb)).astype(np.float32)
    c = np.full((m, n), 0xFFFF, np.uint16)
    kernel(axe.bits(a, "float8_e4m3fn"), axe.bits(bt, "float8_e4m3fn"), sfa.astype(np.float32),
           sfb.astype(np.float32), axe.bits(c, "bfloat16"), m, n, k, device="sim")
    decode = np.vectorize(e4m3_value)
    av, bv = decode(a), decode(bt)
    want = np.zeros((m, n))
    for block in range(kb):
        ks = slice(block * 128, min(k, block * 128 + 128))
        scale = sfa[block][:, None].astype(np.float64) * np.repeat(sfb[:, block], 128)[None, :n]
        want += scale * (av[:, ks] @ bv[:, ks].T)
    assert np.array_equal(c, bf16_bits(want)), np.argwhere(c != bf16_bits(want))[:5]


def test_bits_names_the_dtype_of_same_size_unsigned_arrays_only():
    assert axe.arrays.describe(axe.bits(np.zeros(4, np.uint16), "bfloat16")).dtype == "bfloat16"
    with pytest.raises(TypeError, match="float8_e4m3fn elements are 1 bytes, the array's uint16 2"):
        axe.bits(np.zeros(4, np.uint16), "float8_e4m3fn")
    with pytest.raises(TypeError, match="takes a numpy array of unsigned integers"):
        axe.bits(np.zeros(4, np.float32), "float32")
    with pytest.raises(TypeError, match="unknown dtype 'e4m3'"):
        axe.bits(np.zeros(4, np.uint8), "e4m3")


def test_block_scale_tensors_of_the_wrong_shape_are_refused_before_launch():
    # The scale tensors' extents are computed in the kernel ((K + 127) / 128); the launch record carries them as
    # ceildiv(K, 128) (SFA's tensor map, SFB's view), so a scale tensor for another K is refused by name.
    kernel = compiled("gemm_fp8_blockscaled_sm90a").gemm_fp8_blockscaled_sm90a
    m, n, k = 144, 272, 400
    a, bt = axe.bits(np.zeros((m, k), np.uint8), "float8_e4m3fn"), axe.bits(np.zeros((n, k), np.uint8), "float8_e4m3fn")
    sfa, sfb = np.ones((4, m), np.float32), np.ones((3, 4), np.float32)
    c = axe.bits(np.zeros((m, n), np.uint16), "bfloat16")
    assert kernel.bind(a, bt, sfa, sfb, c, m, n, k, device="sim").grid == (4, 1, 1)
    with pytest.raises(axe.LaunchError, match=r"argument SFA: dimension 0 has extent 5, but the kernel expects ceildiv\(K, 128\) = 4"):
        kernel.bind(a, bt, np.ones((5, m), np.float32), sfb, c, m, n, k, device="sim")
    with pytest.raises(axe.LaunchError, match=r"argument SFB: dimension 1 has extent 3, but the kernel expects ceildiv\(K, 128\) = 4"):
        kernel.bind(a, bt, sfa, np.ones((3, 3), np.float32), c, m, n, k, device="sim")
