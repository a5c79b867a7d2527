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

!part = !axe.tensor<array<i64: 64, 32>, f32, #axe.layout<"S[2048:1] + R[4:1@gpuid]">, #axe.mem<"global">>

module attributes {gpu.container_module, axe.mesh = {gpuid = 4 : i64}} {
  gpu.module @kernels {
    gpu.func @allreduce(%src: !llvm.ptr {axe.symmetric}, %dst: !llvm.ptr) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>, axe.launch = {grid = ["1", "1", "1"], params = ["src", "dst"]}} {
      %in = "axe.view"(%src) : (!llvm.ptr) -> !part
      %out = "axe.view"(%dst) : (!llvm.ptr) -> !part
      "axe.copy"(%in, %out) {scope = #axe.exec<"cta">, reduce = "sum"} : (!part, !part) -> ()
      gpu.return
    }
  }
}
