//! sm_100 tensor memory and MMA: `tcgen05.alloc`/`dealloc`/`relinquish_alloc_permit`, `tcgen05.mma` (issued by
//! one thread, in flight until its `tcgen05.commit`'s arrival is observed), `tcgen05.ld`/`st` (32x32b) with
//! `tcgen05.wait::ld`, and `tcgen05.fence`.

use super::{err, Exec, Origin};
use crate::inflight::{ranges_of, ReadKind, Reader, TcMma};
use crate::isa;
use crate::machine::TMEM_COLS;
use crate::schedule::Completion;
use crate::value::{Scalar, Ty, V};
use crate::SimError;
use melior::ir::operation::OperationLike;
use melior::ir::OperationRef;

impl Exec<'_, '_> {
    /// The `tcgen05` ops (`act`: the active threads in the schedule's order).
    pub(super) fn tcgen05_op(
        &mut self,
        op: OperationRef,
        name: &str,
        mask: &[bool],
        act: Vec<usize>,
        loc: &str,
    ) -> Result<(), SimError> {
        match name {
            "nvvm.tcgen05.relinquish_alloc_permit" => {}
            "nvvm.tcgen05.fence" => {
                let kind = op.attribute("kind").map(|a| a.to_string()).unwrap_or_default();
                if kind.contains("after") {
                    self.m.flight.tc_fence_needed = false;
                }
            }
            "nvvm.tcgen05.wait" => {
                let kind = op.attribute("kind").map(|a| a.to_string()).unwrap_or_default();
                if kind.contains("load") {
                    self.m.flight.lds.1 = self.m.flight.lds.0;
                    self.m.flight.lds.2 = None;
                }
            }
            "nvvm.tcgen05.alloc" => {
                let ptr = self.scalars(op, 0, loc)?;
                let ncols = self.scalars(op, 1, loc)?;
                for w in self.whole_groups(mask, 32, "tcgen05.alloc", loc)? {
                    let t = w * 32;
                    let col = self.m.tmem_alloc(ncols[t] as u32, loc)?;
                    self.m.write_shared(ptr[t], &col.to_le_bytes(), loc)?;
                    self.m.mark_async_written(ptr[t], 4);
                }
            }
            "nvvm.tcgen05.dealloc" => {
                let addr = self.scalars(op, 0, loc)?;
                let ncols = self.scalars(op, 1, loc)?;
                for w in self.whole_groups(mask, 32, "tcgen05.dealloc", loc)? {
                    let t = w * 32;
                    self.m.tmem_dealloc((addr[t] & 0xFFFF) as u32, ncols[t] as u32, loc)?;
                }
            }
            "nvvm.tcgen05.mma" => self.tcgen05_mma(op, mask, loc)?,
            "nvvm.tcgen05.commit" => {
                let addr = self.scalars(op, 0, loc)?;
                for t in act {
                    self.m.tcgen05_commit(addr[t], t, loc)?;
                }
            }
            "nvvm.tcgen05.ld" | "nvvm.tcgen05.st" => self.tcgen05_ldst(op, mask, name == "nvvm.tcgen05.st", loc)?,
            _ => return err(loc, format!("not modelled: {name}")),
        }
        Ok(())
    }

    /// `tcgen05.mma.cta_group::1.kind::{f16,f8f6f4}` with A and B in shared memory (PTX ISA 9.7.16.10.9):
    /// operands `d (tensor-memory address), descA, descB, idesc, enable_input_d`; issued by one thread.
    fn tcgen05_mma(&mut self, op: OperationRef, mask: &[bool], loc: &str) -> Result<(), SimError> {
        let kind = op.attribute("kind").map(|a| a.to_string()).unwrap_or_default();
        let mma_kind = match kind.as_str() {
            k if k.contains("<f16>") => isa::MmaKind::F16,
            k if k.contains("<f8f6f4>") => isa::MmaKind::F8f6f4,
            _ => return err(loc, format!("not modelled: tcgen05.mma {kind}")),
        };
        if op.operand_count() != 5 {
            return err(loc, format!("not modelled: tcgen05.mma {kind} with {} operands", op.operand_count()));
        }
        if self.operand_ty(op, 1, loc)? != Ty::Sc(Scalar::I(64)) {
            return err(loc, "not modelled: tcgen05.mma with A in tensor memory");
        }
        let (d, da, db, id, en) = (
            self.scalars(op, 0, loc)?,
            self.scalars(op, 1, loc)?,
            self.scalars(op, 2, loc)?,
            self.scalars(op, 3, loc)?,
            self.scalars(op, 4, loc)?,
        );
        for t in self.active(mask) {
            let i = isa::decode_idesc(id[t] as u32, mma_kind, loc)?;
            if !i.d_f32 {
                return err(loc, "not modelled: tcgen05.mma with an f16 accumulator");
            }
            if self.m.flight.tc_fence_needed {
                return err(
                    loc,
                    "tcgen05.mma after the mbarrier wait that observed tcgen05.mma completion, with no \
                     tcgen05.fence::after_thread_sync between them: missing tcgen05 fence",
                );
            }
            let k = i.k;
            let mut addrs = Vec::new();
            let a = self.gather_desc(da[t], true, !i.a_mn, i.a, i.m, k, t..t + 1, &mut addrs, loc)?;
            let b = self.gather_desc(db[t], true, !i.b_mn, i.b, i.n, k, t..t + 1, &mut addrs, loc)?;
            let elem = i.a;
            let (lane0, col0) = ((d[t] >> 16) as u32, (d[t] & 0xFFFF) as u32);
            for r in 0..i.m {
                for c in 0..i.n {
                    self.m.tmem_cell(lane0 + isa::tmem_lane_of_row(i.m, r) as u32, col0 + c as u32, loc)?;
                }
            }
            // In flight until a wait observes its commit's arrival (`inflight.rs`).
            let index = self.m.flight.mmas.len();
            let ranges = ranges_of(&mut addrs, elem.bytes() as u64);
            let (warps, loc_id) = (t / 32..t / 32 + 1, self.m.cur_loc);
            let (kind, id) = (ReadKind::Tcgen05, index as u64);
            self.m.flight.readers.push(Reader { ranges, kind, id, loc: loc.into(), warps, stamp: 0, loc_id });
            self.m.flight.mmas.push(TcMma {
                loc: loc.to_string(),
                a,
                b,
                mnk: [i.m, i.n, k],
                lane0,
                col0,
                accumulate: en[t] & 1 == 1,
                done: false,
                commit: None,
                observed: false,
            });
            if self.m.flight.completion == Completion::Eager {
                self.m.complete_mma(index);
            }
        }
        Ok(())
    }

