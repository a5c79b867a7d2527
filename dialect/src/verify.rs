//! The axe verifier: MLIR's structural checks plus axe's semantic checks.
//!
//! Checked today:
//! - everything MLIR's verifier checks, including the IRDL constraints of
//!   `axe.irdl.mlir` (operand counts, `layout` is an `#axe.layout`).
//!
//! TODO (later issues): layout text parses with axe-layout; shapes are admitted
//! by their layouts; execution scopes nest; dtypes agree. Each check reports on
//! the op's location, and all errors are reported, not just the first.

use melior::ir::{operation::OperationLike, Module};

/// Verifies `module`; diagnostics go to the context's sink. Returns success.
pub fn verify(module: &Module) -> bool {
    module.as_operation().verify()
}
