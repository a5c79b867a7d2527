// --lower-collectives: an axe.copy between distributed global tensors becomes, per rank (an scf.index_switch on
// nvshmem_my_pe), the planner's puts as nvshmemx_putmem_nbi_block(dst + offset, src + offset, bytes, peer), then
// nvshmem_quiet and nvshmemx_barrier_all_block. Every number below is worked out by hand from the layouts, in
// bytes (f32: 4 bytes an element), and agrees with `axe-layout collective-plan` (test/Layout/distributed.test).
// RUN: axe-opt %s --split-input-file --lower-collectives | FileCheck %s
// The planner's answer for the first kernel, against the same hand-worked numbers (in elements: rank 1's 8 floats
// at destination offset 8, to itself, then ranks 2, 3, 0):
// RUN: axe-layout collective-plan --src-placements 'Shard(0)' --dst-placements 'Replicate()' --shape 8,4 --mesh 4 --json | FileCheck %s --check-prefix=PLAN
// PLAN: "kind":"all-gather"
// PLAN-SAME: {"coord":[1],"rank":1,"steps":[{"dst_rank":1,"elements":8,"op":"copy","slices":[{"count":1,"dst_offset":8,"dst_stride":0,"len":8,"logical":[2,0],"logical_stride":0,"src_offset":0,"src_stride":0}],"src_rank":1},{"dst_rank":2,"elements":8,"op":"put","slices":[{"count":1,"dst_offset":8,
// PLAN-SAME: {"dst_rank":3,"elements":8,"op":"put","slices":[{"count":1,"dst_offset":8,
// PLAN-SAME: {"dst_rank":0,"elements":8,"op":"put","slices":[{"count":1,"dst_offset":8,

