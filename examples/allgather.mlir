// allgather.mlir: an all-gather inside a kernel, chosen by the layouts and lowered to NVSHMEM puts.
//
// Four ranks (a 1-D mesh, `axe.mesh = {gpuid = 4}`) each hold 2 rows of an 8x4 f32 tensor, DTensor `Shard(0)`
// (`S[(4,8):(1@gpuid,1)]`: the rank is the row block, 8 floats per rank at offset 0 of its buffer); the kernel
// copies it into `Replicate()` (`S[32:1] + R[4:1@gpuid]`: all 32 floats on every rank). The copy's two layouts
// are all the compiler needs:
//
//   axe-opt --lower-collectives --lower-to-nvvm examples/allgather.mlir \
//     | axe-translate --emit=ptx --chip=sm_90a
//
// --lower-collectives asks the collective planner (`axe-layout collective-plan --src-placements 'Shard(0)'
// --dst-placements 'Replicate()' --shape 8,4 --mesh 4`: an all-gather; rank r puts its 8 floats at offset 8r of
// every rank's destination, itself first, then r+1, r+2, r+3) and emits, per rank, nvshmemx_putmem_nbi_block
// calls, then nvshmem_quiet and nvshmemx_barrier_all_block. The destination is written by peers, so it is a
// symmetric-heap buffer (`{axe.symmetric}`): the kernel records `axe.symmetric = [{arg = 1, bytes = 128}]`, which
// `axe-translate --emit=launch` prints. axe-translate links NVSHMEM's device bitcode (libnvshmem_device_sm_*.bc
// from the nvidia-nvshmem-cu13 wheel) into the module before PTX is emitted. The kernel is launched on every PE
// after NVSHMEM is initialized; its first CTA runs the collective (README, "Distributed kernels").

!src = !axe.tensor<8x4xf32, global, S[(4,8):(1@gpuid,1)]>
!dst = !axe.tensor<8x4xf32, global, S[32:1] + R[4:1@gpuid]>

module attributes {gpu.container_module, axe.mesh = {gpuid = 4 : i64}} {
  gpu.module @kernels {
    gpu.func @allgather(%src: !llvm.ptr, %dst: !llvm.ptr {axe.symmetric}) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>, axe.launch = {grid = ["1", "1", "1"], params = ["src", "dst"]}} {
      %in = axe.view %src : !llvm.ptr -> !src
      %out = axe.view %dst : !llvm.ptr -> !dst
      axe.copy cta %in to %out : !src to !dst
      gpu.return
    }
  }
}
