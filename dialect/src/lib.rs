//! The axe MLIR dialect, and the one place that sets up melior.
//!
//! The dialect is defined in ODS (`cpp/axe/Axe.td`; `cpp/AxeDialect.cpp` holds its hand-written syntax), compiled
//! in by `build.rs` and loaded into a melior [`Context`](melior::Context) through its C API handle. [`create_context`] is the only function in the workspace that builds a
//! `Context`: it registers the upstream dialects and LLVM translations axe uses
//! (loaded on first use), loads the axe dialect and attaches the diagnostic
//! handler that collects diagnostics into a [`DiagnosticSink`];
//! [`register_upstream_passes`] makes the upstream passes axe uses nameable, on
//! demand. What is registered is listed in [`ffi`] and `cpp/registration.cpp`.
//!
//! [`ops`] gives typed views over axe ops ([`AxeOp`]) and [`types`] reads the dialect's attributes and types
//! as Rust data; [`verify`] is the semantic verifier every tool runs after parsing and after each pass.
//!
//! Raw `mlir-sys` calls live in [`ffi`] and nowhere else; operands, results, regions and block arguments are
//! reached through [`access`], never melior's indexed getters (which print the op on a miss).
#![deny(missing_docs)]

pub mod access;
pub mod barriers;
mod context;
pub mod diagnostics;
pub mod ffi;
mod forward_refs;
pub mod guards;
pub mod intern;
pub mod kernel;
pub mod llvm_export;
pub mod mesh;
pub mod ops;
mod parse;
pub mod roles;
pub mod tile_loop;
pub mod types;
pub mod verify;

pub use context::{create_context, register_upstream_passes, AxeContext};
pub use diagnostics::{Diagnostic, DiagnosticSink, Severity, SourceLoc};
pub use ops::{AxeOp, OpKind};
pub use parse::parse_module;
pub use types::{Element, LayoutSpec, TensorType, Threads};
pub use verify::{verify, verify_op, Rule, Violation};

/// The dialect's namespace, the prefix of every axe op and attribute.
pub const DIALECT_NAME: &str = "axe";

/// Names of the dialect's attributes and ops, as they appear in IR.
pub mod names {
    /// `#axe.layout<S[...]>`: a layout in the axe-layout text notation.
    pub const LAYOUT_ATTR: &str = "axe.layout";
    /// `axe.annotate %v layout(S[...]) : T`: a layout note on a value.
    pub const ANNOTATE_OP: &str = "axe.annotate";
    /// `!axe.tensor<128x64xf16, shared, S[...]>`.
    pub const TENSOR_TYPE: &str = "axe.tensor";
}
