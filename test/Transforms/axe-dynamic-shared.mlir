// --axe-dynamic-shared (after --lower-to-nvvm): each kernel's shared globals move into the extern dynamic window,
// at static offsets that keep every global's alignment, from the window's address rounded up to 1024 bytes; the
// kernel records the bytes to launch with. Two kernels share one global: each lays it out on its own. Largest
// first, each at the lowest offset free of the buffers it may be live with: globals whose epochs in the kernel's
// axe.shared_epochs are disjoint share bytes.
// RUN: axe-opt --axe-dynamic-shared %s | FileCheck %s

// CHECK-LABEL: gpu.module @kernels
// CHECK-NEXT: llvm.mlir.global external @__axe_dynamic_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-NOT: @__bar
// CHECK-NOT: @__tile
// CHECK-LABEL: llvm.func @two_buffers(
// CHECK-SAME: axe.dynamic_shared_bytes = 3080 : i64
// CHECK: %[[WIN:.*]] = llvm.mlir.addressof @__axe_dynamic_smem : !llvm.ptr<3>
// CHECK: %[[ADDR:.*]] = llvm.ptrtoint %[[WIN]] : !llvm.ptr<3> to i64
// CHECK: %[[NEG:.*]] = llvm.sub %{{.*}}, %[[ADDR]] : i64
// CHECK: %[[PAD:.*]] = llvm.and %[[NEG]], %{{.*}} : i64
// The tile first (the larger: 2048 bytes at 0), then the barrier at 2048: 2056 bytes and 1024 of slack.
// CHECK: %[[C2048:.*]] = llvm.mlir.constant(2048 : i64) : i64
// CHECK: %[[OFF0:.*]] = llvm.add %[[PAD]], %[[C2048]] : i64
// CHECK: %[[BAR:.*]] = llvm.getelementptr %[[WIN]][%[[OFF0]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK: %[[C0:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK: %[[OFF1:.*]] = llvm.add %[[PAD]], %[[C0]] : i64
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
  // Lifetimes: rings A and B live in epoch 0, the C tile in epoch 1, D in epochs 0-1, the barrier throughout.
  // Largest first: A at 0, B at 4096 (live with A), C over A at 0 (never live with A or B), D (live with all
  // three) after B at 8192, the barrier (no epochs: live with everything) after D at 9216.
  llvm.mlir.global private @__ring_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
  llvm.mlir.global private @__ring_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
  llvm.mlir.global private @__c_tile() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<2048 x i8>
  llvm.mlir.global private @__d() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<1024 x i8>
  llvm.mlir.global private @__bars() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<2 x i64>
  llvm.func @by_lifetime(%b: i8) attributes {gpu.kernel, nvvm.kernel, axe.shared_epochs = {__c_tile = array<i64: 1, 1>, __d = array<i64: 0, 1>, __ring_a = array<i64: 0, 0>, __ring_b = array<i64: 0, 0>}} {
    %a = llvm.mlir.addressof @__ring_a : !llvm.ptr<3>
    %r = llvm.mlir.addressof @__ring_b : !llvm.ptr<3>
    %c = llvm.mlir.addressof @__c_tile : !llvm.ptr<3>
    %d = llvm.mlir.addressof @__d : !llvm.ptr<3>
    %m = llvm.mlir.addressof @__bars : !llvm.ptr<3>
    llvm.store %b, %a : i8, !llvm.ptr<3>
    llvm.store %b, %r : i8, !llvm.ptr<3>
    llvm.store %b, %c : i8, !llvm.ptr<3>
    llvm.store %b, %d : i8, !llvm.ptr<3>
    llvm.store %b, %m : i8, !llvm.ptr<3>
    llvm.return
  }
}
// CHECK-LABEL: llvm.func @by_lifetime(
// CHECK-SAME: axe.dynamic_shared_bytes = 10256 : i64
// CHECK: %[[W:.*]] = llvm.mlir.addressof @__axe_dynamic_smem
// CHECK: %[[P:.*]] = llvm.and
// CHECK: %[[A0:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK: llvm.add %[[P]], %[[A0]]
// CHECK: %[[B0:.*]] = llvm.mlir.constant(4096 : i64) : i64
// CHECK: llvm.add %{{.*}}, %[[B0]]
// CHECK: %[[C0:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK: llvm.add %{{.*}}, %[[C0]]
// CHECK: %[[D0:.*]] = llvm.mlir.constant(8192 : i64) : i64
// CHECK: llvm.add %{{.*}}, %[[D0]]
// CHECK: %[[M0:.*]] = llvm.mlir.constant(9216 : i64) : i64
// CHECK: llvm.add %{{.*}}, %[[M0]]
