// Layouts (in #axe.layout<...>, in axe.annotate and in !axe.tensor types) round-trip through axe-opt, and
// upstream mlir-opt with the C++ dialect plugin (cmake/, built from the same Axe.td and AxeDialect.cpp) prints
// exactly the same text. The layout is read token by token and printed with the notation's spacing only
// (` + ` between terms, ` o ` after a swizzle, nothing else), so any spacing or line breaks in the input print the
// same way, and printed text reads back unchanged.
// RUN: axe-opt %s | axe-opt | FileCheck %s
// RUN: mlir-opt-22 --load-dialect-plugin=%axe_plugin %s | mlir-opt-22 --load-dialect-plugin=%axe_plugin | FileCheck %s
// RUN: axe-opt %s > %t.axe
// RUN: mlir-opt-22 --load-dialect-plugin=%axe_plugin %s > %t.upstream
// RUN: diff %t.axe %t.upstream
// Printing is a fixed point: the printed text prints again byte for byte, in both tools.
// RUN: axe-opt %t.axe > %t.axe2
// RUN: diff %t.axe %t.axe2
// RUN: mlir-opt-22 --load-dialect-plugin=%axe_plugin %t.upstream > %t.upstream2
// RUN: diff %t.axe %t.upstream2
// The generic form carries the same layout attributes: upstream's generic output reads back into axe-opt as the
// same module.
// RUN: mlir-opt-22 --load-dialect-plugin=%axe_plugin --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: mlir-opt-22 --load-dialect-plugin=%axe_plugin --mlir-print-op-generic %s | axe-opt > %t.generic
// RUN: diff %t.axe %t.generic

#row = #axe.layout<S[(128,64):(64,1)]>

