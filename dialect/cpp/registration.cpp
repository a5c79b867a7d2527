// The registrations the MLIR C API offers only as "all of them" (mlirRegisterAllDialects' extensions,
// mlirRegisterAllLLVMTranslations, mlirRegisterAllPasses), narrowed to what axe's tools use.
//
// Calling the register-all functions makes the linker keep every upstream dialect, pass and translation (and run
// their static constructors at every start). The functions here name only the extensions and translations of the
// registered dialects and the upstream passes over them (a table, registered by name on demand), so the rest is
// never linked. The dialects themselves are registered from Rust through the C API's dialect handles
// (`axe_dialect::ffi`). The pass-manager helpers at the end do what mlir-opt's driver does and the C API does not
// offer: add a pass by name with implicit nesting, and replace a pass manager by an anchored pipeline.

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <cstring>
#include <mutex>
#include <string>

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

// Passes: every upstream pass over the registered dialects (the generic transforms, the dialects' own transforms,
// the conversions between them and to LLVM and NVVM), and the GPU-to-NVVM pipeline. Each header defines the
// passes' `register<Name>()` functions (GEN_PASS_REGISTRATION); naming one links that pass alone.
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithAndMathToAPFloat/ArithToAPFloat.h"
#include "mlir/Conversion/ArithAndMathToAPFloat/MathToAPFloat.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/ControlFlowToSCF/ControlFlowToSCF.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToFuncs/MathToFuncs.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToGPU/VectorToGPU.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
// The conversions' `register<Name>()` functions, one by one (`mlir/Conversion/Passes.h` would include every
// conversion's header, of every dialect).
namespace mlir {
#define GEN_PASS_REGISTRATION_ARITHTOAPFLOATCONVERSIONPASS
#define GEN_PASS_REGISTRATION_ARITHTOLLVMCONVERSIONPASS
#define GEN_PASS_REGISTRATION_CONVERTAFFINEFORTOGPUPASS
#define GEN_PASS_REGISTRATION_CONVERTCONTROLFLOWTOLLVMPASS
#define GEN_PASS_REGISTRATION_CONVERTFUNCTOLLVMPASS
#define GEN_PASS_REGISTRATION_CONVERTGPUOPSTONVVMOPS
#define GEN_PASS_REGISTRATION_CONVERTINDEXTOLLVMPASS
#define GEN_PASS_REGISTRATION_CONVERTMATHTOFUNCS
#define GEN_PASS_REGISTRATION_CONVERTMATHTOLLVMPASS
#define GEN_PASS_REGISTRATION_CONVERTMATHTOLIBMPASS
#define GEN_PASS_REGISTRATION_CONVERTNVGPUTONVVMPASS
#define GEN_PASS_REGISTRATION_CONVERTNVVMTOLLVMPASS
#define GEN_PASS_REGISTRATION_CONVERTPARALLELLOOPTOGPUPASS
#define GEN_PASS_REGISTRATION_CONVERTTOLLVMPASS
#define GEN_PASS_REGISTRATION_CONVERTVECTORTOGPU
#define GEN_PASS_REGISTRATION_CONVERTVECTORTOLLVMPASS
#define GEN_PASS_REGISTRATION_CONVERTVECTORTOSCF
#define GEN_PASS_REGISTRATION_FINALIZEMEMREFTOLLVMCONVERSIONPASS
#define GEN_PASS_REGISTRATION_GPUTOLLVMCONVERSIONPASS
#define GEN_PASS_REGISTRATION_LIFTCONTROLFLOWTOSCFPASS
#define GEN_PASS_REGISTRATION_LOWERAFFINEPASS
#define GEN_PASS_REGISTRATION_MATHTOAPFLOATCONVERSIONPASS
#define GEN_PASS_REGISTRATION_RECONCILEUNREALIZEDCASTSPASS
#define GEN_PASS_REGISTRATION_SCFTOCONTROLFLOWPASS
#define GEN_PASS_REGISTRATION_SETLLVMMODULEDATALAYOUTPASS
#define GEN_PASS_REGISTRATION_UBTOLLVMCONVERSIONPASS
#include "mlir/Conversion/Passes.h.inc"
} // namespace mlir
#include "mlir/Dialect/Affine/Transforms/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/NVGPU/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
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


