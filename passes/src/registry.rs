//! The registry of passes and pipeline aliases that axe-opt exposes as flags.
//!
//! [`register_passes`] also enters every entry into MLIR's pass registry, so an axe pass is named like an upstream
//! one: as a flag added by name (nested under its anchor op as mlir-opt nests flags) and inside `--pass-pipeline`
//! text (`builtin.module(lower-tma,canonicalize)`).

use crate::glue::{PassInfo, PassKind};
use crate::{
    barrier_check, canonicalize, dynamic_shared, hoist_allocas, lower_collectives, lower_copy, lower_mma, lower_roles,
    lower_staged_copies, lower_tile_loops, lower_tma, slice, strip_annotations, verify,
};
use axe_dialect::ffi;

/// The upstream lowering of a `gpu.module` holding func/scf/arith/memref/gpu/nvgpu
/// ops to llvm and nvvm ops, ready for `axe-translate` (pipeline elements on
/// `builtin.module`).
pub const LOWER_TO_NVVM_PIPELINE: &str = "gpu.module(convert-scf-to-cf,convert-nvgpu-to-nvvm,\
convert-gpu-to-nvvm,convert-to-llvm,canonicalize,cse),reconcile-unrealized-casts";

/// Every pass and pipeline alias, in the order `--help` lists them.
pub static REGISTRY: &[PassInfo] = &[
    canonicalize::PASS,
    slice::PASS,
    lower_roles::PASS,
    lower_tile_loops::PASS,
    lower_staged_copies::PASS,
    lower_tma::PASS,
    lower_mma::PASS,
    barrier_check::PASS,
    lower_copy::PASS,
    lower_collectives::PASS,
    dynamic_shared::PASS,
    hoist_allocas::PASS,
    verify::PASS,
    strip_annotations::PASS,
    PassInfo {
        flag: "lower-to-nvvm",
        summary: "Lower every gpu.module to llvm and nvvm ops with the upstream passes",
        description: "Alias for the upstream pipeline `builtin.module(gpu.module(convert-scf-to-cf,\n\
convert-nvgpu-to-nvvm,convert-gpu-to-nvvm,convert-to-llvm,canonicalize,cse),\n\
reconcile-unrealized-casts)`. Input: gpu.modules of func/scf/arith/memref/gpu/nvgpu/nvvm\n\
ops (TMA, mbarrier, wgmma). Output: gpu.modules of llvm/nvvm ops for axe-translate.\n\
Host code outside gpu.module is left alone. Runs last.",
        kind: PassKind::Pipeline(LOWER_TO_NVVM_PIPELINE),
    },
];

/// Registers every entry in MLIR's pass registry under its flag (process-wide, once): Rust passes as external
/// passes, aliases as pass pipelines. Tools call it before adding passes by name or parsing pipeline text.
pub fn register_passes() {
    static REGISTERED: std::sync::Once = std::sync::Once::new();
    REGISTERED.call_once(|| {
        for info in REGISTRY {
            match info.kind {
                PassKind::Rust(create) => ffi::register_external_pass(create),
                PassKind::Pipeline(text) => ffi::register_pipeline_alias(info.flag, info.summary, text),
            }
        }
    });
}

/// Finds the entry for `flag` (without dashes).
pub fn lookup(flag: &str) -> Option<&'static PassInfo> {
    REGISTRY.iter().find(|info| info.flag == flag)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axe_dialect::create_context;
    use melior::pass::PassManager;
    use std::collections::HashSet;

    #[test]
    fn flags_are_unique_and_well_formed() {
        let mut seen = HashSet::new();
        for info in REGISTRY {
            assert!(seen.insert(info.flag), "duplicate flag {}", info.flag);
            assert!(!info.flag.starts_with('-'), "{}", info.flag);
            assert!(!info.summary.is_empty() && !info.summary.ends_with('.'));
            assert!(info.description.lines().count() >= 2, "{}", info.flag);
        }
        assert!(lookup("axe-strip-annotations").is_some());
        assert!(lookup("no-such-pass").is_none());
    }

    #[test]
    fn every_entry_builds_into_a_pass_manager() {
        let context = create_context().expect("context");
        let manager = PassManager::new(context.context());
        for info in REGISTRY {
            match info.kind {
                PassKind::Rust(create) => manager.add_pass(create()),
                PassKind::Pipeline(text) => ffi::add_pipeline(manager.as_operation_pass_manager(), text)
                    .unwrap_or_else(|error| panic!("{}: {error}", info.flag)),
            }
        }
    }

    #[test]
    fn every_entry_is_nameable_by_its_flag_and_in_pipeline_text() {
        register_passes();
        let context = create_context().expect("context");
        let manager = PassManager::new(context.context());
        for info in REGISTRY {
            ffi::add_pass_by_name(manager.as_operation_pass_manager(), info.flag, "")
                .unwrap_or_else(|error| panic!("{}: {error}", info.flag));
        }
        let pipeline = format!("builtin.module({},canonicalize)", strip_annotations::PASS.flag);
        ffi::set_anchored_pipeline(&manager, &pipeline).expect("axe pass in pipeline text");
    }
}
