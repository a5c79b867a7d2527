// gemm_sm100a.mlir: C[M,N] = A[M,K] @ B[K,N], f16 in and out, f32 accumulation, for sm_100a (TMA + tcgen05).
//
// The same job, run-time sizes, tiles, ring and barriers as gemm_sm90a.mlir (M, N, K run-time i32 arguments,
// multiples of 16; one CTA of 128 threads per 128x128 tile; a 3-stage ring of A [128,64] and B [64,128] tiles,
// one mbarrier per stage, parity (kt / 3) mod 2). The accumulator lives in tensor memory (128 lanes x 128 f32
// columns, `S[(128,128):(1@TLane,1@TCol)]`): the fill zeroes it by making the first tcgen05.mma of the first
// iteration overwrite (a run-time "written" flag, since the gemm is in the loop); one thread issues the 4
// tcgen05.mma m128n128k16 (the 4 K steps of a stage) and commits them to an mbarrier every thread waits on, so
// the stage is free for the next load once the iteration ends. The epilogue reads the accumulator
// with tcgen05.ld.32x32b (thread r holds row r, 128 registers), casts to f16 (axe.cast), stores the rows to a
// shared C tile (--lower-copy) and TMA-stores it (clipped at M and N). The rings and C (128 KB) live in dynamic
// shared memory.
//
//   axe-opt --lower-tma --lower-mma --lower-copy --lower-to-nvvm --axe-hoist-allocas --axe-dynamic-shared \
//     examples/gemm_sm100a.mlir |
//     axe-translate --emit=ptx --chip=sm_100a
//   (and --emit=launch for the launch record)