namespace {

/// One upstream pass or pipeline: its command-line name and the function that registers it.
struct UpstreamPass {
  const char *name;
  void (*registerPass)();
};

/// Every upstream pass and pipeline axe-opt can name, sorted by name. Passes of dialects that are not linked in
/// (tensor, linalg, spirv, rocdl, ...) are left out, and so are llvm-target-to-data-layout and
/// llvm-target-to-target-features, which initialize every LLVM target (linking them all took axe-opt from 42 to
/// 146 MB and 77 to 651 static constructors); `docs/opt.md` lists what is left out and why.
const UpstreamPass kUpstreamPasses[] = {
    {"affine-data-copy-generate", mlir::affine::registerAffineDataCopyGeneration},
    {"affine-expand-index-ops", mlir::affine::registerAffineExpandIndexOps},
    {"affine-expand-index-ops-as-affine", mlir::affine::registerAffineExpandIndexOpsAsAffine},
    {"affine-fold-memref-alias-ops", mlir::affine::registerAffineFoldMemRefAliasOps},
    {"affine-loop-coalescing", mlir::affine::registerLoopCoalescing},
    {"affine-loop-fusion", mlir::affine::registerAffineLoopFusion},
    {"affine-loop-invariant-code-motion", mlir::affine::registerAffineLoopInvariantCodeMotion},
    {"affine-loop-normalize", mlir::affine::registerAffineLoopNormalize},
    {"affine-loop-tile", mlir::affine::registerAffineLoopTiling},
    {"affine-loop-unroll", mlir::affine::registerAffineLoopUnroll},
    {"affine-loop-unroll-jam", mlir::affine::registerAffineLoopUnrollAndJam},
    {"affine-parallelize", mlir::affine::registerAffineParallelize},
    {"affine-pipeline-data-transfer", mlir::affine::registerAffinePipelineDataTransfer},
    {"affine-raise-from-memref", mlir::affine::registerRaiseMemrefDialect},
    {"affine-scalrep", mlir::affine::registerAffineScalarReplacement},
    {"affine-simplify-min-max", mlir::affine::registerSimplifyAffineMinMaxPass},
    {"affine-simplify-structures", mlir::affine::registerSimplifyAffineStructures},
    {"affine-super-vectorize", mlir::affine::registerAffineVectorize},
    {"arith-emulate-unsupported-floats", mlir::arith::registerArithEmulateUnsupportedFloats},
    {"arith-emulate-wide-int", mlir::arith::registerArithEmulateWideInt},
    {"arith-expand", mlir::arith::registerArithExpandOpsPass},
    {"arith-int-range-narrowing", mlir::arith::registerArithIntRangeNarrowing},
    {"arith-unsigned-when-equivalent", mlir::arith::registerArithUnsignedWhenEquivalentPass},
    {"bubble-down-memory-space-casts", mlir::registerBubbleDownMemorySpaceCasts},
    {"canonicalize", mlir::registerCanonicalizer},
    {"composite-fixed-point-pass", mlir::registerCompositeFixedPointPass},
    {"control-flow-sink", mlir::registerControlFlowSink},
    {"convert-affine-for-to-gpu", mlir::registerConvertAffineForToGPUPass},
    {"convert-arith-to-apfloat", mlir::registerArithToAPFloatConversionPass},
    {"convert-arith-to-llvm", mlir::registerArithToLLVMConversionPass},
    {"convert-cf-to-llvm", mlir::registerConvertControlFlowToLLVMPass},
    {"convert-func-to-llvm", mlir::registerConvertFuncToLLVMPass},
    {"convert-gpu-to-nvvm", mlir::registerConvertGpuOpsToNVVMOps},
    {"convert-index-to-llvm", mlir::registerConvertIndexToLLVMPass},
    {"convert-math-to-apfloat", mlir::registerMathToAPFloatConversionPass},
    {"convert-math-to-funcs", mlir::registerConvertMathToFuncs},
    {"convert-math-to-libm", mlir::registerConvertMathToLibmPass},
    {"convert-math-to-llvm", mlir::registerConvertMathToLLVMPass},
    {"convert-nvgpu-to-nvvm", mlir::registerConvertNVGPUToNVVMPass},
    {"convert-nvvm-to-llvm", mlir::registerConvertNVVMToLLVMPass},
    {"convert-parallel-loops-to-gpu", mlir::registerConvertParallelLoopToGpuPass},
    {"convert-scf-to-cf", mlir::registerSCFToControlFlowPass},
    {"convert-to-llvm", mlir::registerConvertToLLVMPass},
    {"convert-ub-to-llvm", mlir::registerUBToLLVMConversionPass},
    {"convert-vector-to-gpu", mlir::registerConvertVectorToGPU},
    {"convert-vector-to-llvm", mlir::registerConvertVectorToLLVMPass},
    {"convert-vector-to-scf", mlir::registerConvertVectorToSCF},
    {"cse", mlir::registerCSE},
    {"duplicate-function-elimination", mlir::func::registerDuplicateFunctionEliminationPass},
    {"ensure-debug-info-scope-on-llvm-func", mlir::LLVM::registerDIScopeForLLVMFuncOpPass},
    {"expand-realloc", mlir::memref::registerExpandReallocPass},
    {"expand-strided-metadata", mlir::memref::registerExpandStridedMetadataPass},
    {"finalize-memref-to-llvm", mlir::registerFinalizeMemRefToLLVMConversionPass},
    {"flatten-memref", mlir::memref::registerFlattenMemrefsPass},
    {"fold-memref-alias-ops", mlir::memref::registerFoldMemRefAliasOpsPass},
    {"generate-runtime-verification", mlir::registerGenerateRuntimeVerification},
    {"gpu-decompose-memrefs", mlir::registerGpuDecomposeMemrefsPass},
    {"gpu-eliminate-barriers", mlir::registerGpuEliminateBarriers},
    {"gpu-kernel-outlining", mlir::registerGpuKernelOutliningPass},
    {"gpu-launch-sink-index-computations", mlir::registerGpuLaunchSinkIndexComputationsPass},
    {"gpu-lower-to-nvvm-pipeline", mlir::gpu::registerGPUToNVVMPipeline},
    {"gpu-map-parallel-loops", mlir::registerGpuMapParallelLoopsPass},
    {"gpu-module-to-binary", mlir::registerGpuModuleToBinaryPass},
    {"gpu-to-llvm", mlir::registerGpuToLLVMConversionPass},
    {"inline", mlir::registerInliner},
    {"int-range-optimizations", mlir::arith::registerArithIntRangeOpts},
    {"lift-cf-to-scf", mlir::registerLiftControlFlowToSCFPass},
    {"llvm-add-comdats", mlir::LLVM::registerLLVMAddComdats},
    {"llvm-legalize-for-export", mlir::LLVM::registerLLVMLegalizeForExportPass},
    {"llvm-optimize-for-nvvm-target", mlir::LLVM::registerNVVMOptimizeForTargetPass},
    {"llvm-request-c-wrappers", mlir::LLVM::registerLLVMRequestCWrappersPass},
    {"llvm-use-default-visibility", mlir::LLVM::registerLLVMUseDefaultVisibilityPass},
    {"loop-invariant-code-motion", mlir::registerLoopInvariantCodeMotion},
    {"loop-invariant-subset-hoisting", mlir::registerLoopInvariantSubsetHoisting},
    {"lower-affine", mlir::registerLowerAffinePass},
    {"lower-vector-mask", mlir::vector::registerLowerVectorMaskPass},
    {"lower-vector-multi-reduction", mlir::vector::registerLowerVectorMultiReduction},
    {"lower-vector-to-from-elements-to-shuffle-tree", mlir::vector::registerLowerVectorToFromElementsToShuffleTree},
    {"math-expand-ops", mlir::math::registerMathExpandOpsPass},
    {"math-extend-to-supported-types", mlir::math::registerMathExtendToSupportedTypes},
    {"math-sincos-fusion", mlir::math::registerMathSincosFusionPass},
    {"math-uplift-to-fma", mlir::math::registerMathUpliftToFMA},
    {"mem2reg", mlir::registerMem2Reg},
    {"memref-emulate-wide-int", mlir::memref::registerMemRefEmulateWideInt},
    {"memref-expand", mlir::memref::registerExpandOpsPass},
    {"normalize-memrefs", mlir::memref::registerNormalizeMemRefsPass},
    {"nvgpu-optimize-shared-memory", mlir::registerOptimizeSharedMemory},
    {"nvvm-attach-target", mlir::registerGpuNVVMAttachTarget},
    {"print-ir", mlir::registerPrintIRPass},
    {"print-op-stats", mlir::registerPrintOpStats},
    {"reconcile-unrealized-casts", mlir::registerReconcileUnrealizedCastsPass},
    {"remove-dead-values", mlir::registerRemoveDeadValues},
    {"sccp", mlir::registerSCCP},
    {"scf-for-loop-peeling", mlir::registerSCFForLoopPeeling},
    {"scf-for-loop-range-folding", mlir::registerSCFForLoopRangeFolding},
    {"scf-for-loop-specialization", mlir::registerSCFForLoopSpecialization},
    {"scf-for-to-while", mlir::registerSCFForToWhileLoop},
    {"scf-forall-to-for", mlir::registerSCFForallToForLoop},
    {"scf-forall-to-parallel", mlir::registerSCFForallToParallelLoop},
    {"scf-parallel-for-to-nested-fors", mlir::registerSCFParallelForToNestedFors},
    {"scf-parallel-loop-fusion", mlir::registerSCFParallelLoopFusion},
    {"scf-parallel-loop-specialization", mlir::registerSCFParallelLoopSpecialization},
    {"scf-parallel-loop-tiling", mlir::registerSCFParallelLoopTiling},
    {"set-llvm-module-datalayout", mlir::registerSetLLVMModuleDataLayoutPass},
    {"snapshot-op-locations", mlir::registerLocationSnapshot},
    {"sroa", mlir::registerSROA},
    {"strip-debuginfo", mlir::registerStripDebugInfo},
    {"symbol-dce", mlir::registerSymbolDCE},
    {"symbol-privatize", mlir::registerSymbolPrivatize},
    {"test-scf-parallel-loop-collapsing", mlir::registerTestSCFParallelLoopCollapsing},
    {"topological-sort", mlir::registerTopologicalSort},
    {"view-op-graph", mlir::registerViewOpGraph},
};

constexpr size_t kUpstreamPassCount = sizeof(kUpstreamPasses) / sizeof(kUpstreamPasses[0]);

/// Which entries of `kUpstreamPasses` are registered already (MLIR refuses a second registration of a name).
bool registered[kUpstreamPassCount];
std::mutex registrationMutex;

/// Registers the entry named `name`, if there is one and it is not registered yet.
void registerNamed(llvm::StringRef name) {
  for (size_t i = 0; i < kUpstreamPassCount; ++i) {
    if (name == kUpstreamPasses[i].name) {
      if (!registered[i]) {
        registered[i] = true;
        kUpstreamPasses[i].registerPass();
      }
      // The inliner's default pipeline for callables (its `default-pipeline` option) is `canonicalize`.
      if (name == "inline")
        registerNamed("canonicalize");
      return;
    }
  }
}

bool isNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
         c == '.';
}

