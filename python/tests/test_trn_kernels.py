"""The Trainium examples end to end (issue 30): `axe-translate --emit=nki` prints the checked-in kernels
(examples/trn/*.py), and the NKI interpreter (axe.nki, written from AWS's NKI documentation, not from the emitter)
runs them against numpy: the GEMM exactly on integer data, attention within a stated tolerance. Mutants of the
emitted kernels (an accumulation dropped, a tile loaded transposed, a PSUM tile past its bank, a tile past the
partitions, a carried loop made affine, a missing softmax correction, V's blocks loaded over each other, the
software pipeline's stages swapped or its epilogue dropped) are caught by the interpreter's rules or its
numbers; mutants of the IR that the planners refuse are in test/Target/nki-invalid.test."""

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import axe.nki as nki
from axe.nki import NkiError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def _translate():
    """axe-translate beside $AXE_LAYOUT (scripts/test-python.sh sets it), else target/debug's."""
    given = os.environ.get("AXE_LAYOUT")
    path = Path(given).parent / "axe-translate" if given else ROOT / "target" / "debug" / "axe-translate"
    if not os.access(path, os.X_OK):
        if given:
            pytest.fail(f"{path} is not an executable (AXE_LAYOUT={given})")
        pytest.skip("axe-translate not built (cargo build -p axe-mlir)")
    return str(path)


def kernel_text(name):
    return (EXAMPLES / "trn" / f"{name}.py").read_text()


