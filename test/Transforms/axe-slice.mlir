// Deferred slice layouts become the sliced layout L'(y) = L(y + begin) (paper App. E), canonicalized.
// Every expected layout below was computed by hand from that equation; the verifier, which axe-opt runs
// after the pass, checks each one element by element as well.
// RUN: axe-opt %s --split-input-file --axe-slice | FileCheck %s

!t = !axe.tensor<128x64xf16, shared, S[(128,64):(64,1)]>
// L(y0, y1) = 64*y0 + y1. Columns 32..63: 64*y0 + y1 + 32. Rows 64..127: 64*y0 + y1 + 4096 = S[4096:1] + 4096.
// CHECK-LABEL: func.func @row_major_blocks
// CHECK{LITERAL}: to !axe.tensor<128x32xf16, shared, S[(128,32):(64,1)] + 32>
// CHECK{LITERAL}: to !axe.tensor<64x64xf16, shared, S[4096:1] + 4096>
func.func @row_major_blocks(%t: !t) {
  %cols = axe.slice %t[0, 32] [128, 32] : !t to !axe.tensor<128x32xf16, shared>
  %rows = axe.slice %t[64, 0] [64, 64] : !t to !axe.tensor<64x64xf16, shared>
  return
}

// -----

// A slice of a deferred slice: rows 64..127 of columns 32..63 = 64*y0 + y1 + 4096 + 32.
!t = !axe.tensor<128x64xf16, shared, S[(128,64):(64,1)]>
!d = !axe.tensor<128x32xf16, shared>
// CHECK-LABEL: func.func @slice_of_slice
// CHECK{LITERAL}: to !axe.tensor<128x32xf16, shared, S[(128,32):(64,1)] + 32>
// CHECK{LITERAL}: to !axe.tensor<64x32xf16, shared, S[(64,32):(64,1)] + 4128>
func.func @slice_of_slice(%t: !t) {
  %a = axe.slice %t[0, 32] [128, 32] : !t to !d
  %b = axe.slice %a[64, 0] [64, 32] : !d to !axe.tensor<64x32xf16, shared>
  return
}

// -----

// The swizzle stays; the offset lands inside the swizzled address (rows 64..127 start at 4096).
!t = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[8192:1]>
// CHECK-LABEL: func.func @swizzled
// CHECK{LITERAL}: to !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[4096:1] + 4096>
func.func @swizzled(%t: !t) {
  %a = axe.slice %t[64, 0] [64, 64] : !t to !axe.tensor<64x64xf16, shared>
  return
}

// -----

// mma.sync C fragment 16x8: row = 8*h + lane/4 (h on m stride 2), col = 2*(lane%4) + j.
// Rows 8..15 fix h = 1 (offset 2) and keep lane/4 and the columns: (8,4@laneid),(4,1@laneid) fuse to 32:1@laneid.
!frag = !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
// CHECK-LABEL: func.func @register_fragment
// CHECK{LITERAL}: to !axe.tensor<8x8xf32, reg, S[(32,2):(1@laneid,1)] + 2>
func.func @register_fragment() {
  %f = axe.alloc warp : !frag
  %h = axe.slice %f[8, 0] [8, 8] : !frag to !axe.tensor<8x8xf32, reg>
  return
}

// -----

// Tensor memory: columns 128..255 of a 128x256 accumulator start at column 128.
!acc = !axe.tensor<128x256xf32, tmem, S[(128,256):(1@TLane,1@TCol)]>
// CHECK-LABEL: func.func @tensor_memory
// CHECK{LITERAL}: to !axe.tensor<128x128xf32, tmem, S[(128,128):(1@TLane,1@TCol)] + 128@TCol>
func.func @tensor_memory() {
  %a = axe.alloc cta : !acc
  %b = axe.slice %a[0, 128] [128, 128] : !acc to !axe.tensor<128x128xf32, tmem>
  return
}

// -----

// Dynamic offsets and explicit layouts are left alone.
!g = !axe.tensor<128x256xf16, global, S[(128,256):(256,1)]>
// CHECK-LABEL: func.func @not_resolved
// CHECK: axe.slice %{{.*}}[0, %{{.*}}] [128, 64] : {{.*}} to !axe.tensor<128x64xf16, global>{{$}}
// CHECK{LITERAL}: to !axe.tensor<128x64xf16, global, S[(128,64):(256,1)] + 64>
func.func @not_resolved(%g: !g, %k: index) {
  %a = axe.slice %g[0, %k] [128, 64] : !g to !axe.tensor<128x64xf16, global>
  %b = axe.slice %g[0, 64] [128, 64] : !g to !axe.tensor<128x64xf16, global, S[(128,64):(256,1)] + 64>
  return
}