/// Sends `message` to a C API string callback.
void emit(MlirStringCallback callback, void *userData, llvm::StringRef message) {
  callback(wrap(message), userData);
}

} // namespace

/// Registers, process-wide, the upstream passes and pipelines whose names occur as words in `text` (a pass name,
/// or pipeline text, whose option values may name passes too). Registering a pass constructs it once to read its
/// name, so passes are registered only when a command line or pipeline names them.
extern "C" void axeRegisterUpstreamPassesNamedIn(MlirStringRef text) {
  llvm::StringRef rest = unwrap(text);
  std::lock_guard<std::mutex> lock(registrationMutex);
  while (!rest.empty()) {
    size_t start = 0;
    while (start < rest.size() && !isNameChar(rest[start]))
      ++start;
    size_t end = start;
    while (end < rest.size() && isNameChar(rest[end]))
      ++end;
    if (end > start)
      registerNamed(rest.slice(start, end));
    rest = rest.drop_front(end);
  }
}

/// Registers every upstream pass and pipeline of the table (for `--help` and `--list-passes`).
extern "C" void axeRegisterAllUpstreamPasses(void) {
  std::lock_guard<std::mutex> lock(registrationMutex);
  for (size_t i = 0; i < kUpstreamPassCount; ++i) {
    if (!registered[i]) {
      registered[i] = true;
      kUpstreamPasses[i].registerPass();
    }
  }
}

