//! Compiling module text to PTX in process: the README pipeline without processes or files.
//!
//! A [`Compiler`] works in one context, and keeps its pass manager (whose conversion passes freeze their rewrite
//! patterns once) and one NVPTX target machine per chip across compiles, so a host that compiles many kernels
//! (a JIT, an autotuner, the Python package) pays start-up once. Each
//! [`Compiler::compile_to_ptx`] parses the text (the guards and the verifier included), runs
//! `--lower-tma --lower-to-nvvm` with the axe verifier after each pass, as `axe-opt` does, and translates the
//! one `gpu.module` with `axe-translate`'s code. Failures are the same diagnostics the tools print, as data.
//!
//! ```no_run
//! let context = axe_dialect::create_context()?;
//! let mut compiler = axe_mlir::compile::Compiler::new(&context)?;
//! let ptx = compiler.compile_to_ptx(&std::fs::read_to_string("examples/tma_copy.mlir")?, "tma_copy.mlir",
//!     axe_mlir::ptx::Chip::Sm90a);
//! # Ok::<(), anyhow::Error>(())
//! ```

use crate::{
    ptx::{self, Chip},
    translate::{select_target, translate, Emit},
};
use axe_dialect::{ffi, parse_module, AxeContext, Diagnostic};
use axe_passes::{lookup, PassKind};
use inkwell::targets::TargetMachine;
use melior::pass::PassManager;

/// The pipeline a compile runs, as `axe-opt` flags (the README's).
pub const PIPELINE: &[&str] = &["lower-tma", "lower-to-nvvm"];

/// LLVM optimization level of the PTX (as `axe-translate`'s default).
const OPT_LEVEL: u8 = 2;

/// Why a compile failed: the diagnostics, rendered with source lines by [`CompileError::render`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    /// Every diagnostic the compile emitted, in order.
    pub diagnostics: Vec<Diagnostic>,
}

impl CompileError {
    /// The diagnostics as the tools print them, with lines from `source` named `name`.
    pub fn render(&self, name: &str, source: &str) -> String {
        self.diagnostics.iter().map(|d| d.render(Some((name, source)))).collect()
    }
}

/// A reusable in-process compiler over a context from `axe_dialect::create_context` (see the module docs). Not
/// `Send`: use one per thread.
pub struct Compiler<'c> {
    context: &'c AxeContext,
    manager: PassManager<'c>,
    machines: Vec<(Chip, TargetMachine)>,
}

impl<'c> Compiler<'c> {
    /// Builds the pipeline in `context`.
    pub fn new(context: &'c AxeContext) -> anyhow::Result<Compiler<'c>> {
        let manager = pipeline(context).map_err(anyhow::Error::msg)?;
        Ok(Compiler { context, manager, machines: Vec::new() })
    }

    /// Compiles `source` (named `name` in diagnostics) to PTX for `chip`.
    pub fn compile_to_ptx(&mut self, source: &str, name: &str, chip: Chip) -> Result<String, CompileError> {
        let fail = |context: &AxeContext, message: Option<String>| {
            let mut diagnostics = context.diagnostics().take();
            diagnostics.extend(message.map(|m| Diagnostic::error(None, m)));
            CompileError { diagnostics }
        };
        let context = self.context;
        let machine = machine_for(&mut self.machines, chip).map_err(|e| fail(context, Some(format!("{e:#}"))))?;
        let mut module = parse_module(context, source, name).ok_or_else(|| fail(context, None))?;
        if !axe_dialect::verify(&module) {
            return Err(fail(context, None));
        }
        self.manager.run(&mut module).map_err(|_| fail(context, None))?;
        let target = select_target(&module, None).map_err(|e| fail(context, Some(format!("{e:#}"))))?;
        match translate(target, machine, OPT_LEVEL, Emit::Ptx) {
            Ok(Some(bytes)) => String::from_utf8(bytes).map_err(|_| fail(context, Some("PTX is not UTF-8".into()))),
            Ok(None) => Err(fail(context, None)),
            Err(e) => Err(fail(context, Some(format!("{e:#}")))),
        }
    }
}

/// The target machine for `chip` in `machines`, created on first use.
fn machine_for(machines: &mut Vec<(Chip, TargetMachine)>, chip: Chip) -> anyhow::Result<&TargetMachine> {
    let index = match machines.iter().position(|(c, _)| *c == chip) {
        Some(index) => index,
        None => {
            machines.push((chip, ptx::target_machine(chip, ptx::optimization_level(OPT_LEVEL)?)?));
            machines.len() - 1
        }
    };
    Ok(&machines[index].1)
}

/// [`PIPELINE`] with the axe verifier after each pass.
fn pipeline(context: &AxeContext) -> Result<PassManager<'_>, String> {
    let manager = PassManager::new(context.context());
    for flag in PIPELINE {
        match lookup(flag).map(|info| info.kind) {
            Some(PassKind::Rust(create)) => manager.add_pass(create()),
            Some(PassKind::Pipeline(text)) => ffi::add_pipeline(manager.as_operation_pass_manager(), text)?,
            None => return Err(format!("no pass registered as '{flag}'")),
        }
        manager.add_pass(axe_passes::verify::create());
    }
    Ok(manager)
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = include_str!("../../../examples/tma_copy.mlir");

    #[test]
    fn repeated_compiles_give_the_same_ptx_as_the_first() {
        let context = axe_dialect::create_context().expect("context");
        let mut compiler = Compiler::new(&context).expect("pipeline");
        let first = compiler.compile_to_ptx(EXAMPLE, "tma_copy.mlir", Chip::Sm90a).expect("compiles");
        assert!(first.contains(".target sm_90a") && first.contains("cp.async.bulk.tensor"), "{first}");
        for _ in 0..3 {
            assert_eq!(compiler.compile_to_ptx(EXAMPLE, "tma_copy.mlir", Chip::Sm90a).as_ref(), Ok(&first));
        }
    }

    #[test]
    fn a_failed_compile_returns_its_diagnostics_and_the_next_one_works() {
        let context = axe_dialect::create_context().expect("context");
        let mut compiler = Compiler::new(&context).expect("pipeline");
        let error = compiler.compile_to_ptx("func.func @f( {", "bad.mlir", Chip::Sm90a).expect_err("fails");
        assert!(error.render("bad.mlir", "func.func @f( {").starts_with("bad.mlir:1:"), "{error:?}");
        assert!(compiler.compile_to_ptx(EXAMPLE, "tma_copy.mlir", Chip::Sm90a).is_ok());
    }
}
