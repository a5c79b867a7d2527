// mma_sync.mlir: a 16x16 += 16x32 * 32x16 f16 GEMM with f32 accumulators on two warps, with mma.sync (sm_80).
//
// Every operand lives in registers; the layouts say which lane and register hold each element, and they are
// all the compiler needs:
//
//   axe-opt --lower-mma --lower-to-nvvm examples/mma_sync.mlir | axe-translate --emit=ptx --chip=sm_80
//
// The two warps split N: warp w computes columns 8w..8w+8 (C's `1@warpid` at stride 8), and A is replicated on
// both (`R[2:1@warpid]`). Each 16x8 tile of C is the PTX m16n8k16 C fragment, A's 16x16 halves are the A
// fragment and B's the B fragment, K=32 is two k16 steps held at register offsets 8 (A) and 4 (B). The planner
// (axe_layout::mma) picks m16n8k16 and plans 4 instructions, 2 per warp; --lower-mma loads the registers it
// names, packs pairs of halves, emits nvvm.mma.sync and stores the accumulators back; each warp runs its own
// two under a `tid / 32 == w` guard. The chip comes from `axe.target` on the gpu.module.
//
// A and B are filled with 1.0 here (a real kernel would load them, e.g. with ldmatrix); C starts at zero with
// axe.fill. C is a view of a private memref, so the epilogue reads the accumulators as memref elements: thread
// t stores its four to out[4t..4t+4] (each is K = 32).

!a = !axe.tensor<16x32xf16, reg, S[(2,8,2,2,4,2):(2,4@laneid,8,4,1@laneid,1)] + R[2:1@warpid]>
!b = !axe.tensor<32x16xf16, reg, S[(2,2,4,2,2,8):(4,2,1@laneid,1,1@warpid,4@laneid)]>
!c = !axe.tensor<16x16xf32, reg, S[(2,8,2,4,2):(2,4@laneid,1@warpid,1@laneid,1)]>
!regs = memref<4xf32, #gpu.address_space<private>>

module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_80"} {
    gpu.func @mma_sync(%out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %one = arith.constant 1.0 : f16
      %zero = arith.constant 0.0 : f32
      %a = axe.alloc cta : !a
      %b = axe.alloc cta : !b
      %acc = memref.alloca() : !regs
      %c = axe.view %acc : !regs -> !c
      axe.fill cta %a, %one : !a, f16
      axe.fill cta %b, %one : !b, f16
      axe.fill cta %c, %zero : !c, f32
      axe.gemm cta %a, %b, %c : !a, !b, !c
      // Epilogue: thread t writes its accumulator registers 0..3 to out[4t..4t+4].
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %base = arith.muli %tid, %c4 : index
      %i1 = arith.addi %base, %c1 : index
      %i2 = arith.addi %base, %c2 : index
      %i3 = arith.addi %base, %c3 : index
      %v0 = memref.load %acc[%c0] : !regs
      %v1 = memref.load %acc[%c1] : !regs
      %v2 = memref.load %acc[%c2] : !regs
      %v3 = memref.load %acc[%c3] : !regs
      memref.store %v0, %out[%base] : memref<256xf32>
      memref.store %v1, %out[%i1] : memref<256xf32>
      memref.store %v2, %out[%i2] : memref<256xf32>
      memref.store %v3, %out[%i3] : memref<256xf32>
      gpu.return
    }
  }
}
