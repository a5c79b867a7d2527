//! TMA: tensor loads into shared memory completing on an mbarrier (`nvgpu.tma.async.load`), tensor stores from
//! shared memory (`nvgpu.tma.async.store`) and their bulk groups (`cp.async.bulk.commit_group`/`wait_group`).

use super::{err, ints_in, Exec};
use crate::inflight::{ranges_of, BulkStore};
use crate::isa::{self, TensorMap};
use crate::machine::PendingLoad;
use crate::schedule::Completion;
use crate::value::{Scalar, Ty};
use crate::SimError;
use melior::ir::operation::OperationLike;
use melior::ir::OperationRef;

impl Exec<'_, '_> {
    /// The tensor map a descriptor handle (a kernel argument's value) stands for.
    fn tensor_map(&self, handle: u64, loc: &str) -> Result<TensorMap, SimError> {
        self.descs.get(handle as usize).cloned().ok_or_else(|| SimError::new(loc, "unknown TMA descriptor"))
    }

    /// The TMA and bulk-group ops.
    pub(super) fn tma_op(&mut self, op: OperationRef, name: &str, mask: &[bool], loc: &str) -> Result<(), SimError> {
        match name {
            "nvvm.cp.async.bulk.commit.group" => self.m.bulk_commit(),
            "nvvm.cp.async.bulk.wait_group" => {
                let g = op.attribute("group").map(|a| ints_in(&a.to_string())).unwrap_or_default();
                let read = op.attribute("read").is_ok();
                self.m.bulk_wait(g.first().copied().unwrap_or(0) as u64, read, loc)?;
            }
            "nvgpu.tma.async.load" => self.tma_load(op, mask, loc)?,
            "nvgpu.tma.async.store" => self.tma_store(op, mask, loc)?,
            _ => return err(loc, format!("not modelled: {name}")),
        }
        Ok(())
    }

    /// `cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes` (PTX ISA 9.7.9.25.5.1)
    /// as `nvgpu.tma.async.load` expresses it: operands `dst, barriers, descriptor, coordinates..., mbarId`.
    fn tma_load(&mut self, op: OperationRef, mask: &[bool], loc: &str) -> Result<(), SimError> {
        let count = op.operand_count();
        let dst = self.memref_of(op, 0, loc)?;
        let bars = self.scalars(op, 1, loc)?;
        let desc = self.scalars(op, 2, loc)?;
        let last_ty = self.operand_ty(op, count - 1, loc)?;
        if last_ty != Ty::Sc(Scalar::I(64)) {
            return err(loc, "not modelled: multicast or predicated TMA load");
        }
        let ids = self.scalars(op, count - 1, loc)?;
        let coords: Vec<Vec<u64>> = (3..count - 1).map(|i| self.scalars(op, i, loc)).collect::<Result<_, _>>()?;
        for t in self.active(mask) {
            let map = self.tensor_map(desc[t], loc)?;
            if coords.len() != map.dims.len() {
                return err(loc, format!("{} coordinates for a rank-{} tensor map", coords.len(), map.dims.len()));
            }
            let c: Vec<i64> = coords.iter().map(|v| v[t] as i64).collect();
            let span = map.span();
            if dst.addr % 128 != 0 || (span != 0 && dst.addr % (8 * span) != 0) {
                return err(
                    loc,
                    format!(
                        "TMA destination {} not aligned to the swizzle pattern's {} bytes",
                        dst.addr,
                        (8 * span).max(128)
                    ),
                );
            }
            let total = map.box_bytes();
            let mut bytes = vec![0u8; total as usize];
            for (off, g) in map.box_elements(&c) {
                let at = isa::swizzle(span, dst.addr + off) - dst.addr;
                if let Some(g) = g {
                    let src = self.m.read_global(g, map.elem_bytes as usize, loc)?;
                    bytes[at as usize..(at + map.elem_bytes) as usize].copy_from_slice(src);
                }
            }
            let bar = bars[t] + 8 * ids[t];
            self.m.check_bar_use(bar, t, "TMA load complete_tx", loc)?;
            let dst_bytes = dst.shape.iter().product::<i64>() as u64 * dst.elem.bytes() as u64;
            if dst_bytes != total {
                return err(loc, format!("TMA box of {total} bytes into a {dst_bytes}-byte destination"));
            }
            if dst.addr + total > self.m.shared.len() as u64 {
                return err(loc, "TMA destination outside shared memory");
            }
            // Two loads in flight to the same bytes, or a load over bytes an asynchronous operation still
            // reads (a stage reused early), race.
            self.m.check_pending(dst.addr, total as usize, "TMA load write", loc)?;
            self.m.flight.check_readers(dst.addr, total as usize, "TMA load write", loc)?;
            // The load writes as its issuing thread, from its issue: bytes another warp read must be ordered
            // before (a stage is reloaded only once every warp is done with it).
            self.m.check_war(dst.addr, total as usize, t, "TMA load write", loc)?;
            let clock = self.m.clocks.release(t / 32);
            self.m.pending.push(PendingLoad {
                bar,
                start: dst.addr,
                bytes,
                tx: total as i64,
                loc: loc.to_string(),
                group: None,
                thread: t,
                landed: false,
                phase: None,
                clock,
            });
            if self.m.flight.completion == Completion::Eager {
                let last = self.m.pending.len() - 1;
                self.m.land_load(last)?;
            }
        }
        Ok(())
    }

    /// `cp.async.bulk.tensor...global.shared::cta.tile.bulk_group` (PTX ISA 9.7.9.25.5.2): shared box to global,
    /// out-of-bounds elements skipped. The source is read through the async proxy (checked at issue: delivered,
    /// written before the writers' `fence.proxy.async` and a barrier); the store is in flight until its bulk
    /// group's waits (`inflight.rs`).
    fn tma_store(&mut self, op: OperationRef, mask: &[bool], loc: &str) -> Result<(), SimError> {
        let count = op.operand_count();
        let src = self.memref_of(op, 0, loc)?;
        let desc = self.scalars(op, 1, loc)?;
        let coords: Vec<Vec<u64>> = (2..count).map(|i| self.scalars(op, i, loc)).collect::<Result<_, _>>()?;
        for t in self.active(mask) {
            let map = self.tensor_map(desc[t], loc)?;
            if coords.len() != map.dims.len() {
                return err(loc, "not modelled: predicated TMA store");
            }
            let c: Vec<i64> = coords.iter().map(|v| v[t] as i64).collect();
            let span = map.span();
            let nb = map.elem_bytes as usize;
            let mut pairs = Vec::new();
            for (off, g) in map.box_elements(&c) {
                let at = isa::swizzle(span, src.addr + off);
                self.m.read_shared(at, nb, loc)?;
                self.m.check_async_read(at, nb, t..t + 1, "the TMA store", loc)?;
                if let Some(g) = g {
                    self.m.global_index(g, nb, loc)?;
                    pairs.push((at, g, nb));
                }
            }
            let mut gaddrs: Vec<u64> = pairs.iter().map(|p| p.1).collect();
            let global = ranges_of(&mut gaddrs, nb as u64);
            self.m.store_issue(
                BulkStore {
                    loc: loc.to_string(),
                    pairs,
                    global,
                    data: None,
                    group: None,
                    read_retired: false,
                    written: false,
                },
                t,
            )?;
        }
        Ok(())
    }
}
