// gemm_sm100a.mlir: C[M,N] = A[M,K] @ B[K,N], f16 in and out, f32 accumulation, for sm_100a (TMA + tcgen05).
//
// The same job, run-time sizes and tiles as gemm_sm90a.mlir (M, N, K run-time i32 arguments, multiples of 16; one
// CTA of 128 threads per 128x128 tile; a 3-stage ring of A [128,64] and B [64,128] tiles, an array of 3 mbarriers,
// one per stage, parity (kt / 3) mod 2), but the ring runs three tiles ahead: the prologue loads K tiles 0-2, and
// iteration kt, once the MMAs on its stage are complete, refills that stage with tile kt + 3 (one stage index, no
// second one for the load). The accumulator lives in tensor memory (128 lanes x 128 f32 columns,
// `S[(128,128):(1@TLane,1@TCol)]`): the fill zeroes it by making the first tcgen05.mma of the first iteration
// overwrite (a run-time "written" flag, since the gemm is in the loop); one thread issues the 4 tcgen05.mma
// m128n128k16 (the 4 K steps of a stage) and commits them to an mbarrier every thread waits on, so the stage is
// free for its refill once the gemm returns, and a CTA barrier lets every warp pass its wait on the stage's
// barrier before the refill arms it again. The epilogue reads the accumulator in two
// halves of 64 columns (tensor-memory columns 0 and 64) with tcgen05.ld.32x32b (thread r holds 64 values of row r:
// half the registers of one 128-column read, 94 registers in all instead of 140), casts each to f16 (axe.cast),
// stores it to its half of a shared C tile (--lower-copy) and TMA-stores the tile (clipped at M and N). The rings
// (96 KB) live in dynamic shared memory, and the C tile (32 KB) shares their bytes after a CTA barrier.
//
//   axe-opt --lower-tma --lower-mma --lower-copy --lower-to-nvvm --axe-hoist-allocas --axe-dynamic-shared \
//     examples/gemm_sm100a.mlir |
//     axe-translate --emit=ptx --chip=sm_100a
//   (and --emit=launch for the launch record)

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
!acc = !axe.tensor<128x128xf32, tmem, S[(128,128):(1@TLane,1@TCol)]>
!half = !axe.tensor<128x64xf32, tmem>
!smemHalf = !axe.tensor<128x64xf16, shared>
!rows = !axe.tensor<128x64xf32, reg, S[(4,32,64):(1@warpid,1@laneid,1)]>
!bars = !axe.mbarrier<3>
!out = !axe.tensor<128x64xf16, reg, S[(4,32,64):(1@warpid,1@laneid,1)]>

module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_100a"} {
    gpu.func @gemm_sm100a(%a: !llvm.ptr<1>, %b: !llvm.ptr<1>, %c: !llvm.ptr<1>, %m: i32, %n: i32, %k: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>, axe.launch = {params = ["A", "B", "C", "M", "N", "K"], grid = ["ceildiv(N, 128)", "ceildiv(M, 128)", "1"]}} {
      %c63 = arith.constant 63 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %false = arith.constant false
      %zero = arith.constant 0.0 : f32
      // The accumulator in tensor memory; its rows and their f16 copy: per-thread register arrays, allocated
      // first so that they sit in the kernel's entry block (LLVM promotes only entry-block allocas to registers).
      %rows = axe.alloc cta : !rows
      %out = axe.alloc cta : !out
      %acc = axe.alloc cta : !acc
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
      axe.fill cta %acc, %zero : !acc, f32
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
        // Its tcgen05.mma complete (the gemm waits on their commit barrier), the stage is free; every thread has
        // passed its wait on the stage's barrier before the barrier is armed for the next round.
        axe.gemm cta %sa, %sb, %acc : !stageA, !stageB, !acc
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
      // Epilogue, per half of 64 columns: tensor memory -> registers (tcgen05.ld, thread r row r), f32 -> f16,
      // registers -> the half of the shared C tile; then one TMA store of the tile (clipped at M and N). The CTA
      // barrier ends the rings' lifetime: the C tile may take their bytes.
      axe.sync cta
      %acc_lo = axe.slice %acc[0, 0] [128, 64] : !acc to !half
      %acc_hi = axe.slice %acc[0, 64] [128, 64] : !acc to !half
      %c_lo = axe.slice %smem_c[0, 0] [128, 64] : !smemC to !smemHalf
      %c_hi = axe.slice %smem_c[0, 64] [128, 64] : !smemC to !smemHalf
      axe.copy cta %acc_lo to %rows : !half to !rows
      axe.cast cta %rows to %out : !rows to !out
      axe.copy cta %out to %c_lo : !out to !smemHalf
      axe.copy cta %acc_hi to %rows : !half to !rows
      axe.cast cta %rows to %out : !rows to !out
      axe.copy cta %out to %c_hi : !out to !smemHalf
      %tc = axe.slice %gc[%m0, %n0] [128, 128] : !gC to !tileC
      axe.copy_async cta %smem_c to %tc : !smemC to !tileC
      gpu.return
    }
  }
}
