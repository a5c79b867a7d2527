// gemm_fp8_sm100a.mlir: C[M,N] = scale_a * scale_b * (A[M,K] @ B[K,N]), A and B in FP8 (e4m3), f32 accumulation
// in tensor memory, bf16 out, for sm_100a (TMA + tcgen05.mma kind::f8f6f4): gemm_fp8_sm90a.mlir's job on
// Blackwell (issue 27).
//
// The operands as in gemm_fp8_sm90a.mlir: A[M,K] and Bt[N,K] row-major (K-major), 128x128x128 tiles (a K step is
// one 128-byte swizzle row of e4m3), a 3-stage ring of 32 KB stages whose B tiles are read by the gemm through a
// view as [k, n] with k contiguous. The structure as in gemm_sm100a.mlir: the accumulator in tensor memory (128
// lanes x 128 f32 columns), one thread issuing the 4 tcgen05.mma m128n128k32 of a stage and committing them to an
// mbarrier the gemm waits on, then the refill of the stage three tiles ahead. The epilogue reads the accumulator
// in two halves of 64 columns (tcgen05.ld.32x32b: thread r holds row r), applies the product of the two scales
// (axe.scale), rounds to bf16 and stores each half into the shared C tile (which takes the rings' bytes after a
// CTA barrier); one TMA store writes the tile, clipped at M and N.
//
// Run-time M, N and K (multiples of 16), edge tiles handled by TMA (zero fill past K: a zero code adds nothing).
//
//   axe-opt --lower-tma --lower-mma --lower-copy --lower-to-nvvm --axe-hoist-allocas --axe-dynamic-shared \
//     examples/gemm_fp8_sm100a.mlir | axe-translate --emit=ptx --chip=sm_100a

!gA = !axe.tensor<?x?xf8E4M3FN, global, row_major>
!gBt = !axe.tensor<?x?xf8E4M3FN, global, row_major>
!gC = !axe.tensor<?x?xbf16, global, row_major>
!tileA = !axe.tensor<128x128xf8E4M3FN, global>
!tileBt = !axe.tensor<128x128xf8E4M3FN, global>
!tileC = !axe.tensor<128x128xbf16, global>
!ringA = !axe.tensor<384x128xf8E4M3FN, shared, Swizzle(4,3,3) o S[(384,128):(128,1)]>
!ringBt = !axe.tensor<384x128xf8E4M3FN, shared, Swizzle(4,3,3) o S[(384,128):(128,1)]>
!ringB = !axe.tensor<128x384xf8E4M3FN, shared, Swizzle(4,3,3) o S[(128,384):(1,128)]>
!stageA = !axe.tensor<128x128xf8E4M3FN, shared>
!stageBt = !axe.tensor<128x128xf8E4M3FN, shared>
!stageB = !axe.tensor<128x128xf8E4M3FN, shared>
!smemC = !axe.tensor<128x128xbf16, shared, Swizzle(3,3,3) o S[(128,2,64):(64,8192,1)]>
!acc = !axe.tensor<128x128xf32, tmem, S[(128,128):(1@TLane,1@TCol)]>
!half = !axe.tensor<128x64xf32, tmem>
!smemHalf = !axe.tensor<128x64xbf16, shared>
!rows = !axe.tensor<128x64xf32, reg, S[(4,32,64):(1@warpid,1@laneid,1)]>
!out = !axe.tensor<128x64xbf16, reg, S[(4,32,64):(1@warpid,1@laneid,1)]>
!bars = !axe.mbarrier<3>

