//! The second layer of the passes: reading an op out of the IR into a planner's request, and the answer. Above
//! the IR utilities (`crate::ir`), below the rules that decide between passes (`crate::ownership`,
//! `crate::barrier_check`) and the pass drivers, so each of those can ask without importing a pass.
//!
//! - `tma`: a global <-> shared copy for `axe_layout::tma` (what `--lower-tma` lowers);
//! - `tmem_load`: a tensor-memory -> register copy of the M=128 data path (what `--lower-mma` lowers as
//!   `tcgen05.ld.32x32b`).

pub(crate) mod tma;
pub(crate) mod tmem_load;
