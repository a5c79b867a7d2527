//! Setting up melior: the one function that builds a `Context`.

use crate::{
    diagnostics::{Diagnostic, DiagnosticSink},
    ffi,
};
use anyhow::Result;
use melior::{dialect::DialectRegistry, Context};

/// A melior context with everything axe needs, plus the diagnostics it emitted.
///
/// **Invariant:** every `Context` in the workspace comes from
/// [`create_context`], so every tool and test sees the same dialects, passes,
/// translations and diagnostic handling.
#[derive(Debug)]
pub struct AxeContext {
    context: Context,
    diagnostics: DiagnosticSink,
}

impl AxeContext {
    /// The melior context.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// Where the context's diagnostic handler puts every diagnostic.
    pub fn diagnostics(&self) -> &DiagnosticSink {
        &self.diagnostics
    }
}

/// Creates the context every axe tool works in.
///
/// - registers the upstream dialects axe uses ([`ffi::upstream_dialects`]:
///   builtin, func, gpu, nvgpu, nvvm, llvm, memref, arith, scf, cf, ... with
///   their convert-to-llvm interfaces) and their translations to LLVM IR, and
///   loads none of them: the parser loads a dialect when the text first names
///   it, and each pass declares the dialects it creates (MLIR's dependent
///   dialects), so start-up pays only for what the input and flags use
///   (loading all ~60 upstream dialects took 5-10 ms of a 12 ms start). Any
///   other dialect is MLIR's "dialect not found" error; registering all of
///   them would link all of them into the tools (ARCHITECTURE.md, "Where
///   start-up time goes"). Upstream passes are registered on demand by
///   [`register_upstream_passes`];
/// - disables multithreading, so pass runs and diagnostics are deterministic
///   and the diagnostic sink is never touched from another thread;
/// - attaches a diagnostic handler that copies each diagnostic into
///   [`AxeContext::diagnostics`] (nothing is printed: drivers decide);
/// - loads the axe dialect (`cpp/axe/Axe.td`, compiled in).
///
/// Does not fail today; the `Result` leaves room for set-up that can.
pub fn create_context() -> Result<AxeContext> {
    crate::intern::forget_handles();
    let registry = DialectRegistry::new();
    ffi::register_upstream_dialects(&registry);
    let context = Context::new_with_registry(&registry, false);
    ffi::register_llvm_translations(&context);

    let diagnostics = DiagnosticSink::default();
    let sink = diagnostics.clone();
    ffi::attach_diagnostic_handler(&context, move |diagnostic| sink.push(Diagnostic::from_mlir(diagnostic)));

    ffi::load_axe_dialect(&context);
    Ok(AxeContext { context, diagnostics })
}

