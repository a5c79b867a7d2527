#!/usr/bin/env python3
"""Axe next to Triton 3.9 on the TMA copy and the GEMM kernels, one table, one run (no GPU needed).

The jobs, the same on both sides:
  tma_copy     128x64 f16 tile: TMA load into 128B-swizzled shared memory, TMA store (sm_90a).
  gemm_sm80    C[M,N] f16 = A[M,K] @ B[K,N] (f16 row-major, f32 accumulation), 128x128x64 tiles, 3 stages,
               4 warps; Axe: examples/gemm_sm80.mlir (cp.async + ldmatrix + mma.sync); Triton: the canonical
               pointer matmul (masked tl.load, tl.dot), which Triton pipelines with cp.async on sm_80.
  gemm_sm90a   the same job on sm_90a; Axe: examples/gemm_sm90a.mlir (TMA + wgmma, one warpgroup = 4 warps);
               Triton: tensor descriptors (desc.load / desc.store), 4 warps, num_stages=3.
  gemm_sm100a  the same job on sm_100a; Axe: examples/gemm_sm100a.mlir (TMA + tcgen05, accumulator in tensor
               memory, 4 warps); Triton: the sm_90a kernel compiled for sm_100.
  gemm_sm90a_ws  the job on 128x256x64 tiles, warp-specialized; Axe: examples/gemm_sm90a_ws.mlir (persistent: a
               TMA producer warp, two wgmma consumer warpgroups: 12 warps, 4 stages); Triton: the descriptor matmul
               at the same tile with its K loop warp-specialized (`tl.range(..., warp_specialize=True)`), 8 warps
               (meant as the consumers, but at 8 warps Triton does not specialize: see below), 3 stages. Axe's roles
               set register budgets (consumers 232, producer warpgroup 40, from 168 at entry); this kernel's do not.
               A third row, `triton 3.9 persistent`, is Triton's persistent form of Axe's kernel (gemm_persistent):
               grid (NUM_SMS,) with NUM_SMS = 132 (H100 SXM), each program walking the tiles program_id,
               program_id + NUM_SMS, ... in grouped order (8 tile rows a group), the tile loop warp-specialized,
               descriptors made in the kernel (tl.make_tensor_descriptor), 3 stages (at 4 its ring and two 32 KB C
               staging tiles would take 262760 bytes, over sm_90a's 227 KB), num_warps=4: Triton 3.9
               warp-specializes on sm_90a only at num_warps=4, taken per warpgroup (a producer warpgroup and two
               consumer warpgroups, 12 warps: Axe's 384 threads). At 8 warps it compiles the loop unspecialized (as
               in the row above); with host-made descriptors at 4 warps it refuses the kernel (it splits the A box
               between the consumers, a host descriptor's box is fixed); `tl.range(..., flatten=True)` on the tile
               loop fuses the loops and drops the warp specialization.
  gemm_fp8_sm90a  C[M,N] bf16 = scale_a * scale_b * (A[M,K] @ B[K,N]), A and B FP8 e4m3 (f32 accumulation),
               B given as its transpose Bt[N,K] (both operands K-major, as 8-bit wgmma requires), scale_a and
               scale_b f32 kernel arguments, 128x128x128 tiles, 3 stages, 4 warps (sm_90a); Axe:
               examples/gemm_fp8_sm90a.mlir (TMA + wgmma, one warpgroup); Triton: gemm_fp8, the descriptor matmul
               on host-made descriptors over A and Bt (fp8e4nv, [128, 128] boxes), `tl.dot(a, bt.T, acc)`, the
               scaled accumulator stored as bf16 through a C descriptor.
  gemm_fp8_sm100a  the FP8 job on sm_100a: Axe: examples/gemm_fp8_sm100a.mlir (TMA + tcgen05.mma kind::f8f6f4,
               the accumulator in tensor memory); Triton: gemm_fp8 compiled for sm_100a.
  gemm_fp8_blockscaled_sm90a  the FP8 job with DeepGEMM's block scales (A per row per 128 K, B per 128x128
               block, f32): each 128-K block into a fresh f32 tile, promoted with its scales; Axe:
               examples/gemm_fp8_blockscaled_sm90a.mlir (warp-specialized and persistent: a producer warp, two
               consumer warpgroups, 4 stages, 384 threads); Triton: gemm_fp8_blockscaled, the descriptor matmul
               with `part = tl.dot(a, bt.T)` per K block and `acc += part * (sa * sb)[:, None]`, 8 warps.
M, N, K are i32 kernel arguments; Triton specializes them (and the pointers) with divisibility 16, as its JIT does
for multiples of 16. What Triton actually emitted is read from its PTX and printed under the table (e.g. TMA /
wgmma / tcgen05 / cp.async / ldmatrix / mma.sync counts).

Columns:
  compile ms   median end-to-end compile to PTX. Axe: `axe-opt <passes> | axe-translate --emit=ptx` as processes
               (release tools, the passes of scripts/run-example.sh); Triton: `triton.compile` in process, cache
               disabled (TRITON_ALWAYS_COMPILE=1), after one warm-up.
  fresh ms     median wall time of a fresh process. Axe: the same pipeline (it is always a fresh process); Triton:
               a new Python that imports Triton and compiles the kernel once.
  ptxas ms     median wall time of the same ptxas (below) assembling that PTX. Triton's compile ms includes its
               own ptxas run (PTX to cubin) and Axe's stops at PTX: Axe to a cubin is compile + ptxas ms.
  PTX          PTX instructions in the kernel body (bench/tma_copy_vs_triton.py's count).
  regs, spill  ptxas -v registers and spill stores+loads bytes; both sides' PTX through the same ptxas; a kernel
               with warp roles shows its setmaxnreg budgets after the count at entry: 168 (232/40)
               (.venv, CUDA 13) with the same -arch (sm_80, sm_90a, sm_100a).
  SASS         instructions in `cuobjdump -sass` of that cubin, NOP padding excluded.
  loop SASS    instructions of the K loop's body: the backward branch (BRA to a lower address) whose span
               [target, branch] holds a tensor-core MMA (HMMA, HGMMA, QGMMA, UTC*MMA), no EXIT and no store to global
               memory, the widest such span (the outermost loop around the MMAs that is not a persistent kernel's
               tile loop, whose epilogue stores; an out-of-line mbarrier retry block after the kernel's EXIT also
               branches back into the loop, but its span holds the EXIT); NOPs excluded, the static count
               (spin-wait loops inside the body count once).
  smem         static + dynamic shared memory bytes: static from ptxas -v, dynamic from Axe's launch record
               (axe-translate --emit=launch) and from Triton's metadata (`shared`, which includes its static part:
               Triton declares only a dynamic window, so its static part is 0).

What Triton 3.9 emitted when this was written (the run prints it again from the PTX):
  sm_80    cp.async (zero-fill masks) + ldmatrix + mma.sync; num_stages=3 keeps 2 A+B buffers in shared memory (64 KB),
           the A and B loads of a tile in separate cp.async groups, fragments of the next k16 step prefetched.
  sm_90a   TMA + wgmma (wait_group 1: one wgmma group stays in flight across iterations); the 64x128 B tile is two
           64x64 boxes (128B swizzle) issued by one PTX instruction run by the elected lanes of warps 0 and 1; the
           C staging tile reuses the ring's shared memory.
  sm_100a  TMA + tcgen05.mma (accumulator in tensor memory) + tcgen05.ld; the first K step peeled (8 tcgen05.mma in
           the PTX: 4 before the loop); no warp specialization (not requested).
  sm_90a, 128x256 with warp_specialize=True: accepted, but not specialized at 8 warps: no setmaxnreg,
           the pipelined TMA + wgmma kernel (4 wgmma in the PTX, both warpgroups running the same code), the C
           staging tile in the ring's shared memory (147480 bytes).
  sm_90a, 128x256 persistent (gemm_persistent, num_warps=4): warp-specialized, 12 warps (.reqntid 384), .maxnreg
           168 at entry, setmaxnreg 40 for the producer warpgroup's loops, 232 for the consumers, 120 for consumer
           warps waiting for work, 256 for the first warpgroup's set-up and tear-down. A K step: the producer
           issues the A tile as two 64x64 boxes (one per consumer, its own mbarrier each) and the 64x256 B tile as
           four 64x64 boxes (one PTX instruction run by the elected lane of each producer warp): 3 TMA loads in the
           PTX; each consumer runs 4 wgmma 64x256x16 on its 64-row half (8 wgmma in the PTX) and waits for them
           (wait_group 0: none left in flight across K steps). Each consumer TMA-stores its 64x256 half of C
           (5 TMA in the PTX). The descriptors are written in the kernel: 4 tensormaps (A and B in the producer, C
           in each consumer) by tensormap.replace into 512 bytes of global scratch. Shared memory 213592 bytes: the
           3-stage ring (147456) and a separate 32 KB C staging tile per consumer. The loop SASS is a consumer's K
           loop (the two are the same size; the first is counted): the tile loops and the worker dispatch loop
           around them hold the TMA store.
  sm_90a, FP8 (gemm_fp8, 128x128x128): TMA + wgmma m64n128k32.f32.e4m3.e4m3 on both operands from shared memory
           (8 wgmma in the PTX: the two 64-row halves times 4 k32 steps of a K step; QGMMA in the SASS), wait_group
           1 in the loop (one wgmma group in flight across iterations, as on f16), the first 2 stages' loads peeled
           before the loop: 7 TMA in the PTX (4 loads in the prologue, 2 in the loop, 1 store). A and Bt each
           load as one 128x128 box (128 bytes a row: one 128B-swizzle row), the bf16 C tile is stored as two 128x64
           boxes by one PTX instruction run by the elected lanes of warps 0 and 1, written by stmatrix into the
           ring's shared memory (98328 bytes: the 3-stage ring of 96 KB and 3 mbarriers). 154 registers, no spill,
           no setmaxnreg (4 warps, .reqntid 128).

Usage: bench/gemm_vs_triton.py [--repeat N] [--only NAME,...] [--keep DIR] [--bin DIR]
       (or scripts/bench.sh, which sets everything up)
Internal: bench/gemm_vs_triton.py --triton-once NAME   compiles one kernel once (the fresh-process measurement;
          NAME: a job or a TRITON_EXTRA key).
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ["TRITON_ALWAYS_COMPILE"] = "1"  # before triton is imported: no cache hit ever
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

try:
    import triton
    import triton.language as tl
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
except ImportError:  # only --sass-listing (the loop heuristic's check, run by lit) works without Triton
    triton = None

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "target" / "release"
sys.path.insert(0, str(ROOT / "bench"))
from tma_copy_vs_triton import count_instructions, find_ptxas  # noqa: E402

if triton is not None:
    import triton_order  # noqa: E402  (the grouped order; a module global: Triton resolves a kernel's names there)

GEMM_PASSES = "--lower-roles --lower-tile-loops --lower-staged-copies --lower-tma --lower-mma --lower-copy --lower-to-nvvm --axe-hoist-allocas --axe-dynamic-shared"
BM, BN, BK, STAGES, WARPS = 128, 128, 64, 3, 4
WS_TILE, WS_WARPS, WS_AXE_THREADS = (128, 256, 64), 8, 384
# The persistent Triton kernel: its grid (H100 SXM's SM count), tile rows per group (as Axe's gemm_sm90a_ws),
# and num_warps (see TRITON_EXTRA).
H100_SMS, GROUP_M, PERSISTENT_WARPS = 132, 8, 4


# ---- Triton kernels -------------------------------------------------------------------------------------------

if triton is not None:
    @triton.jit
    def tma_copy(in_desc, out_desc):
        tile = in_desc.load([0, 0])
        out_desc.store([0, 0], tile)


    @triton.jit
    def gemm_pointers(a_ptr, b_ptr, c_ptr, M, N, K,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
        """The canonical matmul (Triton tutorial 03) on row-major A, B, C: strides K, N, N."""
        pid_n = tl.program_id(0)
        pid_m = tl.program_id(1)
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + offs_m[:, None] * K + offs_k[None, :]
        b_ptrs = b_ptr + offs_k[:, None] * N + offs_n[None, :]
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            k_left = K - k * BLOCK_K
            a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
            b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc)
            a_ptrs += BLOCK_K
            b_ptrs += BLOCK_K * N
        c_ptrs = c_ptr + offs_m[:, None] * N + offs_n[None, :]
        tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


    @triton.jit
    def gemm_descriptors(a_desc, b_desc, c_desc, M, N, K,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                         WARP_SPECIALIZE: tl.constexpr):
        """The same matmul on host-made tensor descriptors (TMA loads, out-of-bounds zero fill, clipped TMA store);
        with WARP_SPECIALIZE the K loop is warp-specialized (Triton splits loads and MMAs into partitions)."""
        pid_n = tl.program_id(0)
        pid_m = tl.program_id(1)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in tl.range(0, tl.cdiv(K, BLOCK_K), warp_specialize=WARP_SPECIALIZE):
            a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
            b = b_desc.load([k * BLOCK_K, pid_n * BLOCK_N])
            acc = tl.dot(a, b, acc)
        c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))


    @triton.jit
    def gemm_persistent(a_ptr, b_ptr, c_ptr, M, N, K,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                        NUM_SMS: tl.constexpr, GROUP_M: tl.constexpr):
        """The matmul as a persistent, warp-specialized kernel: NUM_SMS programs, each walking the output tiles
        program_id, program_id + NUM_SMS, ... in grouped order (GROUP_M tile rows a group, the order of Axe's
        axe.tile_loop), the tile loop warp-specialized. The descriptors are made in the kernel: on sm_90a Triton
        splits the tile's rows between two consumer warpgroups and so loads A in half-height boxes, which a
        host-made descriptor's fixed box does not allow (Triton refuses the kernel then)."""
        a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
        c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
        tiles = tl.cdiv(M, BLOCK_M) * tl.cdiv(N, BLOCK_N)
        for tile in tl.range(tl.program_id(0), tiles, NUM_SMS, warp_specialize=True):
            pid_m, pid_n = triton_order.grouped_tile(tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for k in range(0, tl.cdiv(K, BLOCK_K)):
                a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
                b = b_desc.load([k * BLOCK_K, pid_n * BLOCK_N])
                acc = tl.dot(a, b, acc)
            c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))


    @triton.jit
    def gemm_fp8(a_desc, bt_desc, c_desc, M, N, K, scale_a, scale_b,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
        """The per-tensor-scaled FP8 matmul on host-made tensor descriptors: A [M,K] and Bt [N,K] e4m3 (both
        K-major, B given as its transpose), f32 accumulation, C = scale_a * scale_b * acc in bf16."""
        pid_n = tl.program_id(0)
        pid_m = tl.program_id(1)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
            bt = bt_desc.load([pid_n * BLOCK_N, k * BLOCK_K])
            acc = tl.dot(a, bt.T, acc)
        c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], (acc * (scale_a * scale_b)).to(tl.bfloat16))


    @triton.jit
    def gemm_fp8_blockscaled(a_desc, bt_desc, c_desc, sfa_ptr, sfb_ptr, M, N, K,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
        """DeepGEMM's block-scaled FP8 matmul: A [M,K] and Bt [N,K] e4m3 on host-made descriptors, A's scales per
        row per 128 K (SFA [ceil(K/128), M]), B's per 128x128 block (SFB [ceil(N/128), ceil(K/128)]); each K block
        multiplied into a fresh f32 tile and promoted into the accumulator with its scales; bf16 out."""
        pid_n = tl.program_id(0)
        pid_m = tl.program_id(1)
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        kblocks = tl.cdiv(K, BLOCK_K)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, kblocks):
            a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
            bt = bt_desc.load([pid_n * BLOCK_N, k * BLOCK_K])
            part = tl.dot(a, bt.T)
            sa = tl.load(sfa_ptr + k * M + offs_m, mask=offs_m < M, other=0.0)
            sb = tl.load(sfb_ptr + pid_n * kblocks + k)
            acc += part * (sa * sb)[:, None]
        c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.bfloat16))


