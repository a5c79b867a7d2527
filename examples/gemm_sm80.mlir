// gemm_sm80.mlir: C[M,N] (f16) = A[M,K] (f16, row-major) @ B[K,N] (f16, row-major) on sm_80, f32 accumulation in
// registers: cp.async + ldmatrix + mma.sync, written in the axe dialect with layouts.
//
//   axe-opt --lower-copy --lower-mma --lower-to-nvvm --axe-dynamic-shared examples/gemm_sm80.mlir \
//     | axe-translate --emit=ptx --chip=sm_80
//
// One CTA of 4 warps computes one 128x128 tile of C (block (x, y) the rows 128x.., columns 128y..); warp w the
// 64x64 warp tile at rows 64 (w % 2), columns 64 (w / 2) of it, as 4x8 m16n8k16 tiles: 128 f32 accumulators per
// thread. The fragments and the accumulator are warp-scope register tensors (lanes and registers only); each warp
// reads its own rows of A and columns of B from shared memory at a run-time offset (its warp index).
//
// A and B tiles (128x64 and 64x128 per K step of 64) stream through 3-stage rings in shared memory with the 128B
// swizzle (Swizzle(3,3,3): 16-byte chunk ^ row % 8, so ldmatrix reads 8 rows of one column chunk from 8 distinct
// bank groups): A as [3*128, 64] rows, B as [3*64, 128] kept as two 64-column panels of 128-byte rows
// (`S[(192,2,64):(64,12288,1)]`), so that a warp's 64 columns are a whole panel. Loads are `axe.copy_async`
// without a barrier: cp.async (16 bytes a thread, 8 per thread per operand and tile) into the current cp.async
// group, which the kernel commits once per tile. The prologue loads K tile 0 into stage 0 and, when K > 64, tile 1
// into stage 1 (its group is committed either way, empty when there is no tile 1); iteration kt waits until at
// most one group is pending (tile kt has landed: cp.async.wait_group 1), opens a CTA barrier (tile kt is visible
// to every thread, and every warp is done with stage (kt + 2) mod 3, read in iteration kt - 1), loads tile kt + 2
// into that stage and commits its group (an empty group past the end, so that there is one group per iteration),
// then runs its 4 k16 steps on stage kt mod 3: per warp ldmatrix x4 of its 64x16 slice of A, ldmatrix x4 .trans
// of its 16x64 slice of B, 32 mma.sync. After the loop, cp.async.wait_group 0: no copy is in flight when the CTA
// exits (`--axe-check-barriers` refuses a kernel that could exit with one). The stages (carried by the
// loop), the K tile, the block's tile and the warp's offsets are run-time values: the planner states each slice's
// address as a per-thread formula plus terms of the offsets (`axe_layout::copy::plan_moving`), each a whole
// number of swizzle periods.
//
// The epilogue converts the accumulators to f16 (axe.cast) and each warp stores them to its tile of C
// (st.global, 4 bytes).
//
// M, N and K are kernel arguments (`axe.view` extent operands, `row_major`): one compiled kernel serves every
// size, on a grid of ceildiv(M, 128) x ceildiv(N, 128) CTAs. Preconditions, which --lower-copy derives from the
// planned accesses and the launch record lists (`axe-translate --emit=launch`): A and B 16-byte aligned and K and N
// multiples of 8 (every 16-byte cp.async row of A and B starts aligned), C 4-byte aligned and N even (the 4-byte
// stores of C). Partial tiles at the edges are predicated: a cp.async whose 16 bytes lie past row M or column K of
// A (K or N of B) has src-size 0 and fills its shared chunk with zeros, and a store past row M or column N of C is
// skipped.

!gA = !axe.tensor<?x?xf16, global, row_major>
!gB = !axe.tensor<?x?xf16, global, row_major>
!gC = !axe.tensor<?x?xf16, global, row_major>
!tileA = !axe.tensor<128x64xf16, global>
!tileB = !axe.tensor<64x128xf16, global>
!tileC = !axe.tensor<64x64xf16, global>
!ringA = !axe.tensor<384x64xf16, shared, Swizzle(3,3,3) o S[(384,64):(64,1)]>
!ringB = !axe.tensor<192x128xf16, shared, Swizzle(3,3,3) o S[(192,2,64):(64,12288,1)]>
!stageA = !axe.tensor<128x64xf16, shared>
!stageB = !axe.tensor<64x128xf16, shared>
!kA = !axe.tensor<64x16xf16, shared>
!kB = !axe.tensor<16x64xf16, shared>
// The m16n8k16 fragments of the CTA's 128x16 A and 16x128 B k16 slices: each warp holds its 64 rows of A (and
// the warp beside it the same: R[2:2@warpid]) and its 64 columns of B.
!fA = !axe.tensor<64x16xf16, reg, S[(4,2,8,2,4,2):(8,2,4@laneid,4,1@laneid,1)]>
!fB = !axe.tensor<16x64xf16, reg, S[(2,4,2,8,8):(2,1@laneid,1,4,4@laneid)]>
!c = !axe.tensor<64x64xf32, reg, S[(4,2,8,8,4,2):(32,2,4@laneid,4,1@laneid,1)]>
!c16 = !axe.tensor<64x64xf16, reg, S[(4,2,8,8,4,2):(32,2,4@laneid,4,1@laneid,1)]>
!acc = memref<128xf32, #gpu.address_space<private>>

