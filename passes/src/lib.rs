//! Axe passes and the registry that names them.
//!
//! Every pass is one module named for its flag, holding a plain `pub fn` that
//! does the work (tests call it) and a `create` function that wraps it as a
//! melior external pass through [`glue`]. [`REGISTRY`] lists every pass and
//! pipeline alias with its flag, summary and description; `axe-opt` turns each
//! entry into a `--<flag>` option and prints them in `--help`.
#![deny(missing_docs)]

mod async_groups;
pub mod barrier_check;
pub mod canonicalize;
pub mod dynamic_shared;
mod glue;
pub mod hoist_allocas;
mod ir;
pub mod lower_collectives;
pub mod lower_copy;
pub mod lower_mma;
pub mod lower_roles;
pub mod lower_staged_copies;
pub mod lower_tile_loops;
pub mod lower_tma;
mod lowering;
pub mod nki;
mod ownership;
mod registry;
mod request;
pub mod shared_lifetimes;
pub mod slice;
mod storage;
pub mod strip_annotations;
#[cfg(test)]
mod testing;
pub mod verify;

pub use glue::{PassInfo, PassKind};
pub use ir::target::TARGET_ATTRIBUTE;
pub use registry::{lookup, register_passes, LOWER_TO_NVVM_PIPELINE, REGISTRY};