DIV16 = [["tt.divisibility", 16]]
GEMM_CONSTS = {"BLOCK_M": BM, "BLOCK_N": BN, "BLOCK_K": BK}
DESC_CONSTS = {**GEMM_CONSTS, "WARP_SPECIALIZE": False}
DESC_SIG = {"a_desc": f"tensordesc<fp16[{BM}, {BK}]>", "b_desc": f"tensordesc<fp16[{BK}, {BN}]>",
            "c_desc": f"tensordesc<fp16[{BM}, {BN}]>", "M": "i32", "N": "i32", "K": "i32",
            "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr", "WARP_SPECIALIZE": "constexpr"}
# The FP8 job's tile: 128 K elements (one 128-byte swizzle row of e4m3) a step.
FP8_TILE = (128, 128, 128)
FP8_SIG = {"a_desc": f"tensordesc<fp8e4nv[{FP8_TILE[0]}, {FP8_TILE[2]}]>",
           "bt_desc": f"tensordesc<fp8e4nv[{FP8_TILE[1]}, {FP8_TILE[2]}]>",
           "c_desc": f"tensordesc<bf16[{FP8_TILE[0]}, {FP8_TILE[1]}]>", "M": "i32", "N": "i32", "K": "i32",
           "scale_a": "fp32", "scale_b": "fp32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
           "BLOCK_K": "constexpr"}
