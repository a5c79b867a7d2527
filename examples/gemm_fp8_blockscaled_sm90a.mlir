// gemm_fp8_blockscaled_sm90a.mlir: C[M,N] = (A[M,K] @ B[K,N]) with DeepGEMM's block scales, A and B in FP8
// (e4m3), f32 accumulation, bf16 out, for sm_90a (issue 27).
//
// The scales: A's per row per 128 K elements (1x128 blocks), SFA[K/128, M] (M contiguous, as DeepGEMM stores it so
// that TMA loads a tile's 128 row scales in one box); B's per 128x128 block, SFB[N/128, K/128]. So
// C[i, j] = sum over K blocks kb of SFA[kb, i] * SFB[j / 128, kb] * (A[i, kb block] . B[kb block, j]).
//
// Hopper's FP8 wgmma keeps fewer mantissa bits in its accumulator than f32 (DeepGEMM's reason for "promotion"), and
// a block's scales must apply to that block's products only: so each 128-K block is multiplied by wgmma into a
// fresh f32 partial accumulator, and then promoted: acc += partial * (SFA row scale * SFB block scale), one FMA per
// element (axe.fma, the [128,1] scale column broadcast along each row; each thread holds the scales of exactly its
// accumulator rows, which the verifier checks on the layouts).
//
// The structure is gemm_sm90a_ws.mlir's: persistent over 128x128 tiles in grouped order, one producer warp (TMA:
// the A and Bt tiles and the tile's 128 A scales per stage), two consumer warpgroups (rows 64g..64g+63 each) at 232
// registers, a 4-stage ring with "full" and "empty" barriers, C through a 128x64 shared buffer a half at a time.
// B comes as Bt[N,K] (8-bit wgmma reads K-major operands only) and is read through a transposing view, as in
// gemm_fp8_sm90a.mlir. The B block scale is one f32 per K block that every consumer thread loads (cached).
//
// Run-time M, N and K (multiples of 16), edge tiles by TMA zero fill (a zero code or scale adds nothing).
//
//   axe-opt --lower-roles --lower-tile-loops --lower-staged-copies --lower-tma --lower-mma --lower-copy \
//     --lower-to-nvvm --axe-hoist-allocas --axe-dynamic-shared examples/gemm_fp8_blockscaled_sm90a.mlir \
//     | axe-translate --emit=ptx --chip=sm_90a

