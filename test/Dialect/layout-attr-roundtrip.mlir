// #axe.layout<...> and axe.annotate round-trip through axe-opt, and upstream
// mlir-opt loading the same IRDL file prints exactly the same text.
// RUN: axe-opt %s | axe-opt | FileCheck %s
// RUN: mlir-opt-22 --irdl-file=%axe_irdl %s | mlir-opt-22 --irdl-file=%axe_irdl | FileCheck %s
// RUN: axe-opt %s > %t.axe
// RUN: mlir-opt-22 --irdl-file=%axe_irdl %s > %t.upstream
// RUN: diff %t.axe %t.upstream

#row = #axe.layout<S[(128,64):(64,1)]>

// CHECK-LABEL: func.func @annotate
// CHECK-SAME: (%[[A:.*]]: f32)
// CHECK-NEXT{LITERAL}: axe.annotate %arg0 layout(S[(128,64):(64,1)]) : f32
// CHECK-NEXT: return
func.func @annotate(%a: f32) {
  axe.annotate %a layout(#row) : f32
  return
}

// A layout attribute is usable anywhere an attribute is, not only on axe ops.
// CHECK-LABEL: func.func @attribute_on_other_ops
// CHECK{LITERAL}: axe_layout = #axe.layout<S[(128,64):(64,1)]>
func.func @attribute_on_other_ops() attributes {axe_layout = #row} {
  return
}