FP8_BLOCKSCALED_SIG = {**{k: v for k, v in FP8_SIG.items() if k not in ("scale_a", "scale_b")},
                       "sfa_ptr": "*fp32", "sfb_ptr": "*fp32"}
FP8_BLOCKSCALED_SIG = {k: FP8_BLOCKSCALED_SIG[k] for k in ("a_desc", "bt_desc", "c_desc", "sfa_ptr", "sfb_ptr", "M",
                                                           "N", "K", "BLOCK_M", "BLOCK_N", "BLOCK_K")}
PTR_SIG = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
           "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"}

# name -> (Axe example, Axe passes, chip, Triton kernel name, signature, constexprs, attrs, capability)
JOBS = {
    "tma_copy": ("tma_copy", "--lower-tma --lower-to-nvvm", "sm_90a", "tma_copy",
                 {"in_desc": "tensordesc<fp16[128, 64]>", "out_desc": "tensordesc<fp16[128, 64]>"}, {}, {}, 90),
    "gemm_sm80": ("gemm_sm80", GEMM_PASSES, "sm_80", "gemm_pointers", PTR_SIG, GEMM_CONSTS,
                  {(i,): DIV16 for i in range(6)}, 80),
    "gemm_sm90a": ("gemm_sm90a", GEMM_PASSES, "sm_90a", "gemm_descriptors", DESC_SIG, DESC_CONSTS,
                   {(i,): DIV16 for i in range(3, 6)}, 90),
    "gemm_sm100a": ("gemm_sm100a", GEMM_PASSES, "sm_100a", "gemm_descriptors", DESC_SIG, DESC_CONSTS,
                    {(i,): DIV16 for i in range(3, 6)}, 100),
    "gemm_sm90a_ws": ("gemm_sm90a_ws", GEMM_PASSES, "sm_90a", "gemm_descriptors",
                      {**DESC_SIG, "a_desc": f"tensordesc<fp16[{WS_TILE[0]}, {WS_TILE[2]}]>",
                       "b_desc": f"tensordesc<fp16[{WS_TILE[2]}, {WS_TILE[1]}]>",
                       "c_desc": f"tensordesc<fp16[{WS_TILE[0]}, {WS_TILE[1]}]>"},
                      {**dict(zip(GEMM_CONSTS, WS_TILE)), "WARP_SPECIALIZE": True}, {(i,): DIV16 for i in range(3, 6)},
                      90),
    "gemm_fp8_sm90a": ("gemm_fp8_sm90a", GEMM_PASSES, "sm_90a", "gemm_fp8", FP8_SIG,
                       dict(zip(GEMM_CONSTS, FP8_TILE)), {(i,): DIV16 for i in range(3, 6)}, 90),
    "gemm_fp8_sm100a": ("gemm_fp8_sm100a", GEMM_PASSES, "sm_100a", "gemm_fp8", FP8_SIG,
                        dict(zip(GEMM_CONSTS, FP8_TILE)), {(i,): DIV16 for i in range(3, 6)}, 100),
    "gemm_fp8_blockscaled_sm90a": ("gemm_fp8_blockscaled_sm90a", GEMM_PASSES, "sm_90a", "gemm_fp8_blockscaled",
                                   FP8_BLOCKSCALED_SIG, dict(zip(GEMM_CONSTS, FP8_TILE)),
                                   {(i,): DIV16 for i in range(3, 8)}, 90),
}
# Jobs not at the common configuration: (Triton warps, Axe threads).
SHAPES = {"gemm_sm90a_ws": (WS_WARPS, WS_AXE_THREADS), "gemm_fp8_blockscaled_sm90a": (WS_WARPS, WS_AXE_THREADS)}
# More Triton kernels for a job, each a row of its own after the job's Triton row:
# key -> (job, compiler column, Triton kernel name, signature, constexprs, attrs, Triton warps).
# The persistent kernel runs at num_warps=4: sm_90a's automatic warp specialization works only there and takes it
# per warpgroup (a producer warpgroup and two consumer warpgroups: 12 warps, Axe's 384 threads); at 8 warps it
# leaves the kernel unspecialized, as the job's own Triton row shows.
TRITON_EXTRA = {
    "gemm_sm90a_ws_persistent": (
        "gemm_sm90a_ws", "triton 3.9 persistent", "gemm_persistent",
        {**PTR_SIG, "NUM_SMS": "constexpr", "GROUP_M": "constexpr"},
        {**dict(zip(GEMM_CONSTS, WS_TILE)), "NUM_SMS": H100_SMS, "GROUP_M": GROUP_M},
        {(i,): DIV16 for i in range(6)}, PERSISTENT_WARPS),
}


