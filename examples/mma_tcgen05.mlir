// mma_tcgen05.mlir: a 128x16 += 128x16 * 16x16 f16 GEMM with the accumulator in tensor memory, with tcgen05
// (sm_100a), then the accumulator read back into registers and stored.
//
// A and B are TMA-loaded into 32B-swizzled K-major shared tiles (rows of 16 halves = 32 bytes; B is stored as
// N rows of K and viewed as [K, N]); C lives in tensor memory in the M=128 data-path layout (row r in lane r,
// column j in column 32 + j). The layouts are all the compiler needs:
//
//   axe-opt --lower-tma --lower-mma --lower-to-nvvm examples/mma_tcgen05.mlir | axe-translate --emit=ptx --chip=sm_100a
//
// --lower-mma plans the gemm (axe_layout::mma: one tcgen05.mma kind::f16 with M=128, N=16, K=16; instruction
// descriptor 0x08040010; matrix descriptors 0xc000401000010000 + the encoded base addresses; 48 columns used,
// 64 allocated) and emits: at the tensor-memory alloc, tcgen05.alloc and relinquish_alloc_permit by warp 0
// into a shared slot, fenced around a CTA barrier; at the gemm, on thread 0, tcgen05.mma (D = allocation + 32
// columns, enable-input-d false because the accumulator was filled with zero) and tcgen05.commit to an
// mbarrier every thread waits on; at the copy, tcgen05.ld.32x32b.x16 (thread r reads row r) and
// tcgen05.wait::ld; before the return, tcgen05.dealloc by warp 0. The chip comes from `axe.target`.

!gA = memref<128x16xf16>
!gB = memref<16x16xf16>
!globalA = !axe.tensor<128x16xf16, global, S[(128,16):(16,1)]>
!globalB = !axe.tensor<16x16xf16, global, S[(16,16):(16,1)]>
!a = !axe.tensor<128x16xf16, shared, Swizzle(3,1,3) o S[(128,16):(16,1)]>
!rowsB = !axe.tensor<16x16xf16, shared, Swizzle(3,1,3) o S[(16,16):(16,1)]>
!b = !axe.tensor<16x16xf16, shared, Swizzle(3,1,3) o S[(16,16):(1,16)]>
!c = !axe.tensor<128x16xf32, tmem, S[(128,16):(1@TLane,1@TCol)] + 32@TCol>
!rows = !axe.tensor<128x16xf32, reg, S[(4,32,16):(1@warpid,1@laneid,1)]>
!regs = memref<16xf32, #gpu.address_space<private>>

module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_100a"} {
    gpu.func @mma_tcgen05(%ga: !gA, %gb: !gB, %out: memref<2048xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %in_a = axe.view %ga : !gA -> !globalA
      %in_b = axe.view %gb : !gB -> !globalB
      %a = axe.alloc cta : !a
      %rows_b = axe.alloc cta : !rowsB
      %c = axe.alloc cta : !c
      axe.copy cta %in_a to %a : !globalA to !a
      axe.copy cta %in_b to %rows_b : !globalB to !rowsB
      // The same 16 rows of 16 K values, seen as B = [K, N]: K contiguous (K-major).
      %b = axe.view %rows_b : !rowsB -> !b
      %zero = arith.constant 0.0 : f32
      axe.fill cta %c, %zero : !c, f32
      axe.gemm cta %a, %b, %c : !a, !b, !c
      // Thread r gets row r of the accumulator in its 16 registers.
      %acc = memref.alloca() : !regs
      %r = axe.view %acc : !regs -> !rows
      axe.copy cta %c to %r : !c to !rows
      // Epilogue: thread t writes row t to out[16t..16t+16].
      %tid = gpu.thread_id x
      %c16 = arith.constant 16 : index
      %base = arith.muli %tid, %c16 : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %c6 = arith.constant 6 : index
      %c7 = arith.constant 7 : index
      %c8 = arith.constant 8 : index
      %c9 = arith.constant 9 : index
      %c10 = arith.constant 10 : index
      %c11 = arith.constant 11 : index
      %c12 = arith.constant 12 : index
      %c13 = arith.constant 13 : index
      %c14 = arith.constant 14 : index
      %c15 = arith.constant 15 : index
      %v0 = memref.load %acc[%c0] : !regs
      %v1 = memref.load %acc[%c1] : !regs
      %v2 = memref.load %acc[%c2] : !regs
      %v3 = memref.load %acc[%c3] : !regs
      %v4 = memref.load %acc[%c4] : !regs
      %v5 = memref.load %acc[%c5] : !regs
      %v6 = memref.load %acc[%c6] : !regs
      %v7 = memref.load %acc[%c7] : !regs
      %v8 = memref.load %acc[%c8] : !regs
      %v9 = memref.load %acc[%c9] : !regs
      %v10 = memref.load %acc[%c10] : !regs
      %v11 = memref.load %acc[%c11] : !regs
      %v12 = memref.load %acc[%c12] : !regs
      %v13 = memref.load %acc[%c13] : !regs
      %v14 = memref.load %acc[%c14] : !regs
      %v15 = memref.load %acc[%c15] : !regs
      %i1 = arith.addi %base, %c1 : index
      %i2 = arith.addi %base, %c2 : index
      %i3 = arith.addi %base, %c3 : index
      %i4 = arith.addi %base, %c4 : index
      %i5 = arith.addi %base, %c5 : index
      %i6 = arith.addi %base, %c6 : index
      %i7 = arith.addi %base, %c7 : index
      %i8 = arith.addi %base, %c8 : index
      %i9 = arith.addi %base, %c9 : index
      %i10 = arith.addi %base, %c10 : index
      %i11 = arith.addi %base, %c11 : index
      %i12 = arith.addi %base, %c12 : index
      %i13 = arith.addi %base, %c13 : index
      %i14 = arith.addi %base, %c14 : index
      %i15 = arith.addi %base, %c15 : index
      memref.store %v0, %out[%base] : memref<2048xf32>
      memref.store %v1, %out[%i1] : memref<2048xf32>
      memref.store %v2, %out[%i2] : memref<2048xf32>
      memref.store %v3, %out[%i3] : memref<2048xf32>
      memref.store %v4, %out[%i4] : memref<2048xf32>
      memref.store %v5, %out[%i5] : memref<2048xf32>
      memref.store %v6, %out[%i6] : memref<2048xf32>
      memref.store %v7, %out[%i7] : memref<2048xf32>
      memref.store %v8, %out[%i8] : memref<2048xf32>
      memref.store %v9, %out[%i9] : memref<2048xf32>
      memref.store %v10, %out[%i10] : memref<2048xf32>
      memref.store %v11, %out[%i11] : memref<2048xf32>
      memref.store %v12, %out[%i12] : memref<2048xf32>
      memref.store %v13, %out[%i13] : memref<2048xf32>
      memref.store %v14, %out[%i14] : memref<2048xf32>
      memref.store %v15, %out[%i15] : memref<2048xf32>
      gpu.return
    }
  }
}
