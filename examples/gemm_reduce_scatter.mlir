// gemm_reduce_scatter.mlir: the paper's fused GEMM + reduce-scatter (section 4.2), one kernel per rank on sm_100a.
//
// C = A @ B with the K dimension split over 4 ranks (a mesh `gpuid = 4`): rank r holds A[:, 16r:16r+16] (128x16
// f16) and B[16r:16r+16, :] (16x16 f16) and computes the partial product C_r = A_r @ B_r with tcgen05 (the
// accumulator in tensor memory, as examples/copy_epilogue.mlir), stores it as f32 into its symmetric `partial`
// buffer, and the same kernel then reduce-scatters: viewed as `S[2048:1] + R[4:1@gpuid]` with `reduce = "sum"`,
// `partial` is DTensor `Partial(sum)`, and the copy into `out` (`S[(4,512):(1@gpuid,1)]`, Shard(0): rows 32r..32r+31
// on rank r) is planned as a reduce-scatter: rank r copies its own rows 32r.. of C_r, then adds ranks r+1, r+2,
// r+3's with gets. The layouts are all the compiler needs:
//
//   axe-opt --lower-tma --lower-mma --lower-copy --lower-collectives --lower-to-nvvm \
//       examples/gemm_reduce_scatter.mlir | axe-translate --emit=ptx --chip=sm_100a
//
// The partial buffer is read by peers (`{axe.symmetric}`, 128x16 f32 = 8192 bytes from nvshmem_malloc on every
// rank); the NVSHMEM barrier before the gets orders every rank's epilogue stores before any peer reads them.

!gA = memref<128x16xf16>
!gB = memref<16x16xf16>
!globalA = !axe.tensor<128x16xf16, global, S[(128,16):(16,1)]>
!globalB = !axe.tensor<16x16xf16, global, S[(16,16):(16,1)]>
!a = !axe.tensor<128x16xf16, shared, Swizzle(3,1,3) o S[(128,16):(16,1)]>
!rowsB = !axe.tensor<16x16xf16, shared, Swizzle(3,1,3) o S[(16,16):(16,1)]>
!b = !axe.tensor<16x16xf16, shared, Swizzle(3,1,3) o S[(16,16):(1,16)]>
!c = !axe.tensor<128x16xf32, tmem, S[(128,16):(1@TLane,1@TCol)]>
!rows = !axe.tensor<128x16xf32, reg, S[(4,32,16):(1@warpid,1@laneid,1)]>
// The rank's partial product in its symmetric buffer: row-major locally, and as a distributed tensor Partial(sum).
!local = !axe.tensor<128x16xf32, global, S[(128,16):(16,1)]>
!partial = !axe.tensor<128x16xf32, global, S[2048:1] + R[4:1@gpuid]>
!scattered = !axe.tensor<128x16xf32, global, S[(4,512):(1@gpuid,1)]>

module attributes {gpu.container_module, axe.mesh = {gpuid = 4 : i64}} {
  gpu.module @kernels attributes {axe.target = "sm_100a"} {
    gpu.func @gemm_reduce_scatter(%ga: !gA, %gb: !gB, %gpartial: !llvm.ptr<1> {axe.symmetric}, %gout: !llvm.ptr<1>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %in_a = axe.view %ga : !gA -> !globalA
      %in_b = axe.view %gb : !gB -> !globalB
      %a = axe.alloc cta : !a
      %rows_b = axe.alloc cta : !rowsB
      %c = axe.alloc cta : !c
      axe.copy cta %in_a to %a : !globalA to !a
      axe.copy cta %in_b to %rows_b : !globalB to !rowsB
      %b = axe.view %rows_b : !rowsB -> !b
      %zero = arith.constant 0.0 : f32
      axe.fill cta %c, %zero : !c, f32
      axe.gemm cta %a, %b, %c : !a, !b, !c
      // Epilogue: the partial product to the symmetric buffer, thread r holding row r.
      %acc = axe.alloc cta : !rows
      axe.copy cta %c to %acc : !c to !rows
      %mine = axe.view %gpartial : !llvm.ptr<1> -> !local
      axe.copy cta %acc to %mine : !rows to !local
      // Reduce-scatter: out (rows 32r.. on rank r) = the sum over ranks of their partial products.
      %sum_in = axe.view %gpartial : !llvm.ptr<1> -> !partial
      %out = axe.view %gout : !llvm.ptr<1> -> !scattered
      axe.copy cta %sum_in to %out {reduce = "sum"} : !partial to !scattered
      gpu.return
    }
  }
}
