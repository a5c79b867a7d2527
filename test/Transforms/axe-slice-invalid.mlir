// Regions no layout can map, and slices --axe-slice cannot resolve.
// RUN: axe-opt %s --split-input-file --axe-slice --verify-diagnostics

// Positions 2, 3, 4 of S[(4,4):(1,4)] are 8, 12, 1: no arithmetic progression, so no layout over 3 elements.
!t = !axe.tensor<array<i64: 16>, f16, #axe.layout<"S[(4,4):(1,4)]">, #axe.mem<"shared">>
func.func @slice_not_representable(%t: !t) {
  // expected-error @+1 {{cannot slice layout S[(4,4):(1,4)] of shape [16] to region [2:5]: dimension 0}}
  %a = "axe.slice"(%t) {offsets = array<i64: 2>, sizes = array<i64: 3>} : (!t) -> !axe.tensor<array<i64: 3>, f16, #axe.deferred, #axe.mem<"shared">>
  return
}

// -----

// A static slice of a dynamic-offset slice has no layout to start from.
!g = !axe.tensor<array<i64: 128, 256>, f16, #axe.layout<"S[32768:1]">, #axe.mem<"global">>
!d = !axe.tensor<array<i64: 128, 64>, f16, #axe.deferred, #axe.mem<"global">>
func.func @slice_of_dynamic_slice(%g: !g, %k: index) {
  %a = "axe.slice"(%g, %k) {offsets = array<i64: 0, -9223372036854775808>, sizes = array<i64: 128, 64>} : (!g, index) -> !d
  // expected-error @+1 {{cannot slice a tensor whose layout is still deferred (it has dynamic offsets)}}
  %b = "axe.slice"(%a) {offsets = array<i64: 0, 0>, sizes = array<i64: 64, 64>} : (!d) -> !axe.tensor<array<i64: 64, 64>, f16, #axe.deferred, #axe.mem<"global">>
  return
}
