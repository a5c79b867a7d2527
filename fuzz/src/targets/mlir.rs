//! In-process targets over the LLVM-linking crates (feature `mlir`): the dialect parser, the verifier, every
//! pass of `axe_passes::REGISTRY` (one target each, so a pass added later gets a target without a change here),
//! the translation to LLVM IR and PTX, and the NKI emitter.
//!
//! Each worker thread creates one [`AxeContext`] (tens of milliseconds) and reuses it: every input is parsed
//! into a fresh module, and the context's diagnostics are drained after each input. Inputs are MLIR text:
//! generated IR ([`crate::gen_ir`]) and mutated lit tests and examples, as for `axe-opt`.
//!
//! Planned: the module parses (mlir-parse), verifies (mlir-verify), the pass succeeds (mlir-pass-*), PTX comes
//! out (mlir-translate); refused: the step before refuses the input with a diagnostic.
//!
//! Properties: nothing panics or aborts; a module that parses prints text that parses and prints the same
//! (round trip); a module a pass accepts still passes MLIR's structural verifier; translation either fails
//! with a diagnostic or yields LLVM IR that LLVM's verifier accepts (checked by `ptx::prepare`).
//!
//! LLVM's `report_fatal_error` would end the process; the handler installed here prints the input first
//! ([`crate::driver::fatal`]) and then exits with code 1.

use crate::driver::Outcome::{Planned, Refused};
use crate::driver::{self, Check, Kind, Limits, Rng, Target};
use crate::{gen_ir, mutate, seeds};
use axe_dialect::{create_context, ffi, parse_module, AxeContext};
use axe_passes::{PassKind, LOWER_TO_NVVM_PIPELINE, REGISTRY};
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::Module;
use melior::pass::PassManager;
use rand::seq::IndexedRandom;
use rand::RngExt;
use std::sync::OnceLock;

/// The most passes a registry may have for each to get its own target (checked at compile time: a pass added past
/// it would go unfuzzed; raise it and add `check_pass::<N>` entries below).
const MAX_PASSES: usize = 16;
const _: () = assert!(REGISTRY.len() <= MAX_PASSES, "axe_passes::REGISTRY outgrew the fuzz targets' MAX_PASSES");

thread_local! {
    static CONTEXT: AxeContext = {
        install_fatal_error_handler();
        create_context().unwrap_or_else(|e| panic!("cannot create the axe context: {e}"))
    };
}

fn install_fatal_error_handler() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        extern "C" fn on_fatal_error(reason: *const std::ffi::c_char) {
            if !reason.is_null() {
                // SAFETY: LLVM passes a NUL-terminated message that lives for the call.
                let text = unsafe { std::ffi::CStr::from_ptr(reason) };
                crate::driver::raw_write(b"\nLLVM ERROR: ");
                crate::driver::raw_write(text.to_bytes());
            }
            crate::driver::fatal("LLVM report_fatal_error", 0);
            std::process::exit(1);
        }
        // SAFETY: the handler never returns into LLVM and touches no LLVM state.
        unsafe { inkwell::support::error_handling::install_fatal_error_handler(on_fatal_error) };
    });
}

fn with_context<T>(f: impl FnOnce(&AxeContext) -> T) -> T {
    CONTEXT.with(|c| {
        let _ = c.diagnostics().take();
        let out = f(c);
        let _ = c.diagnostics().take();
        out
    })
}

