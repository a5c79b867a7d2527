// --axe-hoist-allocas: fixed-size llvm.alloca ops after a block split (guarded entry code) move to the top of the
// entry block, in IR order, each with its own copy of its size constant; a run-time-sized alloca stays.
// RUN: axe-opt --axe-hoist-allocas %s | FileCheck %s

// CHECK-LABEL: llvm.func @split(
// CHECK-NEXT: %[[N1:.*]] = llvm.mlir.constant(128 : i64) : i64
// CHECK-NEXT: %[[A:.*]] = llvm.alloca %[[N1]] x f32 : (i64) -> !llvm.ptr
// CHECK-NEXT: %[[N2:.*]] = llvm.mlir.constant(64 : i64) : i64
// CHECK-NEXT: %[[B:.*]] = llvm.alloca %[[N2]] x f16 : (i64) -> !llvm.ptr
// CHECK-NEXT: llvm.mlir.constant(128 : i64)
// CHECK: llvm.cond_br
// CHECK: ^bb1:
// CHECK: ^bb2:
// CHECK-NEXT: %{{.*}} = llvm.alloca %arg1 x f32 : (i64) -> !llvm.ptr
// CHECK: llvm.store %{{.*}}, %[[A]]
// CHECK: llvm.store %{{.*}}, %[[B]]
llvm.func @split(%c: i1, %n: i64, %v: f32, %h: f16) {
  %c128 = llvm.mlir.constant(128 : i64) : i64
  llvm.cond_br %c, ^bb1, ^bb2
^bb1:
  llvm.br ^bb2
^bb2:
  %a = llvm.alloca %c128 x f32 : (i64) -> !llvm.ptr
  %dyn = llvm.alloca %n x f32 : (i64) -> !llvm.ptr
  %c64 = llvm.mlir.constant(64 : i64) : i64
  %b = llvm.alloca %c64 x f16 : (i64) -> !llvm.ptr
  llvm.store %v, %a : f32, !llvm.ptr
  llvm.store %h, %b : f16, !llvm.ptr
  llvm.store %v, %dyn : f32, !llvm.ptr
  llvm.return
}
