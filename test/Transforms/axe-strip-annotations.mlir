// RUN: axe-opt %s -split-input-file --axe-strip-annotations | FileCheck %s

#row = #axe.layout<S[(128,64):(64,1)]>

// CHECK-LABEL: func.func @erases_top_level_annotation
// CHECK-NOT: axe.annotate
// CHECK: return
func.func @erases_top_level_annotation(%a: f32) {
  axe.annotate %a layout(#row) : f32
  return
}

// -----

#row = #axe.layout<S[(128,64):(64,1)]>

// Annotations inside nested regions go too; the region's other ops stay.
// CHECK-LABEL: func.func @erases_nested_annotation
// CHECK-NOT: axe.annotate
// CHECK: scf.for
// CHECK-NEXT: arith.addf
// CHECK-NOT: axe.annotate
func.func @erases_nested_annotation(%a: f32, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %b = arith.addf %a, %a : f32
    axe.annotate %b layout(#row) : f32
  }
  return
}

// -----

// CHECK-LABEL: func.func @leaves_other_ops_alone
// CHECK-NEXT: %[[SUM:.*]] = arith.addf
// CHECK-NEXT: return %[[SUM]]
func.func @leaves_other_ops_alone(%a: f32) -> f32 {
  %b = arith.addf %a, %a : f32
  return %b : f32
}
