// --lower-mma on tcgen05 (sm_100a): A and B in shared memory, C in tensor memory. The instruction and matrix
// descriptors, the tensor-memory address and column count are the planner's (hand-checked in
// test/Layout/mma-plan.test); the sequence around them follows the PTX ISA (9.7.16): alloc by one warp into
// shared memory, fences around thread syncs, one thread issues mma and commits to an mbarrier, dealloc.
// RUN: axe-opt %s --split-input-file --lower-mma --cse | FileCheck %s

// 32B-swizzled K-major A [128,16] and B [16,16]; C at tensor-memory column 32 (48 columns used: 64 allocated).
!a = !axe.tensor<128x16xf16, shared, Swizzle(3,1,3) o S[(128,16):(16,1)]>
!b = !axe.tensor<16x16xf16, shared, Swizzle(3,1,3) o S[(16,16):(1,16)]>
!c = !axe.tensor<128x16xf32, tmem, S[(128,16):(1@TLane,1@TCol)] + 32@TCol>
!rows = !axe.tensor<128x16xf32, reg, S[(4,32,16):(1@warpid,1@laneid,1)]>
module attributes {axe.target = "sm_100a"} {
  // 32B swizzle repeats every 256 bytes: the planner asks for 256-byte bases.
  // CHECK-DAG: memref.global "private" @[[$GA:__axe_mma_smem_[0-9]+]] : memref<4096xi8, #gpu.address_space<workgroup>> {alignment = 256 : i64}
  // CHECK-DAG: memref.global "private" @[[$GB:__axe_mma_smem_[0-9]+]] : memref<512xi8, #gpu.address_space<workgroup>> {alignment = 256 : i64}
  // The tensor-memory address slot and the completion mbarrier.
  // CHECK-DAG: memref.global "private" @[[$SLOT:__axe_mma_smem_[0-9]+]] : memref<1xi32, #gpu.address_space<workgroup>> {alignment = 16 : i64}
  // CHECK-DAG: memref.global "private" @[[$BAR:__axe_mma_smem_[0-9]+]] : memref<1xi64, #gpu.address_space<workgroup>> {alignment = 8 : i64}
  // CHECK-LABEL: func.func @gemm_and_load
  func.func @gemm_and_load(%acc: memref<16xf32, #gpu.address_space<private>>) {
    // At entry: the mbarrier, initialized to 1 arrival by one thread (the lane of warp 0, tid.x < 32, that
    // elect.sync picks), a CTA barrier, the phase local at 0.
    // CHECK: %[[TID:.*]] = gpu.thread_id x
    // CHECK: %[[BARM:.*]] = memref.get_global @[[$BAR]]
    // CHECK: %[[BAR:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
    // CHECK: %[[WARP0:.*]] = arith.cmpi ult, %[[TID]], %c32 : index
    // CHECK-NEXT: %[[ELECT:.*]] = nvvm.elect.sync -> i1
    // CHECK-NEXT: %[[LEAD:.*]] = arith.andi %[[WARP0]], %[[ELECT]] : i1
    // CHECK: scf.if %[[LEAD]] {
    // CHECK-NEXT: nvvm.mbarrier.init %[[BAR]], %c1_i32
    // CHECK-NEXT: nvvm.fence.mbarrier.init
    // CHECK: gpu.barrier
    // CHECK: %[[PHASE:.*]] = memref.alloca() : memref<1xi32>
    // CHECK: memref.store %c0_i32, %[[PHASE]][%c0]
    %a = axe.alloc cta : !a
    %b = axe.alloc cta : !b
    // The alloc: warp 0 allocates 64 columns into the slot and gives up the permit; then fence, sync, fence.
    // CHECK: %[[SLOT:.*]] = memref.get_global @[[$SLOT]]
    // CHECK: %[[SLOTP:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
    // CHECK: %[[W:.*]] = arith.divui %[[TID]], %c32 : index
    // CHECK: %[[W0:.*]] = arith.cmpi eq, %[[W]], %c0 : index
    // CHECK: scf.if %[[W0]] {
    // CHECK-NEXT: nvvm.tcgen05.alloc %[[SLOTP]], %c64_i32 : !llvm.ptr<3>, i32
    // CHECK-NEXT: nvvm.tcgen05.relinquish_alloc_permit
    // CHECK: nvvm.tcgen05.fence <before>
    // CHECK-NEXT: gpu.barrier
    // CHECK-NEXT: nvvm.tcgen05.fence <after>
    // CHECK-NEXT: %[[RAW:.*]] = memref.load %[[SLOT]][%c0]
    // CHECK-NEXT: %[[TMEM:.*]] = llvm.inttoptr %[[RAW]] : i32 to !llvm.ptr<6>
    %c = axe.alloc cta : !c
    %zero = arith.constant 0.0 : f32
    axe.fill cta %c, %zero : !c, f32
    // The gemm: warp 0's elected lane issues (a fresh elect.sync at the issue point); D = allocation + column 32; idesc 0x08040010 = 134479888 (f32 D at bit 4,
    // N >> 3 = 2 at bit 17, M >> 4 = 8 at bit 24); descriptors 0xc000401000010000 (32B swizzle = 6 at bit 61,
    // version 1 at bit 46, SBO 256 >> 4 = 16 at bit 32, LBO 1 at bit 16) + base; the zero fill makes the
    // first instruction overwrite (enable-input-d false).
    // CHECK: %[[ELECT2:.*]] = nvvm.elect.sync -> i1
    // CHECK-NEXT: %[[LEAD2:.*]] = arith.andi %[[WARP0]], %[[ELECT2]] : i1
    // CHECK-NEXT: scf.if %[[LEAD2]] {
    // CHECK: %[[RAWD:.*]] = llvm.ptrtoint %[[TMEM]] : !llvm.ptr<6> to i32
    // CHECK: %[[SUM:.*]] = arith.addi %[[RAWD]], %c32_i32 : i32
    // CHECK: %[[D:.*]] = llvm.inttoptr %[[SUM]] : i32 to !llvm.ptr<6>
    // CHECK: %[[DA:.*]] = arith.addi %c-4611615580963667968_i64, %{{.*}} : i64
    // CHECK: %[[DB:.*]] = arith.addi %c-4611615580963667968_i64, %{{.*}} : i64
    // CHECK: nvvm.tcgen05.mma %[[D]], %[[DA]], %[[DB]], %c134479888_i32, %false {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>}
    // CHECK-NEXT: nvvm.tcgen05.commit %[[BAR]] : !llvm.ptr<3>
    // Every thread waits for the phase, flips its parity, fences.
    // CHECK: %[[P:.*]] = memref.load %[[PHASE]][%c0]
    // CHECK: nvvm.mbarrier.try_wait.parity %[[BAR]], %[[P]], %c10000000_i32
    // CHECK: %[[Q:.*]] = arith.xori %[[P]], %c1_i32 : i32
    // CHECK: memref.store %[[Q]], %[[PHASE]][%c0]
    // CHECK: nvvm.tcgen05.fence <after>
    axe.gemm cta %a, %b, %c : !a, !b, !c
    // The load: the 4 warps of the data path, warp w at lane 32w (bits 16..) and column 32; 16 registers.
    // CHECK: %[[IN:.*]] = arith.cmpi ult, %[[TID]], %c128 : index
    // CHECK: scf.if %[[IN]] {
    // CHECK: arith.andi %[[TID]], %c-32 : index
    // CHECK: arith.shli %{{.*}}, %c16_i32 : i32
    // CHECK: %[[V:.*]] = nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<16xi32>
    // CHECK-NEXT: nvvm.tcgen05.wait <load>
    // CHECK: %[[E15:.*]] = llvm.extractelement %[[V]][%c15_i32 : i32] : vector<16xi32>
    // CHECK: %[[F15:.*]] = arith.bitcast %[[E15]] : i32 to f32
    // CHECK: memref.store %[[F15]], %arg0[%c15]
    %r = axe.view %acc : memref<16xf32, #gpu.address_space<private>> -> !rows
    axe.copy cta %c to %r : !c to !rows
    // Before the return: fence, sync, warp 0 frees the 64 columns.
    // CHECK: nvvm.tcgen05.fence <before>
    // CHECK-NEXT: gpu.barrier
    // CHECK: nvvm.tcgen05.dealloc %[[TMEM]], %c64_i32 : !llvm.ptr<6>, i32
    // No axe op is left (custom form, or generic if it were printed so).
    // CHECK-NOT: {{^ *(%[^ ]+ = )?"?axe\.[a-z_]+}}
    // CHECK: return
    return
  }
}

