// Regions no layout can map, and slices --axe-slice cannot resolve.
// RUN: axe-opt %s --split-input-file --axe-slice --verify-diagnostics

// Positions 2, 3, 4 of S[(4,4):(1,4)] are 8, 12, 1: no arithmetic progression, so no layout over 3 elements.
!t = !axe.tensor<16xf16, shared, S[(4,4):(1,4)]>
func.func @slice_not_representable(%t: !t) {
  // expected-error @+1 {{cannot slice layout S[(4,4):(1,4)] of shape [16] to region [2:5]: dimension 0}}
  %a = axe.slice %t[2] [3] : !t to !axe.tensor<3xf16, shared>
  return
}

// -----

// A static slice of a dynamic-offset slice has no layout to start from.
!g = !axe.tensor<128x256xf16, global, S[32768:1]>
!d = !axe.tensor<128x64xf16, global>
func.func @slice_of_dynamic_slice(%g: !g, %k: index) {
  %a = axe.slice %g[0, %k] [128, 64] : !g to !d
  // expected-error @+1 {{cannot slice a tensor whose layout is still deferred (it has dynamic offsets)}}
  %b = axe.slice %a[0, 0] [64, 64] : !d to !axe.tensor<64x64xf16, global>
  return
}