/// The number of entries of the upstream pass table, and the name of entry `index` (for tests and listings).
extern "C" size_t axeUpstreamPassCount(void) { return kUpstreamPassCount; }
extern "C" MlirStringRef axeUpstreamPassName(size_t index) {
  return index < kUpstreamPassCount ? wrap(llvm::StringRef(kUpstreamPasses[index].name)) : wrap(llvm::StringRef());
}

/// Registers a pass written outside C++ (an external pass built by `create(index)`) under the name it reports, so
/// textual pipelines and `axeAddPassByName` find it like an upstream pass.
extern "C" void axeRegisterExternalPass(size_t index, MlirPass (*create)(size_t)) {
  mlir::registerPass([index, create]() { return std::unique_ptr<mlir::Pass>(unwrap(create(index))); });
}

/// Registers `name` as a pass pipeline that appends the textual pipeline `elements` (an alias, e.g. axe-opt's
/// `--lower-to-nvvm`).
extern "C" void axeRegisterPipelineAlias(MlirStringRef name, MlirStringRef summary, MlirStringRef elements) {
  std::string text = unwrap(elements).str();
  mlir::PassPipelineRegistration<>(unwrap(name), unwrap(summary), [text](mlir::OpPassManager &pm) {
    // The upstream passes the alias names are registered when it is used; the text is a constant the tests
    // parse, so a failure here (which would leave the pipeline empty) is ruled out by them.
    axeRegisterUpstreamPassesNamedIn(wrap(llvm::StringRef(text)));
    (void)mlir::parsePassPipeline(text, pm);
  });
}

