"""The overlap model of a fused GEMM + reduce-scatter (issue 29, item 5): for the row-parallel GEMM of a tensor-parallel
MLP (the down projection: each of `w` ranks holds X_r [M, K/w] and W_r [K/w, N], computes the partial product
C_r = X_r W_r [M, N], Partial(sum), and the sum is reduce-scattered to Shard(0): rank j owns rows j*M/w..), on paper.

The schedule modelled is the one the fused kernel is to have: a persistent GEMM walks its output tiles starting
with the rows of the next rank and ending with its own (rank r computes the tiles owned by r+1, r+2, ..., r), and
as each tile is finished it is pushed to its owner (put with signal) while the GEMM goes on; the owner adds the
arriving tiles into its rows. Communication is then hidden behind the compute of the tiles after it, and what
remains exposed is the tail: the port still draining when the last tile is computed, plus the owner's last add.

The model, per rank (every rank is alike by symmetry):
  - n tiles of T_M x T_N outputs; each takes c = 2 T_M T_N (K/w) / (peak * e_mma) seconds to compute;
  - (w-1)/w of them are other ranks' rows; each takes m = T_M T_N b / (nvlink * e_link) seconds on the rank's
    outgoing NVLink port, tiles leave in the order computed, one at a time (the port is the bottleneck: every
    rank sends the same amount, so every rank's incoming port is as busy as its outgoing one);
  - the owner's add of an arriving tile reads two and writes one tile in HBM: a = 3 T_M T_N b / hbm seconds,
    overlapped with everything but the last tile;
  - fused time = max(last tile computed, last tile sent) + a; sequential time (the GEMM, then a reduce-scatter,
    as cuBLAS + NCCL do) = n c + (remote tiles) (m + a): the same bytes over the same port, and the same adds,
    none of it under the GEMM;
  - hidden = 1 - exposed / (total communication time), exposed = fused time - n c - a.

Inputs (stated, not measured; change them on the command line): peak dense BF16 tensor throughput (H100 SXM 989.4
TFLOP/s, B200 2250 TFLOP/s: NVIDIA's data sheets), NVLink bandwidth per GPU per direction (H100 NVLink 4: 450 GB/s;
B200 NVLink 5: 900 GB/s), HBM bandwidth (3.35 and 8 TB/s), an MMA efficiency of 0.75 and a link efficiency of 0.8,
tiles of 128 x 256, partial sums sent in bf16 (b = 2; `--bytes 4` for f32 partials, as examples/gemm_reduce_scatter
keeps them), M = 8192 tokens, 8 ranks.

    python3 bench/gemm_rs_overlap.py [--ranks 8] [--tokens 8192] [--bytes 2]
"""

import argparse
from dataclasses import dataclass

# (name, hidden, intermediate): the MLP of each model (the down projection is K = intermediate, N = hidden).
MODELS = [
    ("Llama-3.1-8B", 4096, 14336),
    ("Llama-3.1-70B", 8192, 28672),
    ("Qwen3-8B", 4096, 12288),
    ("Qwen3-32B", 5120, 25600),
]


@dataclass(frozen=True)
class Chip:
    name: str
    tflops: float  # dense BF16 peak, TFLOP/s
    nvlink: float  # GB/s per GPU per direction
    hbm: float  # TB/s


CHIPS = [Chip("H100", 989.4, 450.0, 3.35), Chip("B200", 2250.0, 900.0, 8.0)]


@dataclass(frozen=True)
class Result:
    bytes_sent: float  # per rank
    compute: float  # seconds
    comm: float  # seconds on the outgoing port
    fused: float  # seconds
    sequential: float  # seconds
    hidden: float  # fraction of the communication time under compute


def pipeline(n_tiles, remote, c, m, a):
    """The fused schedule: tile i (0-based) is computed by (i + 1) c; the first `remote` tiles are sent in order,
    each m on the port once computed and the port is free; the result is ready one add after both end."""
    port = 0.0
    for i in range(remote):
        port = max(port, (i + 1) * c) + m
    return max(n_tiles * c, port) + a


def model(chip, ranks, tokens, hidden, intermediate, bytes_per, tile=(128, 256), e_mma=0.75, e_link=0.8):
    """The model of the module docstring for one rank."""
    tm, tn = tile
    k_local = intermediate / ranks
    n_tiles = (tokens // tm) * (hidden // tn)
    remote = n_tiles * (ranks - 1) // ranks
    c = 2 * tm * tn * k_local / (chip.tflops * 1e12 * e_mma)
    m = tm * tn * bytes_per / (chip.nvlink * 1e9 * e_link)
    a = 3 * tm * tn * bytes_per / (chip.hbm * 1e12)
    compute, comm = n_tiles * c, remote * m
    fused = pipeline(n_tiles, remote, c, m, a)
    sequential = compute + comm + remote * a
    exposed = max(0.0, fused - compute - a)
    hidden = 1.0 - exposed / comm if comm > 0 else 1.0
    return Result(remote * tm * tn * bytes_per, compute, comm, fused, sequential, hidden)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ranks", type=int, default=8)
    parser.add_argument("--tokens", type=int, default=8192)
    parser.add_argument("--bytes", type=int, default=2, help="bytes per partial-sum element sent (2: bf16, 4: f32)")
    args = parser.parse_args()
    print(f"GEMM + reduce-scatter, M = {args.tokens}, {args.ranks} ranks, partials of {args.bytes} bytes "
          "(model; inputs in bench/gemm_rs_overlap.py)")
    header = f"{'chip':6} {'model':14} {'K/w x N':>12} {'MB sent':>8} {'compute':>9} {'comm':>9} {'fused':>9} " \
             f"{'GEMM+RS':>9} {'hidden':>7} {'speedup':>7}"
    print(header)
    for chip in CHIPS:
        for name, hidden, intermediate in MODELS:
            r = model(chip, args.ranks, args.tokens, hidden, intermediate, args.bytes)
            shape = f"{intermediate // args.ranks}x{hidden}"
            print(f"{chip.name:6} {name:14} {shape:>12} {r.bytes_sent / 1e6:8.1f} {r.compute * 1e6:7.0f}us "
                  f"{r.comm * 1e6:7.0f}us {r.fused * 1e6:7.0f}us {r.sequential * 1e6:7.0f}us {r.hidden:7.1%} "
                  f"{r.sequential / r.fused:6.2f}x")


if __name__ == "__main__":
    main()
