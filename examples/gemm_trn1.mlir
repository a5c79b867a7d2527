// gemm_trn1.mlir: C[M,N] (f16) = A[M,K] (f16) @ B[K,N] (f16) on Trainium 1, f32 accumulation in PSUM: the same
// ops as the GPU GEMMs (axe.copy, axe.gemm, axe.cast), on the NeuronCore's memories.
//
//   axe-translate --emit=nki examples/gemm_trn1.mlir > gemm_trn1.py
//
// The Tensor Engine computes stationary^T @ moving with the contraction on the 128 partitions of SBUF (the paper's
// Appendix H): A's K must lie on the partition axis P. A is stored K-major in HBM (A^T row-major, the layout
// `S[(1024,1024):(1,1024)]` says so), so a tile of it lands in SBUF with K on P and M on the free axis F by a
// plain DMA. Each 128 x 512 tile of C accumulates its 8 K steps in one PSUM tile (one 2 KiB bank per partition),
// which the Vector Engine converts to f16 in SBUF before the store.
//
// The instruction tile (128 x 128 x 512) and each nc_matmul's operands come from the matmul planner
// (axe_layout::trn::matmul) on these layouts; a layout with K on the free axis is refused with its rule.

!A = !axe.tensor<1024x1024xf16, hbm, S[(1024,1024):(1,1024)]>
!B = !axe.tensor<1024x2048xf16, hbm, S[(1024,2048):(2048,1)]>
!C = !axe.tensor<1024x2048xf16, hbm, S[(1024,2048):(2048,1)]>
!tileA = !axe.tensor<128x128xf16, hbm>
!tileB = !axe.tensor<128x512xf16, hbm>
!tileC = !axe.tensor<128x512xf16, hbm>
!sA = !axe.tensor<128x128xf16, sbuf, S[(128,128):(1@F,1@P)]>
!sB = !axe.tensor<128x512xf16, sbuf, S[(128,512):(1@P,1@F)]>
!pC = !axe.tensor<128x512xf32, psum, S[(128,512):(1@P,1@F)]>
!sC = !axe.tensor<128x512xf16, sbuf, S[(128,512):(1@P,1@F)]>

module attributes {axe.target = "trn1"} {
  func.func @gemm_trn1(%a: !A, %b: !B, %c: !C) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c512 = arith.constant 512 : index
    %zero = arith.constant 0.0 : f32
    scf.for %i = %c0 to %c8 step %c1 {
      scf.for %j = %c0 to %c4 step %c1 {
        %m0 = arith.muli %i, %c128 : index
        %n0 = arith.muli %j, %c512 : index
        %acc = axe.alloc kernel : !pC
        axe.fill kernel %acc, %zero : !pC, f32
        scf.for %k = %c0 to %c8 step %c1 {
          %k0 = arith.muli %k, %c128 : index
          %ta = axe.slice %a[%m0, %k0] [128, 128] : !A to !tileA
          %tb = axe.slice %b[%k0, %n0] [128, 512] : !B to !tileB
          %sa = axe.alloc kernel : !sA
          %sb = axe.alloc kernel : !sB
          axe.copy kernel %ta to %sa : !tileA to !sA
          axe.copy kernel %tb to %sb : !tileB to !sB
          axe.gemm kernel %sa, %sb, %acc : !sA, !sB, !pC
        }
        %out = axe.alloc kernel : !sC
        axe.cast kernel %acc to %out : !pC to !sC
        %tc = axe.slice %c[%m0, %n0] [128, 512] : !C to !tileC
        axe.copy kernel %out to %tc : !sC to !tileC
      }
    }
    return
  }
}
