// A PSUM tile copied to a layout with its other dimension on the partitions (nki-attention-invalid.test).
!p = !axe.tensor<128x128xf32, psum, S[(128,128):(1@P,1@F)]>
!t = !axe.tensor<128x128xf32, sbuf, S[(128,128):(1@F,1@P)]>
!g = !axe.tensor<128x128xf32, hbm, S[(128,128):(1,128)]>
module attributes {axe.target = "trn1"} {
  func.func @transpose_psum(%out: !g) {
    %one = arith.constant 1.0 : f32
    %p = axe.alloc kernel : !p
    axe.fill kernel %p, %one : !p, f32
    %t = axe.alloc kernel : !t
    // The scores of a real kernel would come from a gemm; any PSUM tile will do.
    // (The copy below is the op refused.)
    axe.copy kernel %p to %t : !p to !t
    axe.copy kernel %t to %out : !t to !g
    return
  }
}