def triton_compile(key):
    """Compile a job's Triton kernel (key: the job) or one of TRITON_EXTRA's (key: its key)."""
    if key in TRITON_EXTRA:
        job, _, fn, signature, constexprs, attrs, warps = TRITON_EXTRA[key]
        capability = JOBS[job][7]
    else:
        _, _, _, fn, signature, constexprs, attrs, capability = JOBS[key]
        warps = SHAPES.get(key, (WARPS, WARPS * 32))[0]
    src = ASTSource(fn=globals()[fn], signature=signature, constexprs=constexprs, attrs=attrs)
    return triton.compile(src, target=GPUTarget("cuda", capability, 32),
                          options={"num_warps": warps, "num_stages": STAGES})


# ---- measurements ---------------------------------------------------------------------------------------------

def axe_pipeline(name):
    example, passes, chip = JOBS[name][:3]
    return (f"{BIN / 'axe-opt'} {passes} {ROOT / 'examples' / (example + '.mlir')} | "
            f"{BIN / 'axe-translate'} --emit=ptx --chip={chip} -")


def axe_outputs(name, tmp):
    """PTX text and dynamic shared bytes (launch record) of the Axe kernel; exits if its block is not the
    WARPS warps Triton is given."""
    example, passes, chip = JOBS[name][:3]
    lowered = Path(tmp) / f"{name}.nvvm.mlir"
    subprocess.run([BIN / "axe-opt", *passes.split(), ROOT / "examples" / f"{example}.mlir", "-o", lowered],
                   check=True)
    ptx = subprocess.run([BIN / "axe-translate", "--emit=ptx", f"--chip={chip}", lowered], check=True,
                         capture_output=True, text=True).stdout
    launch = subprocess.run([BIN / "axe-translate", "--emit=launch", f"--chip={chip}", lowered],
                            capture_output=True, text=True)
    if launch.returncode != 0:
        sys.exit(f"{name}: axe-translate --emit=launch failed: {launch.stderr.strip()}")
    kernels = json.loads(launch.stdout)["kernels"]
    threads = [k["block"][0] * k["block"][1] * k["block"][2] for k in kernels]
    warps, expected = SHAPES.get(name, (WARPS, WARPS * 32))
    if threads != [expected]:
        sys.exit(f"{name}: the Axe kernel runs {threads} threads, not {expected} (Triton: {warps} warps): not the "
                 "same job any more")
    return ptx, sum(k.get("dynamic_shared_bytes", 0) for k in kernels)


