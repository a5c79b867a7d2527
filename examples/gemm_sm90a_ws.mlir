// gemm_sm90a_ws.mlir: C[M,N] = A[M,K] @ B[K,N], f16 in and out, f32 accumulation, for sm_90a: warp-specialized and
// persistent.
//
// Each CTA walks the 128x256 output tiles bx, bx + gridDim.x, ... in grouped order (axe.tile_loop: groups of 8
// tile rows, so the CTAs running at once share rows of A and columns of B in L2); the launch record's grid is
// min(tiles, sm_count), one CTA per SM, each resident to the end. 384 threads in three warpgroups with different
// jobs (axe.roles):
// - warpgroups 0 and 1 are the consumers, at 232 registers a thread: they only compute. Each waits for a stage to
//   be full, runs wgmma on it (one cta-scope gemm: warpgroup g takes rows 64g..64g+63 of the tile, m64n256k16), and
//   releases the stage (each consumer warp arrives once on the stage's "empty" barrier: 8 arrivals free it);
// - warp 8 (the first of warpgroup 2, which gives its registers to the consumers: 40 a thread) is the producer:
//   it only loads. For each K tile it waits for a free stage, announces 48 KB on the stage's "full" barrier and
//   issues the TMA loads of A [128,64] and B [64,256] (warp scope: the warp's elected lane issues them); warps
//   9-11 have nothing to do.
// The ring has 4 stages (48 KB each); the stage index and its parity run on across K tiles and tiles on each side,
// the producer's "free" parity one round ahead (a fresh barrier's phase before phase 0 counts as complete, so the
// first round passes at once). After each tile's K loop the consumers cast their accumulators to f16 and store C
// themselves a 128x64 quarter at a time through a buffer of two 16 KB stages (axe.copy_staged ... stages 2; 4 ring
// stages fit beside it: 225 KB): per quarter they synchronize (their named barrier: the store of two quarters ago
// has read this stage), write it 128B-swizzled and TMA-store it (clipped at M and N), the store of the quarter
// before still reading the other stage (the issuing lane waits for all but the newest store's reads; after the
// last quarter, for all); `cta(wgid[0:2])` is their two warpgroups, whose named barrier orders their writes
// before warp 0's elected lane issues the store. The producer never waits for the epilogue: it is loading the
// next tile's stages while the consumers store.
//
// Run-time M, N and K (multiples of 16, at least 1), edge tiles handled by TMA as in gemm_sm90a.mlir. Not yet here
// (issue 25): a cluster with B multicast.
//
//   axe-opt --lower-roles --lower-tile-loops --lower-staged-copies --lower-tma --lower-mma --lower-copy --lower-to-nvvm \
//     --axe-hoist-allocas --axe-dynamic-shared examples/gemm_sm90a_ws.mlir | axe-translate --emit=ptx --chip=sm_90a

