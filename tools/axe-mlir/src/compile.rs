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
    nvshmem,
    ptx::{self, Chip},
    translate::{select_target, translate, translate_linking, Emit, Library},
};
use axe_dialect::{ffi, parse_module, AxeContext, Diagnostic, SourceLoc};
use axe_passes::{lookup, PassKind};
use inkwell::targets::TargetMachine;
use melior::pass::PassManager;

/// The pipeline [`Compiler::new`] runs, as `axe-opt` flags (the README's TMA copy).
pub const PIPELINE: &[&str] = &["lower-tma", "lower-to-nvvm"];

/// Every lowering a kernel may need, in the order `scripts/run-example.sh` runs them for the GEMMs: what
/// [`Compiler::for_kernels`] runs (the Python package's `axe.compile`). A lowering with nothing to lower is a no-op.
pub const KERNEL_PIPELINE: &[&str] = &[
    "lower-roles",
    "lower-tile-loops",
    "lower-staged-copies",
    "lower-tma",
    "lower-mma",
    "lower-copy",
    "lower-collectives",
    "lower-to-nvvm",
    "axe-hoist-allocas",
    "axe-dynamic-shared",
];

/// What [`Compiler::compile`] produces: the chip, the PTX (NVSHMEM's device library linked in when the kernels
/// call it) and the launch record (`--emit=launch`'s JSON).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compiled {
    /// The chip the PTX is for.
    pub chip: Chip,
    /// The PTX text.
    pub ptx: String,
    /// The launch record, as JSON.
    pub launch: String,
}

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
        Compiler::with_pipeline(context, PIPELINE)
    }

    /// Builds [`KERNEL_PIPELINE`] in `context`: every lowering, for [`Compiler::compile`].
    pub fn for_kernels(context: &'c AxeContext) -> anyhow::Result<Compiler<'c>> {
        Compiler::with_pipeline(context, KERNEL_PIPELINE)
    }

    /// Builds the passes named by `flags` (as `axe-opt` flags, without the dashes) in `context`.
    pub fn with_pipeline(context: &'c AxeContext, flags: &[&str]) -> anyhow::Result<Compiler<'c>> {
        let manager = pipeline(context, flags).map_err(anyhow::Error::msg)?;
        Ok(Compiler { context, manager, machines: Vec::new() })
    }

    /// Compiles `source` (named `name` in diagnostics) for `chip`, or for the chip its `gpu.module`'s
    /// `axe.target` names when `chip` is `None` (sm_90a when it names none): the PTX and the launch record.
    pub fn compile(&mut self, source: &str, name: &str, chip: Option<Chip>) -> Result<Compiled, CompileError> {
        let context = self.context;
        let fail = |message: Option<String>| {
            let mut diagnostics = context.diagnostics().take();
            diagnostics.extend(message.map(|m| Diagnostic::error(None, m)));
            CompileError { diagnostics }
        };
        let mut module = parse_module(context, source, name).ok_or_else(|| fail(None))?;
        if !axe_dialect::verify(&module) {
            return Err(fail(None));
        }
        let planned = match target_of(&module) {
            Some(text) => Some(ptx::parse_chip(&text).map_err(|e| fail(Some(format!("axe.target: {e:#}"))))?),
            None => None,
        };
        let chip = chip.or(planned).unwrap_or(Chip::Sm90a);
        if let Some(planned) = planned.filter(|p| !ptx::runs(chip, *p)) {
            return Err(fail(Some(format!(
                "the kernels are planned for {} (axe.target), whose instructions {} does not have",
                planned.name(),
                chip.name()
            ))));
        }
        self.manager.run(&mut module).map_err(|_| fail(None))?;
        let machine = machine_for(&mut self.machines, chip).map_err(|e| fail(Some(format!("{e:#}"))))?;
        let target = select_target(&module, None).map_err(|e| fail(Some(format!("{e:#}"))))?;
        // A kernel that calls NVSHMEM gets its device library linked, found as axe-translate finds it.
        let library = Library { source: &nvshmem::Source::Search, chip, verbose: false };
        let ptx = match translate_linking(target, machine, OPT_LEVEL, Emit::Ptx, Some(library)) {
            Ok(Some(bytes)) => String::from_utf8(bytes).map_err(|_| fail(Some("PTX is not UTF-8".into())))?,
            Ok(None) => return Err(fail(None)),
            Err(e) => return Err(fail(Some(format!("{e:#}")))),
        };
        let launch = crate::launch::launch_json(target, chip.name()).map_err(|located| {
            let mut diagnostics = context.diagnostics().take();
            diagnostics
                .extend(located.into_iter().map(|(loc, message)| Diagnostic::error(SourceLoc::resolve(loc), message)));
            CompileError { diagnostics }
        })?;
        Ok(Compiled { chip, ptx, launch })
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

/// The `axe.target` of the module's first `gpu.module` that has one.
fn target_of(module: &melior::ir::Module) -> Option<String> {
    use melior::ir::{block::BlockLike, operation::OperationLike};
    std::iter::successors(module.body().first_operation(), |op| op.next_in_block())
        .filter(|op| op.name().as_string_ref().as_str() == Ok("gpu.module"))
        .find_map(|op| op.attribute(axe_passes::TARGET_ATTRIBUTE).ok())
        .and_then(crate::launch::string_bytes)
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
}

/// The passes of `flags` with the axe verifier after each.
fn pipeline<'c>(context: &'c AxeContext, flags: &[&str]) -> Result<PassManager<'c>, String> {
    let manager = PassManager::new(context.context());
    for flag in flags {
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
    fn the_kernel_pipeline_gives_the_gemm_its_chip_ptx_and_launch_record() {
        let gemm = include_str!("../../../examples/gemm_sm80.mlir");
        let context = axe_dialect::create_context().expect("context");
        let mut compiler = Compiler::for_kernels(&context).expect("pipeline");
        let compiled = compiler.compile(gemm, "gemm_sm80.mlir", None).expect("compiles");
        assert_eq!(compiled.chip, Chip::Sm80, "the chip is the module's axe.target");
        assert!(compiled.ptx.contains(".target sm_80") && compiled.ptx.contains("mma.sync"), "{}", compiled.ptx);
        let record: serde_json::Value = serde_json::from_str(&compiled.launch).expect("JSON");
        assert_eq!(record["kernels"][0]["grid"], serde_json::json!(["ceildiv(M, 128)", "ceildiv(N, 128)", "1"]));
        assert!(record["kernels"][0]["dynamic_shared_bytes"].as_u64().unwrap() > 48 * 1024, "{record}");
        // An explicit chip is what the PTX is for: mma.sync runs on sm_90a too, wgmma does not run on sm_80.
        assert_eq!(compiler.compile(gemm, "gemm_sm80.mlir", Some(Chip::Sm90a)).map(|c| c.chip), Ok(Chip::Sm90a));
        let hopper = include_str!("../../../examples/gemm_sm90a.mlir");
        let error = compiler.compile(hopper, "gemm_sm90a.mlir", Some(Chip::Sm80)).expect_err("wgmma on sm_80");
        assert!(!error.diagnostics.is_empty(), "a refusal says why");
        assert!(compiler.compile(hopper, "gemm_sm90a.mlir", None).is_ok(), "the compiler is usable after a refusal");
    }

    #[test]
    fn a_collective_kernel_links_nvshmem_and_records_its_symmetric_buffers() {
        let allgather = include_str!("../../../examples/allgather.mlir");
        let context = axe_dialect::create_context().expect("context");
        let mut compiler = Compiler::for_kernels(&context).expect("pipeline");
        let compiled = compiler.compile(allgather, "allgather.mlir", None).expect("compiles");
        // scripts/setup.sh installs the NVSHMEM wheel into the project's .venv, where the search looks.
        // NVSHMEM linked: none of its functions stays external (vprintf and __assertfail, which the library
        // calls, are the CUDA system calls the driver provides).
        let externs: Vec<&str> = compiled.ptx.lines().filter(|l| l.starts_with(".extern .func")).collect();
        assert!(externs.iter().all(|l| l.ends_with("__assertfail") || l.ends_with("vprintf")), "{externs:?}");
        assert!(compiled.ptx.contains("nvshmemi_device_state_d"), "the state nvshmemx_cumodule_init fills");
        let record: serde_json::Value = serde_json::from_str(&compiled.launch).expect("JSON");
        let symmetric = record["kernels"][0]["symmetric"].as_array().expect("symmetric").clone();
        assert!(!symmetric.is_empty(), "{record}");
        assert_eq!(symmetric[0]["local_shapes"].as_array().map(Vec::len), Some(4), "one shape per rank: {record}");
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