module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_100a"} {
    gpu.func @gemm_fp8_sm100a(%a: !llvm.ptr<1>, %bt: !llvm.ptr<1>, %c: !llvm.ptr<1>, %m: i32, %n: i32, %k: i32, %scale_a: f32, %scale_b: f32) kernel attributes {known_block_size = array<i32: 128, 1, 1>, axe.launch = {params = ["A", "Bt", "C", "M", "N", "K", "scale_a", "scale_b"], grid = ["ceildiv(N, 128)", "ceildiv(M, 128)", "1"]}} {
      %c127 = arith.constant 127 : index
      %c128 = arith.constant 128 : index
      %false = arith.constant false
      %zero = arith.constant 0.0 : f32
      %rows = axe.alloc cta : !rows
      %out = axe.alloc cta : !out
      %acc = axe.alloc cta : !acc
      %ga = axe.view %a(%m, %k : i32, i32) multiples [16, 16] : !llvm.ptr<1> -> !gA
      %gbt = axe.view %bt(%n, %k : i32, i32) multiples [16, 16] : !llvm.ptr<1> -> !gBt
      %gc = axe.view %c(%m, %n : i32, i32) multiples [16, 16] : !llvm.ptr<1> -> !gC
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %m0 = arith.muli %by, %c128 : index
      %n0 = arith.muli %bx, %c128 : index
      %k_index = arith.index_castui %k : i32 to index
      %k_up = arith.addi %k_index, %c127 : index
      %ktiles = arith.divui %k_up, %c128 : index
      %i0 = arith.constant 0 : i32
      %i1 = arith.constant 1 : i32
      %i3 = arith.constant 3 : i32
      %ktiles32 = arith.index_castui %ktiles : index to i32
      %ring_a = axe.alloc cta : !ringA
      %ring_bt = axe.alloc cta : !ringBt
      // The same bytes as [k, n]: what the gemm takes as B (K-major).
      %ring_b = axe.view %ring_bt : !ringBt -> !ringB
      %smem_c = axe.alloc cta : !smemC
      %bars = axe.mbarrier_alloc cta : !bars
      axe.mbarrier_init cta %bars count 1 : !bars
      axe.fill cta %acc, %zero : !acc, f32
      // Prologue: K tiles 0, 1 and 2 (those that exist) into stages 0, 1 and 2; 32768 bytes a stage.
      %prologue = arith.minui %ktiles32, %i3 : i32
      scf.for %p = %i0 to %prologue step %i1 : i32 {
        %p_index = arith.index_castui %p : i32 to index
        %kp = arith.muli %p_index, %c128 : index
        %ap = axe.slice %ga[%m0, %kp] [128, 128] : !gA to !tileA
        %btp = axe.slice %gbt[%n0, %kp] [128, 128] : !gBt to !tileBt
        %sap = axe.slice %ring_a[%kp, 0] [128, 128] : !ringA to !stageA
        %sbp = axe.slice %ring_bt[%kp, 0] [128, 128] : !ringBt to !stageBt
        axe.mbarrier_arrive_expect_tx cta %bars[%p_index] bytes 32768 : !bars
        axe.copy_async cta %ap to %sap, %bars[%p_index] : !tileA to !stageA, !bars
        axe.copy_async cta %btp to %sbp, %bars[%p_index] : !tileBt to !stageBt, !bars
      }
      %ring:2 = scf.for %kt = %i0 to %ktiles32 step %i1 iter_args(%cur = %i0, %parity = %false) -> (i32, i1) : i32 {
        %cur_index = arith.index_castui %cur : i32 to index
        axe.mbarrier_wait cta %bars[%cur_index], %parity : !bars
        %row = arith.muli %cur_index, %c128 : index
        %sa = axe.slice %ring_a[%row, 0] [128, 128] : !ringA to !stageA
        %sb = axe.slice %ring_b[0, %row] [128, 128] : !ringB to !stageB
        // Its tcgen05.mma complete (the gemm waits on their commit barrier), the stage is free; every thread has
        // passed its wait on the stage's barrier before the barrier is armed for the next round.
        axe.gemm cta %sa, %sb, %acc : !stageA, !stageB, !acc
        gpu.barrier
        %kt3 = arith.addi %kt, %i3 : i32
        %more = arith.cmpi ult, %kt3, %ktiles32 : i32
        scf.if %more {
          %kt3_index = arith.index_castui %kt3 : i32 to index
          %k3 = arith.muli %kt3_index, %c128 : index
          %an = axe.slice %ga[%m0, %k3] [128, 128] : !gA to !tileA
          %btn = axe.slice %gbt[%n0, %k3] [128, 128] : !gBt to !tileBt
          %sbt = axe.slice %ring_bt[%row, 0] [128, 128] : !ringBt to !stageBt
          axe.mbarrier_arrive_expect_tx cta %bars[%cur_index] bytes 32768 : !bars
          axe.copy_async cta %an to %sa, %bars[%cur_index] : !tileA to !stageA, !bars
          axe.copy_async cta %btn to %sbt, %bars[%cur_index] : !tileBt to !stageBt, !bars
        }
        %cur1 = arith.addi %cur, %i1 : i32
        %wraps = arith.cmpi eq, %cur1, %i3 : i32
        %cur2 = arith.select %wraps, %i0, %cur1 : i32
        %parity2 = arith.xori %parity, %wraps : i1
        scf.yield %cur2, %parity2 : i32, i1
      }
      // Epilogue, per half of 64 columns: tensor memory -> registers (thread r, row r), the scales, bf16, the half
      // of the shared C tile (the rings' bytes, after the CTA barrier); then one TMA store.
      axe.sync cta
      %scale = arith.mulf %scale_a, %scale_b : f32
      %acc_lo = axe.slice %acc[0, 0] [128, 64] : !acc to !half
      %acc_hi = axe.slice %acc[0, 64] [128, 64] : !acc to !half
      %c_lo = axe.slice %smem_c[0, 0] [128, 64] : !smemC to !smemHalf
      %c_hi = axe.slice %smem_c[0, 64] [128, 64] : !smemC to !smemHalf
      axe.copy cta %acc_lo to %rows : !half to !rows
      axe.scale cta %rows by %scale to %rows : !rows to !rows
      axe.cast cta %rows to %out : !rows to !out
      axe.copy cta %out to %c_lo : !out to !smemHalf
      axe.copy cta %acc_hi to %rows : !half to !rows
      axe.scale cta %rows by %scale to %rows : !rows to !rows
      axe.cast cta %rows to %out : !rows to !out
      axe.copy cta %out to %c_hi : !out to !smemHalf
      %tc = axe.slice %gc[%m0, %n0] [128, 128] : !gC to !tileC
      axe.copy_async cta %smem_c to %tc : !smemC to !tileC
      gpu.return
    }
  }
}