def find_cuobjdump():
    for venv in (ROOT / ".venv-bench", ROOT / ".venv"):
        hits = sorted(venv.glob("lib/python3*/site-packages/nvidia/cu*/bin/cuobjdump"))
        hits += sorted(venv.glob("lib/python3*/site-packages/triton/backends/nvidia/bin/cuobjdump"))
        if hits:
            return str(hits[0])
    sys.exit("cuobjdump not found: pip install nvidia-cuda-cuobjdump into .venv-bench (scripts/bench.sh does)")


def ptxas_cubin(ptxas, ptx, chip, tmp, stem):
    """Assemble with ptxas -v; returns (cubin path, registers, spill bytes, static shared bytes)."""
    src, cubin = Path(tmp) / f"{stem}.ptx", Path(tmp) / f"{stem}.cubin"
    src.write_text(ptx)
    out = subprocess.run([ptxas, f"-arch={chip}", "-v", src, "-o", cubin], check=True, capture_output=True,
                         text=True)
    log = out.stdout + out.stderr
    regs = max((int(r) for r in re.findall(r"Used (\d+) registers", log)), default=0)
    spill = sum(int(s) for s in re.findall(r"(\d+) bytes spill (?:stores|loads)", log))
    smem = max((int(s) for s in re.findall(r"(\d+) bytes smem", log)), default=0)
    # Warp roles: the budgets setmaxnreg sets, after the count at entry ("168 (232/40)").
    budgets = sorted({int(n) for n in re.findall(r"setmaxnreg\.(?:inc|dec)\.sync\.aligned\.u32\s+(\d+)", ptx)},
                     reverse=True)
    if budgets:
        regs = f"{regs} ({'/'.join(map(str, budgets))})"
    return cubin, regs, spill, smem


