// allreduce.mlir: an all-reduce inside a kernel, from the layouts and `reduce = "sum"`, lowered to NVSHMEM.
//
// Four ranks each hold a full 64x32 f32 contribution (`S[2048:1] + R[4:1@gpuid]`: the same local places on every
// rank of the mesh, DTensor `Partial(sum)` once the copy says `reduce = "sum"`); the kernel sums them into a
// `Replicate()` destination on every rank:
//
//   axe-opt --lower-collectives --lower-to-nvvm examples/allreduce.mlir \
//     | axe-translate --emit=ptx --chip=sm_90a
//
// The collective planner (`axe-layout collective-plan --src-placements 'Partial(sum)' --dst-placements
// 'Replicate()' --shape 64,32 --mesh 4`) makes each rank copy its own contribution, then accumulate ranks r+1,
// r+2, r+3 with gets; the pass emits a CTA-strided loop per step (nvshmem_uint32_g reads a peer's element),
// barriers between steps, and a barrier_all before (every source ready) and after (no source reused while a peer
// reads it). Peers read the source, so it is the symmetric buffer: `axe.symmetric = [{arg = 0, bytes = 8192}]`.
//
// `allreduce_multimem` is the same all-reduce over NVLink multicast (sm_90 and later, `multimem`): both buffers
// are symmetric and bound to a multicast object (`nvshmemx_mc_ptr(NVSHMEM_TEAM_WORLD, ptr)`; null, i.e. no
// NVLink multicast on the system, traps); each element is taken by one thread of one PE, which loads the sum of
// all PEs' sources with `multimem.ld_reduce.relaxed.sys.global.add.f32` and stores it to all PEs' destinations
// with `multimem.st.relaxed.sys.global.f32`: every element crosses NVLink once per PE instead of once per pair.

!part = !axe.tensor<64x32xf32, global, S[2048:1] + R[4:1@gpuid]>

module attributes {gpu.container_module, axe.mesh = {gpuid = 4 : i64}} {
  gpu.module @kernels {
    gpu.func @allreduce(%src: !llvm.ptr {axe.symmetric}, %dst: !llvm.ptr) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>, axe.launch = {grid = ["1", "1", "1"], params = ["src", "dst"]}} {
      %in = axe.view %src : !llvm.ptr -> !part
      %out = axe.view %dst : !llvm.ptr -> !part
      axe.copy cta %in to %out {reduce = "sum"} : !part to !part
      gpu.return
    }

    gpu.func @allreduce_multimem(%src: !llvm.ptr {axe.symmetric}, %dst: !llvm.ptr {axe.symmetric}) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>, axe.launch = {grid = ["1", "1", "1"], params = ["src", "dst"]}} {
      %in = axe.view %src : !llvm.ptr -> !part
      %out = axe.view %dst : !llvm.ptr -> !part
      axe.copy cta %in to %out {reduce = "sum", multimem} : !part to !part
      gpu.return
    }
  }
}
