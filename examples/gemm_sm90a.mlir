// gemm_sm90a.mlir: C[M,N] = A[M,K] @ B[K,N], f16 in and out, f32 accumulation, for sm_90a (TMA + wgmma).
//
// M, N and K are run-time kernel arguments (i32): A, B and C are views with run-time extents (#axe.row_major,
// docs/dialect.md "Run-time sizes"), so one compiled kernel serves every problem size. Precondition: M, N and K
// are multiples of 16 (the views' `multiples`; TMA needs 16-byte row strides, i.e. K and N multiples of 8) and at
// least 1. Partial tiles at the edges need nothing more: TMA loads fill the part of a box past M, N or K with
// zeros (which add nothing to the products) and the TMA store of C clips it.
//
// One CTA per 128x128 output tile (grid ceildiv(N,128) x ceildiv(M,128)), one consumer warpgroup (128 threads)
// that is also the producer: a 3-stage ring of A tiles [128,64] and B tiles [64,128] in 128B-swizzled shared
// memory, one mbarrier per stage. The prologue loads K tiles 0 and 1 (when they exist); iteration kt loads tile
// kt + 2 (when it exists) into stage (kt + 2) mod 3, waits on stage kt mod 3's barrier for parity (kt / 3) mod 2
// (the stage's round: its barrier completes one phase per load), and runs wgmma m64n128k16 (2 x 4 issues) on the
// stage. wgmma waits for itself (wait_group 0) and a CTA barrier opens each iteration, so the stage loaded in
// iteration kt, last read in iteration kt - 1, is free. The accumulator, 128x128 f32, lives in registers (128 a
// thread); the epilogue casts it to f16 (axe.cast), stores it to a 128B-swizzled shared tile (--lower-copy) and
// TMA-stores the tile (clipped at M and N). The rings and the C tile (128 KB) live in dynamic shared memory.
//
//   axe-opt --lower-tma --lower-mma --lower-copy --lower-to-nvvm --axe-hoist-allocas --axe-dynamic-shared \
//     examples/gemm_sm90a.mlir |
//     axe-translate --emit=ptx --chip=sm_90a
//   (and --emit=launch for the launch record: grid, block, dynamic shared bytes, parameters, tensor maps)

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
!acc = !axe.tensor<array<i64: 128, 128>, f32, #axe.layout<"S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]">, #axe.mem<"reg">>
!out = !axe.tensor<array<i64: 128, 128>, f16, #axe.layout<"S[(2,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]">, #axe.mem<"reg">>

module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_90a"} {
    gpu.func @gemm_sm90a(%a: !llvm.ptr<1>, %b: !llvm.ptr<1>, %c: !llvm.ptr<1>, %m: i32, %n: i32, %k: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>, axe.launch = {params = ["A", "B", "C", "M", "N", "K"], grid = ["ceildiv(N, 128)", "ceildiv(M, 128)", "1"]}} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c63 = arith.constant 63 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %false = arith.constant false
      %zero = arith.constant 0.0 : f32
      // The accumulator and its f16 copy: per-thread register arrays, allocated first so that they sit in the
      // kernel's entry block (LLVM promotes only entry-block allocas to registers).
      %acc = "axe.alloc"() {scope = #axe.exec<"warpgroup">} : () -> !acc
      %out = "axe.alloc"() {scope = #axe.exec<"warpgroup">} : () -> !out
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
      "axe.fill"(%acc, %zero) {scope = #axe.exec<"warpgroup">} : (!acc, f32) -> ()
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
        // Every warp has finished the previous iteration's wgmma (its wait_group 0) before the stage it read is
        // loaded again.
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
        "axe.gemm"(%sa, %sb, %acc) {scope = #axe.exec<"warpgroup">} : (!stageA, !stageB, !acc) -> ()
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
      // Epilogue: f32 -> f16 in registers, registers -> the shared C tile, one TMA store (clipped at M and N).
      "axe.cast"(%acc, %out) {scope = #axe.exec<"warpgroup">} : (!acc, !out) -> ()
      "axe.copy"(%out, %smem_c) {scope = #axe.exec<"warpgroup">} : (!out, !smemC) -> ()
      %tc = "axe.slice"(%gc, %m0, %n0) {offsets = array<i64: -9223372036854775808, -9223372036854775808>, sizes = array<i64: 128, 128>} : (!gC, index, index) -> !tileC
      "axe.copy_async"(%smem_c, %tc) {scope = #axe.exec<"cta">} : (!smemC, !tileC) -> ()
      gpu.return
    }
  }
}
