//===- AxeDialect.h - the axe dialect's C++ classes ------------*- C++ -*-===//
//
// Include this to use the axe dialect from C++: register it with `registry.insert<mlir::axe::AxeDialect>()`
// (or load it with `context.loadDialect<mlir::axe::AxeDialect>()`), then build and match its ops, types and
// attributes through the generated classes (mlir::axe::SliceOp, mlir::axe::TensorType, ...). Generated from
// axe/Axe.td by mlir-tblgen-22.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_AXEDIALECT_H
#define AXE_AXEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "axe/AxeEnums.h.inc"

#include "axe/AxeDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "axe/AxeAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "axe/AxeTypes.h.inc"

#define GET_OP_CLASSES
#include "axe/AxeOps.h.inc"

#endif // AXE_AXEDIALECT_H
