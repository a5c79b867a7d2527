//! `axe-verify`: run the axe semantic verifier as a pass.
//!
//! The verifier itself lives in the dialect crate (`axe_dialect::verify`); this pass lets any pipeline check the
//! IR between passes. `axe-opt` adds it after every pass unless `--no-verify` is given, so a pass that leaves
//! IR breaking an axe rule fails with the rule's diagnostic at the offending op. It changes nothing.

use crate::glue::{external_pass, PassId};
use crate::glue::{PassInfo, PassKind};
use melior::pass::Pass;

/// `--axe-verify` as `axe-opt` lists it: flag, summary, description, constructor (the registry's entry).
pub const PASS: PassInfo = PassInfo {
    flag: "axe-verify",
    summary: "Check the axe semantic rules and fail on any violation",
    description: "Input: any module. Runs MLIR's verifier and then every axe rule (layouts parse\n\
and admit shapes, axes fit memory scopes, scopes nest, dtypes/shapes/regions agree), reporting all\n\
violations at their ops. Changes nothing. axe-opt runs it after every pass unless --no-verify.",
    kind: PassKind::Rust(create),
};

static ID: PassId = PassId::new();

/// The melior pass behind `--axe-verify`.
pub fn create() -> Pass {
    external_pass(&ID, "AxeVerify", &PASS, axe_dialect::verify_op)
}
