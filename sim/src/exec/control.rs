//! Control flow under the active-thread mask: blocks, regions, `scf.yield`, and `scf.if`, `scf.for`,
//! `scf.index_switch` (divergent sides and cases as strands, `strand.rs`, the first in the schedule's order).

use super::strand::Side;
use super::{array_ints, err, key, loc_of, Exec, Flow};
use crate::schedule::WarpOrder;
use crate::value::{sext, wrap, V};
use crate::SimError;
use axe_dialect::access;
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{BlockRef, OperationRef, RegionLike, Value};

impl Exec<'_, '_> {
    /// Runs `block` under `mask`: the values it yields (none at its end), or `None` once the kernel returned.
    pub(super) fn run_block(&mut self, block: BlockRef, mask: &[bool]) -> Result<Option<Vec<V>>, SimError> {
        let mut cursor = block.first_operation();
        while let Some(op) = cursor {
            match self.exec(op, mask)? {
                Flow::Next => {}
                Flow::Yield(v) => return Ok(Some(v)),
                Flow::Return => return Ok(None),
            }
            cursor = op.next_in_block();
        }
        Ok(Some(Vec::new()))
    }

    /// Runs region `r` of `op` with its block's arguments bound to `args`; its yielded values.
    pub(super) fn run_region(
        &mut self,
        op: OperationRef,
        r: usize,
        args: &[V],
        mask: &[bool],
        loc: &str,
    ) -> Result<Vec<V>, SimError> {
        let region = access::region(op, r).ok_or_else(|| SimError::new(loc, format!("missing region {r}")))?;
        let Some(block) = region.first_block() else { return Ok(Vec::new()) };
        for (a, v) in access::arguments(block).zip(args) {
            let value: Value = a.into();
            self.env.insert(key(value), v.clone());
        }
        match self.run_block(block, mask)? {
            Some(v) => Ok(v),
            None => err(loc, "not modelled: gpu.return inside a region"),
        }
    }

    /// `scf.yield`: its operands, for the region's op.
    pub(super) fn scf_yield(&self, op: OperationRef) -> Result<Flow, SimError> {
        let loc = || loc_of(op);
        let vals = (0..op.operand_count()).map(|i| self.operand(op, i, &loc())).collect::<Result<_, _>>()?;
        Ok(Flow::Yield(vals))
    }

    /// `scf.if`: each side under the threads whose condition selects it (divergent sides as strands, the first
    /// in the schedule's order); results merged per thread.
    pub(super) fn scf_if(&mut self, op: OperationRef, mask: &[bool]) -> Result<(), SimError> {
        let loc = loc_of(op);
        let c = self.scalars(op, 0, &loc)?;
        let then_m: Vec<bool> = mask.iter().zip(&c).map(|(m, c)| *m && *c != 0).collect();
        let else_m: Vec<bool> = mask.iter().zip(&c).map(|(m, c)| *m && *c == 0).collect();
        let mut sides = Vec::new();
        if then_m.contains(&true) {
            sides.push((Side::Region(0), then_m));
        }
        // An else region without a block (what `scf.if` without `else` prints) is no side: its threads skip.
        let has_else = access::region(op, 1).and_then(|r| r.first_block()).is_some();
        if else_m.contains(&true) && has_else {
            sides.push((Side::Region(1), else_m));
        }
        if self.reversed() {
            sides.reverse();
        }
        self.merge_sides(op, &sides, &loc)
    }

