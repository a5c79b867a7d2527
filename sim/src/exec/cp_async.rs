//! `cp.async` (sm_80): global-to-shared copies of 4, 8 or 16 bytes per thread, pending until the
//! `cp.async.wait_group` that retires their group (`cp.async.commit_group`).

use super::{err, ints_in, Exec};
use crate::machine::PendingLoad;
use crate::schedule::Completion;
use crate::SimError;
use melior::ir::operation::OperationLike;
use melior::ir::OperationRef;

impl Exec<'_, '_> {
    /// The `cp.async` ops (`act`: the active threads in the schedule's order).
    pub(super) fn cp_async_op(
        &mut self,
        op: OperationRef,
        name: &str,
        act: Vec<usize>,
        loc: &str,
    ) -> Result<(), SimError> {
        match name {
            "nvvm.cp.async.shared.global" => self.cp_async(op, act, loc)?,
            "nvvm.cp.async.commit.group" => self.m.open_group += 1,
            "nvvm.cp.async.wait.group" => {
                let n = op.attribute("n").map(|a| ints_in(&a.to_string())).unwrap_or_default();
                self.m.wait_groups(n.first().copied().unwrap_or(0) as u64)?;
            }
            _ => return err(loc, format!("not modelled: {name}")),
        }
        Ok(())
    }

    /// cp.async.cg/ca.shared.global (PTX ISA 9.7.9.25.3): `size` bytes, read at issue, delivered by
    /// cp.async.wait_group; the shared bytes are pending until then.
    fn cp_async(&mut self, op: OperationRef, act: Vec<usize>, loc: &str) -> Result<(), SimError> {
        let size = op.attribute("size").map(|a| ints_in(&a.to_string())).unwrap_or_default();
        let size = size.first().copied().unwrap_or(0) as usize;
        if !(2..=3).contains(&op.operand_count()) || ![4, 8, 16].contains(&size) {
            return err(loc, "not modelled: this cp.async form");
        }
        let (dst, src) = (self.scalars(op, 0, loc)?, self.scalars(op, 1, loc)?);
        // The optional src-size: only that many bytes are read, the rest of the chunk is zero-filled.
        let src_size = if op.operand_count() == 3 { Some(self.scalars(op, 2, loc)?) } else { None };
        for t in act {
            let read = src_size.as_ref().map_or(size, |s| s[t] as usize);
            if read > size {
                return err(loc, format!("cp.async src-size {read} exceeds its {size}-byte copy"));
            }
            let mut bytes = vec![0u8; size];
            if read > 0 {
                bytes[..read].copy_from_slice(self.m.read_global(src[t], read, loc)?);
            }
            if dst[t] + size as u64 > self.m.shared.len() as u64 || dst[t] % size as u64 != 0 {
                return err(loc, format!("cp.async destination {} out of bounds or misaligned", dst[t]));
            }
            // The copy writes as its thread, from its issue (write-after-read check).
            self.m.check_war(dst[t], size, t, "cp.async write", loc)?;
            // Two copies in flight to the same bytes, or a copy over bytes an asynchronous operation
            // still reads, race.
            self.m.check_pending(dst[t], size, "cp.async write", loc)?;
            self.m.flight.check_readers(dst[t], size, "cp.async write", loc)?;
            let group = Some(self.m.open_group);
            self.m.pending.push(PendingLoad {
                bar: u64::MAX,
                start: dst[t],
                bytes,
                tx: 0,
                loc: loc.to_string(),
                group,
                thread: t,
                landed: false,
                phase: None,
                clock: Vec::new(),
            });
            if self.m.flight.completion == Completion::Eager {
                let last = self.m.pending.len() - 1;
                self.m.land_load(last)?;
            }
        }
        Ok(())
    }
}
