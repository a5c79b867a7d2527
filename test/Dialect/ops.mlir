// Every axe attribute, type and op round-trips through axe-opt (twice), and
// upstream mlir-opt loads the same IRDL file and parses this file.
// RUN: axe-opt %s | axe-opt | FileCheck %s
// RUN: mlir-opt-22 --irdl-file=%axe_irdl %s | mlir-opt-22 --irdl-file=%axe_irdl | FileCheck %s

#row = #axe.layout<"S[(128,64):(64,1)]">
#sw = #axe.layout<"Swizzle(3,3,3) o S[(128,64):(64,1)]">
!gA = !axe.tensor<array<i64: 128, 64>, f16, #row, #axe.mem<"global">>
!sA = !axe.tensor<array<i64: 128, 64>, f16, #sw, #axe.mem<"shared">>

// CHECK-LABEL: func.func @view_memref
// CHECK: "axe.view"(%{{.*}}) : (memref<128x64xf16>) -> !axe.tensor<array<i64: 128, 64>, f16, #axe.layout<{{.*}}>, #axe.mem<"global">>
func.func @view_memref(%m: memref<128x64xf16>) {
  %t = "axe.view"(%m) : (memref<128x64xf16>) -> !gA
  return
}

// CHECK-LABEL: func.func @view_pointer_and_workgroup_memref
// CHECK: "axe.view"(%{{.*}}) : (!llvm.ptr<1>) -> !axe.tensor
// CHECK: "axe.view"(%{{.*}}) : (memref<8192xf16, #gpu.address_space<workgroup>>) -> !axe.tensor
// CHECK-SAME{LITERAL}: #axe.layout<"Swizzle(3,3,3) o S[(128,64):(64,1)]">, #axe.mem<"shared">>
func.func @view_pointer_and_workgroup_memref(%p: !llvm.ptr<1>, %w: memref<8192xf16, #gpu.address_space<workgroup>>) {
  %g = "axe.view"(%p) : (!llvm.ptr<1>) -> !gA
  %s = "axe.view"(%w) : (memref<8192xf16, #gpu.address_space<workgroup>>) -> !sA
  return
}

// CHECK-LABEL: func.func @alloc_every_memory
// CHECK: "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !axe.tensor<{{.*}}#axe.mem<"shared">>
// CHECK: "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !axe.tensor<{{.*}}#axe.mem<"tmem">>
// CHECK: "axe.alloc"() {scope = #axe.exec<"warp">} : () -> !axe.tensor<{{.*}}#axe.mem<"reg">>
func.func @alloc_every_memory() {
  %s = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !sA
  %t = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !axe.tensor<array<i64: 128, 256>, f32, #axe.layout<"S[(128,256):(1@TLane,1@TCol)]">, #axe.mem<"tmem">>
  %r = "axe.alloc"() {scope = #axe.exec<"warp">} : () -> !axe.tensor<array<i64: 16, 8>, f32, #axe.layout<"S[(2,8,4,2):(2,4@laneid,1@laneid,1)]">, #axe.mem<"reg">>
  return
}

// CHECK-LABEL: func.func @slice_static_dynamic_deferred
// CHECK: "axe.slice"(%{{.*}}) {offsets = array<i64: 0, 32>, sizes = array<i64: 128, 32>}
// CHECK-SAME{LITERAL}: -> !axe.tensor<array<i64: 128, 32>, f16, #axe.layout<"S[(128,32):(64,1)] + 32">, #axe.mem<"global">>
// CHECK: "axe.slice"(%{{.*}}, %{{.*}}) {offsets = array<i64: 0, -9223372036854775808>, sizes = array<i64: 128, 32>}
// CHECK-SAME: -> !axe.tensor<array<i64: 128, 32>, f16, #axe.deferred, #axe.mem<"global">>
func.func @slice_static_dynamic_deferred(%g: !gA, %k: index) {
  %a = "axe.slice"(%g) {offsets = array<i64: 0, 32>, sizes = array<i64: 128, 32>} : (!gA) -> !axe.tensor<array<i64: 128, 32>, f16, #axe.layout<"S[(128,32):(64,1)] + 32">, #axe.mem<"global">>
  %b = "axe.slice"(%g, %k) {offsets = array<i64: 0, -9223372036854775808>, sizes = array<i64: 128, 32>} : (!gA, index) -> !axe.tensor<array<i64: 128, 32>, f16, #axe.deferred, #axe.mem<"global">>
  return
}

// CHECK-LABEL: func.func @copy_and_fill
// CHECK: "axe.copy"(%{{.*}}, %{{.*}}) {scope = #axe.exec<"cta">, threads = #axe.threads<"warpid", array<i64: 0, 4>>}
// CHECK: "axe.fill"(%{{.*}}, %{{.*}}) {scope = #axe.exec<"warp">}
func.func @copy_and_fill(%g: !gA, %s: !sA, %acc: !axe.tensor<array<i64: 16, 8>, f32, #axe.layout<"S[(2,8,4,2):(2,4@laneid,1@laneid,1)]">, #axe.mem<"reg">>) {
  "axe.copy"(%g, %s) {scope = #axe.exec<"cta">, threads = #axe.threads<"warpid", array<i64: 0, 4>>} : (!gA, !sA) -> ()
  %zero = arith.constant 0.0 : f32
  "axe.fill"(%acc, %zero) {scope = #axe.exec<"warp">} : (!axe.tensor<array<i64: 16, 8>, f32, #axe.layout<"S[(2,8,4,2):(2,4@laneid,1@laneid,1)]">, #axe.mem<"reg">>, f32) -> ()
  return
}

// CHECK-LABEL: func.func @tma_pipeline
// CHECK: %[[BAR:.*]] = "axe.mbarrier_alloc"() {scope = #axe.exec<"cta">} : () -> !axe.mbarrier
// CHECK: "axe.mbarrier_init"(%[[BAR]]) {count = 1 : i64, scope = #axe.exec<"cta">}
// CHECK: "axe.mbarrier_arrive_expect_tx"(%[[BAR]]) {bytes = 16384 : i64, scope = #axe.exec<"thread">}
// CHECK: "axe.copy_async"(%{{.*}}, %{{.*}}, %[[BAR]]) {scope = #axe.exec<"thread">}
// CHECK: "axe.mbarrier_wait"(%[[BAR]], %{{.*}}) {scope = #axe.exec<"cta">} : (!axe.mbarrier, i1) -> ()
// CHECK: "axe.mbarrier_arrive"(%[[BAR]]) {scope = #axe.exec<"warpgroup">}
// CHECK: "axe.copy_async"(%{{.*}}, %{{.*}}) {scope = #axe.exec<"thread">}
// CHECK: "axe.sync"() {scope = #axe.exec<"cta">} : () -> ()
func.func @tma_pipeline(%g: !gA, %phase: i1) {
  %s = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !sA
  %bar = "axe.mbarrier_alloc"() {scope = #axe.exec<"cta">} : () -> !axe.mbarrier
  "axe.mbarrier_init"(%bar) {count = 1 : i64, scope = #axe.exec<"cta">} : (!axe.mbarrier) -> ()
  "axe.mbarrier_arrive_expect_tx"(%bar) {bytes = 16384 : i64, scope = #axe.exec<"thread">} : (!axe.mbarrier) -> ()
  "axe.copy_async"(%g, %s, %bar) {scope = #axe.exec<"thread">} : (!gA, !sA, !axe.mbarrier) -> ()
  "axe.mbarrier_wait"(%bar, %phase) {scope = #axe.exec<"cta">} : (!axe.mbarrier, i1) -> ()
  "axe.mbarrier_arrive"(%bar) {scope = #axe.exec<"warpgroup">} : (!axe.mbarrier) -> ()
  "axe.copy_async"(%s, %g) {scope = #axe.exec<"thread">} : (!sA, !gA) -> ()
  "axe.sync"() {scope = #axe.exec<"cta">} : () -> ()
  return
}

// CHECK-LABEL: func.func @gemm_warpgroup
// CHECK: "axe.gemm"(%{{.*}}, %{{.*}}, %{{.*}}) {scope = #axe.exec<"warpgroup">}
func.func @gemm_warpgroup(%a: !axe.tensor<array<i64: 64, 16>, f16, #axe.layout<"S[(64,16):(16,1)]">, #axe.mem<"shared">>,
                          %b: !axe.tensor<array<i64: 16, 64>, f16, #axe.layout<"S[(16,64):(64,1)]">, #axe.mem<"shared">>,
                          %c: !axe.tensor<array<i64: 64, 64>, f32, #axe.layout<"S[(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]">, #axe.mem<"reg">>) {
  "axe.gemm"(%a, %b, %c) {scope = #axe.exec<"warpgroup">} : (!axe.tensor<array<i64: 64, 16>, f16, #axe.layout<"S[(64,16):(16,1)]">, #axe.mem<"shared">>, !axe.tensor<array<i64: 16, 64>, f16, #axe.layout<"S[(16,64):(64,1)]">, #axe.mem<"shared">>, !axe.tensor<array<i64: 64, 64>, f32, #axe.layout<"S[(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]">, #axe.mem<"reg">>) -> ()
  return
}

// CHECK-LABEL: func.func @annotate
// CHECK{LITERAL}: "axe.annotate"(%arg0) {layout = #axe.layout<"S[8:1]">} : (f32) -> ()
func.func @annotate(%a: f32) {
  "axe.annotate"(%a) {layout = #axe.layout<"S[8:1]">} : (f32) -> ()
  return
}
