// --axe-dynamic-shared refuses, at the op, a shared global whose address is taken outside a kernel (it has no
// kernel whose dynamic window could hold it).
// RUN: axe-opt --axe-dynamic-shared %s --verify-diagnostics -o /dev/null

gpu.module @helpers {
  llvm.mlir.global private @__tile() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<2048 x i8>
  llvm.func @not_a_kernel(%b: i8) {
    // expected-error @+1 {{dynamic-shared: the address of shared global @__tile is taken outside a kernel}}
    %1 = llvm.mlir.addressof @__tile : !llvm.ptr<3>
    llvm.store %b, %1 : i8, !llvm.ptr<3>
    llvm.return
  }
}
