// tcgen05 .kind::tf32 assembles for sm_100a (issue 21, item 3): K = 8, 32B-swizzled K-major operands (rows of 8
// tf32 = 32 bytes); the instruction descriptor by hand (PTX ISA Table 42): f32 D (1 << 4), tf32 A and B (2 << 7,
// 2 << 10), N >> 3 = 2 at bit 17, M >> 4 = 8 at bit 24: 134482192.
// RUN: axe-opt --lower-mma --lower-to-nvvm %s | axe-translate --emit=ptx --chip=sm_100a -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_100a %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry tf32(
// CHECK: mov.b32 [[IDESC:%r[0-9]+]], 134482192;
// CHECK: tcgen05.mma.cta_group::1.kind::tf32.collector::a::discard [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC]], {{%p[0-9]+}};

!a = !axe.tensor<128x8xtf32, shared, Swizzle(2,1,3) o S[(128,8):(8,1)]>
!b = !axe.tensor<8x16xtf32, shared, Swizzle(2,1,3) o S[(8,16):(1,8)]>
!c = !axe.tensor<128x16xf32, tmem, S[(128,16):(1@TLane,1@TCol)]>

module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_100a"} {
    gpu.func @tf32() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %a = axe.alloc cta : !a
      %b = axe.alloc cta : !b
      %c = axe.alloc cta : !c
      axe.gemm cta %a, %b, %c : !a, !b, !c
      gpu.return
    }
  }
}