module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_80"} {
    gpu.func @gemm_sm80(%a: !llvm.ptr<1>, %b: !llvm.ptr<1>, %c: !llvm.ptr<1>, %mm: i32, %nn: i32, %kk: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>, axe.launch = {params = ["A", "B", "C", "M", "N", "K"], grid = ["ceildiv(M, 128)", "ceildiv(N, 128)", "1"]}} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %c48 = arith.constant 48 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %K = arith.index_castui %kk : i32 to index
      %zero = arith.constant 0.0 : f32
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %m0 = arith.muli %bx, %c128 : index
      %n0 = arith.muli %by, %c128 : index
      // A [M, K], B [K, N], C [M, N], row-major; K and N are multiples of 8 (16-byte rows), M is any.
      %ga = axe.view %a(%mm, %kk : i32, i32) multiples [1, 8] : !llvm.ptr<1> -> !gA
      %gb = axe.view %b(%kk, %nn : i32, i32) multiples [1, 8] : !llvm.ptr<1> -> !gB
      %gc = axe.view %c(%mm, %nn : i32, i32) multiples [1, 8] : !llvm.ptr<1> -> !gC
      %ring_a = axe.alloc cta : !ringA
      %ring_b = axe.alloc cta : !ringB
      %fa = axe.alloc warp : !fA
      %fb = axe.alloc warp : !fB
      %acc = memref.alloca() : !acc
      // Register tensors are allocated in the entry block, where LLVM promotes them to registers.
      %h = axe.alloc warp : !c16
      %cc = axe.view %acc : !acc -> !c
      axe.fill warp %cc, %zero : !c, f32
      // Warp w computes rows 64 (w % 2) and columns 64 (w / 2) of the CTA's tile.
      %tid = gpu.thread_id x
      %warp = arith.divui %tid, %c32 : index
      %wm = arith.remui %warp, %c2 : index
      %wn = arith.divui %warp, %c2 : index
      %wr = arith.muli %wm, %c64 : index
      %wc = arith.muli %wn, %c64 : index
      // Prologue: K tile 0 into stage 0 and tile 1 into stage 1, one cp.async group each.
      %a0 = axe.slice %ga[%m0, 0] [128, 64] : !gA to !tileA
      %b0 = axe.slice %gb[0, %n0] [64, 128] : !gB to !tileB
      %sa0 = axe.slice %ring_a[0, 0] [128, 64] : !ringA to !stageA
      %sb0 = axe.slice %ring_b[0, 0] [64, 128] : !ringB to !stageB
      axe.copy_async cta %a0 to %sa0 : !tileA to !stageA
      axe.copy_async cta %b0 to %sb0 : !tileB to !stageB
      nvvm.cp.async.commit.group
      // K tile 1 only when there is one (K > 64); its group is committed either way (empty when K <= 64), so
      // that the loop's wait_group 1 always means "tile kt has landed".
      %has1 = arith.cmpi ult, %c64, %K : index
      scf.if %has1 {
        %a1 = axe.slice %ga[%m0, 64] [128, 64] : !gA to !tileA
        %b1 = axe.slice %gb[64, %n0] [64, 128] : !gB to !tileB
        %sa1 = axe.slice %ring_a[128, 0] [128, 64] : !ringA to !stageA
        %sb1 = axe.slice %ring_b[64, 0] [64, 128] : !ringB to !stageB
        axe.copy_async cta %a1 to %sa1 : !tileA to !stageA
        axe.copy_async cta %b1 to %sb1 : !tileB to !stageB
      }
      nvvm.cp.async.commit.group
      // The stage read (kt mod 3) and the stage loaded (kt + 2 mod 3) are carried from iteration to iteration.
      %stages:2 = scf.for %k = %c0 to %K step %c64 iter_args(%cur = %c0, %nxt = %c2) -> (index, index) {
        // Tile kt has landed (at most the group of tile kt + 1 is pending) and every thread sees it; every warp
        // is done with the stage the next load overwrites.
        nvvm.cp.async.wait.group 1
        gpu.barrier
        %k2 = arith.addi %k, %c128 : index
        %more = arith.cmpi ult, %k2, %K : index
        scf.if %more {
          %an = axe.slice %ga[%m0, %k2] [128, 64] : !gA to !tileA
          %bn = axe.slice %gb[%k2, %n0] [64, 128] : !gB to !tileB
          %rna = arith.muli %nxt, %c128 : index
          %rnb = arith.muli %nxt, %c64 : index
          %san = axe.slice %ring_a[%rna, 0] [128, 64] : !ringA to !stageA
          %sbn = axe.slice %ring_b[%rnb, 0] [64, 128] : !ringB to !stageB
          axe.copy_async cta %an to %san : !tileA to !stageA
          axe.copy_async cta %bn to %sbn : !tileB to !stageB
        }
        // One group per iteration (an empty one past the last tile), so that wait_group 1 always means tile kt.
        nvvm.cp.async.commit.group
        // The warp's rows of stage kt mod 3 in A's ring, and its first row of the stage in B's.
        %ra0 = arith.muli %cur, %c128 : index
        %ra = arith.addi %ra0, %wr : index
        %rb = arith.muli %cur, %c64 : index
        // k16 step 0: the warp's 64 rows of A, columns 0..; rows 0.. of its 64 columns of B.
        %ka0 = axe.slice %ring_a[%ra, 0] [64, 16] : !ringA to !kA
        %kb0 = axe.slice %ring_b[%rb, %wc] [16, 64] : !ringB to !kB
        axe.copy warp %ka0 to %fa : !kA to !fA
        axe.copy warp %kb0 to %fb : !kB to !fB
        axe.gemm warp %fa, %fb, %cc : !fA, !fB, !c
        // k16 step 1: the warp's 64 rows of A, columns 16..; rows 16.. of its 64 columns of B.
        %ka1 = axe.slice %ring_a[%ra, 16] [64, 16] : !ringA to !kA
        %rb1 = arith.addi %rb, %c16 : index
        %kb1 = axe.slice %ring_b[%rb1, %wc] [16, 64] : !ringB to !kB
        axe.copy warp %ka1 to %fa : !kA to !fA
        axe.copy warp %kb1 to %fb : !kB to !fB
        axe.gemm warp %fa, %fb, %cc : !fA, !fB, !c
        // k16 step 2: the warp's 64 rows of A, columns 32..; rows 32.. of its 64 columns of B.
        %ka2 = axe.slice %ring_a[%ra, 32] [64, 16] : !ringA to !kA
        %rb2 = arith.addi %rb, %c32 : index
        %kb2 = axe.slice %ring_b[%rb2, %wc] [16, 64] : !ringB to !kB
        axe.copy warp %ka2 to %fa : !kA to !fA
        axe.copy warp %kb2 to %fb : !kB to !fB
        axe.gemm warp %fa, %fb, %cc : !fA, !fB, !c
        // k16 step 3: the warp's 64 rows of A, columns 48..; rows 48.. of its 64 columns of B.
        %ka3 = axe.slice %ring_a[%ra, 48] [64, 16] : !ringA to !kA
        %rb3 = arith.addi %rb, %c48 : index
        %kb3 = axe.slice %ring_b[%rb3, %wc] [16, 64] : !ringB to !kB
        axe.copy warp %ka3 to %fa : !kA to !fA
        axe.copy warp %kb3 to %fb : !kB to !fB
        axe.gemm warp %fa, %fb, %cc : !fA, !fB, !c
        %cur1 = arith.addi %cur, %c1 : index
        %cur_wraps = arith.cmpi eq, %cur1, %c3 : index
        %cur2 = arith.select %cur_wraps, %c0, %cur1 : index
        %nxt1 = arith.addi %nxt, %c1 : index
        %nxt_wraps = arith.cmpi eq, %nxt1, %c3 : index
        %nxt2 = arith.select %nxt_wraps, %c0, %nxt1 : index
        scf.yield %cur2, %nxt2 : index, index
      }
      // No copy may be in flight when the CTA exits (its shared memory goes to the next CTA): the groups still
      // pending are empty ones past the last tile, so this wait costs nothing, and --axe-check-barriers proves it.
      nvvm.cp.async.wait.group 0
      // Epilogue: f32 -> f16 in registers, then each thread stores its pairs of columns into its warp's tile of C.
      axe.cast warp %cc to %h : !c to !c16
      %mw = arith.addi %m0, %wr : index
      %nw = arith.addi %n0, %wc : index
      %tc = axe.slice %gc[%mw, %nw] [64, 64] : !gC to !tileC
      axe.copy warp %h to %tc : !c16 to !tileC
      gpu.return
    }
  }
}
