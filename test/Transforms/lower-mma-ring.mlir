// wgmma over a run-time stage of shared rings: A is rows [64 * s, 64 * s + 64) of a [192, 64] f16 ring
// (Swizzle(3,3,3) o S[(192,64):(64,1)], 128 bytes a row, 8192 a stage), B is columns [16 * s, 16 * s + 16) of a
// [64, 48] MN-major ring whose three 64x16 stages are 2048 elements apart (4096 bytes per step of 16 columns, the
// offset divided by 16 first). The planner
// plans stage 0 and states each operand's start as + bytes * (offset / divisor); --lower-mma adds it to the
// operand's address before encoding the start field ((address >> 4) & 0x3FFF). Numbers by hand.
// RUN: axe-opt %s --lower-mma | FileCheck %s
// RUN: axe-opt %s --lower-mma --lower-to-nvvm -o %t.mlir
// RUN: axe-translate --emit=ptx --chip=sm_90a %t.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin

!ringA = !axe.tensor<192x64xf16, shared, Swizzle(3,3,3) o S[(192,64):(64,1)]>
!ringB = !axe.tensor<64x48xf16, shared, Swizzle(3,3,3) o S[(64,3,16):(1,2048,64)]>
!a = !axe.tensor<64x64xf16, shared>
!b = !axe.tensor<64x16xf16, shared>
!c = !axe.tensor<64x16xf32, reg, S[(4,2,8,2,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
!regs = memref<8xf32, #gpu.address_space<private>>

// CHECK-LABEL: gpu.func @ring_stage
// CHECK-SAME: (%[[S:[a-z0-9_]+]]: index,
// CHECK: %[[R:.+]] = arith.muli %[[S]], %{{.+}} : index
// CHECK: %[[N:.+]] = arith.muli %[[S]], %{{.+}} : index
// A: the ring's address plus 128 bytes per row of the offset.
// CHECK: %[[PA:.+]] = memref.extract_aligned_pointer_as_index
// CHECK-NEXT: %[[AA64:.+]] = arith.index_cast %[[PA]] : index to i64
// The encoding keeps bits 4..17: the sum runs on the low 32 bits.
// CHECK-NEXT: %[[AA:.+]] = arith.trunci %[[AA64]] : i64 to i32
// CHECK-NEXT: %[[C128:.+]] = arith.constant 128 : index
// CHECK-NEXT: %[[MA:.+]] = arith.muli %[[R]], %[[C128]] : index
// CHECK-NEXT: %[[MA32:.+]] = arith.index_cast %[[MA]] : index to i32
// CHECK-NEXT: %[[SA:.+]] = arith.addi %[[AA]], %[[MA32]] : i32
// CHECK-NEXT: %[[C4:.+]] = arith.constant 4 : i32
// CHECK-NEXT: %[[HA:.+]] = arith.shrui %[[SA]], %[[C4]] : i32
// CHECK-NEXT: %[[MASK:.+]] = arith.constant 16383 : i32
// CHECK-NEXT: %[[EA32:.+]] = arith.andi %[[HA]], %[[MASK]] : i32
// CHECK-NEXT: %[[EA:.+]] = arith.extui %[[EA32]] : i32 to i64
// B: the offset in steps of 16 columns (divsi), 4096 bytes a step.
// CHECK: %[[PB:.+]] = memref.extract_aligned_pointer_as_index
// CHECK-NEXT: %[[AB64:.+]] = arith.index_cast %[[PB]] : index to i64
// CHECK-NEXT: %[[AB:.+]] = arith.trunci %[[AB64]] : i64 to i32
// CHECK-NEXT: %[[C16:.+]] = arith.constant 16 : index
// CHECK-NEXT: %[[STEPS:.+]] = arith.divsi %[[N]], %[[C16]] : index
// CHECK-NEXT: %[[C4096:.+]] = arith.constant 4096 : index
// CHECK-NEXT: %[[MB:.+]] = arith.muli %[[STEPS]], %[[C4096]] : index
// CHECK-NEXT: %[[MB32:.+]] = arith.index_cast %[[MB]] : index to i32
// CHECK-NEXT: arith.addi %[[AB]], %[[MB32]] : i32
// Each descriptor is the plan's constant plus the encoded address.
// CHECK: arith.addi %{{.+}}, %[[EA]] : i64
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: axe.
// CHECK: gpu.return

// A's ring 192 x 64 halves (24576 bytes), B's ring's span 2 * 2048 + 15 * 64 + 64 halves (10240 bytes), both
// aligned to the 1024-byte 128B pattern. A's stage moves s * 64 * 128 = s << 13 bytes, B's (16 s / 16) * 4096 =
// s << 12; the sum (32-bit: the field keeps bits 4..17) is shifted and masked into the start field (LLVM narrows
// the mask to 0x3FC0 = 16320: the bases are 1024-aligned), widened, and OR-ed with the plan's constant (128B
// swizzle, SBO 1024, LBO 16).
// PTX-DAG: .shared .align 1024 .b8 __axe_mma_smem_{{[01]}}[24576];
// PTX-DAG: .shared .align 1024 .b8 __axe_mma_smem_{{[01]}}[10240];
// PTX: shl.b32 [[MA:%r[0-9]+]], [[S:%r[0-9]+]], 13;
// PTX: add.s32 [[AA:%r[0-9]+]], [[MA]], {{%r[0-9]+}};
// PTX-NEXT: shr.u32 [[HA:%r[0-9]+]], [[AA]], 4;
// PTX-NEXT: and.b32 [[EA32:%r[0-9]+]], [[HA]], 16320;
// PTX-NEXT: cvt.u64.u32 [[EA:%rd[0-9]+]], [[EA32]];
// PTX-NEXT: shl.b32 [[MB:%r[0-9]+]], [[S]], 12;
// PTX: add.s32 [[AB:%r[0-9]+]], [[MB]], {{%r[0-9]+}};
// PTX-NEXT: shr.u32 [[HB:%r[0-9]+]], [[AB]], 4;
// PTX-NEXT: and.b32 [[EB32:%r[0-9]+]], [[HB]], 16320;
// PTX-NEXT: cvt.u64.u32 [[EB:%rd[0-9]+]], [[EB32]];
// PTX: or.b64 [[DA:%rd[0-9]+]], [[EA]], 4611686293305360384;
// PTX-NEXT: or.b64 [[DB:%rd[0-9]+]], [[EB]], 4611686293305360384;
// PTX: wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {{.*}}, [[DA]], [[DB]],
// PTX: wgmma.commit_group.sync.aligned;

module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_90a"} {
    gpu.func @ring_stage(%s: index, %out: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c64 = arith.constant 64 : index
      %c16 = arith.constant 16 : index
      %r = arith.muli %s, %c64 : index
      %n = arith.muli %s, %c16 : index
      %ring_a = axe.alloc cta : !ringA
      %ring_b = axe.alloc cta : !ringB
      %a = axe.slice %ring_a[%r, 0] [64, 64] : !ringA to !a
      %b = axe.slice %ring_b[0, %n] [64, 16] : !ringB to !b
      %zero = arith.constant 0.0 : f32
      %acc = memref.alloca() : !regs
      %c = axe.view %acc : !regs -> !c
      axe.fill warpgroup %c, %zero : !c, f32
      axe.gemm warpgroup %a, %b, %c : !a, !b, !c
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %v0 = memref.load %acc[%c0] : !regs
      memref.store %v0, %out[%tid] : memref<1024xf32>
      gpu.return
    }
  }
}
