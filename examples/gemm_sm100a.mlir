// gemm_sm100a.mlir: C[M,N] = A[M,K] @ B[K,N], f16 in and out, f32 accumulation, for sm_100a (TMA + tcgen05).
//
// The same job, run-time sizes, tiles, ring and barriers as gemm_sm90a.mlir (M, N, K run-time i32 arguments,
// multiples of 16; one CTA of 128 threads per 128x128 tile; a 3-stage ring of A [128,64] and B [64,128] tiles,
// one mbarrier per stage, parity (kt / 3) mod 2). The accumulator lives in tensor memory (128 lanes x 128 f32
// columns, `S[(128,128):(1@TLane,1@TCol)]`): the fill zeroes it by making the first tcgen05.mma of the first
// iteration overwrite (a run-time "written" flag, since the gemm is in the loop); one thread issues the 4
// tcgen05.mma m128n128k16 (the 4 K steps of a stage) and commits them to an mbarrier every thread waits on, so
// the stage is free for the next load once the iteration ends. The epilogue reads the accumulator in two
// halves of 64 columns (tensor-memory columns 0 and 64) with tcgen05.ld.32x32b (thread r holds 64 values of row r:
// half the registers of one 128-column read, 94 registers in all instead of 140), casts each to f16 (axe.cast),
// stores it to its half of a shared C tile (--lower-copy) and TMA-stores the tile (clipped at M and N). The rings
// and C (128 KB) live in dynamic shared memory.
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
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
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
      %i2 = arith.constant 2 : i32
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
      // Prologue: K tiles 0 and 1 into stages 0 and 1, when they exist.
      %a0 = axe.slice %ga[%m0, 0] [128, 64] : !gA to !tileA
      %b0 = axe.slice %gb[0, %n0] [64, 128] : !gB to !tileB
      %sa0 = axe.slice %ring_a[0, 0] [128, 64] : !ringA to !stageA
      %sb0 = axe.slice %ring_b[0, 0] [64, 128] : !ringB to !stageB
      axe.mbarrier_arrive_expect_tx cta %bars[%c0] bytes 32768 : !bars
      axe.copy_async cta %a0 to %sa0, %bars[%c0] : !tileA to !stageA, !bars
      axe.copy_async cta %b0 to %sb0, %bars[%c0] : !tileB to !stageB, !bars
      %has1 = arith.cmpi ugt, %ktiles, %c1 : index
      scf.if %has1 {
        %a1 = axe.slice %ga[%m0, 64] [128, 64] : !gA to !tileA
        %b1 = axe.slice %gb[64, %n0] [64, 128] : !gB to !tileB
        %sa1 = axe.slice %ring_a[128, 0] [128, 64] : !ringA to !stageA
        %sb1 = axe.slice %ring_b[64, 0] [64, 128] : !ringB to !stageB
        axe.mbarrier_arrive_expect_tx cta %bars[%c1] bytes 32768 : !bars
        axe.copy_async cta %a1 to %sa1, %bars[%c1] : !tileA to !stageA, !bars
        axe.copy_async cta %b1 to %sb1, %bars[%c1] : !tileB to !stageB, !bars
      }
      // The stage read (kt mod 3), the stage loaded (kt + 2 mod 3) and the read stage's parity ((kt / 3) mod 2)
      // are carried across iterations and advanced by a compare and a select, not divided out of kt.
      %ring:3 = scf.for %kt = %i0 to %ktiles32 step %i1 iter_args(%cur = %i0, %next = %i2, %parity = %false) -> (i32, i32, i1) : i32 {
        // The previous iteration's tcgen05.mma completed (its commit barrier) before the stage it read is loaded
        // again.
        gpu.barrier
        // Load K tile kt + 2 into stage %next = (kt + 2) mod 3, when there is one.
        %kt2 = arith.addi %kt, %i2 : i32
        %more = arith.cmpi ult, %kt2, %ktiles32 : i32
        scf.if %more {
          %kt2_index = arith.index_castui %kt2 : i32 to index
          %next_index = arith.index_castui %next : i32 to index
          %k2 = arith.muli %kt2_index, %c64 : index
          %row_a = arith.muli %next_index, %c128 : index
          %row_b = arith.muli %next_index, %c64 : index
          %an = axe.slice %ga[%m0, %k2] [128, 64] : !gA to !tileA
          %bn = axe.slice %gb[%k2, %n0] [64, 128] : !gB to !tileB
          %san = axe.slice %ring_a[%row_a, 0] [128, 64] : !ringA to !stageA
          %sbn = axe.slice %ring_b[%row_b, 0] [64, 128] : !ringB to !stageB
          axe.mbarrier_arrive_expect_tx cta %bars[%next_index] bytes 32768 : !bars
          axe.copy_async cta %an to %san, %bars[%next_index] : !tileA to !stageA, !bars
          axe.copy_async cta %bn to %sbn, %bars[%next_index] : !tileB to !stageB, !bars
        }
        // Wait for stage %cur = kt mod 3, round kt / 3: %parity = (kt / 3) mod 2.
        %cur_index = arith.index_castui %cur : i32 to index
        axe.mbarrier_wait cta %bars[%cur_index], %parity : !bars
        %row_a = arith.muli %cur_index, %c128 : index
        %row_b = arith.muli %cur_index, %c64 : index
        %sa = axe.slice %ring_a[%row_a, 0] [128, 64] : !ringA to !stageA
        %sb = axe.slice %ring_b[%row_b, 0] [64, 128] : !ringB to !stageB
        axe.gemm cta %sa, %sb, %acc : !stageA, !stageB, !acc
        // Advance the ring: each stage index wraps 2 -> 0; the read stage's parity flips when it wraps (a new round).
        %cur1 = arith.addi %cur, %i1 : i32
        %cur_wraps = arith.cmpi eq, %cur1, %i3 : i32
        %cur2 = arith.select %cur_wraps, %i0, %cur1 : i32
        %parity2 = arith.xori %parity, %cur_wraps : i1
        %next1 = arith.addi %next, %i1 : i32
        %next_wraps = arith.cmpi eq, %next1, %i3 : i32
        %next2 = arith.select %next_wraps, %i0, %next1 : i32
        scf.yield %cur2, %next2, %parity2 : i32, i32, i1
      }
      // Epilogue, per half of 64 columns: tensor memory -> registers (tcgen05.ld, thread r row r), f32 -> f16,
      // registers -> the half of the shared C tile; then one TMA store of the tile (clipped at M and N).
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