// All-gather of an 8x4 f32 Shard(0) over 4 ranks (examples/allgather.mlir): rank r holds rows 2r, 2r+1, i.e.
// 8 floats = 32 bytes at offset 0 of its source, which go to byte 32r of every rank's replicated 8x4 (128
// bytes). The plan's order: the rank itself, then r+1, r+2, r+3 mod 4.
// CHECK-LABEL: gpu.module @kernels
// CHECK-DAG: llvm.func @nvshmem_my_pe() -> i32
// CHECK-DAG: llvm.func @nvshmemx_putmem_nbi_block(!llvm.ptr, !llvm.ptr, i64, i32)
// CHECK-DAG: llvm.func @nvshmem_quiet()
// CHECK-DAG: llvm.func @nvshmemx_barrier_all_block()
// The destination is written by peers: 128 bytes on the symmetric heap of every rank, each rank's to_local() the
// whole 8x4 (Replicate()).
// CHECK: gpu.func @allgather(%[[SRCARG:.*]]: !llvm.ptr, %[[DSTARG:.*]]: !llvm.ptr {axe.symmetric}) kernel attributes {{{.*}}axe.symmetric = [{arg = 1 : i64, bytes = 128 : i64, local_shapes = [array<i64: 8, 4>, array<i64: 8, 4>, array<i64: 8, 4>, array<i64: 8, 4>]}]
// CHECK-NOT: axe.
// Only the grid's first CTA runs the collective (one CTA per PE calls the _block functions):
// CHECK: %[[BX:.*]] = gpu.block_id x
// CHECK-NEXT: %[[FX:.*]] = arith.cmpi eq, %[[BX]], %[[C0:.*]] : index
// CHECK-NEXT: %[[BY:.*]] = gpu.block_id y
// CHECK-NEXT: %[[FY:.*]] = arith.cmpi eq, %[[BY]], %[[C0]] : index
// CHECK-NEXT: %[[FXY:.*]] = arith.andi %[[FX]], %[[FY]] : i1
// CHECK-NEXT: %[[BZ:.*]] = gpu.block_id z
// CHECK-NEXT: %[[FZ:.*]] = arith.cmpi eq, %[[BZ]], %[[C0]] : index
// CHECK-NEXT: %[[FIRST:.*]] = arith.andi %[[FXY]], %[[FZ]] : i1
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK: %[[SRC:.*]] = llvm.ptrtoint %[[SRCARG]] : !llvm.ptr to i64
// CHECK: %[[DST:.*]] = llvm.ptrtoint %[[DSTARG]] : !llvm.ptr to i64
// CHECK: %[[PE:.*]] = llvm.call @nvshmem_my_pe() : () -> i32
// CHECK: %[[IDX:.*]] = arith.index_cast %[[PE]] : i32 to index
// CHECK: scf.index_switch %[[IDX]]
// CHECK-NEXT: case 0 {
// CHECK: arith.constant 0 : i32
// CHECK: arith.constant 1 : i32
// CHECK: arith.constant 2 : i32
// CHECK: arith.constant 3 : i32
// Rank 1, in full: 32 bytes from its source at 0 to byte 32 of ranks 1, 2, 3, 0.
// CHECK: case 1 {
// CHECK-NEXT: %[[LEN:.*]] = arith.constant 32 : i64
// CHECK-NEXT: %[[P1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[DOFF:.*]] = arith.constant 32 : i64
// CHECK-NEXT: %[[DA:.*]] = arith.addi %[[DST]], %[[DOFF]] : i64
// CHECK-NEXT: %[[DP:.*]] = llvm.inttoptr %[[DA]] : i64 to !llvm.ptr
// CHECK-NEXT: %[[SOFF:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[SA:.*]] = arith.addi %[[SRC]], %[[SOFF]] : i64
// CHECK-NEXT: %[[SP:.*]] = llvm.inttoptr %[[SA]] : i64 to !llvm.ptr
// CHECK-NEXT: llvm.call @nvshmemx_putmem_nbi_block(%[[DP]], %[[SP]], %[[LEN]], %[[P1]])
// CHECK-NEXT: %[[LEN2:.*]] = arith.constant 32 : i64
// CHECK-NEXT: %[[P2:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[DOFF2:.*]] = arith.constant 32 : i64
// CHECK-NEXT: %[[DA2:.*]] = arith.addi %[[DST]], %[[DOFF2]] : i64
// CHECK-NEXT: %[[DP2:.*]] = llvm.inttoptr %[[DA2]] : i64 to !llvm.ptr
// CHECK-NEXT: %[[SOFF2:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[SA2:.*]] = arith.addi %[[SRC]], %[[SOFF2]] : i64
// CHECK-NEXT: %[[SP2:.*]] = llvm.inttoptr %[[SA2]] : i64 to !llvm.ptr
// CHECK-NEXT: llvm.call @nvshmemx_putmem_nbi_block(%[[DP2]], %[[SP2]], %[[LEN2]], %[[P2]])
// CHECK: %[[P3:.*]] = arith.constant 3 : i32
// CHECK-NEXT: arith.constant 32 : i64
// CHECK: llvm.call @nvshmemx_putmem_nbi_block({{.*}}, %[[P3]])
// CHECK: %[[P0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: arith.constant 32 : i64
// CHECK: llvm.call @nvshmemx_putmem_nbi_block({{.*}}, %[[P0]])
// CHECK-NEXT: scf.yield
// Ranks 2 and 3: to byte 64 and 96, peers in ring order.
// CHECK: case 2 {
// CHECK-NEXT: arith.constant 32 : i64
// CHECK-NEXT: arith.constant 2 : i32
// CHECK-NEXT: arith.constant 64 : i64
// CHECK: arith.constant 3 : i32
// CHECK-NEXT: arith.constant 64 : i64
// CHECK: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 64 : i64
// CHECK: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 64 : i64
// CHECK: case 3 {
// CHECK-NEXT: arith.constant 32 : i64
// CHECK-NEXT: arith.constant 3 : i32
// CHECK-NEXT: arith.constant 96 : i64
// CHECK: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 96 : i64
// CHECK: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 96 : i64
// CHECK: arith.constant 2 : i32
// CHECK-NEXT: arith.constant 96 : i64
// CHECK: default {
// CHECK-NEXT: llvm.intr.trap
// CHECK: }
// CHECK-NEXT: llvm.call @nvshmem_quiet() : () -> ()
// CHECK-NEXT: llvm.call @nvshmemx_barrier_all_block() : () -> ()
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return

