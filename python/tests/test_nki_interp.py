"""axe.nki, the NKI interpreter: tiled GEMMs in the docs' tutorial style match numpy exactly; each hardware or
language rule refuses a kernel that breaks it with an NkiError naming the rule and the numbers; element-wise and
reduction operators match numpy."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import axe.nki as nki_interp
from axe.nki import NkiError

HEADER = """\
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl
"""


def run(body, *inputs, name="kernel", **options):
    """Run the kernel `name` defined in `body` (indented freely) on numpy `inputs`."""
    return nki_interp.run(HEADER + textwrap.dedent(body), name, *inputs, **options)


def refused(rule, body, *inputs, **options):
    """The NkiError `body` raises, after checking its rule."""
    with pytest.raises(NkiError) as e:
        run(body, *inputs, **options)
    assert e.value.rule == rule, str(e.value)
    assert rule in nki_interp.RULES
    return str(e.value)


def ints(shape, dtype, seed=0):
    """Small integers (exact in every dtype and in float32 sums)."""
    return np.random.default_rng(seed).integers(-4, 5, size=shape).astype(dtype)


GEMM = """
@nki.jit
def kernel(lhsT, rhs):
    K, M = lhsT.shape
    K_, N = rhs.shape
    assert K == K_ and lhsT.dtype == nl.float16 and rhs.dtype == nl.float16
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    TILE_M = nl.tile_size.gemm_stationary_fmax
    TILE_K = nl.tile_size.pmax
    TILE_N = nl.tile_size.gemm_moving_fmax
    for m in nl.affine_range(M // TILE_M):
        for n in nl.affine_range(N // TILE_N):
            res_psum = nl.zeros((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // TILE_K):
                lhsT_tile = nl.ndarray((TILE_K, TILE_M), dtype=lhsT.dtype, buffer=nl.sbuf)
                rhs_tile = nl.ndarray((TILE_K, TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
                lhsT_tile[...] = nl.load(lhsT[k * TILE_K:(k + 1) * TILE_K, m * TILE_M:(m + 1) * TILE_M])
                rhs_tile[...] = nl.load(rhs[k * TILE_K:(k + 1) * TILE_K, n * TILE_N:(n + 1) * TILE_N])
                res_psum += nisa.nc_matmul(lhsT_tile[...], rhs_tile[...])
            res_sb = nl.copy(res_psum, dtype=result.dtype)
            nl.store(result[m * TILE_M:(m + 1) * TILE_M, n * TILE_N:(n + 1) * TILE_N], value=res_sb)
    return result
"""


# ------------------------------------------------------------------------------------------ GEMM


def test_tiled_gemm_is_exact():
    lhsT, rhs = ints((256, 256), np.float16), ints((256, 1024), np.float16, seed=1)
    out = run(GEMM, lhsT, rhs)
    assert out.dtype == np.float16 and out.shape == (256, 1024)
    expect = lhsT.astype(np.float32).T @ rhs.astype(np.float32)
    assert np.array_equal(out.astype(np.float32), expect)


def test_gemm_with_mgrid_par_dim_blocks_and_nl_matmul():
    body = """
    @nki.jit
    def kernel(lhsT, rhs):
        K, M = lhsT.shape
        _, N = rhs.shape
        result = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
        i_lhsT = nl.mgrid[0:128, 0:128]
        i_rhs = nl.mgrid[0:128, 0:512]
        i_res = nl.mgrid[0:128, 0:512]
        for m in nl.affine_range(M // 128):
            lhsT_tiles = nl.ndarray((K // 128, nl.par_dim(128), 128), dtype=lhsT.dtype, buffer=nl.sbuf)
            for k in nl.affine_range(K // 128):
                lhsT_tiles[k, i_lhsT.p, i_lhsT.x] = nl.load(lhsT[k * 128 + i_lhsT.p, m * 128 + i_lhsT.x])
            for n in nl.affine_range(N // 512):
                rhs_tiles = nl.ndarray((K // 128, nl.par_dim(128), 512), dtype=rhs.dtype, buffer=nl.sbuf)
                for k in nl.affine_range(K // 128):
                    rhs_tiles[k, i_rhs.p, i_rhs.x] = nl.load(rhs[k * 128 + i_rhs.p, n * 512 + i_rhs.x])
                res_psum = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
                for k in nl.affine_range(K // 128):
                    res_psum[...] += nl.matmul(lhsT_tiles[k, i_lhsT.p, i_lhsT.x], rhs_tiles[k, i_rhs.p, i_rhs.x],
                                               transpose_x=True)
                nl.store(result[m * 128 + i_res.p, n * 512 + i_res.x], value=nl.copy(res_psum))
        return result
    """
    lhsT, rhs = ints((384, 256), np.float16), ints((384, 1024), np.float16, seed=2)
    out = run(body, lhsT, rhs)
    assert out.dtype == np.float32
    assert np.array_equal(out, lhsT.astype(np.float32).T @ rhs.astype(np.float32))


def test_nl_matmul_without_transpose_x_and_bfloat16_inputs():
    body = """
    @nki.jit
    def kernel(x, y):
        out = nl.ndarray((64, 256), dtype=nl.float32, buffer=nl.shared_hbm)
        assert x.dtype == nl.bfloat16
        nl.store(out, nl.copy(nl.matmul(nl.load(x), nl.load(y))))
        return out
    """
    x, y = ints((64, 96), np.float32), ints((96, 256), np.float32, seed=3)
    assert np.array_equal(run(body, axe_bits(x), axe_bits(y)), x @ y)


def axe_bits(a):
    """float32 values exact in bfloat16 as `axe.bits(uint16, "bfloat16")`."""
    import axe

    return axe.bits((a.view(np.uint32) >> 16).astype(np.uint16), "bfloat16")


# ------------------------------------------------------------------------------------------ rules


MATMUL = """
@nki.jit
def kernel(a, b):
    out = nl.ndarray(({m}, {n}), dtype=nl.float32, buffer=nl.shared_hbm)
    s = nl.load(a)
    t = nl.load(b)
    r = nisa.nc_matmul(s, t)
    nl.store(out, nl.copy(r))
    return out
"""


def test_matmul_stationary_free_size():
    a, b = ints((128, 256), np.float16), ints((128, 512), np.float16)
    msg = refused("matmul-stationary-fmax", MATMUL.format(m=256, n=512), a, b)
    assert "stationary tile's free size 256 exceeds gemm_stationary_fmax 128" in msg
    assert "kernel line" in msg


def test_matmul_moving_free_size():
    a, b = ints((128, 128), np.float16), ints((128, 1024), np.float16)
    msg = refused("matmul-moving-fmax", MATMUL.format(m=128, n=1024), a, b)
    assert "moving tile's free size 1024 exceeds gemm_moving_fmax 512" in msg


def test_matmul_contraction_mismatch():
    a, b = ints((128, 128), np.float16), ints((64, 512), np.float16)
    msg = refused("matmul-contraction", MATMUL.format(m=128, n=512), a, b)
    assert "stationary has 128, moving has 64" in msg


def test_matmul_operand_in_psum():
    body = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
        p = nl.zeros((128, 128), nl.float32, buffer=nl.psum)
        s = nl.load(a)
        nl.store(out, nl.copy(nisa.nc_matmul(p, s)))
        return out
    """
    msg = refused("memory", body, ints((128, 128), np.float32))
    assert "expected operand 'stationary' to be in address space 'sbuf', but got a tile in 'psum'" in msg


def test_matmul_dtype_rules():
    body = """
    @nki.jit
    def kernel(a, b):
        out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, nl.copy(nisa.nc_matmul(nl.load(a), nl.load(b))))
        return out
    """
    msg = refused("matmul-dtype", body, ints((128, 128), np.float32), ints((128, 128), np.float16))
    assert "float32 x float16" in msg
    msg = refused("matmul-dtype", body, ints((128, 128), np.int32), ints((128, 128), np.int32))
    assert "int32" in msg


def test_partition_dim_over_128():
    body = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((129, 4), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.ndarray((129, 4), dtype=nl.float32, buffer=nl.sbuf)
        return out
    """
    msg = refused("partition-limit", body, ints((129, 4), np.float32))
    assert "number of partitions 129 exceeds the architecture limit pmax=128" in msg
    load = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((129, 4), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, nl.load(a))
        return out
    """
    msg = refused("partition-limit", load, ints((129, 4), np.float32))
    assert "129" in msg and "128" in msg


def test_psum_tile_over_one_bank():
    body = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.shared_hbm)
        acc = nl.zeros((128, 1024), nl.float32, buffer=nl.psum)
        return out
    """
    msg = refused("psum-bank", body, ints((4, 4), np.float32))
    assert "1024 float32 elements (4096 bytes) per partition does not fit one PSUM bank" in msg


PSUM_TILES = """
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a)
    accs = []
    for i in range({count}):
        acc = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
        accs.append(acc)
    total = nl.zeros((128, 512), nl.float32, buffer=nl.sbuf)
    for acc in accs:
        total[...] = nl.add(total, acc)
    nl.store(out, total)
    return out
"""


def test_more_than_eight_live_psum_banks():
    a = ints((128, 512), np.float32)
    assert np.array_equal(run(PSUM_TILES.format(count=8), a), np.zeros((128, 512), np.float32))
    msg = refused("psum-capacity", PSUM_TILES.format(count=9), a)
    assert "9 live tiles (18432 bytes per partition) need 9 banks, more than the 8 PSUM banks of 2048 bytes" in msg


def test_psum_tiles_rebound_in_a_loop_are_not_live_together():
    # each iteration's accumulator dies when the next one is allocated: 16 tiles over the run, never 9 at once
    body = """
    @nki.jit
    def kernel(a, b):
        out = nl.ndarray((16, 128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
        s = nl.load(a)
        t = nl.load(b)
        for i in nl.affine_range(16):
            acc = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
            acc += nisa.nc_matmul(s, t)
            nl.store(out[i], nl.copy(acc))
        return out
    """
    a, b = ints((128, 128), np.float32), ints((128, 512), np.float32, seed=4)
    out = run(body, a, b)
    assert np.array_equal(out[15], a.T @ b)


def test_small_psum_tiles_share_banks():
    # 16 live [128, 256] float32 tiles (1KiB each) pack two to a bank: 8 banks
    body = PSUM_TILES.replace("(128, 512), nl.float32, buffer=nl.psum", "(128, 256), nl.float32, buffer=nl.psum")
    body = body.replace("nl.add(total, acc)", "nl.add(total, nl.copy(acc))").replace("(128, 512)", "(128, 256)")
    assert run(body.format(count=16), ints((128, 256), np.float32)).shape == (128, 256)
    msg = refused("psum-capacity", body.format(count=17), ints((128, 256), np.float32))
    assert "17 live tiles" in msg


SBUF_TILES = """
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 32768), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.zeros((128, 32768), nl.float32, buffer=nl.sbuf)
    y = nl.zeros((128, 32768), nl.float32, buffer=nl.sbuf)
    nl.store(out, nl.add(x, y))
    return out
"""


def test_sbuf_over_192kib_per_partition():
    # two live 128KiB tiles (and their sum): more than an SBUF partition's 192KiB
    msg = refused("sbuf-capacity", SBUF_TILES, ints((4, 4), np.float32))
    assert "more than the 196608 (192KiB) of an SBUF partition" in msg
    assert "sbuf float32[128, 32768] (kernel line 8): 131072 B" in msg


def test_sbuf_tiles_used_one_after_another_fit():
    body = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((2, 128, 32768), dtype=nl.float32, buffer=nl.shared_hbm)
        for i in nl.sequential_range(2):
            x = nl.zeros((128, 32768), nl.float32, buffer=nl.sbuf)
            nl.store(out[i], x)
        return out
    """
    assert not run(body, ints((4, 4), np.float32)).any()


def test_one_tile_bigger_than_a_partition():
    body = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((4, 4), dtype=nl.float32, buffer=nl.shared_hbm)
        x = nl.ndarray((128, 65536), dtype=nl.float32, buffer=nl.sbuf)
        return out
    """
    assert "262144 bytes per partition" in refused("sbuf-capacity", body, ints((4, 4), np.float32))


def test_out_of_bounds_hbm_load():
    body = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.load(a[0:128, 256:768])
        nl.store(out, t)
        return out
    """
    msg = refused("out-of-bounds", body, ints((128, 512), np.float32))
    assert "on dimension 1: index range [256, 767] exceeds dimension size of 512" in msg
    grid = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
        i = nl.mgrid[0:128, 0:512]
        for j in nl.affine_range(2):
            nl.store(out[i.p, i.x], nl.load(a[i.p, j * 512 + i.x]))
        return out
    """
    msg = refused("out-of-bounds", grid, ints((128, 1000), np.float32))
    assert "index range [512, 1023] exceeds dimension size of 1000" in msg


def test_out_of_bounds_sbuf_index():
    body = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((4, 4), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.zeros((128, 64), nl.float32)
        nl.store(out, t[124:128, 62:66])
        return out
    """
    msg = refused("out-of-bounds", body, ints((1, 1), np.float32))
    assert "index range [62, 65] exceeds dimension size of 64" in msg


STORE_PSUM = """
@nki.jit
def kernel(a, b):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    r = nisa.nc_matmul(nl.load(a), nl.load(b))
    nl.store(out, r)
    return out
"""


def test_store_from_psum():
    a, b = ints((128, 128), np.float32), ints((128, 512), np.float32)
    msg = refused("store-psum", STORE_PSUM, a, b)
    assert "the value is a PSUM tile [128, 512]" in msg
    # the nl.store docs let the compiler insert the PSUM -> SBUF copy; the run can allow that
    assert np.array_equal(run(STORE_PSUM, a, b, allow_psum_store=True), a.T @ b)


def test_store_needs_an_hbm_destination_and_matching_dtype():
    to_sbuf = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.sbuf)
        nl.store(t, nl.load(a))
        return out
    """
    msg = refused("memory", to_sbuf, ints((128, 4), np.float32))
    assert "expected operand 'dst' to be in address space 'hbm', but got a tile in 'sbuf'" in msg
    cast = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((128, 4), dtype=nl.float16, buffer=nl.shared_hbm)
        nl.store(out, nl.load(a))
        return out
    """
    msg = refused("store-dtype", cast, ints((128, 4), np.float32))
    assert "the value is float32 but the destination is float16" in msg


def test_load_needs_hbm():
    body = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.zeros((128, 4), nl.float32)
        nl.store(out, nl.load(t))
        return out
    """
    msg = refused("memory", body, ints((128, 4), np.float32))
    assert "expected operand 'src' to be in address space 'hbm', but got a tile in 'sbuf'" in msg


def test_shape_mismatched_assignment():
    body = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf)
        t[...] = nl.load(a)
        nl.store(out[:, 0:256], t)
        return out
    """
    msg = refused("shape", body, ints((128, 512), np.float32))
    assert "shape [128, 512] does not match the destination shape [128, 256]" in msg


def test_assignment_broadcasts_a_column_as_the_docs_allow():
    body = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((128, 8), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.ndarray((128, 8), dtype=nl.float32, buffer=nl.sbuf)
        t[...] = nl.load(a)
        nl.store(out, t)
        return out
    """
    a = ints((128, 1), np.float32)
    assert np.array_equal(run(body, a), np.repeat(a, 8, axis=1))


def test_affine_range_iterations_must_be_independent():
    body = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.shared_hbm)
        for i in nl.{loop}(3):
            nl.store(out, nl.load(a[i]))
        return out
    """
    a = ints((3, 128, 4), np.float32)
    msg = refused("affine-dependency", body.format(loop="affine_range"), a)
    assert "iteration 1 writes elements of" in msg and "that iteration 0 wrote" in msg
    assert np.array_equal(run(body.format(loop="sequential_range"), a), a[2])


def test_affine_range_loop_carried_read():
    body = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.shared_hbm)
        acc = nl.zeros((128, 4), nl.float32)
        for i in nl.affine_range(3):
            x = nl.load(a[i])
            acc[...] = nl.add(acc, x)
        nl.store(out, acc)
        return out
    """
    a = ints((3, 128, 4), np.float32)
    assert "iteration 1 reads" in refused("affine-dependency", body, a)
    accumulate = body.replace("acc[...] = nl.add(acc, x)", "acc += x")
    assert np.array_equal(run(accumulate, a), a.sum(axis=0))


def test_inputs_are_immutable_and_outputs_are_returned():
    write_input = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.shared_hbm)
        x = nl.load(a)
        nl.store(a, x)
        nl.store(out, x)
        return out
    """
    refused("immutable-input", write_input, ints((128, 4), np.float32))
    not_returned = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.shared_hbm)
        other = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, nl.load(a))
        nl.store(other, nl.load(a))
        return out
    """
    assert "is not returned" in refused("output", not_returned, ints((128, 4), np.float32))
    never_written = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.shared_hbm)
        return out
    """
    assert "is never written" in refused("output", never_written, ints((128, 4), np.float32))


def test_indexing_rules_from_the_error_catalog():
    one_d = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((64, 1), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.zeros((128, 1), nl.float32)
        i = nl.arange(64)
        nl.store(out, nl.exp(t[i, 0]))
        return out
    """
    refused("index-1d-arange", one_d, ints((1, 1), np.float32))
    mixed = one_d.replace("nl.arange(64)", "nl.arange(64)[:, None]").replace("t[i, 0]", "t[i, :]")
    refused("index-mixing", mixed, ints((1, 1), np.float32))
    not_tile = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((4, 4), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.zeros((4, nl.par_dim(8), 8), nl.float32)
        nl.store(out, nl.add(t, 32))
        return out
    """
    assert "is not a tile" in refused("not-a-tile", not_tile, ints((1, 1), np.float32))


def test_uninitialized_memory_reads_as_nan():
    body = """
    @nki.jit
    def kernel(a, b):
        out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
        acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
        acc += nisa.nc_matmul(nl.load(a), nl.load(b))
        nl.store(out, nl.copy(acc))
        return out
    """
    assert np.isnan(run(body, ints((128, 128), np.float32), ints((128, 512), np.float32))).all()


def test_unsupported_apis_are_named():
    body = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, nl.gelu(nl.load(a)))
        return out
    """
    assert "nl.gelu is not in this interpreter's subset" in refused("unsupported", body, ints((128, 4), np.float32))


# ------------------------------------------------------------------------------------------ operators


def test_softmax_rows_match_numpy():
    body = """
    @nki.jit
    def kernel(x):
        out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.load(x)
        m = nl.max(t, axis=1, keepdims=True)
        e = nl.exp(nl.subtract(t, m))
        s = nl.sum(e, axis=1, keepdims=True)
        nl.store(out, nl.multiply(e, nl.reciprocal(s)))
        return out
    """
    x = np.random.default_rng(5).standard_normal((128, 300)).astype(np.float32)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    assert np.allclose(run(body, x), e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_elementwise_operators_scalars_and_promotion():
    body = """
    @nki.jit
    def kernel(a, b):
        f32 = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        f16 = nl.ndarray(a.shape, dtype=nl.float16, buffer=nl.shared_hbm)
        x = nl.load(a)
        y = nl.load(b)
        # weak scalars: a float is float32, so f16 * 0.5 is float32 (nki type promotion)
        half = nl.multiply(x, 0.5)
        assert half.dtype == nl.float32 and x.dtype == nl.float16
        r = nl.maximum(nl.divide(nl.add(half, y), 2.0), nl.negative(y))
        nl.store(f32, nl.subtract(r, 1))
        nl.store(f16, nl.minimum(x, y, dtype=nl.float16) * 2 - x)
        return f32, f16
    """
    a, b = ints((64, 32), np.float16), ints((64, 32), np.float16, seed=6)
    af, bf = a.astype(np.float32), b.astype(np.float32)
    f32, f16 = run(body, a, b)
    assert f32.dtype == np.float32 and f16.dtype == np.float16
    assert np.array_equal(f32, np.maximum((af * 0.5 + bf) / 2, -bf) - 1)
    assert np.array_equal(f16.astype(np.float32), np.minimum(af, bf) * 2 - af)


def test_partition_column_broadcast_and_reductions():
    body = """
    @nki.jit
    def kernel(x, col):
        out = nl.ndarray((128, 3, 1), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.load(x)
        c = nl.load(col)
        shifted = nl.add(t, c)
        res = nl.ndarray((128, 3, 1), dtype=nl.float32, buffer=nl.sbuf)
        res[:, 0:1, :] = nl.sum(shifted, axis=[1, 2], keepdims=True)
        res[:, 1:2, 0] = nl.mean(shifted, axis=2)[:, 0:1]
        res[:, 2:3, :] = nl.min(shifted, axis=(1, 2), keepdims=True)
        nl.store(out, res)
        return out
    """
    x, col = ints((128, 4, 8), np.float32), ints((128, 1, 1), np.float32, seed=7)
    s = x + col
    expect = np.stack([s.sum(axis=(1, 2)), s.mean(axis=2)[:, 0], s.min(axis=(1, 2))], axis=1)
    assert np.allclose(run(body, x, col)[:, :, 0], expect)


def test_tiles_broadcast_from_the_partition_dim():
    # a [128] tile (a reduction without keepdims, or t[:, j]) is one value per partition, like [128, 1]; numpy's
    # trailing alignment would silently broadcast it along the free dim of a square tile instead
    body = """
    @nki.jit
    def kernel(x):
        out = nl.ndarray((128, 129), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.load(x)
        res = nl.ndarray((128, 129), dtype=nl.float32, buffer=nl.sbuf)
        res[:, 0:128] = nl.subtract(t, nl.max(t, axis=1))
        res[:, 128:129] = t[:, 127]
        nl.store(out, res)
        return out
    """
    x = np.random.default_rng(10).standard_normal((128, 128)).astype(np.float32)
    out = run(body, x)
    assert np.array_equal(out[:, :128], x - x.max(axis=1, keepdims=True))
    assert np.array_equal(out[:, 128], x[:, 127])


def test_reduction_over_the_partition_dim_is_refused():
    body = """
    @nki.jit
    def kernel(x):
        out = nl.ndarray((1, 8), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, nl.sum(nl.load(x), axis=0, keepdims=True))
        return out
    """
    refused("reduce-axis", body, ints((128, 8), np.float32))


def test_transposes():
    body = """
    @nki.jit
    def kernel(x):
        a = nl.ndarray((64, 128), dtype=nl.float32, buffer=nl.shared_hbm)
        b = nl.ndarray((64, 128), dtype=nl.float32, buffer=nl.shared_hbm)
        c = nl.ndarray((64, 128), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.load(x)
        tt = nisa.nc_transpose(t)
        assert tt.buffer == nl.psum
        nl.store(a, nl.copy(tt))
        nl.store(b, nl.copy(nl.transpose(t)))
        nl.store(c, nl.load_transpose2d(x))
        return a, b, c
    """
    x = ints((128, 64), np.float32)
    for out in run(body, x):
        assert np.array_equal(out, x.T)
    too_big = body.replace("(64, 128)", "(256, 128)")
    msg = refused("transpose-size", too_big, ints((128, 256), np.float32))
    assert "[128, 256] tile exceeds the tensor engine's transpose limit [128, 128]" in msg


def test_dtype_conversions_round_to_nearest_even():
    body = """
    @nki.jit
    def kernel(x):
        bf = nl.ndarray(x.shape, dtype=nl.bfloat16, buffer=nl.shared_hbm)
        h = nl.ndarray(x.shape, dtype=nl.float16, buffer=nl.shared_hbm)
        e5 = nl.ndarray(x.shape, dtype=nl.float8_e5m2, buffer=nl.shared_hbm)
        e4 = nl.ndarray(x.shape, dtype=nl.float8_e4m3, buffer=nl.shared_hbm)
        t = nl.load(x)
        nl.store(bf, nl.copy(t, dtype=nl.bfloat16))
        nl.store(h, nisa.tensor_copy(t, dtype=nl.float16))
        nl.store(e5, nl.copy(t, dtype=nl.float8_e5m2))
        nl.store(e4, nl.copy(t, dtype=nl.float8_e4m3))
        return bf, h, e5, e4
    """
    # 1 + 2^-8 is a tie between bfloat16 neighbours 1 and 1 + 2^-7: to even (1); 1 + 3*2^-8 rounds up to 1 + 2^-6
    x = np.array([[1 + 2**-8, 1 + 3 * 2**-8, -3.0, 1e-30, 7.5, 250.0, 65520.0, 1e6]], dtype=np.float32)
    bf, h, e5, e4 = run(body, x)
    assert bf.dtype == np.float32 and h.dtype == np.float16
    assert bf[0, :3].tolist() == [1.0, 1 + 2**-6, -3.0]
    with np.errstate(over="ignore"):
        assert np.array_equal(h, x.astype(np.float16))
    # e5m2: 3 significant bits; 7.5 ties to 8; max 57344, beyond it infinity
    assert e5[0, :5].tolist() == [1.0, 1.0, -3.0, 0.0, 8.0] and np.isinf(e5[0, 7])
    # e4m3 (legacy, IEEE-style): 4 significant bits, max 240; 250 rounds to 256 -> infinity
    assert e4[0, 4] == 7.5 and np.isinf(e4[0, 5])


def test_isa_activation_and_tensor_tensor():
    body = """
    @nki.jit
    def kernel(x, bias):
        out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.load(x)
        b = nl.load(bias)
        act = nisa.activation(nl.exp, t, bias=b, scale=0.5)
        nl.store(out, nisa.tensor_tensor(act, t, nl.multiply))
        return out
    """
    x = np.random.default_rng(8).standard_normal((128, 16)).astype(np.float32)
    bias = np.random.default_rng(9).standard_normal((128, 1)).astype(np.float32)
    assert np.allclose(run(body, x, bias), np.exp(x * 0.5 + bias) * x, rtol=1e-6)


# ------------------------------------------------------------------------------------------ the package


def test_run_file_restores_sys_modules(tmp_path):
    assert "neuronxcc" not in sys.modules
    path = tmp_path / "gemm.py"
    path.write_text(HEADER + textwrap.dedent(GEMM))
    lhsT, rhs = ints((128, 128), np.float16), ints((128, 512), np.float16)
    out = nki_interp.run_file(path, "kernel", lhsT, rhs)
    assert np.array_equal(out.astype(np.float32), lhsT.astype(np.float32).T @ rhs.astype(np.float32))
    assert not [name for name in sys.modules if name.startswith("neuronxcc")]


NO_NATIVE = '''
import sys
import numpy as np


class Block:
    def find_spec(self, name, path=None, target=None):
        if name == "axe._native":
            raise ImportError("blocked")


sys.meta_path.insert(0, Block())
import axe.nki

assert "axe._native" not in sys.modules
SOURCE = """
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

@nki.jit
def k(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, nl.exp(nl.load(a)))
    return out
"""
assert (axe.nki.run(SOURCE, "k", np.zeros((4, 8), np.float32)) == 1).all()
print("ok")
'''


def test_import_works_without_the_native_module():
    # a fresh interpreter where importing axe._native fails, as where the compiled extension is not built
    env = dict(os.environ, PYTHONPATH=str(Path(nki_interp.__file__).parents[2]))
    done = subprocess.run([sys.executable, "-c", NO_NATIVE], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_mutable_parameter_is_written_and_returned():
    body = """
    import neuronxcc.nki.typing as nt

    @nki.jit
    def kernel(a: nt.mutable_tensor):
        out = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.shared_hbm)
        x = nl.load(a)
        nl.store(a, nl.multiply(x, 3, dtype=nl.float32))
        nl.store(out, x)
        return {ret}
    """
    a = ints((128, 4), np.float32)
    out, a3 = run(body.format(ret="out, a"), a)
    assert np.array_equal(out, a) and np.array_equal(a3, a * 3)
    assert np.array_equal(a, ints((128, 4), np.float32))  # the caller's array is not written
    assert "(input a) is not returned" in refused("output", body.format(ret="out"), a)


def test_api_outside_a_kernel():
    from axe.nki import language as nl

    with pytest.raises(NkiError) as e:
        nl.zeros((128, 4), nl.float32)
    assert e.value.rule == "outside-kernel"
