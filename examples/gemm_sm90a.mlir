// gemm_sm90a.mlir: C[M,N] = A[M,K] @ B[K,N], f16 in and out, f32 accumulation, for sm_90a (TMA + wgmma).
//
// M, N and K are run-time kernel arguments (i32): A, B and C are views with run-time extents (layout row_major,
// docs/dialect.md "Run-time sizes"), so one compiled kernel serves every problem size. Precondition: M, N and K
// are multiples of 16 (the views' `multiples`; TMA needs 16-byte row strides, i.e. K and N multiples of 8) and at
// least 1. Partial tiles at the edges need nothing more: TMA loads fill the part of a box past M, N or K with
// zeros (which add nothing to the products) and the TMA store of C clips it.
//
// One CTA per 128x128 output tile (grid ceildiv(N,128) x ceildiv(M,128)), one consumer warpgroup (128 threads)
// that is also the producer: a 3-stage ring of A tiles [128,64] and B tiles [64,128] in 128B-swizzled shared
// memory, one mbarrier per stage (an array of 3, indexed by the stage). The ring runs three tiles ahead: the
// prologue loads K tiles 0-2 (those that exist); iteration kt waits on stage kt mod 3's barrier for parity
// (kt / 3) mod 2 (the stage's round: its barrier completes one phase per load), runs wgmma m64n128k16 (2 x 4
// issues) on the stage, which waits for itself (wait_group 0), and after a CTA barrier (every warp done with the
// stage and past its wait) refills the stage with tile kt + 3 (when it exists). The accumulator, 128x128 f32, lives in registers (128 a
// thread); the epilogue casts it to f16 (axe.cast), stores it to a 128B-swizzled shared tile (--lower-copy) and
// TMA-stores the tile (clipped at M and N). The rings (96 KB) live in dynamic shared memory, and the C tile
// (32 KB) shares their bytes: a CTA barrier after the K loop separates their lifetimes.
//
//   axe-opt --lower-tma --lower-mma --lower-copy --lower-to-nvvm --axe-hoist-allocas --axe-dynamic-shared \
//     examples/gemm_sm90a.mlir |
//     axe-translate --emit=ptx --chip=sm_90a
//   (and --emit=launch for the launch record: grid, block, dynamic shared bytes, parameters, tensor maps)

!gA = !axe.tensor<?x?xf16, global, row_major>
!gB = !axe.tensor<?x?xf16, global, row_major>
!gC = !axe.tensor<?x?xf16, global, row_major>
!tileA = !axe.tensor<128x64xf16, global>
!tileB = !axe.tensor<64x128xf16, global>
!tileC = !axe.tensor<128x128xf16, global>
!ringA = !axe.tensor<384x64xf16, shared, Swizzle(3,3,3) o S[(384,64):(64,1)]>
!ringB = !axe.tensor<192x128xf16, shared, Swizzle(3,3,3) o S[(3,64,2,64):(8192,64,4096,1)]>
!stageA = !axe.tensor<128x64xf16, shared>
!stageB = !axe.tensor<64x128xf16, shared>
!smemC = !axe.tensor<128x128xf16, shared, Swizzle(3,3,3) o S[(128,2,64):(64,8192,1)]>
!acc = !axe.tensor<128x128xf32, reg, S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
!bars = !axe.mbarrier<3>
!out = !axe.tensor<128x128xf16, reg, S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>

