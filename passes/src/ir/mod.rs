//! The bottom layer of the passes: IR utilities every pass may use and that use no pass.
//!
//! - `build`: the op builder (generic ops from text, at an insertion point, located at the lowered op);
//! - `multiple`: what a run-time index is known to be a multiple of, read from the IR that computes it;
//! - `target`: the chip an op is compiled for (`axe.target` on it or an enclosing op).

pub(crate) mod build;
pub(crate) mod multiple;
pub(crate) mod target;
