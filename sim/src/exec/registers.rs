//! `setmaxnreg` (`nvvm.setmaxregister`): the register budgets of a CTA's warpgroups, modelled from the PTX ISA
//! (9.7.19.5, "setmaxnreg", sm_90a) and ptxas's rule for the count at entry, independently of `--lower-roles`.
//!
//! - `setmaxnreg.sync.aligned.u32`: every thread of a warpgroup executes the same instruction together, so a
//!   warpgroup is wholly active or wholly inactive at it;
//! - the count is a multiple of 8 in [24, 256]; `.dec` releases the registers above it to a per-CTA pool (the new
//!   count at most the current one), `.inc` takes the registers it adds from that pool (at least the current one)
//!   and blocks until the pool holds them: the pool starts empty, since a CTA is given its threads' entry count
//!   at launch and no more;
//! - the count at entry is what ptxas allocates, known only under `.maxntid` and `.minnctapersm` (`nvvm.minctasm`):
//!   the 64K-register file over `minctasm` CTAs of the block's threads, rounded down to 8, at most 255. Without
//!   `.minnctapersm` ptxas ignores the instruction (warning C7508), and the budgets the kernel counts on do not hold:
//!   an error here.

use super::{err, ints_in, Exec};
use crate::SimError;
use melior::ir::operation::OperationLike;
use melior::ir::OperationRef;

/// Threads in a warpgroup.
const WARPGROUP: usize = 128;

/// The CTA's register budgets: each warpgroup's count and the pool `.dec` fills and `.inc` drains.
#[derive(Clone, Debug, Default)]
pub(super) struct Registers {
    /// `nvvm.minctasm` on the kernel, when it has one.
    min_ctas: Option<i64>,
    /// Each warpgroup's registers per thread now.
    per_group: Vec<i64>,
    /// Registers released by `.dec` and not yet taken by `.inc`.
    pool: i64,
}

impl Registers {
    /// A CTA of `threads` threads of `kernel` at launch.
    pub(super) fn at_launch(kernel: OperationRef, threads: usize) -> Registers {
        let min_ctas = kernel.attribute("nvvm.minctasm").ok().and_then(|a| ints_in(&a.to_string()).first().copied());
        let entry = min_ctas.map_or(0, |ctas| {
            let per_thread = 65536 / (ctas.max(1) * threads.div_ceil(32) as i64 * 32);
            (per_thread / 8 * 8).min(255)
        });
        Registers { min_ctas, per_group: vec![entry; threads.div_ceil(WARPGROUP)], pool: 0 }
    }
}

impl Exec<'_, '_> {
    /// `nvvm.setmaxregister increase|decrease N` by the threads of `mask`.
    pub(super) fn setmaxnreg(&mut self, op: OperationRef, mask: &[bool], loc: &str) -> Result<(), SimError> {
        if self.registers.min_ctas.is_none() {
            return err(
                loc,
                "setmaxnreg in a kernel without .minnctapersm (nvvm.minctasm): ptxas may ignore it (C7508, CUDA 13.1)",
            );
        }
        let count = op.attribute("regCount").ok().and_then(|a| ints_in(&a.to_string()).first().copied());
        let action = op.attribute("action").map(|a| a.to_string()).unwrap_or_default();
        let Some(count) = count.filter(|c| (24..=256).contains(c) && c % 8 == 0) else {
            return err(loc, format!("setmaxnreg count {count:?} is not a multiple of 8 in [24, 256]"));
        };
        let increase = action.contains("increase");
        for group in 0..self.registers.per_group.len() {
            let threads = group * WARPGROUP..((group + 1) * WARPGROUP).min(self.n);
            let active = threads.clone().filter(|&t| mask[t]).count();
            if active == 0 {
                continue;
            }
            if active != WARPGROUP {
                return err(
                    loc,
                    format!("setmaxnreg (.sync.aligned) by {active} of the 128 threads of warpgroup {group}"),
                );
            }
            let current = self.registers.per_group[group];
            if increase {
                if count < current {
                    return err(loc, format!("setmaxnreg.inc to {count} below warpgroup {group}'s {current}"));
                }
                let need = (count - current) * WARPGROUP as i64;
                self.block_until(loc, false, |ex| {
                    let pool = ex.registers.pool;
                    Ok((pool < need).then(|| {
                        format!(
                            "setmaxnreg.inc to {count}: the CTA's pool holds {pool} of the {need} registers it adds"
                        )
                    }))
                })?;
                self.registers.pool -= need;
            } else {
                if count > current {
                    return err(loc, format!("setmaxnreg.dec to {count} above warpgroup {group}'s {current}"));
                }
                self.registers.pool += (current - count) * WARPGROUP as i64;
            }
            self.registers.per_group[group] = count;
        }
        Ok(())
    }
}
