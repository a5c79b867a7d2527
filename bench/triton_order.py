"""The grouped tile order of the Triton peers (bench/gpu_check.py, bench/gpu_check_fp8.py, and the persistent
kernel of bench/gemm_vs_triton.py): program or tile `pid` takes the output tile (pid_m, pid_n) of groups of GROUP
tile rows, column by column inside a group (Triton's matmul tutorial order; Axe's axe.tile_loop uses the same), so
programs running at once share rows of A and columns of B in L2."""

import triton
import triton.language as tl


@triton.jit
def grouped_tile(pid, M, N, BM: tl.constexpr, BN: tl.constexpr, GROUP: tl.constexpr):
    grid_n = tl.cdiv(N, BN)
    in_group = GROUP * grid_n
    first_m = (pid // in_group) * GROUP
    rows = min(tl.cdiv(M, BM) - first_m, GROUP)
    return first_m + (pid % in_group) % rows, (pid % in_group) // rows
