// gemm_fp8_sm90a.mlir: C[M,N] = scale_a * scale_b * (A[M,K] @ B[K,N]), A and B in FP8 (e4m3), f32 accumulation,
// bf16 out, for sm_90a: the per-tensor-scaled FP8 GEMM with which FP8 models are served (issue 27).
//
// 8-bit wgmma reads both operands K-major (PTX ISA 9.7.15.5.1: no transpose for 8-bit types), so B comes as its
// transpose Bt[N,K], row-major, as FP8 checkpoints store weights. One warpgroup, 128x128 tiles, 128 K elements a
// step (one 128-byte swizzle row), 3 stages of 32 KB, as gemm_sm90a.mlir but for the operands' K-major form: the
// ring of B tiles is loaded as Bt tiles [n, k] and read by the gemm through a view as [k, n] with k contiguous.
// The epilogue applies the two per-tensor scales to the f32 accumulator, rounds to bf16 and stores C by TMA.
//
// Run-time M, N and K (multiples of 16), edge tiles handled by TMA (zero fill past K: a zero code adds nothing).
//
//   axe-opt --lower-tma --lower-mma --lower-copy --lower-to-nvvm --axe-hoist-allocas --axe-dynamic-shared \
//     examples/gemm_fp8_sm90a.mlir | axe-translate --emit=ptx --chip=sm_90a

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
!acc = !axe.tensor<128x128xf32, reg, S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
!out = !axe.tensor<128x128xbf16, reg, S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
!bars = !axe.mbarrier<3>

module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_90a"} {
    gpu.func @gemm_fp8_sm90a(%a: !llvm.ptr<1>, %bt: !llvm.ptr<1>, %c: !llvm.ptr<1>, %m: i32, %n: i32, %k: i32, %scale_a: f32, %scale_b: f32) kernel attributes {known_block_size = array<i32: 128, 1, 1>, axe.launch = {params = ["A", "Bt", "C", "M", "N", "K", "scale_a", "scale_b"], grid = ["ceildiv(N, 128)", "ceildiv(M, 128)", "1"]}} {
      %c127 = arith.constant 127 : index
      %c128 = arith.constant 128 : index
      %false = arith.constant false
      %zero = arith.constant 0.0 : f32
      %acc = axe.alloc warpgroup : !acc
      %out = axe.alloc warpgroup : !out
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
      axe.fill warpgroup %acc, %zero : !acc, f32
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
        axe.gemm warpgroup %sa, %sb, %acc : !stageA, !stageB, !acc
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
      // Epilogue: the per-tensor scales, bf16, one TMA store (clipped at M and N) through the rings' bytes.
      axe.sync cta
      %scale = arith.mulf %scale_a, %scale_b : f32
      axe.scale warpgroup %acc by %scale to %acc : !acc to !acc
      axe.cast warpgroup %acc to %out : !acc to !out
      axe.copy warpgroup %out to %smem_c : !out to !smemC
      %tc = axe.slice %gc[%m0, %n0] [128, 128] : !gC to !tileC
      axe.copy_async cta %smem_c to %tc : !smemC to !tileC
      gpu.return
    }
  }
}
