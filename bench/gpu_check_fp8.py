"""The FP8 half of the GPU check (bench/gpu_check.py imports it): the two sm_90a FP8 GEMMs launched through the axe
Python package on torch's float8_e4m3fn tensors, checked exactly against a float64 reference, and timed against
torch._scaled_mm (cuBLASLt's FP8 GEMM) and Triton at the LLM weight shapes.

Kernels (target/gpu-check/, compiled by `scripts/gpu-check.sh --prepare`):
  gemm_fp8_sm90a              per-tensor scales: C = scale_a * scale_b * (A @ Bt^T), bf16 out
  gemm_fp8_blockscaled_sm90a  DeepGEMM's block scales: A per row per 128 K (SFA [ceil(K/128), M]), B per 128x128
                              block (SFB [ceil(N/128), ceil(K/128)]), promoted per K block in f32
Exact check: e4m3 codes of {0, +-0.5, +-1, +-1.5, +-2, +-3} and power-of-two scales, so every product, block sum
and scaled sum is exact in f32 and C (bf16) must equal the float64 reference rounded to bf16, element for element.
Peers in the timing: torch._scaled_mm with per-tensor scales (the same FLOPs; for the block-scaled kernel it is the
per-tensor speed of light, as cuBLASLt's block-scaled path needs newer PyTorch), and a Triton FP8 matmul at Axe's
tile (128x128x128, 4 warps, 3 stages; `tl.dot` on e4m3, the per-tensor scale in its epilogue).
"""

from __future__ import annotations

import torch

try:
    import triton_order  # the Triton peers' launch order (a module global: Triton resolves a kernel's names there)
except ImportError:  # no Triton: the Triton peer is left out
    triton_order = None

CODES = torch.tensor([0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.0, -2.0, 3.0, -3.0])


def operands(m, n, k, seed):
    """A [M,K] and Bt [N,K] as float8_e4m3fn with exactly representable values."""
    g = torch.Generator().manual_seed(seed)
    pick = lambda shape: CODES[torch.randint(0, len(CODES), shape, generator=g)]  # noqa: E731
    return pick((m, k)).to("cuda", torch.float8_e4m3fn), pick((n, k)).to("cuda", torch.float8_e4m3fn)


def block_scales(m, n, k, seed):
    """SFA [ceil(K/128), M] and SFB [ceil(N/128), ceil(K/128)], powers of two in 2^-2..2^2."""
    g = torch.Generator().manual_seed(seed)
    kb, nb = -(-k // 128), -(-n // 128)
    power = lambda shape: 2.0 ** torch.randint(-2, 3, shape, generator=g).float()  # noqa: E731
    return power((kb, m)).cuda(), power((nb, kb)).cuda()


def per_tensor_exact(kernel, wait, m, n, k):
    a, bt = operands(m, n, k, 1)
    c = torch.full((m, n), -1000.0, dtype=torch.bfloat16, device="cuda")
    kernel(a, bt, c, m, n, k, 0.5, 4.0)
    wait()
    want = (2.0 * (a.double() @ bt.double().T)).to(torch.bfloat16)
    bad = (c != want).sum().item()
    return bad == 0, f"{bad} of {m * n} wrong" if bad else "exact"


def blockscaled_reference(a, bt, sfa, sfb, k):
    """sum over K blocks kb of SFA[kb, i] * SFB[j / 128, kb] * (A[i, kb] . Bt[j, kb]), in float64."""
    m, n = a.shape[0], bt.shape[0]
    want = torch.zeros((m, n), dtype=torch.float64, device="cuda")
    for kb in range(sfa.shape[0]):
        ks = slice(kb * 128, min(k, kb * 128 + 128))
        part = a[:, ks].double() @ bt[:, ks].double().T
        scale = sfa[kb].double()[:, None] * sfb[:, kb].double().repeat_interleave(128)[None, :n]
        want += scale * part
    return want


def blockscaled_exact(kernel, wait, m, n, k):
    a, bt = operands(m, n, k, 2)
    sfa, sfb = block_scales(m, n, k, 3)
    c = torch.full((m, n), -1000.0, dtype=torch.bfloat16, device="cuda")
    kernel(a, bt, sfa, sfb, c, m, n, k)
    wait()
    want = blockscaled_reference(a, bt, sfa, sfb, k).to(torch.bfloat16)
    bad = (c != want).sum().item()
    return bad == 0, f"{bad} of {m * n} wrong" if bad else "exact"


def triton_fp8(config):
    """A Triton FP8 matmul on pointers: A [M,K] and Bt [N,K] e4m3, `tl.dot(a, bt^T)`, the per-tensor scale in the
    epilogue, bf16 out, grouped launch order."""
    import triton
    import triton.language as tl

    @triton.jit
    def kernel(a, bt, c, M, N, K, scale, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
               GROUP: tl.constexpr):
        pid_m, pid_n = triton_order.grouped_tile(tl.program_id(0), M, N, BM, BN, GROUP)
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, tl.cdiv(K, BK)):
            kk = k0 * BK + rk
            x = tl.load(a + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
            y = tl.load(bt + rn[:, None] * K + kk[None, :], mask=(rn[:, None] < N) & (kk[None, :] < K), other=0.0)
            acc = tl.dot(x, y.T, acc)
        out = (acc * scale).to(tl.bfloat16)
        tl.store(c + rm[:, None] * N + rn[None, :], out, mask=(rm[:, None] < M) & (rn[None, :] < N))

    bm, bn, bk, warps, stages = config

    def run(a, bt, c, m, n, k):
        grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
        kernel[grid](a, bt, c, m, n, k, 2.0, BM=bm, BN=bn, BK=bk, GROUP=8, num_warps=warps, num_stages=stages)

    return run


def implementations(kernels):
    """Name -> prepare(a, bt, c, m, n, k): Axe's prepared launch on those operands (the block-scaled kernel's
    scales made per shape), whose `.launch` is timed."""
    runs = {}
    if "gemm_fp8_sm90a" in kernels:
        kernel = kernels["gemm_fp8_sm90a"]
        runs["Axe gemm_fp8_sm90a"] = lambda a, bt, c, m, n, k: kernel.prepare(a, bt, c, m, n, k, 0.5, 4.0)
    if "gemm_fp8_blockscaled_sm90a" in kernels:
        kernel_bs = kernels["gemm_fp8_blockscaled_sm90a"]

        def blockscaled(a, bt, c, m, n, k):
            sfa, sfb = block_scales(m, n, k, 4)
            return kernel_bs.prepare(a, bt, sfa, sfb, c, m, n, k)

        runs["Axe gemm_fp8_blockscaled_sm90a"] = blockscaled
    return runs


def peers():
    """Name -> run(a, bt, c, m, n, k), each a plain call (timed as it is)."""
    one = torch.tensor(1.0, device="cuda")
    out = {"torch._scaled_mm (per-tensor)": lambda a, bt, c, m, n, k: torch._scaled_mm(
        a, bt.T, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)}
    try:
        out["Triton fp8 128x128x128 w4 s3"] = triton_fp8((128, 128, 128, 4, 3))
    except Exception as e:  # noqa: BLE001
        print(f"Triton FP8 unavailable: {e}")
    return out