    /// `scf.for`: the body under the same mask each iteration. Threads whose bounds differ (a loop over a warp's
    /// or a CTA's share of the work) run as groups of equal bounds, each group a side (a strand, as the branches of
    /// a divergent `scf.if`: on the hardware the warps of different trip counts go on independently).
    pub(super) fn scf_for(&mut self, op: OperationRef, mask: &[bool]) -> Result<(), SimError> {
        let loc = loc_of(op);
        let bounds: Vec<Vec<u64>> = (0..3).map(|i| self.scalars(op, i, &loc)).collect::<Result<_, _>>()?;
        let mut groups: Vec<([u64; 3], Vec<bool>)> = Vec::new();
        for t in (0..self.n).filter(|&t| mask[t]) {
            let key = [bounds[0][t], bounds[1][t], bounds[2][t]];
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, m)) => m[t] = true,
                None => {
                    let mut m = vec![false; self.n];
                    m[t] = true;
                    groups.push((key, m));
                }
            }
        }
        let mut sides: Vec<(Side, Vec<bool>)> = groups.into_iter().map(|(_, m)| (Side::Loop, m)).collect();
        if self.reversed() {
            sides.reverse();
        }
        let carried = match sides.as_slice() {
            [] => Vec::new(),
            [(_, group)] => self.for_loop(op, group, &loc)?,
            _ => self.merged(op, &sides, &loc)?,
        };
        for (k, v) in carried.into_iter().enumerate() {
            self.set(op, k, v);
        }
        Ok(())
    }

    /// The iterations of `op` (an `scf.for` whose bounds and step agree over `mask`) under `mask`: the values it
    /// carries out.
    pub(super) fn for_loop(&mut self, op: OperationRef, mask: &[bool], loc: &str) -> Result<Vec<V>, SimError> {
        let ty = self.operand_ty(op, 0, loc)?;
        let w = ty.scalar().map(|s| s.bits()).unwrap_or(64);
        let lb = sext(w, self.uniform(&self.scalars(op, 0, loc)?, mask, "scf.for lower bound", loc)?);
        let ub = sext(w, self.uniform(&self.scalars(op, 1, loc)?, mask, "scf.for upper bound", loc)?);
        let step = sext(w, self.uniform(&self.scalars(op, 2, loc)?, mask, "scf.for step", loc)?);
        if step <= 0 {
            return err(loc, format!("scf.for step {step} is not positive"));
        }
        let mut carried: Vec<V> =
            (3..op.operand_count()).map(|i| self.operand(op, i, loc)).collect::<Result<_, _>>()?;
        let mut i = lb;
        while i < ub {
            let mut args = vec![V::S(vec![wrap(w, i as u64); self.n])];
            args.extend(carried.iter().cloned());
            carried = self.run_region(op, 0, &args, mask, loc)?;
            i += step;
        }
        Ok(carried)
    }

    /// `scf.index_switch`: each case region under the threads that select it (divergent cases as strands, in the
    /// schedule's order); results merged per thread.
    pub(super) fn scf_switch(&mut self, op: OperationRef, mask: &[bool]) -> Result<(), SimError> {
        let loc = loc_of(op);
        let sel = self.scalars(op, 0, &loc)?;
        let cases = op.attribute("cases").map(|a| array_ints(&a.to_string())).unwrap_or_default();
        // Region 0 is the default; region i + 1 is case i.
        let region_of = |x: u64| cases.iter().position(|c| *c as u64 == x).map(|p| p + 1).unwrap_or(0);
        let mut order: Vec<usize> = (0..op.region_count()).collect();
        match self.warps {
            WarpOrder::Forward => {}
            WarpOrder::Reverse => order.reverse(),
            WarpOrder::Shuffled(_) => self.rng.shuffle(&mut order),
        }
        let sides: Vec<(Side, Vec<bool>)> = order
            .into_iter()
            .map(|r| (Side::Region(r), (0..self.n).map(|t| mask[t] && region_of(sel[t]) == r).collect::<Vec<bool>>()))
            .filter(|(_, m)| m.contains(&true))
            .collect();
        self.merge_sides(op, &sides, &loc)
    }

    /// Runs `sides` of `op` ([`Exec::run_sides`]) and sets `op`'s results, each thread's from the side it took.
    fn merge_sides(&mut self, op: OperationRef, sides: &[(Side, Vec<bool>)], loc: &str) -> Result<(), SimError> {
        for (i, v) in self.merged(op, sides, loc)?.into_iter().enumerate() {
            self.set(op, i, v);
        }
        Ok(())
    }

    /// Runs `sides` of `op` and merges what they yielded, each thread's values from the side it took.
    fn merged(&mut self, op: OperationRef, sides: &[(Side, Vec<bool>)], loc: &str) -> Result<Vec<V>, SimError> {
        let outs = self.run_sides(op, sides, loc)?;
        let mut results: Option<Vec<V>> = None;
        for ((_, m), out) in sides.iter().zip(outs) {
            if out.is_empty() {
                continue;
            }
            results = Some(match results {
                None => out,
                Some(prev) => out.iter().zip(&prev).map(|(a, b)| a.select(b, m)).collect(),
            });
        }
        Ok(results.unwrap_or_default())
    }
}