def ptxas_ms(ptxas, chip, tmp, stem, repeat):
    """Median wall ms of assembling `stem`.ptx (written by `ptxas_cubin`) to a cubin."""
    src, cubin = Path(tmp) / f"{stem}.ptx", Path(tmp) / f"{stem}.timed.cubin"
    return fresh_wall_ms([ptxas, f"-arch={chip}", src, "-o", cubin], repeat)


SASS_LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
LABEL = re.compile(r"^\s*\.(L_x_\d+):")
# HGMMA: wgmma on f16/bf16/tf32; QGMMA: wgmma on FP8 (e4m3/e5m2).
MMA = re.compile(r"^(HMMA|HGMMA|QGMMA|UTC\w*MMA)\b")
# A store to global memory (a plain or a TMA store): a K loop has none, a persistent kernel's tile loop does.
GLOBAL_STORE = re.compile(r"^(STG|UTMASTG|UBLKCP\.G\.S)\b")


def sass_counts(cuobjdump, cubin):
    """`sass_listing_counts` of `cuobjdump -sass cubin`."""
    return sass_listing_counts(subprocess.run([cuobjdump, "-sass", cubin], check=True, capture_output=True,
                                              text=True).stdout)


def sass_listing_counts(text):
    """(SASS instructions, SASS instructions in the K loop body, the loop's [first, branch] addresses) of a
    `cuobjdump -sass` listing; see the module doc for the loop heuristic."""
    instrs = []  # (address, opcode text without predicate)
    labels = {}
    pending = []
    for line in text.splitlines():
        label = LABEL.match(line)
        if label:
            pending.append(label.group(1))
            continue
        hit = SASS_LINE.search(line)
        if not hit:
            continue
        address = int(hit.group(1), 16)
        body = re.sub(r"^@!?U?P\w+\s+", "", hit.group(2).strip())
        for name in pending:
            labels[name] = address
        pending = []
        instrs.append((address, body))
    real = [(a, b) for a, b in instrs if not b.startswith("NOP")]
    best = None
    for address, body in instrs:
        if not body.startswith("BRA"):
            continue
        target = re.search(r"`\(\.(L_x_\d+)\)", body)
        dest = labels.get(target.group(1)) if target else None
        if dest is None:
            number = re.search(r"0x([0-9a-f]+)", body)
            dest = int(number.group(1), 16) if number else None
        if dest is None or dest >= address:
            continue
        span = [b for a, b in real if dest <= a <= address]
        stores = any(GLOBAL_STORE.match(b) for b in span)
        if any(MMA.match(b) for b in span) and not any(b.startswith("EXIT") for b in span) and not stores:
            if best is None or len(span) > best[0]:
                best = (len(span), f"{dest:#x}-{address:#x}")
    return (len(real), *best) if best else (len(real), 0, "none")