/// Adds the registered pass or pipeline `name`, configured by `options` (the text of `--name=options`), to `pm` the
/// way mlir-opt adds a pass given as a flag: a pass anchored on another op than `pm`'s is nested implicitly under
/// that op (`--convert-gpu-to-nvvm` runs on each `gpu.module`). Errors go to `callback` with MLIR's wording.
extern "C" MlirLogicalResult axeAddPassByName(MlirOpPassManager pm, MlirStringRef name, MlirStringRef options,
                                              MlirStringCallback callback, void *userData) {
  const mlir::PassRegistryEntry *entry = mlir::PassPipelineInfo::lookup(unwrap(name));
  if (!entry)
    entry = mlir::PassInfo::lookup(unwrap(name));
  if (!entry) {
    emit(callback, userData, "'" + unwrap(name).str() + "' does not refer to a registered pass or pass pipeline");
    return mlirLogicalResultFailure();
  }
  mlir::OpPassManager &manager = *unwrap(pm);
  mlir::OpPassManager::Nesting nesting = manager.getNesting();
  manager.setNesting(mlir::OpPassManager::Nesting::Implicit);
  auto errorHandler = [&](const llvm::Twine &message) {
    emit(callback, userData, message.str());
    return mlir::failure();
  };
  mlir::LogicalResult result = entry->addToPipeline(manager, unwrap(options), errorHandler);
  manager.setNesting(nesting);
  return wrap(result);
}

/// Replaces the passes of `pm` with the anchored pipeline `text` (`builtin.module(cse)`, `func.func(cse)`), as
/// mlir-opt's `--pass-pipeline` does: the pass manager takes the pipeline's anchor, so a pipeline anchored on
/// another op than the input's fails when run ("can't run 'func.func' pass manager on 'builtin.module' op").
extern "C" MlirLogicalResult axeSetAnchoredPipeline(MlirPassManager pm, MlirStringRef text, MlirStringCallback callback,
                                                    void *userData) {
  std::string message;
  llvm::raw_string_ostream stream(message);
  llvm::FailureOr<mlir::OpPassManager> parsed = mlir::parsePassPipeline(unwrap(text), stream);
  if (mlir::failed(parsed)) {
    emit(callback, userData, message);
    return mlirLogicalResultFailure();
  }
  mlir::OpPassManager &manager = *unwrap(pm);
  manager = std::move(*parsed);
  return mlirLogicalResultSuccess();
}

// Parsing as mlir-opt parses its input.
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

/// Parses `source` (named `name` in locations) as mlir-opt parses its input: one `builtin.module` is returned as
/// is, anything else is wrapped in an implicit module located at `name`:0:0. The text is parsed once, so resource
/// keys (`dense_resource<blob1>`) keep their names; the C API offers only a single-op parse (a second parse of the
/// same text in one context renamed the resources it had already declared: `blob1` -> `blob1_1`). Returns null
/// after emitting diagnostics through the context's handlers; the parser verifies the result.
extern "C" MlirOperation axeParseSourceForTool(MlirContext context, MlirStringRef source, MlirStringRef name) {
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(unwrap(source), unwrap(name), /*RequiresNullTerminator=*/false), llvm::SMLoc());
  mlir::ParserConfig config(unwrap(context));
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, config);
  return wrap(module ? module.release().getOperation() : nullptr);
}