module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_90a"} {
    gpu.func @gemm_sm90a(%a: !llvm.ptr<1>, %b: !llvm.ptr<1>, %c: !llvm.ptr<1>, %m: i32, %n: i32, %k: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>, axe.launch = {params = ["A", "B", "C", "M", "N", "K"], grid = ["ceildiv(N, 128)", "ceildiv(M, 128)", "1"]}} {
      %c63 = arith.constant 63 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %false = arith.constant false
      %zero = arith.constant 0.0 : f32
      // The accumulator and its f16 copy: per-thread register arrays, allocated first so that they sit in the
      // kernel's entry block (LLVM promotes only entry-block allocas to registers).
      %acc = axe.alloc warpgroup : !acc
      %out = axe.alloc warpgroup : !out
      %ga = axe.view %a(%m, %k : i32, i32) multiples [16, 16] : !llvm.ptr<1> -> !gA
      %gb = axe.view %b(%k, %n : i32, i32) multiples [16, 16] : !llvm.ptr<1> -> !gB
      %gc = axe.view %c(%m, %n : i32, i32) multiples [16, 16] : !llvm.ptr<1> -> !gC
      // This CTA's tile: rows m0 = by * 128, columns n0 = bx * 128; K tiles: ceildiv(K, 64).
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %m0 = arith.muli %by, %c128 : index
      %n0 = arith.muli %bx, %c128 : index
      %k_index = arith.index_castui %k : i32 to index
      %k_up = arith.addi %k_index, %c63 : index
      %ktiles = arith.divui %k_up, %c64 : index
      // The K loop counts in i32 (K is an i32): 32-bit loop and ring arithmetic.
      %i0 = arith.constant 0 : i32
      %i1 = arith.constant 1 : i32
      %i3 = arith.constant 3 : i32
      %ktiles32 = arith.index_castui %ktiles : index to i32
      %ring_a = axe.alloc cta : !ringA
      %ring_b = axe.alloc cta : !ringB
      %smem_c = axe.alloc cta : !smemC
      %bars = axe.mbarrier_alloc cta : !bars
      // Each stage's barrier takes one arrival per load round: one arrive.expect_tx of the round's 32768 bytes
      // (A 128x64 + B 64x128 f16) announces both TMA loads, which then only complete transactions.
      axe.mbarrier_init cta %bars count 1 : !bars
      axe.fill warpgroup %acc, %zero : !acc, f32
      // Prologue: K tiles 0, 1 and 2 (those that exist) into stages 0, 1 and 2.
      %prologue = arith.minui %ktiles32, %i3 : i32
      scf.for %p = %i0 to %prologue step %i1 : i32 {
        %p_index = arith.index_castui %p : i32 to index
        %kp = arith.muli %p_index, %c64 : index
        %row_ap = arith.muli %p_index, %c128 : index
        %ap = axe.slice %ga[%m0, %kp] [128, 64] : !gA to !tileA
        %bp = axe.slice %gb[%kp, %n0] [64, 128] : !gB to !tileB
        %sap = axe.slice %ring_a[%row_ap, 0] [128, 64] : !ringA to !stageA
        %sbp = axe.slice %ring_b[%kp, 0] [64, 128] : !ringB to !stageB
        axe.mbarrier_arrive_expect_tx cta %bars[%p_index] bytes 32768 : !bars
        axe.copy_async cta %ap to %sap, %bars[%p_index] : !tileA to !stageA, !bars
        axe.copy_async cta %bp to %sbp, %bars[%p_index] : !tileB to !stageB, !bars
      }
      // Iteration kt reads stage %cur = kt mod 3 (round kt / 3, so %parity = (kt / 3) mod 2), then loads K tile
      // kt + 3 into the same stage: the stage index and parity are carried and advanced by a compare and a select.
      %ring:2 = scf.for %kt = %i0 to %ktiles32 step %i1 iter_args(%cur = %i0, %parity = %false) -> (i32, i1) : i32 {
        %cur_index = arith.index_castui %cur : i32 to index
        axe.mbarrier_wait cta %bars[%cur_index], %parity : !bars
        %row_a = arith.muli %cur_index, %c128 : index
        %row_b = arith.muli %cur_index, %c64 : index
        %sa = axe.slice %ring_a[%row_a, 0] [128, 64] : !ringA to !stageA
        %sb = axe.slice %ring_b[%row_b, 0] [64, 128] : !ringB to !stageB
        // Each warp's wgmma on the stage is complete when the gemm returns (wait_group 0); the CTA barrier makes
        // that true of every warp, and lets every warp pass its wait on the stage's barrier, before the refill.
        axe.gemm warpgroup %sa, %sb, %acc : !stageA, !stageB, !acc
        gpu.barrier
        %kt3 = arith.addi %kt, %i3 : i32
        %more = arith.cmpi ult, %kt3, %ktiles32 : i32
        scf.if %more {
          %kt3_index = arith.index_castui %kt3 : i32 to index
          %k3 = arith.muli %kt3_index, %c64 : index
          %an = axe.slice %ga[%m0, %k3] [128, 64] : !gA to !tileA
          %bn = axe.slice %gb[%k3, %n0] [64, 128] : !gB to !tileB
          axe.mbarrier_arrive_expect_tx cta %bars[%cur_index] bytes 32768 : !bars
          axe.copy_async cta %an to %sa, %bars[%cur_index] : !tileA to !stageA, !bars
          axe.copy_async cta %bn to %sb, %bars[%cur_index] : !tileB to !stageB, !bars
        }
        // Advance the ring: the stage index wraps 2 -> 0, and its parity flips when it wraps (a new round).
        %cur1 = arith.addi %cur, %i1 : i32
        %wraps = arith.cmpi eq, %cur1, %i3 : i32
        %cur2 = arith.select %wraps, %i0, %cur1 : i32
        %parity2 = arith.xori %parity, %wraps : i1
        scf.yield %cur2, %parity2 : i32, i1
      }
      // Epilogue: f32 -> f16 in registers, registers -> the shared C tile, one TMA store (clipped at M and N). The
      // CTA barrier ends the rings' lifetime: the C tile may take their bytes.
      axe.sync cta
      axe.cast warpgroup %acc to %out : !acc to !out
      axe.copy warpgroup %out to %smem_c : !out to !smemC
      %tc = axe.slice %gc[%m0, %n0] [128, 128] : !gC to !tileC
      axe.copy_async cta %smem_c to %tc : !smemC to !tileC
      gpu.return
    }
  }
}