def emitted(ptx):
    """What the compiler emitted for data movement and math, from its PTX."""
    kinds = [("TMA", r"cp\.async\.bulk\.tensor"), ("cp.async", r"cp\.async\.(?:ca|cg)\."),
             ("ldmatrix", r"ldmatrix"), ("mma.sync", r"\bmma\.sync"), ("wgmma", r"wgmma\.mma_async"),
             ("tcgen05.mma", r"tcgen05\.mma"), ("tcgen05.ld", r"tcgen05\.ld")]
    found = [f"{label} x{len(re.findall(pattern, ptx))}" for label, pattern in kinds if re.search(pattern, ptx)]
    return ", ".join(found) or "no async copy or tensor-core instruction"


def fresh_wall_ms(command, repeat):
    """Median wall ms of `command` (a shell pipeline when a string) run as fresh processes, after one warm-up run
    (the page cache). Peak memory is bench/tma_copy_vs_triton.py's business; this runs each command once."""
    args = ["sh", "-c", command] if isinstance(command, str) else [str(word) for word in command]
    walls = []
    for _ in range(repeat + 1):
        start = time.perf_counter()
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        walls.append(time.perf_counter() - start)
    return statistics.median(walls[1:]) * 1e3


def loop_note(name, span):
    return "" if name == "tma_copy" else f"; K loop at SASS {span}"


