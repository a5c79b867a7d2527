//===- AxePlugin.cpp - mlir-opt --load-dialect-plugin for axe -------------===//
//
// This file implements the dialect plugin: `mlir-opt-22
// --load-dialect-plugin=AxePlugin.so file.mlir` registers the axe dialect
// class (mlir::axe::AxeDialect, from dialect/cpp/axe/Axe.td) so the parser
// loads it when it meets the `axe` namespace.
//
//===----------------------------------------------------------------------===//
#include "axe/AxeDialect.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Axe", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) { registry->insert<mlir::axe::AxeDialect>(); }};
}
