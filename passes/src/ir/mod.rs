//! The bottom layer of the passes: IR utilities every pass may use and that use no pass.
//!
//! - `each_op`: the loop of the passes that rewrite one op kind in place, and their error reports;
//! - `build`: the op builder (typed methods for the ops the passes emit often, the generic form for the rest; at
//!   an insertion point, located at the lowered op);
//! - `ty`: the types the builder's typed methods take (`index`, integers, `!llvm.ptr` in an address space);
//! - `multiple`: what a run-time index is known to be a multiple of, read from the IR that computes it;
//! - `target`: the chip an op is compiled for (`axe.target` on it or an enclosing op);
//! - `named_barriers`: the named barrier ids of a kernel, given out once for every pass that emits them.

pub(crate) mod build;
pub(crate) mod each_op;
pub(crate) mod kernel;
pub(crate) mod multiple;
pub(crate) mod named_barriers;
pub(crate) mod target;
pub(crate) mod ty;