!src = !axe.tensor<8x4xf32, global, S[(4,8):(1@gpuid,1)]>
!dst = !axe.tensor<8x4xf32, global, S[32:1] + R[4:1@gpuid]>
module attributes {axe.mesh = {gpuid = 4 : i64}} {
  gpu.module @kernels {
    gpu.func @allgather(%src: !llvm.ptr, %dst: !llvm.ptr {axe.symmetric}) kernel {
      %in = axe.view %src : !llvm.ptr -> !src
      %out = axe.view %dst : !llvm.ptr -> !dst
      axe.copy cta %in to %out : !src to !dst
      gpu.return
    }
  }
}

// -----

// All-gather of a 4x8 f32 Shard(1) over 2 ranks, from a memref: rank r holds columns 4r..4r+3 as a 4x4 row-major
// tile, so each of the 4 rows is 16 bytes at source byte 16c, going to byte 16r + 32c of the 4x8 destination
// (128 bytes): one scf.for over c < 4 per peer.
// CHECK-LABEL: gpu.func @gather_columns
// CHECK-SAME: axe.symmetric = [{arg = 1 : i64, bytes = 128 : i64, local_shapes = [array<i64: 4, 8>, array<i64: 4, 8>]}]
// CHECK: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<4x4xf32> -> index
// CHECK-NEXT: %[[SRC:.*]] = arith.index_cast %[[PTR]] : index to i64
// CHECK-NEXT: %[[DST:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr to i64
// CHECK: case 1 {
// CHECK-NEXT: %[[LEN:.*]] = arith.constant 16 : i64
// CHECK-NEXT: %[[PEER:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: scf.for %[[C:.*]] = %[[ZERO]] to %[[FOUR]] step %[[ONE]] {
// CHECK-NEXT: %[[CI:.*]] = arith.index_cast %[[C]] : index to i64
// CHECK-NEXT: %[[DOFF:.*]] = arith.constant 16 : i64
// CHECK-NEXT: %[[D0:.*]] = arith.addi %[[DST]], %[[DOFF]] : i64
// CHECK-NEXT: %[[DSTRIDE:.*]] = arith.constant 32 : i64
// CHECK-NEXT: %[[DM:.*]] = arith.muli %[[CI]], %[[DSTRIDE]] : i64
// CHECK-NEXT: %[[D1:.*]] = arith.addi %[[D0]], %[[DM]] : i64
// CHECK-NEXT: %[[DP:.*]] = llvm.inttoptr %[[D1]] : i64 to !llvm.ptr
// CHECK-NEXT: %[[SOFF:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[S0:.*]] = arith.addi %[[SRC]], %[[SOFF]] : i64
// CHECK-NEXT: %[[SSTRIDE:.*]] = arith.constant 16 : i64
// CHECK-NEXT: %[[SM:.*]] = arith.muli %[[CI]], %[[SSTRIDE]] : i64
// CHECK-NEXT: %[[S1:.*]] = arith.addi %[[S0]], %[[SM]] : i64
// CHECK-NEXT: %[[SP:.*]] = llvm.inttoptr %[[S1]] : i64 to !llvm.ptr
// CHECK-NEXT: llvm.call @nvshmemx_putmem_nbi_block(%[[DP]], %[[SP]], %[[LEN]], %[[PEER]])
// CHECK-NEXT: }
// The put to rank 0: the same slices.
// CHECK-NEXT: arith.constant 16 : i64
// CHECK-NEXT: arith.constant 0 : i32
// CHECK: scf.for
// CHECK: arith.constant 16 : i64
// CHECK: arith.constant 32 : i64
// CHECK: llvm.call @nvshmemx_putmem_nbi_block
// CHECK: llvm.call @nvshmemx_barrier_all_block

