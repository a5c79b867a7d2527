#!/usr/bin/env python3
"""examples/allgather.mlir on 4 GPUs of one node, through the axe package: NVSHMEM initialised by PyTorch's
symmetric memory (its NVSHMEM backend), the launch record's symmetric buffer allocated there, the kernel compiled
in process (NVSHMEM's device library linked in) and launched on every rank.

    torchrun --nproc-per-node=4 examples/python/allgather_nvshmem.py

Needs 4 NVIDIA GPUs (sm_90) with NVLink or PCIe peer access, PyTorch built with NVSHMEM (its CUDA 13 wheels
depend on nvidia-nvshmem-cu13) and the axe package (pip install ./python). Each rank holds 2 rows of an 8x4 f32
tensor (DTensor Shard(0)); afterwards every rank holds all 8 rows (Replicate()).
"""

import os

import torch
import torch.distributed as dist
import torch.distributed._symmetric_memory as symm_mem

import axe

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl")
    symm_mem.set_backend("NVSHMEM")  # PyTorch initialises NVSHMEM: one PE per GPU, PE number = rank

    kernel = axe.compile(os.path.join(ROOT, "examples", "allgather.mlir")).allgather
    mesh = len(kernel.record.symmetric[0].local_shapes)
    if world != mesh:
        raise SystemExit(f"the kernel is compiled for a mesh of {mesh} ranks: run with --nproc-per-node={mesh}")

    rows = 8 // world
    src = torch.arange(rank * rows * 4, (rank + 1) * rows * 4, dtype=torch.float32, device="cuda").view(rows, 4)
    dst = symm_mem.empty((8, 4), dtype=torch.float32, device="cuda")  # on NVSHMEM's symmetric heap
    symm_mem.rendezvous(dst, dist.group.WORLD.group_name)
    kernel(src, dst)  # checked against the record (heap, size, this rank's local shape), then launched
    torch.cuda.synchronize()

    want = torch.arange(32, dtype=torch.float32, device="cuda").view(8, 4)
    ok = torch.equal(dst, want)
    print(f"rank {rank}: {'ok' if ok else 'WRONG'}: {dst.flatten().tolist()}")
    dist.destroy_process_group()
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