def median_seconds(fn, repeat):
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def triton_row(key, name, label, ptxas, cuobjdump, tmp, repeat):
    """(table row, note) of the Triton kernel `key` for job `name`, `label` in the compiler column: compiled in
    process after a warm-up and as a fresh Python process; (None, note) when Triton refuses it."""
    chip = JOBS[name][2]
    try:
        triton_compile(key)
    except Exception as e:  # noqa: BLE001  (a refusal is a note, the table goes on)
        return None, f"{name} {label}: refused: {type(e).__name__}: {str(e).splitlines()[0][:200]}"
    seconds = median_seconds(lambda: triton_compile(key), repeat)
    fresh = fresh_wall_ms([sys.executable, Path(__file__).resolve(), "--triton-once", key], repeat)
    kernel = triton_compile(key)
    ptx = kernel.asm["ptx"]
    cubin, regs, spill, static = ptxas_cubin(ptxas, ptx, chip, tmp, f"triton_{key}")
    sass, loop, span = sass_counts(cuobjdump, cubin)
    shared = kernel.metadata.shared
    assemble = ptxas_ms(ptxas, chip, tmp, f"triton_{key}", repeat)
    loop = loop if name != "tma_copy" else "-"
    row = [name, label, f"{seconds * 1e3:.0f}", f"{fresh:.0f}", f"{assemble:.0f}", count_instructions(ptx), regs,
           spill, sass, loop, f"{static}+{shared - static}"]
    return row, f"{name} {label}: {emitted(ptx)}{loop_note(name, span)}"


def main():
    global BIN
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", default=",".join(JOBS), help="comma-separated subset of " + ", ".join(JOBS))
    parser.add_argument("--bin", default=str(BIN), help="directory of axe-opt and axe-translate (target/release)")
    parser.add_argument("--keep", help="also write each side's PTX and cubin into this directory")
    parser.add_argument("--triton-once", help=argparse.SUPPRESS)
    parser.add_argument("--sass-listing", help="only print the SASS counts of this cuobjdump -sass listing")
    args = parser.parse_args()
    if args.sass_listing:
        total, loop, span = sass_listing_counts(Path(args.sass_listing).read_text())
        print(f"SASS {total} loop {loop} span {span}")
        return
    if triton is None:
        sys.exit("triton is not installed: run scripts/bench.sh (it makes .venv-bench with triton 3.9)")
    BIN = Path(args.bin)
    if args.triton_once:
        triton_compile(args.triton_once)
        return
    if not (BIN / "axe-opt").exists():
        sys.exit("build the tools first: cargo build --release -p axe-mlir --bins (scripts/bench.sh does)")
    ptxas, cuobjdump = find_ptxas(), find_cuobjdump()
    header = ["kernel", "compiler", "compile ms", "fresh ms", "ptxas ms", "PTX", "regs", "spill B", "SASS", "loop SASS",
              "smem B (static+dyn)"]
    rows, notes = [], []
    with tempfile.TemporaryDirectory() as scratch:
        tmp = args.keep or scratch
        Path(tmp).mkdir(parents=True, exist_ok=True)
        for name in args.only.split(","):
            chip = JOBS[name][2]
            # Axe: the pipeline as processes (compile time == fresh-process time).
            wall = fresh_wall_ms(axe_pipeline(name), args.repeat)
            ptx, dynamic = axe_outputs(name, tmp)
            cubin, regs, spill, static = ptxas_cubin(ptxas, ptx, chip, tmp, f"axe_{name}")
            sass, loop, span = sass_counts(cuobjdump, cubin)
            assemble = ptxas_ms(ptxas, chip, tmp, f"axe_{name}", args.repeat)
            loop = loop if name != "tma_copy" else "-"
            rows.append([name, "axe", f"{wall:.0f}", f"{wall:.0f}", f"{assemble:.0f}", count_instructions(ptx), regs,
                         spill, sass, loop, f"{static}+{dynamic}"])
            notes.append(f"{name} axe: {emitted(ptx)}{loop_note(name, span)}")
            extras = [(key, extra[1]) for key, extra in TRITON_EXTRA.items() if extra[0] == name]
            for key, label in [(name, "triton 3.9"), *extras]:
                row, note = triton_row(key, name, label, ptxas, cuobjdump, tmp, args.repeat)
                rows += [row] if row else []
                notes.append(note)
    rows = [[str(cell) for cell in row] for row in rows]
    widths = [max(len(header[i]), *(len(row[i]) for row in rows)) for i in range(len(header))]
    print(f"Axe vs Triton 3.9, median of {args.repeat} compiles; ptxas {ptxas}; cuobjdump {cuobjdump}")
    print("  ".join(h.rjust(w) if i > 1 else h.ljust(w) for i, (h, w) in enumerate(zip(header, widths))))
    for row in rows:
        print("  ".join(c.rjust(w) if i > 1 else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))))
    print("\nemitted (from the PTX):")
    for note in notes:
        print("  " + note)
    print("\nMarkdown:\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" if i < 2 else "---:" for i in range(len(header))) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