!src2 = !axe.tensor<4x8xf32, global, S[(4,2,4):(4,1@gpuid,1)]>
!dst2 = !axe.tensor<4x8xf32, global, S[32:1] + R[2:1@gpuid]>
module attributes {axe.mesh = {gpuid = 2 : i64}} {
  gpu.module @kernels {
    gpu.func @gather_columns(%src: memref<4x4xf32>, %dst: !llvm.ptr {axe.symmetric}) kernel {
      %in = axe.view %src : memref<4x4xf32> -> !src2
      %out = axe.view %dst : !llvm.ptr -> !dst2
      axe.copy cta %in to %out : !src2 to !dst2
      gpu.return
    }
  }
}

// -----

// All-reduce (sum) of a 2x4 f32 Partial(sum) over 4 ranks (`reduce = "sum"`: the source's values along its
// device replica gpuid are partial): rank r copies its own 8 floats, then adds ranks r+1, r+2, r+3 (mod 4)
// element by element, read with nvshmem_uint32_g from the peer's symmetric source (32 bytes). The CTA's threads
// (any block shape: the linear index) stride over the 8 elements; a barrier between steps; every PE's source is ready first (barrier_all).
// CHECK-LABEL: gpu.func @allreduce
// CHECK-SAME: axe.symmetric = [{arg = 0 : i64, bytes = 32 : i64, local_shapes = [array<i64: 2, 4>, array<i64: 2, 4>, array<i64: 2, 4>, array<i64: 2, 4>]}]
// CHECK: %[[SRC:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr to i64
// CHECK: %[[DST:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr to i64
// CHECK: llvm.call @nvshmem_my_pe()
// CHECK-NEXT: llvm.call @nvshmemx_barrier_all_block()
// The linear thread index x + bx * (y + by * z) and count bx * by * bz:
// CHECK: case 1 {
// CHECK-NEXT: %[[X:.*]] = gpu.thread_id x
// CHECK-NEXT: %[[Y:.*]] = gpu.thread_id y
// CHECK-NEXT: %[[Z:.*]] = gpu.thread_id z
// CHECK-NEXT: %[[BX:.*]] = gpu.block_dim x
// CHECK-NEXT: %[[BY:.*]] = gpu.block_dim y
// CHECK-NEXT: %[[BZ:.*]] = gpu.block_dim z
// CHECK-NEXT: %[[ZY:.*]] = arith.muli %[[BY]], %[[Z]] : index
// CHECK-NEXT: %[[YZ:.*]] = arith.addi %[[Y]], %[[ZY]] : index
// CHECK-NEXT: %[[ROWS:.*]] = arith.muli %[[BX]], %[[YZ]] : index
// CHECK-NEXT: %[[TID:.*]] = arith.addi %[[X]], %[[ROWS]] : index
// CHECK-NEXT: %[[PLANE:.*]] = arith.muli %[[BX]], %[[BY]] : index
// CHECK-NEXT: %[[NTID:.*]] = arith.muli %[[PLANE]], %[[BZ]] : index
// CHECK-NEXT: %[[LEN:.*]] = arith.constant 8 : index
// CHECK-NEXT: scf.for %[[J:.*]] = %[[TID]] to %[[LEN]] step %[[NTID]] {
// CHECK: %[[FROM:.*]] = llvm.inttoptr
// CHECK: %[[TO:.*]] = llvm.inttoptr
// CHECK-NEXT: %[[V:.*]] = llvm.load %[[FROM]] : !llvm.ptr -> f32
// CHECK-NEXT: llvm.store %[[V]], %[[TO]] : f32, !llvm.ptr
// CHECK: gpu.barrier
// CHECK-NEXT: %[[P2:.*]] = arith.constant 2 : i32
// CHECK: scf.for
// CHECK: %[[RFROM:.*]] = llvm.inttoptr
// CHECK: %[[RTO:.*]] = llvm.inttoptr
// CHECK-NEXT: %[[BITS:.*]] = llvm.call @nvshmem_uint32_g(%[[RFROM]], %[[P2]]) : (!llvm.ptr, i32) -> i32
// CHECK-NEXT: %[[REMOTE:.*]] = arith.bitcast %[[BITS]] : i32 to f32
// CHECK-NEXT: %[[OLD:.*]] = llvm.load %[[RTO]] : !llvm.ptr -> f32
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[OLD]], %[[REMOTE]] : f32
// CHECK-NEXT: llvm.store %[[SUM]], %[[RTO]] : f32, !llvm.ptr
// CHECK: gpu.barrier
// CHECK-NEXT: arith.constant 3 : i32
// CHECK: llvm.call @nvshmem_uint32_g
// CHECK: gpu.barrier
// CHECK-NEXT: arith.constant 0 : i32
// CHECK: llvm.call @nvshmem_uint32_g
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// CHECK: case 2 {
// CHECK: llvm.call @nvshmemx_barrier_all_block()
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return

