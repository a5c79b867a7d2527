//===- AxeDialect.cpp - Load the axe dialect from its IRDL text -----------===//
//
// This file implements axe::loadAxeDialect: parse the embedded IRDL module
// and register the dialects it defines with mlir::irdl::loadDialects.
//
//===----------------------------------------------------------------------===//
#include "axe/AxeDialect.h"

#include "mlir/Dialect/IRDL/IR/IRDL.h"
#include "mlir/Dialect/IRDL/IRDLLoading.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/TypeID.h"

#include "AxeIrdl.inc"

llvm::StringRef axe::axeIrdlSource() { return kAxeIrdl; }

mlir::LogicalResult axe::loadAxeDialect(mlir::MLIRContext &context) {
  if (context.getLoadedDialect("axe"))
    return mlir::success();
  context.getOrLoadDialect<mlir::irdl::IRDLDialect>();
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(
      axeIrdlSource(), mlir::ParserConfig(&context), "axe.irdl.mlir");
  if (!module)
    return mlir::failure();
  return mlir::irdl::loadDialects(*module);
}

void axe::registerAxeDialect(mlir::DialectRegistry &registry) {
  // IRDL dialects are created by loading IRDL into a live context, so the
  // registry entry for "axe" is an allocator that does exactly that when the
  // parser (or anyone) first asks the context for the "axe" namespace.
  static mlir::SelfOwningTypeID registryId;
  registry.insert(registryId.getTypeID(), "axe", [](mlir::MLIRContext *context) -> mlir::Dialect * {
    if (mlir::failed(axe::loadAxeDialect(*context)))
      return nullptr;
    return context->getLoadedDialect("axe");
  });
}
