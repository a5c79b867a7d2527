// tma_copy.mlir: copy one 128x64 f16 tile global -> shared -> global with TMA.
//
// The device kernel (gpu.module @kernels) TMA-loads the tile into 128B-swizzled
// shared memory, completing on an mbarrier with an expected transaction count
// of 16384 bytes, then TMA-stores it back out through a second descriptor. The
// host function builds both descriptors and launches one CTA of 128 threads.
//
//   axe-opt --lower-to-nvvm examples/tma_copy.mlir \
//     | axe-translate --emit=ptx --chip=sm_90a
//
// lowers the gpu.module to llvm/nvvm ops and prints PTX with
// cp.async.bulk.tensor, which `ptxas -arch=sm_90a` accepts. Host code is left
// as is (axe-translate translates the gpu.module only).
//
// Notes on the upstream lowering (MLIR 22):
// - a gpu.func argument of type !nvgpu.tensormap.descriptor does not lower, so
//   the kernel takes !llvm.ptr (the descriptor's device address) and casts;
// - 128B swizzling needs the shared tile 1024-byte aligned and a 128-byte inner
//   box row (64 x f16).

!tile = memref<128x64xf16, #gpu.address_space<workgroup>>
!gmem = memref<128x64xf16>
!desc = !nvgpu.tensormap.descriptor<tensor = !tile, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!barrier = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

module attributes {gpu.container_module} {
  // Host: encode both tensor maps and launch one CTA.
  func.func @tma_copy_launch(%src: !gmem, %dst: !gmem) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %src_any = memref.cast %src : !gmem to memref<*xf16>
    %dst_any = memref.cast %dst : !gmem to memref<*xf16>
    %src_desc = nvgpu.tma.create.descriptor %src_any box[%c128, %c64] : memref<*xf16> -> !desc
    %dst_desc = nvgpu.tma.create.descriptor %dst_any box[%c128, %c64] : memref<*xf16> -> !desc
    %src_ptr = builtin.unrealized_conversion_cast %src_desc : !desc to !llvm.ptr
    %dst_ptr = builtin.unrealized_conversion_cast %dst_desc : !desc to !llvm.ptr
    gpu.launch_func @kernels::@tma_copy
        blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%src_ptr : !llvm.ptr, %dst_ptr : !llvm.ptr)
    return
  }

  gpu.module @kernels {
    // The shared tile: 128 rows x 128 bytes, 1024-byte aligned for swizzle_128b.
    memref.global "private" @tile : !tile {alignment = 1024}

    gpu.func @tma_copy(%src_ptr: !llvm.ptr, %dst_ptr: !llvm.ptr) kernel {
      %src = builtin.unrealized_conversion_cast %src_ptr : !llvm.ptr to !desc
      %dst = builtin.unrealized_conversion_cast %dst_ptr : !llvm.ptr to !desc
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      // 128 x 64 x 2 bytes: the transaction count the barrier waits for.
      %tile_bytes = arith.constant 16384 : index
      %max_ticks = arith.constant 10000000 : index
      %phase = arith.constant false
      %tid = gpu.thread_id x
      %leader = arith.cmpi eq, %tid, %c0 : index
      %bar = nvgpu.mbarrier.create -> !barrier
      %smem = memref.get_global @tile : !tile

      // One thread initializes the barrier (one arrival) and prefetches the
      // descriptor; everyone waits for the init to be visible.
      scf.if %leader {
        nvgpu.mbarrier.init %bar[%c0], %c1 : !barrier
        nvgpu.tma.prefetch.descriptor %src : !desc
      }
      gpu.barrier

      // The leader issues the TMA load and arrives with the expected bytes.
      scf.if %leader {
        nvgpu.tma.async.load %src[%c0, %c0], %bar[%c0] to %smem : !desc, !barrier -> !tile
        nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %tile_bytes : !barrier
      }
      // Every thread waits for phase 0 of the barrier: the tile has landed.
      nvgpu.mbarrier.try_wait.parity %bar[%c0], %phase, %max_ticks : !barrier

      // The leader stores the tile back out and waits until the store has
      // read shared memory before the CTA exits.
      scf.if %leader {
        nvgpu.tma.async.store %smem to %dst[%c0, %c0] : !tile -> !desc
        nvvm.cp.async.bulk.commit.group
        nvvm.cp.async.bulk.wait_group 0 {read}
      }
      gpu.return
    }
  }
}
