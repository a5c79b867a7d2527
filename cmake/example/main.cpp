//===- main.cpp - Parse axe IR from C++ with the axe dialect registered ---===//
//
// A consumer of find_package(Axe): registers mlir::axe::AxeDialect next to the
// upstream dialects axe IR uses, parses the file named on the command line
// (the parser runs the ops' verifiers) and prints the module back.
//
//===----------------------------------------------------------------------===//
#include "axe/AxeDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: axe-embed-example FILE.mlir\n";
    return 2;
  }
  mlir::DialectRegistry registry;
  registry.insert<mlir::axe::AxeDialect, mlir::arith::ArithDialect, mlir::func::FuncDialect,
                  mlir::gpu::GPUDialect, mlir::LLVM::LLVMDialect, mlir::memref::MemRefDialect,
                  mlir::scf::SCFDialect>();
  mlir::MLIRContext context(registry);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file = llvm::MemoryBuffer::getFileOrSTDIN(argv[1]);
  if (std::error_code error = file.getError()) {
    llvm::errs() << "axe-embed-example: cannot read " << argv[1] << ": " << error.message() << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
  // Diagnostics as `file:line:col: error: ...` with the source line, like mlir-opt's.
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  // The generated classes are usable as in any ODS dialect: count the ops of the axe dialect.
  unsigned axeOps = 0;
  module->walk([&](mlir::Operation *op) {
    if (llvm::isa<mlir::axe::AxeDialect>(op->getDialect()))
      ++axeOps;
  });
  module->print(llvm::outs());
  llvm::outs() << "\n// axe ops: " << axeOps << "\n";
  return 0;
}
