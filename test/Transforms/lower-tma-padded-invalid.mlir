// RUN: axe-opt %s --lower-tma --verify-diagnostics
// A swizzled row narrower than the span: the planner pads it as the hardware does (axe-layout tma-plan, and the
// hardware model in layout/tests/tma_general.rs), but nvgpu's tensormap descriptor type accepts only box rows of
// exactly the swizzle span, so --lower-tma refuses the copy at the copy, with the numbers: 32 f16 = 64 bytes per
// row under the 128B swizzle.

!g = memref<256x256xf16>
!gt = !axe.tensor<array<i64: 256, 256>, f16, #axe.layout<"S[(256,256):(256,1)]">, #axe.mem<"global">>
!gr = !axe.tensor<array<i64: 8, 32>, f16, #axe.deferred, #axe.mem<"global">>
!s = !axe.tensor<array<i64: 8, 32>, f16, #axe.layout<"Swizzle(3,3,3) o S[(8,32):(64,1)]">, #axe.mem<"shared">>
gpu.module @k {
  gpu.func @padded(%g: !g) kernel {
    %t = "axe.view"(%g) : (!g) -> !gt
    %r = "axe.slice"(%t) {offsets = array<i64: 0, 32>, sizes = array<i64: 8, 32>} : (!gt) -> !gr
    %s = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !s
    %bar = "axe.mbarrier_alloc"() {scope = #axe.exec<"cta">} : () -> !axe.mbarrier
    "axe.mbarrier_init"(%bar) {count = 1 : i64, scope = #axe.exec<"cta">} : (!axe.mbarrier) -> ()
    // expected-error @+1 {{tma: inner-box-bytes rule: the plan's box rows are 64 bytes, padded by the hardware to the 128B swizzle span of 128 bytes; nvgpu's tensormap descriptor accepts only rows of exactly the span, so this lowering does not emit it (axe-layout tma-plan shows the plan)}}
    "axe.copy_async"(%r, %s, %bar) {scope = #axe.exec<"cta">} : (!gr, !s, !axe.mbarrier) -> ()
    %phase = arith.constant false
    "axe.mbarrier_wait"(%bar, %phase) {scope = #axe.exec<"cta">} : (!axe.mbarrier, i1) -> ()
    gpu.return
  }
}
