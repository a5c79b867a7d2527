// --axe-canonicalize only runs on modules that verify: a layout it could not put in canonical form (text that does
// not parse, a shape the layout does not admit) is refused at the op before the pass changes anything.
// RUN: axe-opt %s --split-input-file --axe-canonicalize --verify-diagnostics
// RUN: not axe-opt %s --split-input-file --axe-canonicalize 2>&1 | FileCheck %s

// CHECK: error: layout "S[(128,64):(64,1@lanid)]" does not parse: column 18: unknown axis 'lanid'
// CHECK-NOT: func.func

// A misspelt axis: no canonical form exists for text that is not a layout.
func.func @unknown_axis(%m: memref<128x64xf16>) {
  // expected-error @+1 {{layout "S[(128,64):(64,1@lanid)]" does not parse: column 18: unknown axis 'lanid'}}
  %t = axe.view %m : memref<128x64xf16> -> !axe.tensor<128x64xf16, global, S[(128,64):(64,1@lanid)]>
  return
}

// -----

// S[(64,64):(64,1)] maps 4096 elements; the tensor has 128 * 64 = 8192.
func.func @shape_not_admitted(%m: memref<128x64xf16>) {
  // expected-error @+1 {{layout does not admit shape [128,64]}}
  %t = axe.view %m : memref<128x64xf16> -> !axe.tensor<128x64xf16, global, S[(64,64):(64,1)]>
  return
}

// -----

// A swizzle composes only with a layout on the memory axis m.
func.func @swizzle_on_a_thread_axis() {
  // expected-error @+1 {{a swizzle composes only with a layout on the memory axis m, found axis 'laneid'}}
  %t = axe.alloc cta : !axe.tensor<32xf16, shared, Swizzle(3,3,3) o S[32:1@laneid]>
  return
}
