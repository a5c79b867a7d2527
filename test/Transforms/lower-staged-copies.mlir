// --lower-staged-copies (issue 25): each axe.copy_staged becomes, per piece of the buffer's shape in row-major
// order, a register slice, a barrier at the op's scope (the buffer is free), a copy into the buffer, a slice of
// dest and a TMA store from the buffer; the slices are deferred and every op keeps the scope and threads.
// RUN: axe-opt %s --split-input-file --lower-staged-copies | FileCheck %s
// The pieces then lower as copies written by hand do (stmatrix into the buffer, one TMA store each):
// RUN: axe-opt %s --split-input-file --lower-staged-copies --lower-tma --lower-copy | FileCheck %s --check-prefix=LOWERED

!acc = !axe.tensor<128x256xf16, reg, S[(2,4,2,8,32,4,2):(1@wgid,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
!g = !axe.tensor<256x512xf16, global, S[(256,512):(512,1)]>
!tile = !axe.tensor<128x256xf16, global>
!buf = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>

// A 128x256 tile of two warpgroups' registers through a 128x64 buffer: four quarters, left to right.
// CHECK-LABEL: gpu.func @quarters
// CHECK-SAME: (%[[G:.*]]: memref<256x512xf16>)
// CHECK: %[[ACC:.*]] = axe.alloc cta
// CHECK: %[[BUF:.*]] = axe.alloc cta
// CHECK: %[[TILE:.*]] = axe.slice {{.*}}[128, 256] [128, 256]
// CHECK-NEXT: %[[P0:.*]] = axe.slice %[[ACC]][0, 0] [128, 64] : {{.*}} to !axe.tensor<128x64xf16, reg>
// CHECK-NEXT: axe.sync cta(wgid[0:2])
// CHECK-NEXT: axe.copy cta(wgid[0:2]) %[[P0]] to %[[BUF]]
// CHECK-NEXT: %[[R0:.*]] = axe.slice %[[TILE]][0, 0] [128, 64] : !axe.tensor<128x256xf16, global> to !axe.tensor<128x64xf16, global>
// CHECK-NEXT: axe.copy_async cta(wgid[0:2]) %[[BUF]] to %[[R0]]
// CHECK-NEXT: %[[P1:.*]] = axe.slice %[[ACC]][0, 64] [128, 64]
// CHECK-NEXT: axe.sync cta(wgid[0:2])
// CHECK-NEXT: axe.copy cta(wgid[0:2]) %[[P1]] to %[[BUF]]
// CHECK-NEXT: %[[R1:.*]] = axe.slice %[[TILE]][0, 64] [128, 64]
// CHECK-NEXT: axe.copy_async cta(wgid[0:2]) %[[BUF]] to %[[R1]]
// CHECK: axe.slice %[[ACC]][0, 128] [128, 64]
// CHECK: axe.slice %[[TILE]][0, 128] [128, 64]
// CHECK: axe.slice %[[ACC]][0, 192] [128, 64]
// CHECK: axe.sync cta(wgid[0:2])
// CHECK: axe.slice %[[TILE]][0, 192] [128, 64]
// CHECK-NEXT: axe.copy_async cta(wgid[0:2]) %[[BUF]] to
// CHECK-NEXT: gpu.return
// CHECK-NOT: axe.copy_staged
// LOWERED-LABEL: gpu.func @quarters
// Per quarter: the consumers' named barrier, four stmatrix.x4, their barrier again, the store.
// LOWERED: nvvm.barrier id
// LOWERED-COUNT-4: nvvm.stmatrix
// LOWERED: nvvm.barrier id
// LOWERED: nvgpu.tma.async.store
// LOWERED: nvvm.barrier id
// LOWERED-COUNT-4: nvvm.stmatrix
// LOWERED: nvvm.barrier id
// LOWERED: nvgpu.tma.async.store
// LOWERED: nvvm.barrier id
// LOWERED-COUNT-4: nvvm.stmatrix
// LOWERED: nvvm.barrier id
// LOWERED: nvgpu.tma.async.store
// LOWERED: nvvm.barrier id
// LOWERED-COUNT-4: nvvm.stmatrix
// LOWERED: nvvm.barrier id
// LOWERED: nvgpu.tma.async.store
// LOWERED-NOT: nvgpu.tma.async.store
// LOWERED-NOT: axe.copy
module attributes {gpu.container_module} {
  gpu.module @k attributes {axe.target = "sm_90a"} {
    gpu.func @quarters(%g: memref<256x512xf16>) kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
      %acc = axe.alloc cta : !acc
      %buf = axe.alloc cta : !buf
      %gt = axe.view %g : memref<256x512xf16> -> !g
      %tile = axe.slice %gt[128, 256] [128, 256] : !g to !tile
      axe.copy_staged cta(wgid[0:2]) %acc to %tile through %buf : !acc to !tile through !buf
      gpu.return
    }
  }
}

// -----

// Pieces in row-major order over both dimensions: a 64x64 tile in one warpgroup's registers through a 32x32
// buffer.
// CHECK-LABEL: gpu.func @two_by_two
// CHECK: axe.slice %{{.*}}[0, 0] [32, 32] : {{.*}} to !axe.tensor<32x32xf16, reg>
// CHECK: axe.slice %{{.*}}[0, 0] [32, 32] : {{.*}} to !axe.tensor<32x32xf16, global>
// CHECK: axe.slice %{{.*}}[0, 32] [32, 32] : {{.*}} to !axe.tensor<32x32xf16, reg>
// CHECK: axe.slice %{{.*}}[32, 0] [32, 32] : {{.*}} to !axe.tensor<32x32xf16, reg>
// CHECK: axe.slice %{{.*}}[32, 32] [32, 32] : {{.*}} to !axe.tensor<32x32xf16, reg>
// CHECK: axe.slice %{{.*}}[32, 32] [32, 32] : {{.*}} to !axe.tensor<32x32xf16, global>
// CHECK-NOT: axe.slice
// LOWERED-LABEL: gpu.func @two_by_two
// LOWERED-COUNT-4: nvgpu.tma.async.store
// LOWERED-NOT: nvgpu.tma.async.store
module attributes {gpu.container_module} {
  gpu.module @k attributes {axe.target = "sm_90a"} {
    gpu.func @two_by_two(%g: memref<64x64xf16>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %acc = axe.alloc cta : !axe.tensor<64x64xf16, reg, S[(4,8,16,4,2):(1@wid_in_wg,4@laneid,4,1@laneid,1)]>
      %buf = axe.alloc cta : !axe.tensor<32x32xf16, shared, S[(32,32):(32,1)]>
      %gt = axe.view %g : memref<64x64xf16> -> !axe.tensor<64x64xf16, global, S[(64,64):(64,1)]>
      axe.copy_staged cta %acc to %gt through %buf : !axe.tensor<64x64xf16, reg, S[(4,8,16,4,2):(1@wid_in_wg,4@laneid,4,1@laneid,1)]> to !axe.tensor<64x64xf16, global, S[(64,64):(64,1)]> through !axe.tensor<32x32xf16, shared, S[(32,32):(32,1)]>
      gpu.return
    }
  }
}

// -----

// Two stages: the quarters take the buffer's halves (rows 0-127, then 128-255) in turn, and every store but the
// last leaves the newest store reading (reads_in_flight = 1); the last waits for all. Lowered, the issuing lane's
// waits are cp.async.bulk.wait_group.read 1, three times, then 0.
// CHECK-LABEL: gpu.func @two_stages
// CHECK: %[[BUF:.*]] = axe.alloc cta : !axe.tensor<256x64xf16
// CHECK: %[[S0:.*]] = axe.slice %[[BUF]][0, 0] [128, 64] : {{.*}} to !axe.tensor<128x64xf16, shared>
// CHECK: axe.copy_async cta(wgid[0:2]) %[[S0]] to %{{.*}} {reads_in_flight = 1 : i64}
// CHECK: %[[S1:.*]] = axe.slice %[[BUF]][128, 0] [128, 64] : {{.*}} to !axe.tensor<128x64xf16, shared>
// CHECK: axe.copy_async cta(wgid[0:2]) %[[S1]] to %{{.*}} {reads_in_flight = 1 : i64}
// CHECK: %[[S2:.*]] = axe.slice %[[BUF]][0, 0] [128, 64]
// CHECK: axe.copy_async cta(wgid[0:2]) %[[S2]] to %{{.*}} {reads_in_flight = 1 : i64}
// CHECK: %[[S3:.*]] = axe.slice %[[BUF]][128, 0] [128, 64]
// CHECK: axe.copy_async cta(wgid[0:2]) %[[S3]] to %{{.*}} : !axe.tensor<128x64xf16, shared>
// LOWERED-LABEL: gpu.func @two_stages
// LOWERED-COUNT-3: nvvm.cp.async.bulk.wait_group 1 {read}
// LOWERED: nvvm.cp.async.bulk.wait_group 0 {read}
// LOWERED-NOT: nvvm.cp.async.bulk.wait_group
!acc = !axe.tensor<128x256xf16, reg, S[(2,4,2,8,32,4,2):(1@wgid,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
!g = !axe.tensor<256x512xf16, global, S[(256,512):(512,1)]>
!tile = !axe.tensor<128x256xf16, global>
module attributes {gpu.container_module} {
  gpu.module @k attributes {axe.target = "sm_90a"} {
    gpu.func @two_stages(%g: memref<256x512xf16>) kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
      %acc = axe.alloc cta : !acc
      %buf = axe.alloc cta : !axe.tensor<256x64xf16, shared, Swizzle(3,3,3) o S[(256,64):(64,1)]>
      %gt = axe.view %g : memref<256x512xf16> -> !g
      %tile = axe.slice %gt[128, 256] [128, 256] : !g to !tile
      axe.copy_staged cta(wgid[0:2]) %acc to %tile through %buf stages 2 : !acc to !tile through !axe.tensor<256x64xf16, shared, Swizzle(3,3,3) o S[(256,64):(64,1)]>
      gpu.return
    }
  }
}
