//===- AxeDialect.h - Load the axe dialect into an MLIRContext ------------===//
//
// The axe dialect is defined once, in IRDL (dialect/axe.irdl.mlir); this
// library embeds that text and loads it with mlir::irdl::loadDialects, so C++
// tools see exactly the dialect the Rust tools (axe-opt) load.
//
//===----------------------------------------------------------------------===//
#ifndef AXE_AXEDIALECT_H
#define AXE_AXEDIALECT_H

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace axe {

/// Loads the axe dialect (and the IRDL dialect it needs) into `context`.
/// Idempotent; fails with diagnostics on the context if the IRDL does not load.
mlir::LogicalResult loadAxeDialect(mlir::MLIRContext &context);

/// Registers "axe" in `registry`: a context built from it loads the dialect the
/// first time the namespace is asked for (used by the mlir-opt plugin).
void registerAxeDialect(mlir::DialectRegistry &registry);

/// The embedded IRDL text of the dialect.
llvm::StringRef axeIrdlSource();

} // namespace axe

#endif // AXE_AXEDIALECT_H
