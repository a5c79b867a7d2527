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

!a8 = !axe.tensor<array<i64: 128, 32>, f8E4M3FN, #axe.layout<"Swizzle(4,1,3) o S[(128,32):(32,1)]">, #axe.mem<"shared">>
!b8 = !axe.tensor<array<i64: 32, 16>, f8E4M3FN, #axe.layout<"Swizzle(4,1,3) o S[(32,16):(1,32)]">, #axe.mem<"shared">>
!c128 = !axe.tensor<array<i64: 128, 16>, f32, #axe.layout<"S[(128,16):(1@TLane,1@TCol)]">, #axe.mem<"tmem">>
!a64 = !axe.tensor<array<i64: 64, 16>, f16, #axe.layout<"Swizzle(3,1,3) o S[(64,16):(16,1)]">, #axe.mem<"shared">>
!b16 = !axe.tensor<array<i64: 16, 16>, f16, #axe.layout<"Swizzle(3,1,3) o S[(16,16):(1,16)]">, #axe.mem<"shared">>
!c64 = !axe.tensor<array<i64: 64, 16>, f32, #axe.layout<"S[(4,16,16):(32@TLane,1@TLane,1@TCol)]">, #axe.mem<"tmem">>

module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_100a"} {
    gpu.func @fp8() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %a = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !a8
      %b = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !b8
      %c = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !c128
      "axe.gemm"(%a, %b, %c) {scope = #axe.exec<"cta">} : (!a8, !b8, !c128) -> ()
      gpu.return
    }
    gpu.func @m64() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %a = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !a64
      %b = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !b16
      %c = "axe.alloc"() {scope = #axe.exec<"cta">} : () -> !c64
      "axe.gemm"(%a, %b, %c) {scope = #axe.exec<"cta">} : (!a64, !b16, !c64) -> ()
      gpu.return
    }
  }
}