// -----

// K = 32 without a fill: two instructions, both accumulating. The second K half of A is a separate 128x16
// panel 2048 halves = 4096 bytes further (start field +256), that of B 256 halves = 512 bytes (+32).
!a = !axe.tensor<128x32xf16, shared, Swizzle(3,1,3) o S[(128,2,16):(16,2048,1)]>
!b = !axe.tensor<32x16xf16, shared, Swizzle(3,1,3) o S[(2,16,16):(256,1,16)]>
!c = !axe.tensor<128x16xf32, tmem, S[(128,16):(1@TLane,1@TCol)]>
module attributes {axe.target = "sm_100a"} {
  // CHECK-LABEL: func.func @two_k_steps
  func.func @two_k_steps() {
    %a = axe.alloc cta : !a
    %b = axe.alloc cta : !b
    %c = axe.alloc cta : !c
    // CHECK: nvvm.tcgen05.alloc %{{.*}}, %c32_i32
    // CHECK: %[[A0:.*]] = arith.addi %c-4611615580963667968_i64, %[[BA:.*]] : i64
    // CHECK: %[[B0:.*]] = arith.addi %c-4611615580963667968_i64, %[[BB:.*]] : i64
    // CHECK: nvvm.tcgen05.mma %[[TMEM:[^,]*]], %[[A0]], %[[B0]], %c134479888_i32, %true
    // CHECK: %[[A1:.*]] = arith.addi %c-4611615580963667712_i64, %[[BA]] : i64
    // CHECK: %[[B1:.*]] = arith.addi %c-4611615580963667936_i64, %[[BB]] : i64
    // CHECK: nvvm.tcgen05.mma %[[TMEM]], %[[A1]], %[[B1]], %c134479888_i32, %true
    // CHECK-NOT: nvvm.tcgen05.mma
    // CHECK: nvvm.tcgen05.commit
    axe.gemm cta %a, %b, %c : !a, !b, !c
    return
  }
}

// -----

// An accumulator only loaded from (written elsewhere): columns 32..96 are read, so 128 are allocated; the load
// is 64 columns wide from column 32.
!t = !axe.tensor<128x64xf32, tmem, S[(128,64):(1@TLane,1@TCol)] + 32@TCol>
!r = !axe.tensor<128x64xf32, reg, S[(4,32,64):(1@warpid,1@laneid,1)]>
module attributes {axe.target = "sm_100a"} {
  // CHECK-LABEL: func.func @load_only
  func.func @load_only() {
    // CHECK: nvvm.tcgen05.alloc %{{.*}}, %c128_i32
    // CHECK: %[[RAW:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<6> to i32
    // CHECK: %[[LANE:.*]] = arith.addi %[[RAW]], %{{.*}} : i32
    // CHECK: %[[ADDR:.*]] = arith.addi %[[LANE]], %c32_i32 : i32
    // CHECK: nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<64xi32>
    // CHECK: nvvm.tcgen05.dealloc %{{.*}}, %c128_i32
    %t = axe.alloc cta : !t
    %r = axe.alloc cta : !r
    axe.copy cta %t to %r : !t to !r
    return
  }
}
