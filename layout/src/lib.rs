//! The Axe layout algebra.
//!
//! A layout maps each logical index of a tensor to a set of coordinates on named hardware axes: an ordered shard
//! D, a replica multiset R and an offset O, `L(x) = { D(x) + O + r | r in R }`, optionally followed by an XOR
//! swizzle of the memory address. This crate is the single authority on layouts for the whole compiler: the
//! dialect verifier, every pass and the `axe-layout` tool ask it and nothing else.
//!
//! Module map (one concept each; the operations follow the appendices of the Axe paper):
//! - [`axis`], [`iter`], [`tile_layout`], [`swizzle`], [`layout`]: the objects and the forward map.
//! - [`canonicalize`] (App. A), [`group`] (App. B), [`tile`] (App. C), [`tile_of`] (App. D), [`slice`](mod@slice) (App. E),
//!   [`direct_sum`] (App. F).
//! - [`hw`]: the hardware vocabulary (chip, memory, element type, launch-time expressions) every crate shares.
//! - [`points`]: bounded enumeration of replica point sets, axis by axis.
//! - [`notation`]: the `S[...] + R[...] + n@axis` text, parsed with lalrpop and printed canonically with `pretty`.
//! - [`tma`]: TMA descriptor planning (paper section 3.4) on top of the operations.
//! - [`copy`]: every other copy (ld/st, ldmatrix/stmatrix, cp.async, tcgen05.ld/st, shuffles, staging).
//! - [`distributed`]: device meshes, DTensor placements / JAX PartitionSpecs as layouts, the collective planner.
//!
//! **Invariant:** no LLVM or MLIR dependency; no operation panics on any input, it returns [`LayoutError`].

#![deny(missing_docs)]

pub mod arith;
pub mod axis;
pub mod broadcast;
pub mod canonicalize;
pub mod copy;
pub mod direct_sum;
pub mod distributed;
pub mod error;
pub mod eval;
pub mod group;
pub mod hw;
pub mod iter;
pub mod label;
pub mod layout;
pub mod mma;
pub mod notation;
pub mod points;
pub mod slice;
pub mod stage;
pub mod swizzle;
pub mod threads;
pub mod tile;
pub mod tile_layout;
pub mod tile_of;
pub mod tma;
pub mod trn;

pub use axis::{Axis, AxisKind, ExecScope};
pub use error::{LayoutError, Result};
pub use eval::Evaluator;
pub use iter::Iter;
pub use layout::{ComposeLayout, Layout};
pub use swizzle::{Swizzle, SwizzleMode};
pub use tile_layout::{Coord, TileLayout};
