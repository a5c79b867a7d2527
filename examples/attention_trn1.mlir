// attention_trn1.mlir: multi-head attention forward, O[h] = softmax(Q[h] K[h]^T / sqrt(d)) V[h], on Trainium 1, as
// FlashAttention computes it: per 128 query rows, an online softmax over 128-row tiles of K and V, so the scores
// never leave the chip. 2 heads of 512 tokens, head dimension 64, f16 in and out, f32 softmax and accumulators.
//
//   axe-translate --emit=nki examples/attention_trn1.mlir > attention_trn1.py
//
// The layouts say where each operand lies, and so how each step runs on the NeuronCore:
// - S = Q K^T contracts over d, so both Q's and K^T's tiles put d on the 128 partitions (`1@P` on d): Q is stored
//   d-major per head in HBM (`S[(2,512,64):(32768,1,512)]`, the array [h, d, s]) and K^T as [h, d, s] (AWS's NKI
//   attention kernels take q and k this way), so both arrive by plain DMA loads; S lands in PSUM with the queries
//   on the partitions.
// - The memory plan: a head's K^T (64 partitions x 512 keys) and V (its 512 rows as 4 blocks of 128 partitions side
//   by side on the free axis, `S[(4,128,64):(64@F,1@P,1@F)]`) are loaded into SBUF once and stay for the head's 4
//   query tiles (1 KiB and 512 bytes a partition), a quarter of the DMA traffic of loading them per query tile; the
//   K/V loop reads its 128-key tiles as slices of them, each a rectangle the layout places (a run-time offset of
//   128 keys moves K's tile 128 free offsets and V's 64).
// - The softmax runs along the free axis: row maxima and sums are reductions along it (`axe.reduce`), the running
//   max m, sum l and output accumulator are [128, 1] and [128, 64] tiles with the queries on the partitions, and
//   [128, 1] operands broadcast along the free axis.
// - P V contracts over the keys, so P must have the keys on the partitions: `axe.copy %p16 to %pt`, the same
//   logical tile in a layout with the other dimension on P, is a Tensor Engine transpose; V's tile (keys on P) is a
//   plain load of V's rows.
// - The K/V loop carries m, l and the accumulator from one tile to the next, so it is a sequential loop; the head
//   and query loops are independent (NKI's affine_range). Scheduling the engines within them is neuronx-cc's.

!Q = !axe.tensor<2x512x64xf16, hbm, S[(2,512,64):(32768,1,512)]>
!Kt = !axe.tensor<2x64x512xf16, hbm, S[(2,64,512):(32768,512,1)]>
!V = !axe.tensor<2x512x64xf16, hbm, S[(2,512,64):(32768,64,1)]>
!O = !axe.tensor<2x512x64xf16, hbm, S[(2,512,64):(32768,64,1)]>
!rowsQ = !axe.tensor<128x64xf16, hbm>
!headK = !axe.tensor<64x512xf16, hbm>
!rowsV = !axe.tensor<128x64xf16, hbm>
!rowsO = !axe.tensor<128x64xf16, hbm>
!q = !axe.tensor<128x64xf16, sbuf, S[(128,64):(1@F,1@P)]>
!kAll = !axe.tensor<64x512xf16, sbuf, S[(64,512):(1@P,1@F)]>
!vAll = !axe.tensor<512x64xf16, sbuf, S[(4,128,64):(64@F,1@P,1@F)]>
!k = !axe.tensor<64x128xf16, sbuf>
!v = !axe.tensor<128x64xf16, sbuf>
!scores = !axe.tensor<128x128xf32, psum, S[(128,128):(1@P,1@F)]>
!s = !axe.tensor<128x128xf32, sbuf, S[(128,128):(1@P,1@F)]>
!p16 = !axe.tensor<128x128xf16, sbuf, S[(128,128):(1@P,1@F)]>
!pt = !axe.tensor<128x128xf16, sbuf, S[(128,128):(1@F,1@P)]>
!rows = !axe.tensor<128x1xf32, sbuf, S[(128,1):(1@P,1@F)]>
!pv = !axe.tensor<128x64xf32, psum, S[(128,64):(1@P,1@F)]>
!acc = !axe.tensor<128x64xf32, sbuf, S[(128,64):(1@P,1@F)]>
!out = !axe.tensor<128x64xf16, sbuf, S[(128,64):(1@P,1@F)]>

