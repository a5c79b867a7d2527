llvm.mlir.global internal @g() : i32 {
  %0 = nvvm.read.ptx.sreg.tid.x : i32
  llvm.return %0 : i32
}
