// The common axe ops round-trip through axe-opt (twice) in their custom form; roundtrip.mlir covers every op,
// type and attribute with the corner cases, and the generic form.
// RUN: axe-opt %s | axe-opt | FileCheck %s

// A tensor type writes its layout inline (aliases are for #axe.layout attributes, as in annotate below).
!gA = !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
!sA = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
#row = #axe.layout<S[(128,64):(64,1)]>

// CHECK-LABEL: func.func @view_memref
// CHECK: axe.view %{{.*}} : memref<128x64xf16> -> !axe.tensor<128x64xf16, global, {{.*}}>
func.func @view_memref(%m: memref<128x64xf16>) {
  %t = axe.view %m : memref<128x64xf16> -> !gA
  return
}

// CHECK-LABEL: func.func @view_pointer_and_workgroup_memref
// CHECK: axe.view %{{.*}} : !llvm.ptr<1> -> !axe.tensor
// CHECK: axe.view %{{.*}} : memref<8192xf16, #gpu.address_space<workgroup>> -> !axe.tensor
// CHECK-SAME{LITERAL}: <128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
func.func @view_pointer_and_workgroup_memref(%p: !llvm.ptr<1>, %w: memref<8192xf16, #gpu.address_space<workgroup>>) {
  %g = axe.view %p : !llvm.ptr<1> -> !gA
  %s = axe.view %w : memref<8192xf16, #gpu.address_space<workgroup>> -> !sA
  return
}

// CHECK-LABEL: func.func @alloc_every_memory
// CHECK: axe.alloc cta : !axe.tensor<128x64xf16, shared, {{.*}}>
// CHECK: axe.alloc cta : !axe.tensor<128x256xf32, tmem, {{.*}}>
// CHECK: axe.alloc warp : !axe.tensor<16x8xf32, reg, {{.*}}>
func.func @alloc_every_memory() {
  %s = axe.alloc cta : !sA
  %t = axe.alloc cta : !axe.tensor<128x256xf32, tmem, S[(128,256):(1@TLane,1@TCol)]>
  %r = axe.alloc warp : !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
  return
}

// CHECK-LABEL: func.func @slice_static_dynamic_deferred
// CHECK: axe.slice %{{.*}}[0, 32] [128, 32] :
// CHECK-SAME{LITERAL}: to !axe.tensor<128x32xf16, global, S[(128,32):(64,1)] + 32>
// CHECK: axe.slice %{{.*}}[0, %{{.*}}] [128, 32] :
// CHECK-SAME: to !axe.tensor<128x32xf16, global>{{$}}
func.func @slice_static_dynamic_deferred(%g: !gA, %k: index) {
  %a = axe.slice %g[0, 32] [128, 32] : !gA to !axe.tensor<128x32xf16, global, S[(128,32):(64,1)] + 32>
  %b = axe.slice %g[0, %k] [128, 32] : !gA to !axe.tensor<128x32xf16, global>
  return
}

// CHECK-LABEL: func.func @copy_and_fill
// CHECK: axe.copy cta(warpid[0:4]) %{{.*}} to %{{.*}} :
// CHECK: axe.fill warp %{{.*}}, %{{.*}} : !axe.tensor<16x8xf32, reg, {{.*}}>, f32
func.func @copy_and_fill(%g: !gA, %s: !sA, %acc: !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>) {
  axe.copy cta(warpid[0:4]) %g to %s : !gA to !sA
  %zero = arith.constant 0.0 : f32
  axe.fill warp %acc, %zero : !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>, f32
  return
}

// CHECK-LABEL: func.func @tma_pipeline
// CHECK: %[[BAR:.*]] = axe.mbarrier_alloc cta : !axe.mbarrier
// CHECK: axe.mbarrier_init cta %[[BAR]] count 1 : !axe.mbarrier
// CHECK: axe.mbarrier_arrive_expect_tx thread %[[BAR]] bytes 16384 : !axe.mbarrier
// CHECK: axe.copy_async thread %{{.*}} to %{{.*}}, %[[BAR]] : {{.*}}, !axe.mbarrier
// CHECK: axe.mbarrier_wait cta %[[BAR]], %{{.*}} : !axe.mbarrier
// CHECK: axe.mbarrier_arrive warpgroup %[[BAR]] : !axe.mbarrier
// CHECK: axe.copy_async thread %{{.*}} to %{{.*}} : !axe.tensor<128x64xf16, shared, {{.*}}> to !axe.tensor<128x64xf16, global, {{.*}}>{{$}}
// CHECK: axe.sync cta
func.func @tma_pipeline(%g: !gA, %phase: i1) {
  %s = axe.alloc cta : !sA
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  axe.mbarrier_arrive_expect_tx thread %bar bytes 16384 : !axe.mbarrier
  axe.copy_async thread %g to %s, %bar : !gA to !sA, !axe.mbarrier
  axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
  axe.mbarrier_arrive warpgroup %bar : !axe.mbarrier
  axe.copy_async thread %s to %g : !sA to !gA
  axe.sync cta
  return
}

// CHECK-LABEL: func.func @gemm_warpgroup
// CHECK: axe.gemm warpgroup %{{.*}}, %{{.*}}, %{{.*}} :
func.func @gemm_warpgroup(%a: !axe.tensor<64x16xf16, shared, S[(64,16):(16,1)]>,
                          %b: !axe.tensor<16x64xf16, shared, S[(16,64):(64,1)]>,
                          %c: !axe.tensor<64x64xf32, reg, S[(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>) {
  axe.gemm warpgroup %a, %b, %c : !axe.tensor<64x16xf16, shared, S[(64,16):(16,1)]>, !axe.tensor<16x64xf16, shared, S[(16,64):(64,1)]>, !axe.tensor<64x64xf32, reg, S[(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
  return
}

// CHECK-LABEL: func.func @annotate
// CHECK{LITERAL}: axe.annotate %arg0 layout(S[8:1]) : f32
// CHECK{LITERAL}: axe.annotate %arg0 layout(S[(128,64):(64,1)]) : f32
func.func @annotate(%a: f32) {
  axe.annotate %a layout(S[8:1]) : f32
  axe.annotate %a layout(#row) : f32
  return
}