!part = !axe.tensor<2x4xf32, global, S[8:1] + R[4:1@gpuid]>
module attributes {axe.mesh = {gpuid = 4 : i64}} {
  gpu.module @kernels {
    gpu.func @allreduce(%src: !llvm.ptr {axe.symmetric}, %dst: !llvm.ptr) kernel {
      %in = axe.view %src : !llvm.ptr -> !part
      %out = axe.view %dst : !llvm.ptr -> !part
      axe.copy cta %in to %out {reduce = "sum"} : !part to !part
      gpu.return
    }
  }
}

// -----

// Reduce-scatter (max) of a 4x2 bf16 Partial(max) over 2 ranks into Shard(0): rank 1 owns rows 2, 3, i.e.
// elements 4..7 of every source (byte 8, 2 bytes an element) into its 4-element destination at 0; it takes its
// own, then the max with rank 0's, read as 16-bit words.
// CHECK-LABEL: gpu.func @reduce_scatter_max
// CHECK-SAME: axe.symmetric = [{arg = 0 : i64, bytes = 16 : i64, local_shapes = [array<i64: 4, 2>, array<i64: 4, 2>]}]
// CHECK: case 1 {
// CHECK: %[[LEN:.*]] = arith.constant 4 : index
// CHECK: %[[SOFF:.*]] = arith.constant 8 : i64
// CHECK-NEXT: arith.addi %{{.*}}, %[[SOFF]] : i64
// CHECK: %[[DOFF:.*]] = arith.constant 0 : i64
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> bf16
// CHECK: gpu.barrier
// CHECK-NEXT: %[[P0:.*]] = arith.constant 0 : i32
// CHECK: %[[SOFF2:.*]] = arith.constant 8 : i64
// CHECK: %[[BITS:.*]] = llvm.call @nvshmem_uint16_g(%{{.*}}, %[[P0]]) : (!llvm.ptr, i32) -> i16
// CHECK-NEXT: %[[REMOTE:.*]] = arith.bitcast %[[BITS]] : i16 to bf16
// CHECK-NEXT: %[[OLD:.*]] = llvm.load %{{.*}} : !llvm.ptr -> bf16
// CHECK-NEXT: arith.maximumf %[[OLD]], %[[REMOTE]] : bf16

!part2 = !axe.tensor<4x2xbf16, global, S[8:1] + R[2:1@gpuid]>
!rows = !axe.tensor<4x2xbf16, global, S[(2,4):(1@gpuid,1)]>
module attributes {axe.mesh = {gpuid = 2 : i64}} {
  gpu.module @kernels {
    gpu.func @reduce_scatter_max(%src: !llvm.ptr {axe.symmetric}, %dst: !llvm.ptr) kernel {
      %in = axe.view %src : !llvm.ptr -> !part2
      %out = axe.view %dst : !llvm.ptr -> !rows
      axe.copy cta %in to %out {reduce = "max"} : !part2 to !rows
      gpu.return
    }
  }
}

// -----