/// The MLIR targets: parse, verify, one per registry pass, translate.
pub fn targets() -> Vec<Target> {
    let limits = Limits::IN_PROCESS;
    let t = |name, about, check| Target {
        name,
        about,
        kind: Kind::InProcess,
        weight: 2,
        generate: gen_module,
        check,
        limits,
    };
    let mut out = vec![
        t("mlir-parse", "axe_dialect::parse_module: no panic, print/parse round trip", check_parse as Check),
        t("mlir-verify", "axe_dialect::verify and verify::check: no panic", check_verify),
    ];
    let checks: [Check; MAX_PASSES] = [
        check_pass::<0>,
        check_pass::<1>,
        check_pass::<2>,
        check_pass::<3>,
        check_pass::<4>,
        check_pass::<5>,
        check_pass::<6>,
        check_pass::<7>,
        check_pass::<8>,
        check_pass::<9>,
        check_pass::<10>,
        check_pass::<11>,
        check_pass::<12>,
        check_pass::<13>,
        check_pass::<14>,
        check_pass::<15>,
    ];
    for (i, info) in REGISTRY.iter().enumerate().take(MAX_PASSES) {
        let name: &'static str = Box::leak(format!("mlir-pass-{}", info.flag).into_boxed_str());
        out.push(t(name, info.summary, checks[i]));
    }
    out.push(t("mlir-translate", "--lower-tma, --lower-to-nvvm, then LLVM IR and PTX in process", check_translate));
    let nki = t("mlir-nki", "axe_passes::nki::emit: no panic, the same Python twice", check_nki);
    out.push(Target { generate: gen_trn_module, ..nki });
    out
}

fn gen_module(rng: &mut Rng) -> String {
    let corpus = &seeds::corpus().mlir;
    if corpus.is_empty() || rng.random_bool(0.5) {
        return gen_ir::module(rng);
    }
    let texts: Vec<&str> = corpus.iter().map(|(_, t)| t.as_str()).collect();
    let base = texts.choose(rng).copied().unwrap_or("");
    // Lit files hold several `// -----` chunks: take one so the input is a single module.
    let chunks: Vec<&str> = base.split("// -----").collect();
    let chunk = chunks.choose(rng).copied().unwrap_or(base);
    if rng.random_range(0..10) == 0 {
        chunk.to_string()
    } else {
        mutate::mutate_seed(rng, chunk, &texts)
    }
}

/// Mostly the Trainium seeds (modules under `axe.target = "trn1"`), mutated; else any module.
fn gen_trn_module(rng: &mut Rng) -> String {
    let corpus = &seeds::corpus().mlir;
    let trn: Vec<&str> = corpus.iter().map(|(_, t)| t.as_str()).filter(|t| t.contains("\"trn1\"")).collect();
    match trn.choose(rng) {
        Some(seed) if rng.random_range(0..10) > 0 => mutate::mutate_seed(rng, seed, &trn),
        Some(seed) if rng.random_bool(0.5) => seed.to_string(),
        _ => gen_module(rng),
    }
}

fn print(module: &Module) -> String {
    module.as_operation().to_string()
}

fn check_parse(text: &str) -> Result<driver::Outcome, String> {
    with_context(|ctx| {
        let Some(module) = parse_module(ctx, text, "fuzz.mlir") else { return Ok(Refused) };
        let printed = print(&module);
        let _ = ctx.diagnostics().take();
        let Some(again) = parse_module(ctx, &printed, "printed.mlir") else {
            let why: Vec<String> = ctx.diagnostics().take().iter().map(|d| d.render(None)).collect();
            return Err(format!("printed module does not parse:\n{printed}\n{}", why.join("")));
        };
        let reprinted = print(&again);
        if reprinted != printed {
            return Err(format!("print/parse is not a fixpoint:\n{printed}\n---\n{reprinted}"));
        }
        Ok(Planned)
    })
}

fn check_verify(text: &str) -> Result<driver::Outcome, String> {
    with_context(|ctx| {
        let Some(module) = parse_module(ctx, text, "fuzz.mlir") else { return Ok(Refused) };
        let ok = axe_dialect::verify(&module);
        let violations = axe_dialect::verify::check(module.as_operation());
        if ok && !violations.is_empty() {
            return Err(format!("verify passed but check found {} violations", violations.len()));
        }
        Ok(if ok { Planned } else { Refused })
    })
}

