// Shared memory by lifetime: the first lowering to run numbers each kernel's top-level ops by the CTA barriers
// before them (epochs), gives each shared axe.alloc the epochs of its uses (through slices), a TMA load's up to the
// last wait on its barrier and a TMA store's up to the kernel's end, and the lowerings record them per global as
// the kernel's axe.shared_epochs; --axe-dynamic-shared then lets buffers never live together share bytes.
// RUN: axe-opt %s --lower-tma --lower-copy | FileCheck %s
// RUN: axe-opt %s --lower-tma --lower-copy --lower-to-nvvm --axe-dynamic-shared | FileCheck %s --check-prefix=WINDOW

!g = !axe.tensor<32x8xf16, global, S[(32,8):(8,1)]>
!r = !axe.tensor<32x8xf16, reg, S[(32,8):(1@laneid,1)]>
!s = !axe.tensor<32x8xf16, shared, S[(32,8):(8,1)]>
!gt = !axe.tensor<64x64xf16, global, S[(64,64):(64,1)]>
!st = !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>
module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_90a"} {
    // The names say the epochs: %s0 is used in epoch 0, %s1 in 1, %s02 in 0 and 2; the tile %t is loaded in epoch
    // 0 and waited for in 1; %u is stored by TMA in epoch 1 (done at the end: epoch 2).
    // CHECK-LABEL: gpu.func @epochs
    // CHECK-SAME: axe.shared_epochs = {__axe_copy_smem_0 = array<i64: 0, 0>, __axe_copy_smem_1 = array<i64: 1, 1>, __axe_copy_smem_2 = array<i64: 0, 2>, __axe_smem_0 = array<i64: 0, 1>, __axe_smem_1 = array<i64: 1, 2>}
    // Laid out largest first: the tiles at 0 and 8192 (both live in epoch 1), %s0 over %u at 8192 (never live
    // together), %s1 after %u at 16384, %s02 (live in every epoch) at 16896, the barrier at 17408: 17416 bytes and
    // 1024 of slack (every buffer apart: 17928).
    // WINDOW-LABEL: llvm.func @epochs
    // WINDOW-SAME: axe.dynamic_shared_bytes = 18440 : i64
    gpu.func @epochs(%in: memref<256xf16>, %tile: memref<4096xf16>, %out: memref<4096xf16>, %p: i1) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %g = axe.view %in : memref<256xf16> -> !g
      %gt = axe.view %tile : memref<4096xf16> -> !gt
      %go = axe.view %out : memref<4096xf16> -> !gt
      %r = axe.alloc warp : !r
      %s0 = axe.alloc cta : !s
      %s1 = axe.alloc cta : !s
      %s02 = axe.alloc cta : !s
      %t = axe.alloc cta : !st
      %u = axe.alloc cta : !st
      %bar = axe.mbarrier_alloc cta : !axe.mbarrier
      axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
      axe.copy warp %g to %r : !g to !r
      axe.copy warp %r to %s0 : !r to !s
      axe.copy warp %r to %s02 : !r to !s
      axe.copy_async cta %gt to %t, %bar : !gt to !st, !axe.mbarrier
      axe.sync cta
      axe.mbarrier_wait cta %bar, %p : !axe.mbarrier
      axe.copy warp %r to %s1 : !r to !s
      axe.copy_async cta %u to %go : !st to !gt
      axe.sync cta
      axe.copy warp %s02 to %r : !s to !r
      gpu.return
    }
  }
}
