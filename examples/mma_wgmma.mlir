// mma_wgmma.mlir: a 64x16 += 64x64 * 64x16 f16 GEMM with f32 accumulators on one warpgroup, with wgmma (sm_90a).
//
// A and B are TMA-loaded into 128B-swizzled shared tiles, both K-major (rows of 64 halves = 128 bytes: A is
// row-major [M,K], B is stored as N rows of K, `S[(64,16):(1,64)]` over [K,N]); the accumulator is the wgmma
// m64nNk16 D fragment. The layouts are all the compiler needs:
//
//   axe-opt --lower-tma --lower-mma --lower-to-nvvm examples/mma_wgmma.mlir | axe-translate --emit=ptx --chip=sm_90a
//
// --lower-tma plans the two loads (one box each) and aligns the shared tiles to 1024 bytes; --lower-mma plans
// the gemm (axe_layout::mma: m64n16k16, 4 K steps, each a pair of 128B-swizzle matrix descriptors whose start
// address advances 32 bytes per step) and emits wgmma.fence, four wgmma.mma_async on descriptors = the plan's
// constant + (shared address >> 4) & 0x3FFF, commit_group and wait_group 0. The chip comes from `axe.target`.
// The epilogue stores each thread's 8 accumulators (the plan's registers 0..7) to out[8t..8t+8].

!gA = memref<64x64xf16>
!gB = memref<16x64xf16>
!globalA = !axe.tensor<64x64xf16, global, S[(64,64):(64,1)]>
!globalB = !axe.tensor<16x64xf16, global, S[(16,64):(64,1)]>
!rowsB = !axe.tensor<16x64xf16, shared, Swizzle(3,3,3) o S[(16,64):(64,1)]>
!a = !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>
!b = !axe.tensor<64x16xf16, shared, Swizzle(3,3,3) o S[(64,16):(1,64)]>
!c = !axe.tensor<64x16xf32, reg, S[(4,2,8,2,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
!regs = memref<8xf32, #gpu.address_space<private>>

module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_90a"} {
    gpu.func @mma_wgmma(%ga: !gA, %gb: !gB, %out: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %in_a = axe.view %ga : !gA -> !globalA
      %in_b = axe.view %gb : !gB -> !globalB
      %a = axe.alloc cta : !a
      %rows_b = axe.alloc cta : !rowsB
      axe.copy cta %in_a to %a : !globalA to !a
      axe.copy cta %in_b to %rows_b : !globalB to !rowsB
      // The same 16 rows of 64 K values, seen as B = [K, N]: K contiguous (K-major).
      %b = axe.view %rows_b : !rowsB -> !b
      %zero = arith.constant 0.0 : f32
      %acc = memref.alloca() : !regs
      %c = axe.view %acc : !regs -> !c
      axe.fill warpgroup %c, %zero : !c, f32
      axe.gemm warpgroup %a, %b, %c : !a, !b, !c
      // Epilogue: thread t writes its accumulator registers 0..7 to out[8t..8t+8].
      %tid = gpu.thread_id x
      %c8 = arith.constant 8 : index
      %base = arith.muli %tid, %c8 : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %c6 = arith.constant 6 : index
      %c7 = arith.constant 7 : index
      %v0 = memref.load %acc[%c0] : !regs
      %v1 = memref.load %acc[%c1] : !regs
      %v2 = memref.load %acc[%c2] : !regs
      %v3 = memref.load %acc[%c3] : !regs
      %v4 = memref.load %acc[%c4] : !regs
      %v5 = memref.load %acc[%c5] : !regs
      %v6 = memref.load %acc[%c6] : !regs
      %v7 = memref.load %acc[%c7] : !regs
      %i1 = arith.addi %base, %c1 : index
      %i2 = arith.addi %base, %c2 : index
      %i3 = arith.addi %base, %c3 : index
      %i4 = arith.addi %base, %c4 : index
      %i5 = arith.addi %base, %c5 : index
      %i6 = arith.addi %base, %c6 : index
      %i7 = arith.addi %base, %c7 : index
      memref.store %v0, %out[%base] : memref<1024xf32>
      memref.store %v1, %out[%i1] : memref<1024xf32>
      memref.store %v2, %out[%i2] : memref<1024xf32>
      memref.store %v3, %out[%i3] : memref<1024xf32>
      memref.store %v4, %out[%i4] : memref<1024xf32>
      memref.store %v5, %out[%i5] : memref<1024xf32>
      memref.store %v6, %out[%i6] : memref<1024xf32>
      memref.store %v7, %out[%i7] : memref<1024xf32>
      gpu.return
    }
  }
}