@pytest.mark.parametrize("name", ["gemm_trn1", "attention_trn1"])
def test_the_emitter_prints_the_checked_in_kernel(name):
    out = subprocess.run([_translate(), "--emit=nki", str(EXAMPLES / f"{name}.mlir")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout == kernel_text(name)


def gemm_inputs(seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (1024, 1024)).astype(np.float16)  # A [M, K]
    b = rng.integers(-3, 4, (1024, 2048)).astype(np.float16)  # B [K, N]
    # The kernel takes A K-major (the example's layout S[(1024,1024):(1,1024)]): the array A^T.
    return a, b, np.ascontiguousarray(a.T)


def run_gemm(source):
    a, b, a_t = gemm_inputs()
    c = nki.run(source, "gemm_trn1", a_t, b)
    # Products and sums of integers below 2^11 are exact in f32, and |C| <= 3 * 3 * 1024 fits f16 exactly; the
    # reference in float64 (BLAS; an int64 product is numpy's slow loop) is exact too.
    return c, (a.astype(np.float64) @ b.astype(np.float64)).astype(np.int64)


def test_gemm_is_exact():
    c, ref = run_gemm(kernel_text("gemm_trn1"))
    assert c.dtype == np.float16 and c.shape == (1024, 2048)
    assert np.abs(ref).max() < 2048
    np.testing.assert_array_equal(c.astype(np.int64), ref)


def attention_inputs(seed=1):
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((2, 512, 64)).astype(np.float16) for _ in range(3))
    return q, k, v


def run_attention(source):
    q, k, v = attention_inputs()
    # The kernel takes Q d-major per head (the array [h, d, s]) and K^T ([h, d, s]), as its docstring says.
    args = (np.ascontiguousarray(q.transpose(0, 2, 1)), np.ascontiguousarray(k.transpose(0, 2, 1)), v)
    o = nki.run(source, "attention_trn1", *args)
    q64, k64, v64 = (x.astype(np.float64) for x in (q, k, v))
    s = q64 @ k64.transpose(0, 2, 1) / np.sqrt(64)
    p = np.exp(s - s.max(-1, keepdims=True))
    return o, (p / p.sum(-1, keepdims=True)) @ v64


# The tolerance: P is rounded to f16 before P V (relative 2^-11 per weight, the weights summing to 1 and |V| < 5),
# and O to f16 (|O| < 1: half an ulp is 2^-12); exp and the sums run in f32. 2e-3 absolute bounds both with room;
# the mutants below miss it by orders of magnitude.
ATTENTION_ATOL = 2e-3


def test_attention_matches_numpy():
    o, ref = run_attention(kernel_text("attention_trn1"))
    assert o.dtype == np.float16 and o.shape == (2, 512, 64)
    err = np.abs(o.astype(np.float64) - ref).max()
    assert err < ATTENTION_ATOL, err


def mutate(text, old, new):
    assert text.count(old) == 1, old
    return text.replace(old, new)


def test_gemm_mutants_fail():
    text = kernel_text("gemm_trn1")
    # The accumulation over K dropped: each K iteration overwrites the PSUM tile the one before wrote, which an
    # affine (independent) loop may not do.
    with pytest.raises(NkiError, match="affine_range"):
        run_gemm(mutate(text, "acc += nisa.nc_matmul", "acc[...] = nisa.nc_matmul"))
    # A's tile with M on the partitions (K on the free axis): the engine contracts over M instead.
    c, ref = run_gemm(mutate(text, "sa[...] = nl.load(a[", "sa[...] = nl.load_transpose2d(a["))
    assert not np.array_equal(c.astype(np.int64), ref)
    # B's K tile from the wrong rows.
    c, ref = run_gemm(mutate(text, "nl.load(b[k * 128 : k * 128 + 128", "nl.load(b[i * 128 : i * 128 + 128"))
    assert not np.array_equal(c.astype(np.int64), ref)


def test_gemm_hardware_mutants_are_refused():
    text = kernel_text("gemm_trn1")
    # A PSUM tile over its 2 KiB bank (1024 f32 per partition).
    with pytest.raises(NkiError, match="bank"):
        run_gemm(mutate(text, "acc = nl.zeros((128, 512)", "acc = nl.zeros((128, 1024)"))
    # A load past the last partition (129 rows of A^T into a 128-partition tile).
    with pytest.raises(NkiError):
        run_gemm(mutate(text, "a[k * 128 : k * 128 + 128, i", "a[k * 128 : k * 128 + 129, i"))
    # A stationary operand wider than the engine's 128.
    with pytest.raises(NkiError, match="stationary"):
        run_gemm(
            mutate(
                mutate(text, "sa = nl.ndarray((128, 128)", "sa = nl.ndarray((128, 256)"),
                "i * 128 : i * 128 + 128])\n",
                "i * 128 : i * 128 + 256])\n",
            )
        )


def test_attention_mutants_fail():
    text = kernel_text("attention_trn1")
    wrong = lambda o, ref: np.abs(o.astype(np.float64) - ref).max() > 100 * ATTENTION_ATOL  # noqa: E731
    # The running max, sum and accumulator carried across K/V tiles: an affine (independent) loop is refused.
    with pytest.raises(NkiError):
        run_attention(mutate(text, "nl.sequential_range(3)", "nl.affine_range(3)"))
    # The accumulator not rescaled when the running max moves.
    assert wrong(*run_attention(mutate(text, "acc[...] = nl.multiply(acc, correction", "acc[...] = nl.multiply(acc, 1.0")))
    # The softmax scale left out (in the pipelined loop).
    assert wrong(*run_attention(mutate(text, "s[...] = nl.multiply(scores, 0.125", "s[...] = nl.multiply(scores, 1.0")))
    # V's blocks all loaded into the first block's place: the affine loop's iterations overwrite each other.
    with pytest.raises(NkiError, match="affine_range"):
        run_attention(mutate(text, "v_all[0:128, b * 64 : b * 64 + 64] =", "v_all[0:128, 0:64] ="))
    # The pipeline's next scores from this K tile instead of the next one.
    next_tile = "k_all[0:64, (j + 1) * 128 : (j + 1) * 128 + 128]"
    assert wrong(*run_attention(mutate(text, next_tile, "k_all[0:64, j * 128 : j * 128 + 128]")))
    # The stages swapped: the next tile's scores overwrite this tile's before they are read.
    scale = "                s[...] = nl.multiply(scores, 0.125, dtype=nl.float32)\n"
    scores = f"                scores[...] = nisa.nc_matmul(q_tile, {next_tile})\n"
    assert wrong(*run_attention(mutate(text, scale + scores, scores + scale)))
    # The epilogue (the last K/V tile's softmax) dropped.
    assert wrong(*run_attention(mutate(text, "online_softmax(s_last, v_all, 3, m, l, acc)", "pass")))
    # P V with P not transposed (queries on the partitions, contracting over queries).
    o, ref = run_attention(mutate(text, "nl.copy(nisa.nc_transpose(p16), dtype=nl.float16)", "nl.copy(p16)"))
    assert wrong(o, ref)