module attributes {axe.target = "trn1"} {
  // One K/V tile of the online softmax, given its scaled scores s: m' = max(m, rowmax s), P = exp(s - m'),
  // correction = exp(m - m'), l = l * correction + rowsum P, acc = acc * correction + P V_j (P in f16 with the keys
  // on the partitions for the Tensor Engine), m = m'. It writes m, l and acc in place.
  func.func private @online_softmax(%s: !s, %v_all: !vAll, %j: index, %m: !rows, %l: !rows, %acc: !acc) {
    %c128 = arith.constant 128 : index
    %k0 = arith.muli %j, %c128 : index
    %v_tile = axe.slice %v_all[%k0, 0] [128, 64] : !vAll to !v
    %tile_max = axe.alloc kernel : !rows
    axe.reduce kernel "max" %s to %tile_max : !s to !rows
    %m_new = axe.alloc kernel : !rows
    axe.max kernel %m, %tile_max to %m_new : !rows, !rows to !rows
    %p = axe.alloc kernel : !s
    axe.sub kernel %s, %m_new to %p : !s, !rows to !s
    axe.exp kernel %p to %p : !s to !s
    %correction = axe.alloc kernel : !rows
    axe.sub kernel %m, %m_new to %correction : !rows, !rows to !rows
    axe.exp kernel %correction to %correction : !rows to !rows
    %row_sum = axe.alloc kernel : !rows
    axe.reduce kernel "sum" %p to %row_sum : !s to !rows
    axe.mul kernel %l, %correction to %l : !rows, !rows to !rows
    axe.add kernel %l, %row_sum to %l : !rows, !rows to !rows
    axe.copy kernel %m_new to %m : !rows to !rows
    %p16 = axe.alloc kernel : !p16
    axe.cast kernel %p to %p16 : !s to !p16
    %pt = axe.alloc kernel : !pt
    axe.copy kernel %p16 to %pt : !p16 to !pt
    %pv = axe.alloc kernel : !pv
    axe.gemm kernel %pt, %v_tile, %pv {accumulate = false} : !pt, !v, !pv
    axe.mul kernel %acc, %correction to %acc : !acc, !rows to !acc
    axe.add kernel %acc, %pv to %acc : !acc, !pv to !acc
    return
  }

  func.func @attention_trn1(%q: !Q, %kt: !Kt, %v: !V, %o: !O) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    %lowest = arith.constant -3.0e+38 : f32
    %scale = arith.constant 0.125 : f32
    scf.for %h = %c0 to %c2 step %c1 {
      // The head's K^T and V stay in SBUF for all its query tiles: loaded once per head, not once per query tile.
      %k_rows = axe.slice %kt[%h, 0, 0] [1, 64, 512] : !Kt to !headK
      %k_all = axe.alloc kernel : !kAll
      axe.copy kernel %k_rows to %k_all : !headK to !kAll
      %v_all = axe.alloc kernel : !vAll
      scf.for %b = %c0 to %c4 step %c1 {
        %r0 = arith.muli %b, %c128 : index
        %v_rows = axe.slice %v[%h, %r0, 0] [1, 128, 64] : !V to !rowsV
        %v_block = axe.slice %v_all[%r0, 0] [128, 64] : !vAll to !v
        axe.copy kernel %v_rows to %v_block : !rowsV to !v
      }
      scf.for %i = %c0 to %c4 step %c1 {
        %q0 = arith.muli %i, %c128 : index
        %q_rows = axe.slice %q[%h, %q0, 0] [1, 128, 64] : !Q to !rowsQ
        %q_tile = axe.alloc kernel : !q
        axe.copy kernel %q_rows to %q_tile : !rowsQ to !q
        %m = axe.alloc kernel : !rows
        axe.fill kernel %m, %lowest : !rows, f32
        %l = axe.alloc kernel : !rows
        axe.fill kernel %l, %zero : !rows, f32
        %acc = axe.alloc kernel : !acc
        axe.fill kernel %acc, %zero : !acc, f32
        // The software pipeline: the Tensor Engine computes the next K tile's scores (S = Q K^T) while the
        // Vector and Scalar Engines run this tile's softmax. Prologue: tile 0's scores.
        %k_first = axe.slice %k_all[0, 0] [64, 128] : !kAll to !k
        %scores = axe.alloc kernel : !scores
        axe.gemm kernel %q_tile, %k_first, %scores {accumulate = false} : !q, !k, !scores
        scf.for %j = %c0 to %c3 step %c1 {
          // This tile's scores leave PSUM (scaled by 1/sqrt(d)), the next tile's take their place, then the
          // softmax of this one.
          %s = axe.alloc kernel : !s
          axe.scale kernel %scores by %scale to %s : !scores to !s
          %next = arith.addi %j, %c1 : index
          %k0 = arith.muli %next, %c128 : index
          %k_next = axe.slice %k_all[0, %k0] [64, 128] : !kAll to !k
          axe.gemm kernel %q_tile, %k_next, %scores {accumulate = false} : !q, !k, !scores
          func.call @online_softmax(%s, %v_all, %j, %m, %l, %acc) : (!s, !vAll, index, !rows, !rows, !acc) -> ()
        }
        // Epilogue: the last tile's softmax.
        %s_last = axe.alloc kernel : !s
        axe.scale kernel %scores by %scale to %s_last : !scores to !s
        func.call @online_softmax(%s_last, %v_all, %c3, %m, %l, %acc) : (!s, !vAll, index, !rows, !rows, !acc) -> ()
        // O = acc / l
        %out = axe.alloc kernel : !out
        axe.div kernel %acc, %l to %out : !acc, !rows to !out
        %o_rows = axe.slice %o[%h, %q0, 0] [1, 128, 64] : !O to !rowsO
        axe.copy kernel %out to %o_rows : !out to !rowsO
      }
    }
    return
  }
}
