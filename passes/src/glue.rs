//! Wrapping a Rust pass function as an MLIR pass (melior external passes).
//!
//! Passes own no FFI details: a pass module hands [`external_pass`] its
//! identity, its registry entry and a function over the anchor op, and gets a melior
//! [`Pass`] that any pass manager accepts next to upstream passes.

use melior::{
    dialect::DialectHandle,
    ir::{r#type::TypeId, OperationRef},
    pass::{create_external, ExternalPass, Pass},
};

/// What a registry entry adds to the pass manager.
#[derive(Clone, Copy, Debug)]
pub enum PassKind {
    /// A pass written in Rust; the function builds a fresh instance.
    Rust(fn() -> Pass),
    /// Textual pipeline elements run on `builtin.module` (an alias for upstream passes).
    Pipeline(&'static str),
}

/// One `axe-opt --<flag>` option.
#[derive(Clone, Copy, Debug)]
pub struct PassInfo {
    /// The flag without dashes, e.g. `axe-strip-annotations`.
    pub flag: &'static str,
    /// One sentence saying what changes in the IR.
    pub summary: &'static str,
    /// Two to five lines: inputs, outputs, position in the pipeline.
    pub description: &'static str,
    /// How to build it.
    pub kind: PassKind,
}

/// A pass's identity: MLIR tells passes apart by the address of a static.
///
/// Declare one `static ID: PassId = PassId::new();` per pass. It is not
/// zero-sized (zero-sized statics may share an address) and is 8-byte aligned,
/// as MLIR's `TypeID` requires.
#[repr(align(8))]
pub(crate) struct PassId(#[allow(dead_code)] u8);

impl PassId {
    /// A fresh identity; only meaningful in a `static`.
    pub(crate) const fn new() -> Self {
        PassId(0)
    }
}

/// The op every axe pass is anchored on.
const ANCHOR: &str = "builtin.module";

/// Builds an MLIR pass that calls `run` on each `builtin.module` it is given.
///
/// `run` reports failures as diagnostics on op locations and returns `false`;
/// the wrapper then signals failure, so the pass manager stops.
pub(crate) fn external_pass(
    id: &'static PassId,
    name: &str,
    info: &PassInfo,
    run: fn(OperationRef<'_, '_>) -> bool,
) -> Pass {
    external_pass_creating(id, name, info, &[], run)
}

/// [`external_pass`] for a pass that creates ops of the dialects named in `creates` (namespaces, e.g. `"nvgpu"`).
///
/// Contexts load dialects on first use, so a pass must declare what it builds (MLIR's dependent dialects): the
/// pass manager loads them before the pass runs. An op of an unloaded dialect would be built unregistered.
pub(crate) fn external_pass_creating(
    id: &'static PassId,
    name: &str,
    info: &PassInfo,
    creates: &[&str],
    run: fn(OperationRef<'_, '_>) -> bool,
) -> Pass {
    let body = move |operation: OperationRef<'_, '_>, pass: ExternalPass<'_>| {
        if !run(operation) {
            pass.signal_failure();
        }
    };
    let dialects: Vec<DialectHandle> = creates.iter().filter_map(|namespace| dialect_handle(namespace)).collect();
    debug_assert_eq!(dialects.len(), creates.len(), "a dialect in {creates:?} has no handle");
    create_external(body, TypeId::create(id), name, info.flag, info.summary, ANCHOR, &dialects)
}

/// The handle of an upstream dialect by namespace.
fn dialect_handle(namespace: &str) -> Option<DialectHandle> {
    Some(match namespace {
        "arith" => DialectHandle::arith(),
        "cf" => DialectHandle::cf(),
        "func" => DialectHandle::func(),
        "gpu" => DialectHandle::gpu(),
        "llvm" => DialectHandle::llvm(),
        "memref" => DialectHandle::memref(),
        "scf" => DialectHandle::scf(),
        other => return axe_dialect::ffi::dialect_handle(other),
    })
}
