// The fused GEMM + reduce-scatter example on sm_100a: the tcgen05 GEMM of each rank's K slice, its f32 partial
// product stored to the symmetric buffer, and the reduce-scatter of the partial products (Partial(sum) ->
// Shard(0) over 4 ranks) in the same kernel; NVSHMEM's device bitcode linked, ptxas accepts the cubin.
// RUN: axe-opt --lower-tma --lower-mma --lower-copy --lower-collectives --lower-to-nvvm %examples/gemm_reduce_scatter.mlir -o %t.mlir
// RUN: FileCheck %s --check-prefix=LOWERED < %t.mlir
// RUN: axe-translate --emit=ptx --chip=sm_100a %t.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: ptxas -arch=sm_100a %t.ptx -o %t.cubin
// RUN: axe-translate --emit=launch --chip=sm_100a %t.mlir | FileCheck %s --check-prefix=LAUNCH

// LOWERED: llvm.func @gemm_reduce_scatter(
// LOWERED-SAME: axe.symmetric = [{arg = 2 : i64, bytes = 8192 : i64, local_shapes = [array<i64: 128, 16>, array<i64: 128, 16>, array<i64: 128, 16>, array<i64: 128, 16>]}]
// LOWERED: nvvm.tcgen05.mma
// LOWERED: llvm.call @nvshmemx_barrier_all_block()
// LOWERED: llvm.call @nvshmem_uint32_g(

// PTX: .version 8.8
// PTX-NEXT: .target sm_100a
// PTX-NOT: .extern .func {{.*}}nvshmem
// PTX: .visible .entry gemm_reduce_scatter(
// PTX: tcgen05.mma

// LAUNCH: "symmetric": [
// LAUNCH-NEXT: {"arg": 2, "param": "param2", "bytes": 8192, "local_shapes": {{\[\[}}128, 16], [128, 16], [128, 16], [128, 16]]}
