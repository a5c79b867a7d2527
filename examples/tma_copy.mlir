// tma_copy.mlir: copy one 128x64 f16 tile global -> shared -> global with TMA, written with axe ops.
//
// The kernel views its two global arguments as row-major 128x64 f16 tensors, allocates a 128B-swizzled shared
// tile (`Swizzle(3,3,3) o S[(128,64):(64,1)]`: rows of 64 halves = 128 bytes, 16-byte chunks XORed with the row
// index mod 8, as TMA's SWIZZLE_128B writes them), TMA-loads the tile completing on an mbarrier, waits for
// phase 0, and TMA-stores the tile to the second tensor. The layouts are all the compiler needs:
//
//   axe-opt --lower-tma --lower-to-nvvm examples/tma_copy.mlir \
//     | axe-translate --emit=ptx --chip=sm_90a
//
// --lower-tma plans both copies from the layouts (one 64x128 box each, 16384 bytes, 128B swizzle), builds the
// descriptors on the host before the launch (`axe.tma_descriptor` with every cuTensorMapEncodeTiled field) and
// emits the mbarrier and cp.async.bulk.tensor ops in the kernel; --lower-to-nvvm lowers the gpu.module to
// llvm/nvvm ops; axe-translate prints PTX that `ptxas -arch=sm_90a` accepts. Host code is left as is
// (axe-translate translates the gpu.module only).

!gmem = memref<128x64xf16>
!global = !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
!tile = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>

module attributes {gpu.container_module} {
  // Host: launch one CTA of 128 threads on the two tensors.
  func.func @tma_copy_launch(%src: !gmem, %dst: !gmem) {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    gpu.launch_func @kernels::@tma_copy
        blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%src : !gmem, %dst : !gmem)
    return
  }

  gpu.module @kernels {
    gpu.func @tma_copy(%src: !gmem, %dst: !gmem) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %in = axe.view %src : !gmem -> !global
      %out = axe.view %dst : !gmem -> !global
      %tile = axe.alloc cta : !tile
      %bar = axe.mbarrier_alloc cta : !axe.mbarrier
      axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
      // The load arrives on %bar with the bytes it moves; phase 0 completes when they have landed.
      axe.copy_async cta %in to %tile, %bar : !global to !tile, !axe.mbarrier
      %phase = arith.constant false
      axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
      axe.copy_async cta %tile to %out : !tile to !global
      gpu.return
    }
  }
}
