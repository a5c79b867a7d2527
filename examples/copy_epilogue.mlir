// copy_epilogue.mlir: a GEMM epilogue on sm_100a. A 128x16 += 128x16 * 16x16 f16 GEMM accumulates in tensor
// memory (as examples/mma_tcgen05.mlir), then the accumulator is read into registers, scaled by alpha, converted
// to f16 and stored to global memory. Every step is an axe op on tensors with layouts:
//
//   axe-opt --lower-tma --lower-mma --lower-copy --lower-to-nvvm examples/copy_epilogue.mlir \
//     | axe-translate --emit=ptx --chip=sm_100a
//
// --lower-tma loads A and B (TMA), --lower-mma runs the tcgen05.mma and reads the accumulator back with
// tcgen05.ld.32x32b (thread r gets row r in 16 registers), --lower-copy lowers the epilogue: axe.scale and axe.cast
// are per-register arith ops (mulf, truncf) on the private memrefs that hold the register tensors, and the copy
// of the f16 rows to global memory is planned by axe_layout::copy: each thread's row is 32 contiguous, 16-byte
// aligned bytes, so two st.global.v4.b32 per thread. The passes run in any order.

!gA = memref<128x16xf16>
!gB = memref<16x16xf16>
!gC = memref<128x16xf16>
!globalA = !axe.tensor<128x16xf16, global, S[(128,16):(16,1)]>
!globalB = !axe.tensor<16x16xf16, global, S[(16,16):(16,1)]>
!globalC = !axe.tensor<128x16xf16, global, S[(128,16):(16,1)]>
!a = !axe.tensor<128x16xf16, shared, Swizzle(3,1,3) o S[(128,16):(16,1)]>
!rowsB = !axe.tensor<16x16xf16, shared, Swizzle(3,1,3) o S[(16,16):(16,1)]>
!b = !axe.tensor<16x16xf16, shared, Swizzle(3,1,3) o S[(16,16):(1,16)]>
!c = !axe.tensor<128x16xf32, tmem, S[(128,16):(1@TLane,1@TCol)]>
!rows = !axe.tensor<128x16xf32, reg, S[(4,32,16):(1@warpid,1@laneid,1)]>
!rows16 = !axe.tensor<128x16xf16, reg, S[(4,32,16):(1@warpid,1@laneid,1)]>

module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_100a"} {
    gpu.func @copy_epilogue(%ga: !gA, %gb: !gB, %gc: !gC, %alpha: f32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %in_a = axe.view %ga : !gA -> !globalA
      %in_b = axe.view %gb : !gB -> !globalB
      %out = axe.view %gc : !gC -> !globalC
      %a = axe.alloc cta : !a
      %rows_b = axe.alloc cta : !rowsB
      %c = axe.alloc cta : !c
      axe.copy cta %in_a to %a : !globalA to !a
      axe.copy cta %in_b to %rows_b : !globalB to !rowsB
      %b = axe.view %rows_b : !rowsB -> !b
      %zero = arith.constant 0.0 : f32
      axe.fill cta %c, %zero : !c, f32
      axe.gemm cta %a, %b, %c : !a, !b, !c
      // Epilogue: out = f16(alpha * c), thread r holding row r throughout.
      %acc = axe.alloc cta : !rows
      axe.copy cta %c to %acc : !c to !rows
      axe.scale cta %acc by %alpha to %acc : !rows to !rows
      %half = axe.alloc cta : !rows16
      axe.cast cta %acc to %half : !rows to !rows16
      axe.copy cta %half to %out : !rows16 to !globalC
      gpu.return
    }
  }
}