// All-reduce (sum) over NVLink multicast (`multimem`): 2x4 f32 on 4 ranks. A barrier_all (sources ready), the
// multicast addresses of both symmetric buffers (team NVSHMEM_TEAM_WORLD = 0; null traps), then element j is taken
// by thread j mod T of PE (j / T) mod 4 (T the CTA's threads, tid the linear index): start pe * T + tid, step
// 4 * T; the
// sum of the 4 sources at byte 4j, stored to the 4 destinations at byte 4j.
// CHECK-LABEL: gpu.func @allreduce_multimem
// CHECK-SAME: axe.symmetric = [{arg = 0 : i64, bytes = 32 : i64, local_shapes = [array<i64: 2, 4>, array<i64: 2, 4>, array<i64: 2, 4>, array<i64: 2, 4>]}, {arg = 1 : i64, bytes = 32 : i64, local_shapes = [array<i64: 2, 4>, array<i64: 2, 4>, array<i64: 2, 4>, array<i64: 2, 4>]}]
// CHECK: %[[PE:.*]] = llvm.call @nvshmem_my_pe() : () -> i32
// CHECK-NEXT: llvm.call @nvshmemx_barrier_all_block()
// CHECK-NEXT: %[[WORLD:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[NULL:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[MCS:.*]] = llvm.call @nvshmemx_mc_ptr(%[[WORLD]], %[[SRCARG:.*]]) : (i32, !llvm.ptr) -> !llvm.ptr
// CHECK-NEXT: %[[S:.*]] = llvm.ptrtoint %[[MCS]] : !llvm.ptr to i64
// CHECK-NEXT: %[[NS:.*]] = arith.cmpi eq, %[[S]], %[[NULL]] : i64
// CHECK-NEXT: scf.if %[[NS]] {
// CHECK-NEXT: llvm.intr.trap
// CHECK: %[[MCD:.*]] = llvm.call @nvshmemx_mc_ptr(%[[WORLD]], %{{.*}}) : (i32, !llvm.ptr) -> !llvm.ptr
// CHECK-NEXT: %[[D:.*]] = llvm.ptrtoint %[[MCD]] : !llvm.ptr to i64
// CHECK: gpu.block_dim z
// CHECK-NEXT: arith.muli
// CHECK-NEXT: arith.addi
// CHECK-NEXT: arith.muli
// CHECK-NEXT: %[[TID:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[PLANE:.*]] = arith.muli
// CHECK-NEXT: %[[NTID:.*]] = arith.muli %[[PLANE]], %{{.*}} : index
// CHECK-NEXT: %[[PEI:.*]] = arith.index_cast %[[PE]] : i32 to index
// CHECK-NEXT: %[[BASE:.*]] = arith.muli %[[PEI]], %[[NTID]] : index
// CHECK-NEXT: %[[FIRST:.*]] = arith.addi %[[BASE]], %[[TID]] : index
// CHECK-NEXT: %[[RANKS:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[STEP:.*]] = arith.muli %[[RANKS]], %[[NTID]] : index
// CHECK-NEXT: %[[LEN:.*]] = arith.constant 8 : index
// CHECK-NEXT: scf.for %{{.*}} = %[[FIRST]] to %[[LEN]] step %[[STEP]] {
// CHECK: arith.addi %[[S]],
// CHECK: arith.addi %[[D]],
// CHECK: %[[SUM:.*]] = llvm.inline_asm has_side_effects "multimem.ld_reduce.relaxed.sys.global.add.f32 $0, [$1];", "=f,l" %{{.*}} : (i64) -> f32
// CHECK-NEXT: llvm.inline_asm has_side_effects "multimem.st.relaxed.sys.global.f32 [$0], $1;", "l,f" %{{.*}}, %[[SUM]] : (i64, f32) -> ()
// CHECK: llvm.call @nvshmem_quiet()
// CHECK-NEXT: llvm.call @nvshmemx_barrier_all_block()
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return

!part3 = !axe.tensor<2x4xf32, global, S[8:1] + R[4:1@gpuid]>
module attributes {axe.mesh = {gpuid = 4 : i64}} {
  gpu.module @kernels attributes {axe.target = "sm_100a"} {
    gpu.func @allreduce_multimem(%src: !llvm.ptr {axe.symmetric}, %dst: !llvm.ptr {axe.symmetric}) kernel {
      %in = axe.view %src : !llvm.ptr -> !part3
      %out = axe.view %dst : !llvm.ptr -> !part3
      axe.copy cta %in to %out {reduce = "sum", multimem} : !part3 to !part3
      gpu.return
    }
  }
}