/// Registers every upstream pass and pipeline axe tools can name (process-wide; idempotent): the generic transforms
/// (canonicalize, cse, inline, symbol-dce, ...), the transforms of the registered dialects, the conversions between
/// them and to LLVM and NVVM, and `gpu-lower-to-nvvm-pipeline` (`cpp/registration.cpp`'s table).
///
/// Registering constructs each pass to read its name, so tools register only the passes a command line names
/// ([`ffi::add_pass_by_name`], [`ffi::add_pipeline`] and [`ffi::set_anchored_pipeline`] do it); this registers them
/// all, for listings and tests.
pub fn register_upstream_passes() {
    ffi::register_all_upstream_passes();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_module;
    use melior::pass::PassManager;

    #[test]
    fn the_upstream_dialects_load_and_no_others() {
        let context = create_context().expect("context");
        let module = parse_module(&context, "", "t.mlir").expect("parses");
        let upstream: Vec<&str> = ffi::upstream_dialects().collect();
        assert_eq!(ffi::load_dialects(module.as_operation(), &upstream), Vec::<&str>::new());
        // Dialects axe does not use are not linked in, so not registered either.
        let unused = ["tensor", "linalg", "spirv", "tosa"];
        assert_eq!(ffi::load_dialects(module.as_operation(), &unused), unused);
        assert!(parse_module(&context, "%t = tensor.empty() : tensor<4xf32>\n", "t.mlir").is_none());
        let diagnostics = context.diagnostics().take();
        assert!(diagnostics[0].message.contains("Dialect `tensor' not found"), "{diagnostics:?}");
    }

    /// `convert-to-llvm` lowers only dialects whose convert-to-llvm interface is registered (a dialect extension):
    /// one op of each registered dialect that has one must come out as llvm ops.
    #[test]
    fn convert_to_llvm_reaches_every_registered_dialect() {
        let context = create_context().expect("context");
        let source = "func.func @f(%a: i32, %b: index, %x: f32, %v: vector<4xf32>, %m: memref<4xf32>) -> f32 {
  %0 = arith.addi %a, %a : i32
  %1 = index.add %b, %b
  %2 = math.exp %x : f32
  %3 = vector.extract %v[0] : f32 from vector<4xf32>
  %4 = memref.load %m[%1] : memref<4xf32>
  %5 = ub.poison : f32
  cf.br ^bb1
^bb1:
  %6 = arith.addf %2, %3 : f32
  %7 = arith.addf %6, %4 : f32
  %8 = arith.addf %7, %5 : f32
  return %8 : f32
}
";
        let mut module = parse_module(&context, source, "t.mlir").expect("parses");
        let manager = PassManager::new(context.context());
        ffi::add_pipeline(manager.as_operation_pass_manager(), "convert-to-llvm").expect("registered");
        manager.run(&mut module).expect("converts");
        let printed = module.as_operation().to_string();
        for dialect in ["arith.", "index.", "math.", "vector.", "memref.", "ub.", "cf.", "func."] {
            assert!(!printed.contains(dialect), "{dialect} left in\n{printed}");
        }
        for op in ["llvm.add", "llvm.intr.exp", "llvm.extractelement", "llvm.load", "llvm.mlir.poison", "llvm.br"] {
            assert!(printed.contains(op), "no {op} in\n{printed}");
        }
    }

    #[test]
    fn the_upstream_passes_axe_names_are_registered_and_others_are_not() {
        let context = create_context().expect("context");
        let manager = PassManager::new(context.context());
        for pipeline in ["canonicalize", "cse", "inline", "symbol-dce", "sccp", "convert-scf-to-cf", "lower-affine"] {
            ffi::add_pipeline(manager.as_operation_pass_manager(), pipeline).expect(pipeline);
        }
        // The passes an NVVM pipeline uses (issue 31), each by name with its default options.
        for name in [
            "gpu-to-llvm",
            "nvvm-attach-target",
            "gpu-module-to-binary",
            "gpu-lower-to-nvvm-pipeline",
            "gpu-kernel-outlining",
            "expand-strided-metadata",
            "fold-memref-alias-ops",
            "arith-expand",
            "math-expand-ops",
        ] {
            ffi::add_pass_by_name(manager.as_operation_pass_manager(), name, "").expect(name);
        }
        let error = ffi::add_pipeline(manager.as_operation_pass_manager(), "convert-linalg-to-loops").unwrap_err();
        assert!(error.contains("does not refer to a registered pass"), "{error}");
    }

    /// A pass given by name runs nested under its anchor op, as mlir-opt nests a pass flag: `convert-gpu-to-nvvm`
    /// (anchored on `gpu.module`) added to the module's pass manager lowers the gpu.module's thread index.
    #[test]
    fn passes_added_by_name_nest_under_their_anchor_op() {
        let context = create_context().expect("context");
        let source =
            "gpu.module @k {\n  func.func @f() -> index {\n    %0 = gpu.thread_id x\n    return %0 : index\n  }\n}\n";
        let mut module = parse_module(&context, source, "t.mlir").expect("parses");
        let manager = ffi::module_pass_manager(context.context());
        ffi::add_pass_by_name(manager.as_operation_pass_manager(), "convert-gpu-to-nvvm", "").expect("added");
        manager.run(&mut module).expect("runs on the gpu.module");
        let printed = module.as_operation().to_string();
        assert!(printed.contains("nvvm.read.ptx.sreg.tid.x"), "{printed}");
        let error = ffi::add_pass_by_name(manager.as_operation_pass_manager(), "cse", "no-such-option=1").unwrap_err();
        assert!(error.contains("no such option no-such-option"), "{error}");
    }
}