!gA = !axe.tensor<array<i64: -9223372036854775808, -9223372036854775808>, f16, #axe.row_major, #axe.mem<"global">>
!gB = !axe.tensor<array<i64: -9223372036854775808, -9223372036854775808>, f16, #axe.row_major, #axe.mem<"global">>
!gC = !axe.tensor<array<i64: -9223372036854775808, -9223372036854775808>, f16, #axe.row_major, #axe.mem<"global">>
!tileA = !axe.tensor<array<i64: 128, 64>, f16, #axe.deferred, #axe.mem<"global">>
!tileB = !axe.tensor<array<i64: 64, 128>, f16, #axe.deferred, #axe.mem<"global">>
!tileC = !axe.tensor<array<i64: 128, 128>, f16, #axe.deferred, #axe.mem<"global">>
!ringA = !axe.tensor<array<i64: 384, 64>, f16, #axe.layout<"Swizzle(3,3,3) o S[(384,64):(64,1)]">, #axe.mem<"shared">>
!ringB = !axe.tensor<array<i64: 192, 128>, f16, #axe.layout<"Swizzle(3,3,3) o S[(3,64,2,64):(8192,64,4096,1)]">, #axe.mem<"shared">>
!stageA = !axe.tensor<array<i64: 128, 64>, f16, #axe.deferred, #axe.mem<"shared">>
!stageB = !axe.tensor<array<i64: 64, 128>, f16, #axe.deferred, #axe.mem<"shared">>
!smemC = !axe.tensor<array<i64: 128, 128>, f16, #axe.layout<"Swizzle(3,3,3) o S[(128,2,64):(64,8192,1)]">, #axe.mem<"shared">>
!acc = !axe.tensor<array<i64: 128, 128>, f32, #axe.layout<"S[(128,128):(1@TLane,1@TCol)]">, #axe.mem<"tmem">>
!rows = !axe.tensor<array<i64: 128, 128>, f32, #axe.layout<"S[(4,32,128):(1@warpid,1@laneid,1)]">, #axe.mem<"reg">>
!out = !axe.tensor<array<i64: 128, 128>, f16, #axe.layout<"S[(4,32,128):(1@warpid,1@laneid,1)]">, #axe.mem<"reg">>

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
      %rows = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !rows
      %out = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !out
      %acc = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !acc
      %ga = "axe.view"(%a, %m, %k) {multiples = array<i64: 16, 16>} : (!llvm.ptr<1>, i32, i32) -> !gA
      %gb = "axe.view"(%b, %k, %n) {multiples = array<i64: 16, 16>} : (!llvm.ptr<1>, i32, i32) -> !gB
      %gc = "axe.view"(%c, %m, %n) {multiples = array<i64: 16, 16>} : (!llvm.ptr<1>, i32, i32) -> !gC
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
      %ring_a = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !ringA
      %ring_b = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !ringB
      %smem_c = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !smemC
      %bar0 = "axe.mbarrier_alloc"() {scope = #axe.exec<"cta">} : () -> !axe.mbarrier
      %bar1 = "axe.mbarrier_alloc"() {scope = #axe.exec<"cta">} : () -> !axe.mbarrier
      %bar2 = "axe.mbarrier_alloc"() {scope = #axe.exec<"cta">} : () -> !axe.mbarrier
      // Each stage's barrier takes one arrival per load round: one arrive.expect_tx of the round's 32768 bytes
      // (A 128x64 + B 64x128 f16) announces both TMA loads, which then only complete transactions.
      "axe.mbarrier_init"(%bar0) {count = 1 : i64, scope = #axe.exec<"cta">} : (!axe.mbarrier) -> ()
      "axe.mbarrier_init"(%bar1) {count = 1 : i64, scope = #axe.exec<"cta">} : (!axe.mbarrier) -> ()
      "axe.mbarrier_init"(%bar2) {count = 1 : i64, scope = #axe.exec<"cta">} : (!axe.mbarrier) -> ()
      "axe.fill"(%acc, %zero) {scope = #axe.exec<"cta">} : (!acc, f32) -> ()
      // Prologue: K tiles 0 and 1 into stages 0 and 1, when they exist.
      %a0 = "axe.slice"(%ga, %m0) {offsets = array<i64: -9223372036854775808, 0>, sizes = array<i64: 128, 64>} : (!gA, index) -> !tileA
      %b0 = "axe.slice"(%gb, %n0) {offsets = array<i64: 0, -9223372036854775808>, sizes = array<i64: 64, 128>} : (!gB, index) -> !tileB
      %sa0 = "axe.slice"(%ring_a) {offsets = array<i64: 0, 0>, sizes = array<i64: 128, 64>} : (!ringA) -> !stageA
      %sb0 = "axe.slice"(%ring_b) {offsets = array<i64: 0, 0>, sizes = array<i64: 64, 128>} : (!ringB) -> !stageB
      "axe.mbarrier_arrive_expect_tx"(%bar0) {bytes = 32768 : i64, scope = #axe.exec<"cta">} : (!axe.mbarrier) -> ()
      "axe.copy_async"(%a0, %sa0, %bar0) {scope = #axe.exec<"cta">} : (!tileA, !stageA, !axe.mbarrier) -> ()
      "axe.copy_async"(%b0, %sb0, %bar0) {scope = #axe.exec<"cta">} : (!tileB, !stageB, !axe.mbarrier) -> ()
      %has1 = arith.cmpi ugt, %ktiles, %c1 : index
      scf.if %has1 {
        %a1 = "axe.slice"(%ga, %m0) {offsets = array<i64: -9223372036854775808, 64>, sizes = array<i64: 128, 64>} : (!gA, index) -> !tileA
        %b1 = "axe.slice"(%gb, %n0) {offsets = array<i64: 64, -9223372036854775808>, sizes = array<i64: 64, 128>} : (!gB, index) -> !tileB
        %sa1 = "axe.slice"(%ring_a) {offsets = array<i64: 128, 0>, sizes = array<i64: 128, 64>} : (!ringA) -> !stageA
        %sb1 = "axe.slice"(%ring_b) {offsets = array<i64: 64, 0>, sizes = array<i64: 64, 128>} : (!ringB) -> !stageB
        "axe.mbarrier_arrive_expect_tx"(%bar1) {bytes = 32768 : i64, scope = #axe.exec<"cta">} : (!axe.mbarrier) -> ()
        "axe.copy_async"(%a1, %sa1, %bar1) {scope = #axe.exec<"cta">} : (!tileA, !stageA, !axe.mbarrier) -> ()
        "axe.copy_async"(%b1, %sb1, %bar1) {scope = #axe.exec<"cta">} : (!tileB, !stageB, !axe.mbarrier) -> ()
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
          %an = "axe.slice"(%ga, %m0, %k2) {offsets = array<i64: -9223372036854775808, -9223372036854775808>, sizes = array<i64: 128, 64>} : (!gA, index, index) -> !tileA
          %bn = "axe.slice"(%gb, %k2, %n0) {offsets = array<i64: -9223372036854775808, -9223372036854775808>, sizes = array<i64: 64, 128>} : (!gB, index, index) -> !tileB
          %san = "axe.slice"(%ring_a, %row_a) {offsets = array<i64: -9223372036854775808, 0>, sizes = array<i64: 128, 64>} : (!ringA, index) -> !stageA
          %sbn = "axe.slice"(%ring_b, %row_b) {offsets = array<i64: -9223372036854775808, 0>, sizes = array<i64: 64, 128>} : (!ringB, index) -> !stageB
          scf.index_switch %next_index
          case 0 {
            "axe.mbarrier_arrive_expect_tx"(%bar0) {bytes = 32768 : i64, scope = #axe.exec<"cta">} : (!axe.mbarrier) -> ()
            "axe.copy_async"(%an, %san, %bar0) {scope = #axe.exec<"cta">} : (!tileA, !stageA, !axe.mbarrier) -> ()
            "axe.copy_async"(%bn, %sbn, %bar0) {scope = #axe.exec<"cta">} : (!tileB, !stageB, !axe.mbarrier) -> ()
            scf.yield
          }
          case 1 {
            "axe.mbarrier_arrive_expect_tx"(%bar1) {bytes = 32768 : i64, scope = #axe.exec<"cta">} : (!axe.mbarrier) -> ()
            "axe.copy_async"(%an, %san, %bar1) {scope = #axe.exec<"cta">} : (!tileA, !stageA, !axe.mbarrier) -> ()
            "axe.copy_async"(%bn, %sbn, %bar1) {scope = #axe.exec<"cta">} : (!tileB, !stageB, !axe.mbarrier) -> ()
            scf.yield
          }
          default {
            "axe.mbarrier_arrive_expect_tx"(%bar2) {bytes = 32768 : i64, scope = #axe.exec<"cta">} : (!axe.mbarrier) -> ()
            "axe.copy_async"(%an, %san, %bar2) {scope = #axe.exec<"cta">} : (!tileA, !stageA, !axe.mbarrier) -> ()
            "axe.copy_async"(%bn, %sbn, %bar2) {scope = #axe.exec<"cta">} : (!tileB, !stageB, !axe.mbarrier) -> ()
            scf.yield
          }
        }
        // Wait for stage %cur = kt mod 3, round kt / 3: %parity = (kt / 3) mod 2.
        %cur_index = arith.index_castui %cur : i32 to index
        scf.index_switch %cur_index
        case 0 {
          "axe.mbarrier_wait"(%bar0, %parity) {scope = #axe.exec<"cta">} : (!axe.mbarrier, i1) -> ()
          scf.yield
        }
        case 1 {
          "axe.mbarrier_wait"(%bar1, %parity) {scope = #axe.exec<"cta">} : (!axe.mbarrier, i1) -> ()
          scf.yield
        }
        default {
          "axe.mbarrier_wait"(%bar2, %parity) {scope = #axe.exec<"cta">} : (!axe.mbarrier, i1) -> ()
          scf.yield
        }
        %row_a = arith.muli %cur_index, %c128 : index
        %row_b = arith.muli %cur_index, %c64 : index
        %sa = "axe.slice"(%ring_a, %row_a) {offsets = array<i64: -9223372036854775808, 0>, sizes = array<i64: 128, 64>} : (!ringA, index) -> !stageA
        %sb = "axe.slice"(%ring_b, %row_b) {offsets = array<i64: -9223372036854775808, 0>, sizes = array<i64: 64, 128>} : (!ringB, index) -> !stageB
        "axe.gemm"(%sa, %sb, %acc) {scope = #axe.exec<"cta">} : (!stageA, !stageB, !acc) -> ()
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
      // Epilogue: tensor memory -> registers (tcgen05.ld, thread r row r), f32 -> f16, registers -> the shared C
      // tile, one TMA store (clipped at M and N).
      "axe.copy"(%acc, %rows) {scope = #axe.exec<"cta">} : (!acc, !rows) -> ()
      "axe.cast"(%rows, %out) {scope = #axe.exec<"cta">} : (!rows, !out) -> ()
      "axe.copy"(%out, %smem_c) {scope = #axe.exec<"cta">} : (!out, !smemC) -> ()
      %tc = "axe.slice"(%gc, %m0, %n0) {offsets = array<i64: -9223372036854775808, -9223372036854775808>, sizes = array<i64: 128, 128>} : (!gC, index, index) -> !tileC
      "axe.copy_async"(%smem_c, %tc) {scope = #axe.exec<"cta">} : (!smemC, !tileC) -> ()
      gpu.return
    }
  }
}
