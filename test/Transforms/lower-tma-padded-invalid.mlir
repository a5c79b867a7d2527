// RUN: axe-opt %s --lower-tma --verify-diagnostics
// A swizzled row narrower than the span: the planner pads it as the hardware does (axe-layout tma-plan, and the
// hardware model in layout/tests/tma_general.rs), but nvgpu's tensormap descriptor type accepts only box rows of
// exactly the swizzle span, so --lower-tma refuses the copy at the copy, with the numbers: 32 f16 = 64 bytes per
// row under the 128B swizzle.

!g = memref<256x256xf16>
!gt = !axe.tensor<256x256xf16, global, S[(256,256):(256,1)]>
!gr = !axe.tensor<8x32xf16, global>
!s = !axe.tensor<8x32xf16, shared, Swizzle(3,3,3) o S[(8,32):(64,1)]>
gpu.module @k {
  gpu.func @padded(%g: !g) kernel {
    %t = axe.view %g : !g -> !gt
    %r = axe.slice %t[0, 32] [8, 32] : !gt to !gr
    %s = axe.alloc cta : !s
    %bar = axe.mbarrier_alloc cta : !axe.mbarrier
    axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
    // expected-error @+1 {{tma: inner-box-bytes rule: the plan's box rows are 64 bytes, padded by the hardware to the 128B swizzle span of 128 bytes; nvgpu's tensormap descriptor accepts only rows of exactly the span, so this lowering does not emit it (axe-layout tma-plan shows the plan)}}
    axe.copy_async cta %r to %s, %bar : !gr to !s, !axe.mbarrier
    %phase = arith.constant false
    axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
    gpu.return
  }
}
