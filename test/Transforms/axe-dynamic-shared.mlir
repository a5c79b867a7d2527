// --axe-dynamic-shared (after --lower-to-nvvm): each kernel's shared globals move into the extern dynamic window,
// at static offsets that keep every global's alignment, from the window's address rounded up to 1024 bytes; the
// kernel records the bytes to launch with. Two kernels share one global: each lays it out on its own.
// RUN: axe-opt --axe-dynamic-shared %s | FileCheck %s

// CHECK-LABEL: gpu.module @kernels
// CHECK-NEXT: llvm.mlir.global external @__axe_dynamic_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-NOT: @__bar
// CHECK-NOT: @__tile
// CHECK-LABEL: llvm.func @two_buffers(
// CHECK-SAME: axe.dynamic_shared_bytes = 4096 : i64
// CHECK: %[[WIN:.*]] = llvm.mlir.addressof @__axe_dynamic_smem : !llvm.ptr<3>
// CHECK: %[[ADDR:.*]] = llvm.ptrtoint %[[WIN]] : !llvm.ptr<3> to i64
// CHECK: %[[NEG:.*]] = llvm.sub %{{.*}}, %[[ADDR]] : i64
// CHECK: %[[PAD:.*]] = llvm.and %[[NEG]], %{{.*}} : i64
// The barrier first (8 bytes at 0), then the 1024-aligned tile at 1024.
// CHECK: %[[OFF0:.*]] = llvm.add %[[PAD]], %{{.*}} : i64
// CHECK: %[[BAR:.*]] = llvm.getelementptr %[[WIN]][%[[OFF0]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK: %[[C1024:.*]] = llvm.mlir.constant(1024 : i64) : i64
// CHECK: %[[OFF1:.*]] = llvm.add %[[PAD]], %[[C1024]] : i64
// CHECK: %[[TILE:.*]] = llvm.getelementptr %[[WIN]][%[[OFF1]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK: llvm.store %{{.*}}, %[[BAR]]
// CHECK: llvm.store %{{.*}}, %[[TILE]]
// CHECK-LABEL: llvm.func @tile_only(
// CHECK-SAME: axe.dynamic_shared_bytes = 3072 : i64
// CHECK: llvm.mlir.constant(0 : i64) : i64

gpu.module @kernels {
  llvm.mlir.global private @__bar() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<1 x i64>
  llvm.mlir.global private @__tile() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<2048 x i8>
  llvm.func @two_buffers(%v: i64, %b: i8) attributes {gpu.kernel, nvvm.kernel} {
    %0 = llvm.mlir.addressof @__bar : !llvm.ptr<3>
    %1 = llvm.mlir.addressof @__tile : !llvm.ptr<3>
    llvm.store %v, %0 : i64, !llvm.ptr<3>
    llvm.store %b, %1 : i8, !llvm.ptr<3>
    llvm.return
  }
  llvm.func @tile_only(%b: i8) attributes {gpu.kernel, nvvm.kernel} {
    %1 = llvm.mlir.addressof @__tile : !llvm.ptr<3>
    llvm.store %b, %1 : i8, !llvm.ptr<3>
    llvm.return
  }
}