!gA = !axe.tensor<?x?xf8E4M3FN, global, row_major>
!gBt = !axe.tensor<?x?xf8E4M3FN, global, row_major>
!gSFA = !axe.tensor<?x?xf32, global, row_major>
!gSFB = !axe.tensor<?x?xf32, global, row_major>
!gC = !axe.tensor<?x?xbf16, global, row_major>
!tileA = !axe.tensor<128x128xf8E4M3FN, global>
!tileBt = !axe.tensor<128x128xf8E4M3FN, global>
!tileSFA = !axe.tensor<1x128xf32, global>
!tileSFB = !axe.tensor<1x1xf32, global>
!tileC = !axe.tensor<128x128xbf16, global>
!ringA = !axe.tensor<512x128xf8E4M3FN, shared, Swizzle(4,3,3) o S[(512,128):(128,1)]>
!ringBt = !axe.tensor<512x128xf8E4M3FN, shared, Swizzle(4,3,3) o S[(512,128):(128,1)]>
!ringB = !axe.tensor<128x512xf8E4M3FN, shared, Swizzle(4,3,3) o S[(128,512):(1,128)]>
!ringSFA = !axe.tensor<4x128xf32, shared, S[(4,128):(128,1)]>
!ringSFAt = !axe.tensor<128x4xf32, shared, S[(128,4):(1,128)]>
!stageA = !axe.tensor<128x128xf8E4M3FN, shared>
!stageBt = !axe.tensor<128x128xf8E4M3FN, shared>
!stageB = !axe.tensor<128x128xf8E4M3FN, shared>
!stageSFA = !axe.tensor<1x128xf32, shared>
!stageSFAt = !axe.tensor<128x1xf32, shared>
!smemC = !axe.tensor<128x64xbf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
!acc = !axe.tensor<128x128xf32, reg, S[(2,4,2,8,16,4,2):(1@wgid,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
!out = !axe.tensor<128x128xbf16, reg, S[(2,4,2,8,16,4,2):(1@wgid,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
// A tile's row scales, each in the four lanes that hold its accumulator row (two rows a thread).
!rows = !axe.tensor<128x1xf32, reg, S[(2,4,2,8,1):(1@wgid,1@wid_in_wg,1,4@laneid,1)] + R[4:1@laneid]>
// The B block scale, in every consumer thread.
!one = !axe.tensor<1x1xf32, reg, S[(1,1):(1,1)] + R[(2,4,32):(1@wgid,1@wid_in_wg,1@laneid)]>
!bars = !axe.mbarrier<4>

module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_90a"} {
    gpu.func @gemm_fp8_blockscaled_sm90a(%a: !llvm.ptr<1>, %bt: !llvm.ptr<1>, %sfa: !llvm.ptr<1>, %sfb: !llvm.ptr<1>, %c: !llvm.ptr<1>, %m: i32, %n: i32, %k: i32) kernel attributes {known_block_size = array<i32: 384, 1, 1>, axe.launch = {params = ["A", "Bt", "SFA", "SFB", "C", "M", "N", "K"], grid = ["min(ceildiv(M, 128) * ceildiv(N, 128), sm_count)", "1", "1"]}} {
      %c128 = arith.constant 128 : index
      %false = arith.constant false
      %true = arith.constant true
      %zero = arith.constant 0.0 : f32
      %i0 = arith.constant 0 : i32
      %i1 = arith.constant 1 : i32
      %i4 = arith.constant 4 : i32
      %i127 = arith.constant 127 : i32
      %i128 = arith.constant 128 : i32
      %k_up = arith.addi %k, %i127 : i32
      %kblocks = arith.divui %k_up, %i128 : i32
      %n_up = arith.addi %n, %i127 : i32
      %nblocks = arith.divui %n_up, %i128 : i32
      %acc = axe.alloc cta : !acc
      %part = axe.alloc cta : !acc
      %out = axe.alloc cta : !out
      %row_scales = axe.alloc cta : !rows
      %block_scale = axe.alloc cta : !one
      %scales = axe.alloc cta : !rows
      %ga = axe.view %a(%m, %k : i32, i32) multiples [16, 16] : !llvm.ptr<1> -> !gA
      %gbt = axe.view %bt(%n, %k : i32, i32) multiples [16, 16] : !llvm.ptr<1> -> !gBt
      %gsfa = axe.view %sfa(%kblocks, %m : i32, i32) multiples [1, 16] : !llvm.ptr<1> -> !gSFA
      %gsfb = axe.view %sfb(%nblocks, %kblocks : i32, i32) : !llvm.ptr<1> -> !gSFB
      %gc = axe.view %c(%m, %n : i32, i32) multiples [16, 16] : !llvm.ptr<1> -> !gC
      %ring_a = axe.alloc cta : !ringA
      %ring_bt = axe.alloc cta : !ringBt
      // The same bytes as [k, n]: what the gemm takes as B (K-major).
      %ring_b = axe.view %ring_bt : !ringBt -> !ringB
      %ring_sfa = axe.alloc cta : !ringSFA
      // The same bytes as [m, stage]: a stage's scales as a column.
      %ring_sfa_t = axe.view %ring_sfa : !ringSFA -> !ringSFAt
      %smem_c = axe.alloc cta : !smemC
      %full = axe.mbarrier_alloc cta : !bars
      %empty = axe.mbarrier_alloc cta : !bars
      axe.mbarrier_init cta %full count 1 : !bars
      axe.mbarrier_init cta %empty count 8 : !bars
      axe.roles {
        axe.role wgid[0:2] regs 232 {
          %done:2 = axe.tile_loop (%m0, %n0) in (%m, %n) : i32 tile [128, 128] group 8
              iter_args(%cur_t = %i0, %parity_t = %false) -> (i32, i1) {
            %nb = arith.divui %n0, %c128 : index
            axe.fill cta %acc, %zero : !acc, f32
            %ring:2 = scf.for %kt = %i0 to %kblocks step %i1 iter_args(%cur = %cur_t, %parity = %parity_t) -> (i32, i1) : i32 {
              %cur_index = arith.index_castui %cur : i32 to index
              %kt_index = arith.index_castui %kt : i32 to index
              %sfb_t = axe.slice %gsfb[%nb, %kt_index] [1, 1] : !gSFB to !tileSFB
              axe.copy cta %sfb_t to %block_scale : !tileSFB to !one
              axe.mbarrier_wait cta %full[%cur_index], %parity : !bars
              %row = arith.muli %cur_index, %c128 : index
              %sa = axe.slice %ring_a[%row, 0] [128, 128] : !ringA to !stageA
              %sb = axe.slice %ring_b[0, %row] [128, 128] : !ringB to !stageB
              %ssfa = axe.slice %ring_sfa_t[0, %cur_index] [128, 1] : !ringSFAt to !stageSFAt
              axe.copy cta %ssfa to %row_scales : !stageSFAt to !rows
              axe.fill cta %part, %zero : !acc, f32
              axe.gemm cta %sa, %sb, %part : !stageA, !stageB, !acc
              axe.mbarrier_arrive warp %empty[%cur_index] : !bars
              // Promotion: this K block's products, scaled per row and block, into the f32 accumulator.
              axe.mul cta %row_scales, %block_scale to %scales : !rows, !one to !rows
              axe.fma cta %part, %scales, %acc to %acc : !acc, !rows, !acc to !acc
              %cur1 = arith.addi %cur, %i1 : i32
              %wraps = arith.cmpi eq, %cur1, %i4 : i32
              %cur2 = arith.select %wraps, %i0, %cur1 : i32
              %parity2 = arith.xori %parity, %wraps : i1
              scf.yield %cur2, %parity2 : i32, i1
            }
            axe.cast cta %acc to %out : !acc to !out
            %tc = axe.slice %gc[%m0, %n0] [128, 128] : !gC to !tileC
            axe.copy_staged cta(wgid[0:2]) %out to %tc through %smem_c : !out to !tileC through !smemC
            axe.yield %ring#0, %ring#1 : i32, i1
          }
        }
        axe.role warpid[8:9] regs 40 {
          %done:2 = axe.tile_loop (%m0, %n0) in (%m, %n) : i32 tile [128, 128] group 8
              iter_args(%cur_t = %i0, %parity_t = %false) -> (i32, i1) {
            %ring:2 = scf.for %kt = %i0 to %kblocks step %i1 iter_args(%cur = %cur_t, %parity = %parity_t) -> (i32, i1) : i32 {
              %cur_index = arith.index_castui %cur : i32 to index
              %free = arith.xori %parity, %true : i1
              axe.mbarrier_wait warp %empty[%cur_index], %free : !bars
              %kt_index = arith.index_castui %kt : i32 to index
              %k0 = arith.muli %kt_index, %c128 : index
              %row = arith.muli %cur_index, %c128 : index
              %at = axe.slice %ga[%m0, %k0] [128, 128] : !gA to !tileA
              %btt = axe.slice %gbt[%n0, %k0] [128, 128] : !gBt to !tileBt
              %sfat = axe.slice %gsfa[%kt_index, %m0] [1, 128] : !gSFA to !tileSFA
              %sa = axe.slice %ring_a[%row, 0] [128, 128] : !ringA to !stageA
              %sbt = axe.slice %ring_bt[%row, 0] [128, 128] : !ringBt to !stageBt
              %ssfa = axe.slice %ring_sfa[%cur_index, 0] [1, 128] : !ringSFA to !stageSFA
              axe.mbarrier_arrive_expect_tx warp %full[%cur_index] bytes 33280 : !bars
              axe.copy_async warp %at to %sa, %full[%cur_index] : !tileA to !stageA, !bars
              axe.copy_async warp %btt to %sbt, %full[%cur_index] : !tileBt to !stageBt, !bars
              axe.copy_async warp %sfat to %ssfa, %full[%cur_index] : !tileSFA to !stageSFA, !bars
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