fn check_pass<const I: usize>(text: &str) -> Result<driver::Outcome, String> {
    let Some(info) = REGISTRY.get(I) else { return Ok(Refused) };
    with_context(|ctx| {
        let Some(mut module) = parse_module(ctx, text, "fuzz.mlir") else { return Ok(Refused) };
        if !axe_dialect::verify(&module) {
            return Ok(Refused);
        }
        let manager = PassManager::new(ctx.context());
        match info.kind {
            PassKind::Rust(create) => manager.add_pass(create()),
            PassKind::Pipeline(p) => ffi::add_pipeline(manager.as_operation_pass_manager(), p)
                .map_err(|e| format!("cannot add --{}: {e}", info.flag))?,
        }
        if manager.run(&mut module).is_err() {
            return Ok(Refused);
        }
        if !module.as_operation().verify() {
            return Err(format!("--{} succeeded but left IR that does not verify:\n{}", info.flag, print(&module)));
        }
        Ok(Planned)
    })
}

/// The NKI emitter on a verified module: a refusal at an op or Python, the same bytes on a second run.
fn check_nki(text: &str) -> Result<driver::Outcome, String> {
    with_context(|ctx| {
        let Some(module) = parse_module(ctx, text, "fuzz.mlir") else { return Ok(Refused) };
        if !axe_dialect::verify(&module) {
            return Ok(Refused);
        }
        let Ok(first) = axe_passes::nki::emit(&module, text, "fuzz.mlir") else { return Ok(Refused) };
        match axe_passes::nki::emit(&module, text, "fuzz.mlir") {
            Ok(second) if second == first => Ok(Planned),
            _ => Err(format!("the NKI emitter gave different output on a second run:\n{first}")),
        }
    })
}

fn check_translate(text: &str) -> Result<driver::Outcome, String> {
    use axe_mlir::ptx;
    with_context(|ctx| {
        let Some(mut module) = parse_module(ctx, text, "fuzz.mlir") else { return Ok(Refused) };
        if !axe_dialect::verify(&module) {
            return Ok(Refused);
        }
        let manager = PassManager::new(ctx.context());
        if let Some(PassKind::Rust(create)) = axe_passes::lookup("lower-tma").map(|i| i.kind) {
            manager.add_pass(create());
        }
        ffi::add_pipeline(manager.as_operation_pass_manager(), LOWER_TO_NVVM_PIPELINE)?;
        if manager.run(&mut module).is_err() {
            return Ok(Refused);
        }
        // The only gpu.module (or the whole module when there is none), as axe-translate picks it.
        let body = module.body();
        let gpu: Vec<_> = std::iter::successors(body.first_operation(), |op| op.next_in_block())
            .filter(|op| op.name().as_string_ref().as_str() == Ok("gpu.module"))
            .collect();
        let target = match gpu.as_slice() {
            [] => module.as_operation(),
            [one] => *one,
            _ => return Ok(Refused),
        };
        let llvm = inkwell::context::Context::create();
        // SAFETY: `llvm` outlives the module created in it, which is wrapped at once and dropped first.
        let raw = unsafe { ffi::translate_to_llvm_ir(target, llvm.raw() as *mut _) };
        if raw.is_null() {
            return Ok(Refused);
        }
        // SAFETY: a non-null module created in `llvm`, owned from here on.
        let llvm_module = unsafe { inkwell::module::Module::new(raw as _) };
        // TMA-capable chips only: on sm_80 LLVM reports a fatal error for the TMA intrinsics, which axe-translate
        // turns into exit code 1 but which would end this process.
        let chip = [ptx::Chip::Sm90a, ptx::Chip::Sm100a][text.len() % 2];
        let level = (text.len() % 4) as u8;
        let machine = ptx::target_machine(chip, ptx::optimization_level(level).map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
        let emitted =
            ptx::prepare(&llvm_module, &machine, level).is_ok() && ptx::emit_ptx(&llvm_module, &machine).is_ok();
        drop(llvm_module);
        Ok(if emitted { Planned } else { Refused })
    })
}