    /// `tcgen05.ld/st.sync.aligned.32x32b.xN` (PTX ISA 9.7.16.8.3, "Matrix fragments for tcgen05.ld/st"):
    /// thread `i` of the warp reaches lane `base + i`, register `j` is column `col + j`; warp `w` may only reach
    /// lanes `32 * (w % 4) .. + 32`.
    fn tcgen05_ldst(&mut self, op: OperationRef, mask: &[bool], store: bool, loc: &str) -> Result<(), SimError> {
        let shape = op.attribute("shape").map(|a| a.to_string()).unwrap_or_default();
        if !shape.contains("32x32b") {
            return err(loc, format!("not modelled: tcgen05 ld/st {shape}"));
        }
        let addr = self.scalars(op, 0, loc)?;
        let vals = if store { Some(self.operand(op, 1, loc)?) } else { None };
        let count = if store {
            match &vals {
                Some(V::Agg(es)) => es.len(),
                _ => 1,
            }
        } else {
            match self.result_ty(op, loc)? {
                Ty::Agg(es) => es.len(),
                _ => 1,
            }
        };
        let mut regs = vec![vec![0u64; self.n]; count];
        for w in self.whole_groups(mask, 32, "tcgen05.ld/st", loc)? {
            for l in 0..32 {
                let t = w * 32 + l;
                let (lane0, col0) = ((addr[t] >> 16) as u32, (addr[t] & 0xFFFF) as u32);
                let lane = lane0 + l as u32;
                let quarter = 32 * (w as u32 % 4);
                if lane0 != quarter {
                    return err(loc, format!("warp {w} addresses tensor-memory lanes from {lane0}: it may only reach lanes {quarter}..{}", quarter + 32));
                }
                if l == 0 {
                    let what = if store { "tcgen05.st" } else { "tcgen05.ld" };
                    self.m.flight.check_tmem((lane0, lane0 + 32), (col0, col0 + count as u32), what, loc)?;
                }
                for (j, reg) in regs.iter_mut().enumerate() {
                    let col = col0 + j as u32;
                    if col >= TMEM_COLS {
                        return err(loc, format!("tensor-memory column {col} past 512"));
                    }
                    let cell = self.m.tmem_cell(lane, col, loc)?;
                    match &vals {
                        Some(V::Agg(es)) => {
                            let V::S(s) = &es[j] else { return err(loc, "nested") };
                            self.m.tmem[cell] = s[t] as u32;
                        }
                        Some(V::S(s)) => self.m.tmem[cell] = s[t] as u32,
                        Some(V::Mem(_)) => return err(loc, "store of a memref"),
                        None => reg[t] = u64::from(self.m.tmem[cell]),
                    }
                }
            }
        }
        if !store {
            let v = if count == 1 && !matches!(self.result_ty(op, loc)?, Ty::Agg(_)) {
                V::S(regs.remove(0))
            } else {
                V::Agg(regs.into_iter().map(V::S).collect())
            };
            self.set(op, 0, v);
            // Undefined until tcgen05.wait::ld (PTX ISA 9.7.16.8.5).
            let lds = &mut self.m.flight.lds;
            lds.0 += 1;
            lds.2.get_or_insert_with(|| loc.to_string());
            let id = lds.0;
            self.set_origin(op, 0, Origin { step: 0, wg: 0, ld: id });
        }
        Ok(())
    }
}
