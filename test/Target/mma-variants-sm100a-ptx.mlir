// tcgen05 variants assemble for sm_100a: fp8 operands (kind::f8f6f4; e4m3 is format 0, so the idesc equals the
// f16 one, 0x08040010 for M=128, N=16, f32 D) and M=64 (the Layout F data path, idesc M >> 4 = 4 at bit 24).
// RUN: axe-opt --lower-mma --lower-to-nvvm %s | axe-translate --emit=ptx --chip=sm_100a -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_100a %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry fp8(
// CHECK: mov.b32 [[IDESC:%r[0-9]+]], 134479888;
// CHECK: tcgen05.mma.cta_group::1.kind::f8f6f4.collector::a::discard [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC]], {{%p[0-9]+}};
// CHECK-LABEL: .visible .entry m64(
// CHECK: mov.b32 [[IDESC64:%r[0-9]+]], 67371024;
// CHECK: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC64]], {{%p[0-9]+}};

!a8 = !axe.tensor<128x32xf8E4M3FN, shared, Swizzle(4,1,3) o S[(128,32):(32,1)]>
!b8 = !axe.tensor<32x16xf8E4M3FN, shared, Swizzle(4,1,3) o S[(32,16):(1,32)]>
!c128 = !axe.tensor<128x16xf32, tmem, S[(128,16):(1@TLane,1@TCol)]>
!a64 = !axe.tensor<64x16xf16, shared, Swizzle(3,1,3) o S[(64,16):(16,1)]>
!b16 = !axe.tensor<16x16xf16, shared, Swizzle(3,1,3) o S[(16,16):(1,16)]>
!c64 = !axe.tensor<64x16xf32, tmem, S[(4,16,16):(32@TLane,1@TLane,1@TCol)]>

module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_100a"} {
    gpu.func @fp8() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %a = axe.alloc cta : !a8
      %b = axe.alloc cta : !b8
      %c = axe.alloc cta : !c128
      axe.gemm cta %a, %b, %c : !a8, !b8, !c128
      gpu.return
    }
    gpu.func @m64() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %a = axe.alloc cta : !a64
      %b = axe.alloc cta : !b16
      %c = axe.alloc cta : !c64
      axe.gemm cta %a, %b, %c : !a64, !b16, !c64
      gpu.return
    }
  }
}
