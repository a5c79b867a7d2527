// A helper function given a slice of a tile (nki-attention-invalid.test): refused at the call.
!t = !axe.tensor<128x256xf32, sbuf, S[(128,256):(1@P,1@F)]>
!h = !axe.tensor<128x128xf32, sbuf, S[(128,128):(1@P,1@F)]>
!g = !axe.tensor<128x256xf32, hbm, S[(128,256):(256,1)]>
module attributes {axe.target = "trn1"} {
  func.func private @half(%x: !h) {
    return
  }
  func.func @calls_with_a_slice(%out: !g) {
    %zero = arith.constant 0.0 : f32
    %t = axe.alloc kernel : !t
    axe.fill kernel %t, %zero : !t, f32
    %left = axe.slice %t[0, 0] [128, 128] : !t to !h
    // The call below passes a region of %t, which a helper's whole-tile parameter cannot name.
    // (Any op works on the slice itself: the emitter addresses it as a rectangle of %t.)
    func.call @half(%left) : (!h) -> ()
    axe.copy kernel %t to %out : !t to !g
    return
  }
}