!gA = !axe.tensor<?x?xf16, global, row_major>
!gB = !axe.tensor<?x?xf16, global, row_major>
!gC = !axe.tensor<?x?xf16, global, row_major>
!tileA = !axe.tensor<128x64xf16, global>
!tileB = !axe.tensor<64x256xf16, global>
!tileC = !axe.tensor<128x256xf16, global>
!ringA = !axe.tensor<512x64xf16, shared, Swizzle(3,3,3) o S[(512,64):(64,1)]>
!ringB = !axe.tensor<256x256xf16, shared, Swizzle(3,3,3) o S[(4,64,4,64):(16384,64,4096,1)]>
!stageA = !axe.tensor<128x64xf16, shared>
!stageB = !axe.tensor<64x256xf16, shared>
!smemC = !axe.tensor<256x64xf16, shared, Swizzle(3,3,3) o S[(256,64):(64,1)]>
!acc = !axe.tensor<128x256xf32, reg, S[(2,4,2,8,32,4,2):(1@wgid,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
!out = !axe.tensor<128x256xf16, reg, S[(2,4,2,8,32,4,2):(1@wgid,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
!bars = !axe.mbarrier<4>

module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_90a"} {
    gpu.func @gemm_sm90a_ws(%a: !llvm.ptr<1>, %b: !llvm.ptr<1>, %c: !llvm.ptr<1>, %m: i32, %n: i32, %k: i32) kernel attributes {known_block_size = array<i32: 384, 1, 1>, axe.launch = {params = ["A", "B", "C", "M", "N", "K"], grid = ["min(ceildiv(M, 128) * ceildiv(N, 256), sm_count)", "1", "1"]}} {
      %c63 = arith.constant 63 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %false = arith.constant false
      %true = arith.constant true
      %zero = arith.constant 0.0 : f32
      %acc = axe.alloc cta : !acc
      %out = axe.alloc cta : !out
      %ga = axe.view %a(%m, %k : i32, i32) multiples [16, 16] : !llvm.ptr<1> -> !gA
      %gb = axe.view %b(%k, %n : i32, i32) multiples [16, 16] : !llvm.ptr<1> -> !gB
      %gc = axe.view %c(%m, %n : i32, i32) multiples [16, 16] : !llvm.ptr<1> -> !gC
      %k_index = arith.index_castui %k : i32 to index
      %k_up = arith.addi %k_index, %c63 : index
      %ktiles = arith.divui %k_up, %c64 : index
      %i0 = arith.constant 0 : i32
      %i1 = arith.constant 1 : i32
      %i4 = arith.constant 4 : i32
      %ktiles32 = arith.index_castui %ktiles : index to i32
      %ring_a = axe.alloc cta : !ringA
      %ring_b = axe.alloc cta : !ringB
      %smem_c = axe.alloc cta : !smemC
      %full = axe.mbarrier_alloc cta : !bars
      %empty = axe.mbarrier_alloc cta : !bars
      axe.mbarrier_init cta %full count 1 : !bars
      axe.mbarrier_init cta %empty count 8 : !bars
      axe.roles {
        axe.role wgid[0:2] regs 232 {
          %done:2 = axe.tile_loop (%m0, %n0) in (%m, %n) : i32 tile [128, 256] group 8
              iter_args(%cur_t = %i0, %parity_t = %false) -> (i32, i1) {
            axe.fill cta %acc, %zero : !acc, f32
            %ring:2 = scf.for %kt = %i0 to %ktiles32 step %i1 iter_args(%cur = %cur_t, %parity = %parity_t) -> (i32, i1) : i32 {
              %cur_index = arith.index_castui %cur : i32 to index
              axe.mbarrier_wait cta %full[%cur_index], %parity : !bars
              %row_a = arith.muli %cur_index, %c128 : index
              %row_b = arith.muli %cur_index, %c64 : index
              %sa = axe.slice %ring_a[%row_a, 0] [128, 64] : !ringA to !stageA
              %sb = axe.slice %ring_b[%row_b, 0] [64, 256] : !ringB to !stageB
              axe.gemm cta %sa, %sb, %acc : !stageA, !stageB, !acc
              axe.mbarrier_arrive warp %empty[%cur_index] : !bars
              %cur1 = arith.addi %cur, %i1 : i32
              %wraps = arith.cmpi eq, %cur1, %i4 : i32
              %cur2 = arith.select %wraps, %i0, %cur1 : i32
              %parity2 = arith.xori %parity, %wraps : i1
              scf.yield %cur2, %parity2 : i32, i1
            }
            axe.cast cta %acc to %out : !acc to !out
            // C leaves a 128x64 quarter at a time through two stages of the buffer, in turn (each quarter after the
            // consumers' named barrier: the store of two quarters ago has read its stage).
            %tc = axe.slice %gc[%m0, %n0] [128, 256] : !gC to !tileC
            axe.copy_staged cta(wgid[0:2]) %out to %tc through %smem_c stages 2 : !out to !tileC through !smemC
            axe.yield %ring#0, %ring#1 : i32, i1
          }
        }
        axe.role warpid[8:9] regs 40 {
          %done:2 = axe.tile_loop (%m0, %n0) in (%m, %n) : i32 tile [128, 256] group 8
              iter_args(%cur_t = %i0, %parity_t = %false) -> (i32, i1) {
            %ring:2 = scf.for %kt = %i0 to %ktiles32 step %i1 iter_args(%cur = %cur_t, %parity = %parity_t) -> (i32, i1) : i32 {
              %cur_index = arith.index_castui %cur : i32 to index
              %free = arith.xori %parity, %true : i1
              axe.mbarrier_wait warp %empty[%cur_index], %free : !bars
              %kt_index = arith.index_castui %kt : i32 to index
              %k0 = arith.muli %kt_index, %c64 : index
              %row_a = arith.muli %cur_index, %c128 : index
              %row_b = arith.muli %cur_index, %c64 : index
              %at = axe.slice %ga[%m0, %k0] [128, 64] : !gA to !tileA
              %bt = axe.slice %gb[%k0, %n0] [64, 256] : !gB to !tileB
              %sa = axe.slice %ring_a[%row_a, 0] [128, 64] : !ringA to !stageA
              %sb = axe.slice %ring_b[%row_b, 0] [64, 256] : !ringB to !stageB
              axe.mbarrier_arrive_expect_tx warp %full[%cur_index] bytes 49152 : !bars
              axe.copy_async warp %at to %sa, %full[%cur_index] : !tileA to !stageA, !bars
              axe.copy_async warp %bt to %sb, %full[%cur_index] : !tileB to !stageB, !bars
              %cur1 = arith.addi %cur, %i1 : i32
              %wraps = arith.cmpi eq, %cur1, %i4 : i32
              %cur2 = arith.select %wraps, %i0, %cur1 : i32
              %parity2 = arith.xori %parity, %wraps : i1
              scf.yield %cur2, %parity2 : i32, i1
            }
            axe.yield %ring#0, %ring#1 : i32, i1
          }
        }
      }
      gpu.return
    }
  }
}