// CHECK-LABEL: module attributes {axe.mesh = {gpuid = 4 : i64}}
module attributes {axe.mesh = {gpuid = 4 : i64}} {

// An alias is printed as the layout it names.
// CHECK-LABEL: func.func @annotate
// CHECK-SAME: (%[[A:.*]]: f32)
// CHECK-NEXT{LITERAL}: axe.annotate %arg0 layout(S[(128,64):(64,1)]) : f32
// CHECK-NEXT: return
// GENERIC-LABEL: sym_name = "annotate"}
// GENERIC-NEXT: ^bb0(%[[GA:.*]]: f32):
// GENERIC-NEXT: "axe.annotate"(%[[GA]]) <{layout = #axe.layout<S[(128,64):(64,1)]>}> : (f32) -> ()
func.func @annotate(%a: f32) {
  axe.annotate %a layout(#row) : f32
  return
}

// The full attribute form is accepted inside layout(...) too.
// CHECK-LABEL: func.func @annotate_attribute_form
// CHECK-NEXT{LITERAL}: axe.annotate %arg0 layout(S[8:1]) : f32
func.func @annotate_attribute_form(%a: f32) {
  axe.annotate %a layout(#axe.layout<S[8:1]>) : f32
  return
}

// A layout attribute is usable anywhere an attribute is, not only on axe ops: alone and in an array.
// CHECK-LABEL: func.func @attribute_on_other_ops
// CHECK-SAME{LITERAL}: axe_layout = #axe.layout<S[(128,64):(64,1)]>
// CHECK-SAME{LITERAL}: axe_layouts = [#axe.layout<Swizzle(2,4,3)>, #axe.layout<S[]>, #axe.layout<S[] + 5@warpid>]
func.func @attribute_on_other_ops() attributes {
    axe_layout = #row,
    axe_layouts = [#axe.layout<Swizzle(2, 4, 3)>, #axe.layout<S[]>, #axe.layout<S[]+5@warpid>]} {
  return
}

// Spacing and line breaks in the input do not survive: the layout prints with the notation's spacing.
// CHECK-LABEL: func.func @spacing
// CHECK-NEXT{LITERAL}: axe.annotate %arg0 layout(S[(4,8):(8,1)] + R[2:1@warpid]) : f32
// CHECK-NEXT{LITERAL}: axe.annotate %arg0 layout(Swizzle(3,3,3) o S[(8,64):(64,1)]) : f32
// CHECK-NEXT{LITERAL}: axe.annotate %arg0 layout(S[(2,4):(4,1)] + 3@m + 1@laneid) : f32
func.func @spacing(%a: f32) {
  axe.annotate %a layout(S[( 4 , 8 ) : ( 8 , 1 )]+R[ 2 : 1 @warpid ]) : f32
  axe.annotate %a layout(Swizzle(3,3,3)  o  S[(8,64):(64,1)]) : f32
  axe.annotate %a layout(S[(2,4):
                           (4,1)]
                         + 3@m + 1@laneid) : f32
  return
}

// Negative numbers are integer tokens: a negative stride or offset prints with its sign attached (after a bracket,
// comma, colon or `+`), and a '-' between terms prints as the notation's ` - ` (`axe-layout canon` prints
// `S[8:1] - 2@laneid` too).
// CHECK-LABEL: func.func @negative
// CHECK-NEXT{LITERAL}: axe.annotate %arg0 layout(S[(4,8):(-8,1)] + 24) : f32
// CHECK-NEXT{LITERAL}: axe.annotate %arg0 layout(S[8:1] - 2@laneid) : f32
// CHECK-NEXT{LITERAL}: axe.annotate %arg0 layout(S[8:1] + -2@laneid) : f32
func.func @negative(%a: f32) {
  axe.annotate %a layout(S[(4,8):(-8,1)] + 24) : f32
  axe.annotate %a layout(S[8:1] - 2@laneid) : f32
  axe.annotate %a layout(S[8:1] + -2@laneid) : f32
  return
}

// Layouts in tensor types: replicas on a device axis (the module's mesh), a swizzle, tensor-memory and thread
// axes, a negative stride with an offset that keeps it in bounds, the run-time `row_major`, and a layout left out
// (deferred).
// CHECK-LABEL: func.func @types
// CHECK-SAME{LITERAL}: (%arg0: !axe.tensor<128x64xf16, global, S[(128,64):(64,1)] + R[4:1@gpuid]>,
// CHECK-SAME{LITERAL}: %arg1: !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>,
// CHECK-SAME{LITERAL}: %arg2: !axe.tensor<128x256xf32, tmem, S[(128,256):(1@TLane,1@TCol)]>,
// CHECK-SAME{LITERAL}: %arg3: !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)] + R[4:1@warpid]>,
// CHECK-SAME{LITERAL}: %arg4: !axe.tensor<?x64xf16, global, row_major>,
// CHECK-SAME{LITERAL}: %arg5: !axe.tensor<8xf32, global, S[8:-1] + 7>,
// CHECK-SAME{LITERAL}: %arg6: !axe.tensor<128x64xf16, global>,
// CHECK-SAME{LITERAL}: %arg7: !axe.tensor<1024xf16, global, S[1024:1] + R[(2,2):(2@gpuid,1@gpuid)]>)
// The type of a value used by an op prints the same way.
// CHECK-NEXT{LITERAL}: axe.annotate %arg1 layout(Swizzle(3,3,3) o S[(128,64):(64,1)]) : !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
// CHECK-NEXT: return
func.func @types(
    %g: !axe.tensor<128x64xf16, global, S[(128, 64):(64, 1)]+R[4:1@gpuid]>,
    %s: !axe.tensor<128x64xf16, shared, Swizzle(3,3,3)o S[(128,64):(64,1)]>,
    %t: !axe.tensor<128x256xf32, tmem, S[(128,256):(1@TLane,1@TCol)]>,
    %r: !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)] + R[4:1@warpid]>,
    %d: !axe.tensor<?x64xf16, global, row_major>,
    %n: !axe.tensor<8xf32, global, S[8:-1] + 7>,
    %e: !axe.tensor<128x64xf16, global>,
    %x: !axe.tensor<1024xf16, global, S[1024:1] + R[(2,2):(2@gpuid,1@gpuid)]>) {
  axe.annotate %s layout(Swizzle(3,3,3) o S[(128,64):(64,1)]) : !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
  return
}

}
