// Layouts become canonical (paper App. A); trivial views and slices fold. Expected layouts computed by hand
// from the rules D0 (drop extent-1 iters), D1 (fuse (e1,s1),(e2,s2) when s1 == e2*s2), zero offsets dropped,
// C2 (absorb replica iters whose positions form one run).
// RUN: axe-opt %s --split-input-file --axe-canonicalize | FileCheck %s
// Idempotence: a second run prints the same text.
// RUN: axe-opt %s --split-input-file --axe-canonicalize > %t.once
// RUN: axe-opt %t.once --split-input-file --axe-canonicalize > %t.twice
// RUN: diff %t.once %t.twice

// Row-major 128x64: (128,64),(64,1) fuses since 64 == 64*1.
// CHECK-LABEL: func.func @row_major_fuses
// CHECK{LITERAL}: axe.view %arg0 : memref<8192xf16> -> !axe.tensor<128x64xf16, global, S[8192:1]>
func.func @row_major_fuses(%m: memref<8192xf16>) {
  %t = axe.view %m : memref<8192xf16> -> !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
  return
}

// -----

// Function signatures too: (2,4,8):(32,8,1) fuses twice; the zero offset is dropped.
// CHECK-LABEL: func.func @signature
// CHECK-SAME{LITERAL}: !axe.tensor<64xf16, shared, S[64:1]>
// CHECK-NOT: S[(2,4,8)
func.func @signature(%t: !axe.tensor<64xf16, shared, S[(2,4,8):(32,8,1)] + 0>) {
  return
}

// -----

// Register fragments: the two laneid iters fuse ((8,4@laneid),(4,1@laneid): 4 == 4*1), the m iters do not
// touch; an extent-1 iter is dropped; R[(2,2):(1@warpid,2@warpid)] covers warps 0..3 = R[4:1@warpid].
// CHECK-LABEL: func.func @registers
// CHECK{LITERAL}: axe.alloc warp : !axe.tensor<16x8xf32, reg, S[(2,32,2):(2,1@laneid,1)]>
// CHECK{LITERAL}: axe.alloc cta : !axe.tensor<32xf32, reg, S[32:1@laneid] + R[4:1@warpid]>
func.func @registers() {
  %a = axe.alloc warp : !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
  %b = axe.alloc cta : !axe.tensor<32xf32, reg, S[(1,32):(5,1@laneid)] + R[(2,2):(1@warpid,2@warpid)]>
  return
}

// -----

// Swizzled layouts keep the swizzle; layout attributes of other ops are rewritten as well.
// CHECK-LABEL: func.func @swizzle_and_attribute
// CHECK{LITERAL}: axe.alloc cta : !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[8192:1]>
// CHECK{LITERAL}: axe.annotate %arg0 layout(S[32:1]) : f32
func.func @swizzle_and_attribute(%a: f32) {
  %s = axe.alloc cta : !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
  axe.annotate %a layout(S[(4,8):(8,1)]) : f32
  return
}

// -----

// A slice over the whole source is the source; so is a view of a tensor with the same type.
!t = !axe.tensor<128x64xf16, shared, S[8192:1]>
// CHECK-LABEL: func.func @fold_full_slice_and_same_type_view
// CHECK-SAME: (%[[T:.*]]: !axe.tensor
// CHECK-NOT: axe.slice
// CHECK-NOT: axe.view
// CHECK: axe.copy cta %[[T]] to %[[T]] :
func.func @fold_full_slice_and_same_type_view(%t: !t) {
  %s = axe.slice %t[0, 0] [128, 64] : !t to !axe.tensor<128x64xf16, shared>
  %v = axe.view %t : !t -> !t
  axe.copy cta %s to %v : !axe.tensor<128x64xf16, shared> to !t
  return
}

// -----

// A view of a view is a view of the storage; the inner view goes when unused. Partial slices stay.
// CHECK-LABEL: func.func @view_of_view
// CHECK-SAME: (%[[M:.*]]: memref<8192xf16>)
// CHECK-NEXT: %[[V:.*]] = axe.view %[[M]] : memref<8192xf16> -> !axe.tensor<64x128xf16, global, S[8192:1]>
// CHECK-NEXT: axe.slice %[[V]][0, 64] [64, 64] :
func.func @view_of_view(%m: memref<8192xf16>) {
  %a = axe.view %m : memref<8192xf16> -> !axe.tensor<128x64xf16, global, S[8192:1]>
  %b = axe.view %a : !axe.tensor<128x64xf16, global, S[8192:1]> -> !axe.tensor<64x128xf16, global, S[8192:1]>
  %c = axe.slice %b[0, 64] [64, 64] : !axe.tensor<64x128xf16, global, S[8192:1]> to !axe.tensor<64x64xf16, global>
  return
}
