// The registrations the MLIR C API offers only as "all of them" (mlirRegisterAllDialects' extensions,
// mlirRegisterAllLLVMTranslations, mlirRegisterAllPasses), narrowed to what axe's tools use.
//
// Calling the register-all functions makes the linker keep every upstream dialect, pass and translation (and run
// their static constructors at every start). These three functions name only the pieces the axe passes, the
// `--lower-to-nvvm` pipeline and the translation to LLVM IR need, so the rest is never linked. The dialects
// themselves are registered from Rust through the C API's dialect handles (`axe_dialect::ffi`).

#include "mlir-c/IR.h"
#include "mlir/CAPI/IR.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassRegistry.h"

// Dialect extensions: the convert-to-llvm interfaces of the registered dialects, and the interface models the
// generic passes (inline, mem2reg, sroa, generate-runtime-verification) use on them.
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUCommon/GPUToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/LLVMIR/Transforms/InlinerInterfaceImpl.h"
#include "mlir/Dialect/MemRef/IR/MemRefMemorySlot.h"
#include "mlir/Dialect/MemRef/Transforms/RuntimeOpVerification.h"
#include "mlir/Interfaces/CastInterfaces.h"

// Translations to LLVM IR.
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

// Passes: the generic transforms and the conversions on the way to NVVM.
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Transforms/Passes.h"

/// Adds to `registry` the dialect extensions and external interface models of the dialects axe registers, in the
/// order `mlir::registerAllDialects` and `mlir::registerAllExtensions` add them.
extern "C" void axeRegisterDialectExtensions(MlirDialectRegistry registry) {
  mlir::DialectRegistry &r = *unwrap(registry);
  // From registerAllDialects.
  mlir::builtin::registerCastOpInterfaceExternalModels(r);
  mlir::LLVM::registerInlinerInterface(r);
  mlir::NVVM::registerInlinerInterface(r);
  mlir::memref::registerRuntimeVerifiableOpInterfaceExternalModels(r);
  mlir::memref::registerMemorySlotExternalModels(r);
  // From registerAllExtensions.
  mlir::arith::registerConvertArithToLLVMInterface(r);
  mlir::cf::registerConvertControlFlowToLLVMInterface(r);
  mlir::func::registerInlinerExtension(r);
  mlir::registerConvertFuncToLLVMInterface(r);
  mlir::index::registerConvertIndexToLLVMInterface(r);
  mlir::registerConvertMathToLLVMInterface(r);
  mlir::registerConvertMemRefToLLVMInterface(r);
  mlir::registerConvertNVVMToLLVMInterface(r);
  mlir::ub::registerConvertUBToLLVMInterface(r);
  mlir::gpu::registerConvertGpuToLLVMInterface(r);
  mlir::NVVM::registerConvertGpuToNVVMInterface(r);
  mlir::vector::registerConvertVectorToLLVMInterface(r);
}

/// Makes the builtin, llvm, nvvm and gpu dialects translatable to LLVM IR in `context` (what
/// `mlirRegisterAllLLVMTranslations` does for every dialect).
extern "C" void axeRegisterLLVMTranslations(MlirContext context) {
  mlir::DialectRegistry registry;
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerGPUDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);
  mlir::gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
  unwrap(context)->appendDialectRegistry(registry);
}

/// Registers, process-wide, the upstream passes textual pipelines and `axe-opt --<pass>` may name: every generic
/// transform (canonicalize, cse, inline, symbol-dce, ...) and the conversions from the registered dialects to
/// LLVM and NVVM. Call once.
extern "C" void axeRegisterPasses(void) {
  mlir::registerTransformsPasses();
  mlir::registerPass([] { return mlir::createArithToLLVMConversionPass(); });
  mlir::registerPass([] { return mlir::createConvertControlFlowToLLVMPass(); });
  mlir::registerPass([] { return mlir::createConvertFuncToLLVMPass(); });
  mlir::registerPass([] { return mlir::createConvertGpuOpsToNVVMOps(); });
  mlir::registerPass([] { return mlir::createConvertIndexToLLVMPass(); });
  mlir::registerPass([] { return mlir::createConvertMathToLLVMPass(); });
  mlir::registerPass([] { return mlir::createConvertNVGPUToNVVMPass(); });
  mlir::registerPass([] { return mlir::createConvertNVVMToLLVMPass(); });
  mlir::registerPass([] { return mlir::createConvertToLLVMPass(); });
  mlir::registerPass([] { return mlir::createConvertVectorToLLVMPass(); });
  mlir::registerPass([] { return mlir::createFinalizeMemRefToLLVMConversionPass(); });
  mlir::registerPass([] { return mlir::createLowerAffinePass(); });
  mlir::registerPass([] { return mlir::createReconcileUnrealizedCastsPass(); });
  mlir::registerPass([] { return mlir::createSCFToControlFlowPass(); });
  mlir::registerPass([] { return mlir::createUBToLLVMConversionPass(); });
}
