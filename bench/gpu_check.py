#!/usr/bin/env python3
"""The GPU check (scripts/gpu-check.sh): every example kernel a Hopper GPU can run, launched through the axe
Python package's GPU path, checked against torch.matmul and timed against cuBLAS and Triton. One table.

Kernels (compiled beforehand: `scripts/gpu-check.sh --prepare` writes PTX, cubins and launch records to
target/gpu-check/; this script needs no compiler, only PyTorch, the CUDA driver and optionally Triton):
  gemm_sm90a  examples/gemm_sm90a.mlir: TMA + wgmma, 128x128x64 tiles, 3 stages, one warpgroup (cubin for sm_90a)
  gemm_sm90a_ws  examples/gemm_sm90a_ws.mlir: warp-specialized and persistent (one CTA per SM: the launch
              record's grid is min(tiles, sm_count), the driver's SM count), a TMA producer warp and two wgmma
              consumer warpgroups on 128x256x64 tiles, 4 stages (cubin for sm_90a)
  gemm_sm80   examples/gemm_sm80.mlir: cp.async + ldmatrix + mma.sync, the same tiles (PTX for sm_80, assembled
              for sm_90 by ptxas beforehand; the driver compiles the PTX itself when that cubin does not load)
  tma_copy    examples/tma_copy.mlir: a 128x64 f16 tile through 128B-swizzled shared memory and back

Checks, per kernel and shape:
  exact    entries in -2..2 (f16), C pre-filled with a sentinel: every element of C equals A @ B computed in
           float64 (every sum is an integer below 2^11, exact in f16), also where a tile is partial.
  random   standard normal f16 entries: max over C of |C - A @ B| / (|A| @ |B|) (float64 reference) must stay
           below 2^-10 (f16 rounding of the output is 2^-11 relative; f32 accumulation adds about K * 2^-24);
           torch.matmul's figure on the same data is printed beside it.
  refused  arguments that break the launch record raise axe.LaunchError before any launch.
Timing: CUDA events around each launch (prepared launches: checks and tensor maps done once), 10 warm-up
launches, the median of 50; TFLOP/s = 2 M N K / time. Square shapes, then M = 8192 tokens through the weight
shapes (N, K) of Llama-3.1-8B/70B and Qwen3-8B/32B (fused QKV, attention output, fused gate/up, down; sm_80
kernel left out there). Peers in the same run: torch.matmul (cuBLAS), Triton's
matmul at Axe's configuration (128x128x64, 4 warps, 3 stages) and at a tuned one (128x256x64, 8 warps, 3 stages),
and Triton's persistent warp-specialized matmul at gemm_sm90a_ws's (128x256x64, a warpgroup each for the producer
and two consumers, 3 stages: its two 32 KB C tiles leave no room for a fourth). Then the FP8 kernels
(gemm_fp8_sm90a, gemm_fp8_blockscaled_sm90a: bench/gpu_check_fp8.py says how they are checked and against what
they are timed) on the same shapes.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

import torch  # noqa: E402

import axe  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
import gpu_check_fp8  # noqa: E402

try:
    import triton_order  # the Triton peers' launch order (a module global: Triton resolves a kernel's names there)
except ImportError:  # no Triton: the peers are left out
    triton_order = None

EXACT_SHAPES = [(128, 128, 64), (256, 384, 192), (144, 272, 80), (1024, 1024, 512), (528, 1040, 400)]
RANDOM_SHAPES = [(512, 512, 512), (2048, 2048, 2048), (4096, 4096, 4096)]
TIMED_SHAPES = [(2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192)]
# (model, layer, N, K) from the models' configs: hidden size h, intermediate size i, query heads x head dim q,
# key/value heads x head dim kv. QKV: N = q + 2 kv, K = h; output: N = h, K = q; gate/up: N = 2 i, K = h; down:
# N = h, K = i. Llama-3.1-8B h 4096 i 14336 q 4096 kv 1024; Llama-3.1-70B h 8192 i 28672 q 8192 kv 1024;
# Qwen3-8B h 4096 i 12288 q 4096 kv 1024; Qwen3-32B h 5120 i 25600 q 8192 kv 1024.
MODEL_M = 8192
MODEL_SHAPES = [
    ("Llama-3.1-8B", "qkv", 6144, 4096), ("Llama-3.1-8B", "o", 4096, 4096),
    ("Llama-3.1-8B", "gate_up", 28672, 4096), ("Llama-3.1-8B", "down", 4096, 14336),
    ("Llama-3.1-70B", "qkv", 10240, 8192), ("Llama-3.1-70B", "o", 8192, 8192),
    ("Llama-3.1-70B", "gate_up", 57344, 8192), ("Llama-3.1-70B", "down", 8192, 28672),
    ("Qwen3-8B", "qkv", 6144, 4096), ("Qwen3-8B", "gate_up", 24576, 4096), ("Qwen3-8B", "down", 4096, 12288),
    ("Qwen3-32B", "qkv", 10240, 5120), ("Qwen3-32B", "o", 5120, 8192),
    ("Qwen3-32B", "gate_up", 51200, 5120), ("Qwen3-32B", "down", 5120, 25600),
]
TOLERANCE = 2.0**-10
# The FP8 kernels (bench/gpu_check_fp8.py), checked and timed when their artifacts exist.
FP8_KERNELS = ["gemm_fp8_sm90a", "gemm_fp8_blockscaled_sm90a"]


def environment():
    lines = [f"GPU: {torch.cuda.get_device_name()} (sm_{''.join(map(str, torch.cuda.get_device_capability()))})"]
    version = ctypes.c_int()
    ctypes.CDLL("libcuda.so.1").cuDriverGetVersion(ctypes.byref(version))
    lines.append(f"CUDA driver {version.value // 1000}.{version.value % 1000 // 10}, torch {torch.__version__}")
    try:
        import triton

        lines.append(f"triton {triton.__version__}")
    except Exception as e:  # noqa: BLE001
        lines.append(f"triton: not importable ({e})")
    return "; ".join(lines)


def load(artifacts: Path, name: str, chip: str, cubin_arch: str):
    record = artifacts / f"{name}.{chip}.launch.json"
    ptx = artifacts / f"{name}.{chip}.ptx"
    cubin = artifacts / f"{name}.{cubin_arch}.cubin"
    return axe.load(record, ptx=ptx, cubin=cubin if cubin.exists() else None)


class Hung(Exception):
    """A kernel that did not finish within the deadline (a barrier that never completes): the GPU stays busy
    with it, so the run prints what it has and stops."""


def wait(seconds=20.0):
    """torch.cuda.synchronize() with a deadline."""
    event = torch.cuda.Event()
    event.record()
    deadline = time.time() + seconds
    while not event.query():
        if time.time() > deadline:
            raise Hung(f"no completion after {seconds:.0f} s")
        time.sleep(0.001)


def small(shape, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return torch.randint(-2, 3, shape, generator=g, device="cuda").to(torch.float16)


def gemm_exact(kernel, m, n, k):
    a, b = small((m, k), 1), small((k, n), 2)
    c = torch.full((m, n), -1000.0, dtype=torch.float16, device="cuda")
    kernel(a, b, c, m, n, k)
    wait()
    want = (a.double() @ b.double()).half()
    bad = (c != want).sum().item()
    return bad == 0, f"{bad} of {m * n} wrong" if bad else "exact"


def gemm_random(kernel, m, n, k):
    g = torch.Generator(device="cuda").manual_seed(m + n + k)
    a = torch.randn((m, k), generator=g, device="cuda").half()
    b = torch.randn((k, n), generator=g, device="cuda").half()
    c = torch.empty((m, n), dtype=torch.float16, device="cuda")
    kernel(a, b, c, m, n, k)
    wait()
    exact = a.double() @ b.double()
    scale = a.double().abs() @ b.double().abs()
    err = ((c.double() - exact).abs() / scale.clamp_min(1e-30)).max().item()
    ref = ((torch.matmul(a, b).double() - exact).abs() / scale.clamp_min(1e-30)).max().item()
    return err <= TOLERANCE, f"{err:.2e} (cuBLAS {ref:.2e})"


def refusals(kernel, chip):
    """Arguments that break the record; each must raise LaunchError (nothing is launched)."""
    m, n, k = 256, 256, 128
    a = torch.zeros((m, k), dtype=torch.float16, device="cuda")
    b = torch.zeros((k, n), dtype=torch.float16, device="cuda")
    c = torch.zeros((m, n), dtype=torch.float16, device="cuda")
    cases = {
        "K = 20": (a[:, :20].contiguous(), b[:20].contiguous(), c, m, n, 20),
        "M != rows of A": (a, b, c, m + 16, n, k),
        "A float32": (a.float(), b, c, m, n, k),
        "A on the host": (a.cpu(), b, c, m, n, k),
        "A misaligned": (torch.zeros(m * k + 1, dtype=torch.float16, device="cuda")[1:].view(m, k), b, c, m, n, k),
    }
    results = []
    for what, args in cases.items():
        try:
            kernel(*args, device="gpu")
            wait()
            results.append(f"{what}: NOT refused")
        except axe.LaunchError as e:
            results.append(f"{what}: LaunchError ({e.precondition or e.message.split(',')[0][:60]})")
    ok = all("NOT" not in r for r in results)
    return ok, "; ".join(results)


def tma_copy_check(kernel):
    src = torch.arange(128 * 64, device="cuda", dtype=torch.float32).remainder(2048).half().view(128, 64)
    dst = torch.full_like(src, -1.0)
    kernel(src, dst, grid=(1, 1, 1))
    wait()
    bad = (dst != src).sum().item()
    return bad == 0, "exact" if bad == 0 else f"{bad} of {src.numel()} wrong"


def time_it(fn, warmup=10, reps=50):
    for _ in range(warmup):
        fn()
    wait(60.0)
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def triton_matmul(config):
    import triton
    import triton.language as tl

    @triton.jit
    def kernel(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
        pid_m, pid_n = triton_order.grouped_tile(tl.program_id(0), M, N, BM, BN, GROUP)
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, tl.cdiv(K, BK)):
            kk = k0 * BK + rk
            x = tl.load(a + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
            y = tl.load(b + kk[:, None] * N + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(x, y, acc)
        tl.store(c + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))

    bm, bn, bk, warps, stages = config

    def run(a, b, c, m, n, k):
        grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
        kernel[grid](a, b, c, m, n, k, BM=bm, BN=bn, BK=bk, GROUP=8, num_warps=warps, num_stages=stages)

    return run


def triton_persistent(config):
    """Triton's persistent, warp-specialized matmul at Axe's gemm_sm90a_ws configuration: one program per SM, each
    walking the tiles program_id, program_id + SMs, ... in grouped order, the tile loop warp-specialized (4 warps
    per warpgroup: a producer and two consumers), descriptors made in the kernel (their scratch memory from
    torch through triton.set_allocator), as bench/gemm_vs_triton.py compiles it without a GPU."""
    import triton
    import triton.language as tl

    @triton.jit
    def kernel(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, SMS: tl.constexpr,
               GROUP: tl.constexpr):
        a_desc = tl.make_tensor_descriptor(a, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
        b_desc = tl.make_tensor_descriptor(b, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
        c_desc = tl.make_tensor_descriptor(c, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
        tiles = tl.cdiv(M, BM) * tl.cdiv(N, BN)
        for tile in tl.range(tl.program_id(0), tiles, SMS, warp_specialize=True):
            pid_m, pid_n = triton_order.grouped_tile(tile, M, N, BM, BN, GROUP)
            acc = tl.zeros((BM, BN), dtype=tl.float32)
            for k0 in range(0, tl.cdiv(K, BK)):
                acc = tl.dot(a_desc.load([pid_m * BM, k0 * BK]), b_desc.load([k0 * BK, pid_n * BN]), acc)
            c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))

    triton.set_allocator(lambda size, alignment, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    bm, bn, bk, warps, stages = config

    def run(a, b, c, m, n, k):
        grid = (min(sms, triton.cdiv(m, bm) * triton.cdiv(n, bn)),)
        kernel[grid](a, b, c, m, n, k, BM=bm, BN=bn, BK=bk, SMS=sms, GROUP=8, num_warps=warps, num_stages=stages)

    return run


def print_rows(rows):
    print("| check | kernel | M x N x K | result | detail |")
    print("|---|---|---|---|---|")
    for check, name, shape, ok, detail in rows:
        print(f"| {check} | {name} | {shape} | {'PASS' if ok else 'FAIL'} | {detail} |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--artifacts", default=str(ROOT / "target" / "gpu-check"))
    parser.add_argument("--quick", action="store_true", help="one exact shape per kernel, one timed shape")
    args = parser.parse_args()
    artifacts = Path(args.artifacts)
    started = time.time()
    print(environment())
    kernels = {
        "gemm_sm90a": load(artifacts, "gemm_sm90a", "sm_90a", "sm_90a").kernel,
        "gemm_sm90a_ws": load(artifacts, "gemm_sm90a_ws", "sm_90a", "sm_90a").kernel,
        "gemm_sm80": load(artifacts, "gemm_sm80", "sm_80", "sm_90").kernel,
    }
    tma = load(artifacts, "tma_copy", "sm_90a", "sm_90a").kernel
    exact_shapes = EXACT_SHAPES[:1] if args.quick else EXACT_SHAPES
    random_shapes = RANDOM_SHAPES[:1] if args.quick else RANDOM_SHAPES
    timed_shapes = TIMED_SHAPES[1:2] if args.quick else TIMED_SHAPES

    rows = []  # (check, kernel, shape, ok, detail)

    def record(check, name, shape, fn):
        try:
            ok, detail = fn()
        except Hung as e:
            rows.append((check, name, shape, False, f"hung: {e}"))
            print_rows(rows)
            print("gpu-check: a kernel hung; stopping", flush=True)
            os._exit(2)
        except Exception as e:  # noqa: BLE001  (a failure is a row, and the run goes on)
            ok, detail = False, f"{type(e).__name__}: {e}"
            traceback.print_exc()
        rows.append((check, name, shape, ok, detail))
        print(f"  {check} {name} {shape}: {'PASS' if ok else 'FAIL'} {detail}", flush=True)

    record("exact", "tma_copy", "128x64", lambda: tma_copy_check(tma))
    for name, kernel in kernels.items():
        for m, n, k in exact_shapes:
            record("exact", name, f"{m}x{n}x{k}", lambda: gemm_exact(kernel, m, n, k))
        for m, n, k in random_shapes:
            record("random", name, f"{m}x{n}x{k}", lambda: gemm_random(kernel, m, n, k))
        record("refused", name, "", lambda: refusals(kernel, kernel.module.chip))
    loaded = {name: k._cuda.loaded_from if k._cuda else None for name, k in kernels.items()}

    peers = {"cuBLAS (torch.matmul)": lambda a, b, c, m, n, k: torch.matmul(a, b, out=c)}
    try:
        peers["Triton 128x128x64 w4 s3"] = triton_matmul((128, 128, 64, 4, 3))
        peers["Triton 128x256x64 w8 s3"] = triton_matmul((128, 256, 64, 8, 3))
        peers["Triton persistent ws 128x256x64 w4 s3"] = triton_persistent((128, 256, 64, 4, 3))
    except Exception as e:  # noqa: BLE001
        print(f"Triton unavailable: {e}")
    timings = []  # (shape, impl, ms, tflops)
    timed = [(f"{m}x{n}x{k}", m, n, k, list(kernels)) for m, n, k in timed_shapes]
    if not args.quick:
        timed += [
            (f"{model} {layer} {MODEL_M}x{n}x{k}", MODEL_M, n, k, [x for x in kernels if x != "gemm_sm80"])
            for model, layer, n, k in MODEL_SHAPES
        ]
    for label, m, n, k, names in timed:
        a = torch.randn((m, k), device="cuda").half()
        b = torch.randn((k, n), device="cuda").half()
        c = torch.empty((m, n), dtype=torch.float16, device="cuda")
        flops = 2.0 * m * n * k
        for name in names:
            try:
                launch = kernels[name].prepare(a, b, c, m, n, k)
                ms = time_it(launch.launch)
                timings.append((label, f"Axe {name}", ms, flops / ms / 1e9))
            except Exception as e:  # noqa: BLE001
                timings.append((label, f"Axe {name}", float("nan"), float("nan")))
                print(f"timing {name}: {e}")
        for name, fn in peers.items():
            try:
                ms = time_it(lambda: fn(a, b, c, m, n, k))
                timings.append((label, name, ms, flops / ms / 1e9))
            except Exception as e:  # noqa: BLE001
                print(f"timing {name}: {e}")
        del a, b, c

    fp8_kernels = {
        name: load(artifacts, name, "sm_90a", "sm_90a").kernel
        for name in FP8_KERNELS
        if (artifacts / f"{name}.sm_90a.launch.json").exists()
    }
    exact_fp8 = {"gemm_fp8_sm90a": gpu_check_fp8.per_tensor_exact,
                 "gemm_fp8_blockscaled_sm90a": gpu_check_fp8.blockscaled_exact}
    for name, kernel in fp8_kernels.items():
        for m, n, k in exact_shapes:
            record("exact", name, f"{m}x{n}x{k}", lambda: exact_fp8[name](kernel, wait, m, n, k))
    fp8_timed = [(f"{m}x{n}x{k}", m, n, k) for m, n, k in timed_shapes]
    if not args.quick:
        fp8_timed += [(f"{model} {layer} {MODEL_M}x{n}x{k}", MODEL_M, n, k) for model, layer, n, k in MODEL_SHAPES]
    fp8_peers = gpu_check_fp8.peers() if fp8_kernels else {}
    for label, m, n, k in fp8_timed if fp8_kernels else []:
        a = torch.randn((m, k), device="cuda").to(torch.float8_e4m3fn)
        bt = torch.randn((n, k), device="cuda").to(torch.float8_e4m3fn)
        c = torch.empty((m, n), dtype=torch.bfloat16, device="cuda")
        flops = 2.0 * m * n * k
        for name, prepare in gpu_check_fp8.implementations(fp8_kernels).items():
            try:
                ms = time_it(prepare(a, bt, c, m, n, k).launch)
                timings.append((f"FP8 {label}", name, ms, flops / ms / 1e9))
            except Exception as e:  # noqa: BLE001
                timings.append((f"FP8 {label}", name, float("nan"), float("nan")))
                print(f"timing {name}: {e}")
        for name, fn in fp8_peers.items():
            try:
                ms = time_it(lambda: fn(a, bt, c, m, n, k))
                timings.append((f"FP8 {label}", name, ms, flops / ms / 1e9))
            except Exception as e:  # noqa: BLE001
                print(f"timing {name}: {e}")
        del a, bt, c

    print()
    print(f"loaded from: {json.dumps(loaded)}")
    print()
    print_rows(rows)
    print()
    print("| M x N x K | implementation | median ms | TFLOP/s |")
    print("|---|---|---|---|")
    for shape, impl, ms, tflops in timings:
        print(f"| {shape} | {impl} | {ms:.3f} | {tflops:.1f} |")
    failed = sum(1 for r in rows if not r[3])
    print()
    print(f"gpu-check: {len(rows) - failed} passed, {failed} failed in {time.time() - started:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
