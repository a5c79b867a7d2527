"""bench/gemm_rs_overlap.py's pipeline arithmetic on a case worked by hand (issue 29's overlap model): the figures
it prints are this arithmetic on stated inputs, so the arithmetic is what is tested."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("gemm_rs_overlap", ROOT / "bench" / "gemm_rs_overlap.py")
overlap = importlib.util.module_from_spec(spec)
spec.loader.exec_module(overlap)


def test_the_port_drains_after_the_compute_when_sending_is_slower():
    # 4 tiles of 1 s, the first 3 sent at 2 s each: sent 1..3, 3..5, 5..7; computed by 4; one add of 0.5 after 7.
    assert overlap.pipeline(4, 3, 1.0, 2.0, 0.5) == 7.5


def test_sending_faster_than_computing_hides_all_but_the_last_add():
    # Tiles sent 1..1.5, 2..2.5, 3..3.5 while the 4th computes until 4: ready at 4.25.
    assert overlap.pipeline(4, 3, 1.0, 0.5, 0.25) == 4.25


def test_the_model_counts_bytes_and_the_hidden_fraction():
    chip = overlap.Chip("toy", tflops=2 * 128 * 256 * 64 / 1e12, nvlink=128 * 256 * 2 / 1e9, hbm=1e9)
    # 2 ranks, 256 tokens, N = 256, K = 128: K/w = 64, so each of the 2 tiles computes in 1 s at e_mma = 1 and each
    # remote tile (1 of the 2) sends in 1 s at e_link = 1; adds are free (hbm huge).
    r = overlap.model(chip, 2, 256, 256, 128, 2, e_mma=1.0, e_link=1.0)
    assert r.bytes_sent == 128 * 256 * 2
    assert (round(r.compute, 9), round(r.comm, 9)) == (2.0, 1.0)
    # The remote tile is computed first (1 s), sent 1..2 while the own tile computes 1..2: fully hidden.
    assert round(r.fused, 6) == 2.0 and round(r.hidden, 6) == 1.0
    assert round(r.sequential, 6) == 3.0
