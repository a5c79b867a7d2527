//! Elementwise ops on register tensors: which register of an operand each thread reads for each register of the
//! destination, when the operand may broadcast over dimensions of extent 1 and be laid out differently.
//!
//! An elementwise op (`axe.add`, `axe.mul`, `axe.fma`) computes `dest[x] = f(a[x'], b[x''], ...)`, where `x'` is
//! `x` with the operand's extent-1 dimensions set to 0 (numpy's broadcasting, same rank). Each thread computes
//! the destination elements it holds, from registers it holds: no data moves between threads. So for every point
//! `(thread t, register r)` of dest(x), the operand must hold x' in some register `r'` of the same thread `t`, and
//! since one instruction stream serves every thread, `r'` must depend on `r` alone. [`register_map`] finds that
//! `r -> r'` or says which thread lacks which element.
//!
//! Example: DeepGEMM's promotion `acc[i, j] += part[i, j] * scale[i, 0]` with `acc` the wgmma accumulator of two
//! warpgroups (`S[(2,4,2,8,16,4,2):(1@wgid,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]`, 64 registers) and `scale` a
//! [128, 1] tensor with the same rows, `S[(2,4,2,8,1):(1@wgid,1@wid_in_wg,1,4@laneid,1)] + R[4:1@laneid]`: each
//! thread holds the scales of its two rows (registers 0, 1), and accumulator register `r` reads scale register
//! `(r / 2) % 2`.
//!
//! The check enumerates every element of the destination (a register tile has at most a few thousand per
//! thread), with the layouts' thread axes written as lanes and warps ([`crate::threads::to_hardware`]) so that
//! `32@tid` and `1@warpid` are the same thread.

use crate::axis::{Axis, AxisKind};
use crate::error::{LayoutError, Result};
use crate::eval::Evaluator;
use crate::layout::Layout;
use crate::threads::{cta_digit, to_hardware, Grain};
use crate::tile_layout::{flatten, unflatten};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

/// The most elements a register tensor of one CTA can have: its register file, 64K 32-bit registers (every
/// chip from sm_80 to sm_100a). Beyond it the enumeration is not attempted.
pub const MAX_ELEMENTS: i64 = 1 << 16;

/// Whether `operand` (of shape `operand_shape`) broadcasts to `dest_shape`: the same rank, and each of its
/// extents equal to dest's or 1.
pub fn broadcasts(operand_shape: &[i64], dest_shape: &[i64]) -> bool {
    operand_shape.len() == dest_shape.len() && operand_shape.iter().zip(dest_shape).all(|(&o, &d)| o == d || o == 1)
}

/// For each register of `dest` (its `m` values, ascending), the register of `operand` the same thread reads for
/// the same element, broadcast over the operand's extent-1 dimensions (see the module docs).
///
/// Fails (rule `register-broadcast`) when the shapes do not broadcast, a layout has an axis other than threads
/// of one CTA and registers, a thread holds a destination element but not the operand's, or one destination
/// register would need different operand registers on different threads.
///
/// The answer is remembered per thread (a verifier and a lowering ask about the same few pairs of layouts many
/// times in one process).
pub fn register_map(
    dest: &Layout,
    dest_shape: &[i64],
    operand: &Layout,
    operand_shape: &[i64],
) -> Result<BTreeMap<i64, i64>> {
    let key = (dest.clone(), dest_shape.to_vec(), operand.clone(), operand_shape.to_vec());
    if let Some(known) = MAPS.with(|maps| maps.borrow().get(&key).cloned()) {
        return known;
    }
    let answer = compute(dest, dest_shape, operand, operand_shape);
    MAPS.with(|maps| maps.borrow_mut().insert(key, answer.clone()));
    answer
}

/// A pair of register layouts and shapes (dest first) and what [`register_map`] answered for them.
type Known = HashMap<(Layout, Vec<i64>, Layout, Vec<i64>), Result<BTreeMap<i64, i64>>>;

thread_local! {
    static MAPS: RefCell<Known> = RefCell::new(HashMap::new());
}

fn compute(dest: &Layout, dest_shape: &[i64], operand: &Layout, operand_shape: &[i64]) -> Result<BTreeMap<i64, i64>> {
    if !broadcasts(operand_shape, dest_shape) {
        return Err(fail(format!(
            "shape {operand_shape:?} does not broadcast to {dest_shape:?} (same rank, each extent equal or 1)"
        )));
    }
    dest.admits(dest_shape)?;
    operand.admits(operand_shape)?;
    let elements: i64 = dest_shape.iter().product();
    if elements > MAX_ELEMENTS {
        return Err(fail(format!(
            "dest has {elements} elements; a CTA's registers hold at most {MAX_ELEMENTS} 32-bit values"
        )));
    }
    let mut dest_points = ThreadRegisters::new(dest)?;
    let mut operand_points = ThreadRegisters::new(operand)?;
    let mut map: BTreeMap<i64, (i64, i64)> = BTreeMap::new();
    let mut held = Vec::new();
    for flat in 0..elements {
        let x = unflatten(dest_shape, flat);
        let x_operand: Vec<i64> = x.iter().zip(operand_shape).map(|(&v, &e)| if e == 1 { 0 } else { v }).collect();
        held.clear();
        held.extend_from_slice(operand_points.points(flatten(operand_shape, &x_operand)?)?);
        for &(thread, reg) in dest_points.points(flat)? {
            // The operand's lowest register on this thread that holds the element.
            let Some(&(_, from)) = held.iter().filter(|(t, _)| *t == thread).min() else {
                return Err(fail(format!(
                    "thread {thread} holds dest element {x:?} (register {reg}) but not the operand's element \
                     {x_operand:?}"
                )));
            };
            match map.get(&reg) {
                Some(&(first, _)) if first != from => {
                    return Err(fail(format!(
                        "dest register {reg} reads operand register {first} on one thread and {from} on thread \
                         {thread} (element {x:?}): one instruction cannot serve both"
                    )))
                }
                Some(_) => {}
                None => drop(map.insert(reg, (from, thread))),
            }
        }
    }
    Ok(map.into_iter().map(|(reg, (from, _))| (reg, from)).collect())
}

fn fail(message: String) -> LayoutError {
    LayoutError::new(format!("register-broadcast rule: {message}"))
}

/// A register layout's points as (thread in the CTA, register): its thread axes as lanes and warps.
struct ThreadRegisters {
    eval: Evaluator,
    /// Per axis of the evaluator: the threads one unit is (`None` for `m`, the register).
    weights: Vec<Option<i64>>,
    /// Buffers reused across elements: the evaluator's values, the points.
    values: Vec<i64>,
    points: Vec<(i64, i64)>,
}

impl ThreadRegisters {
    fn new(layout: &Layout) -> Result<ThreadRegisters> {
        let hardware = to_hardware(layout, Grain::Warp).map_err(|e| fail(e.message))?;
        let eval = Evaluator::new(&hardware)?;
        let weights = eval
            .axes()
            .iter()
            .map(|&axis| match (axis == Axis::M, cta_digit(axis), axis.kind()) {
                (true, _, _) => Ok(None),
                (false, Some((per, _)), AxisKind::Thread { .. }) => Ok(Some(per)),
                _ => Err(fail(format!("axis {axis} is neither a thread of the CTA nor a register"))),
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(ThreadRegisters { eval, weights, values: Vec::new(), points: Vec::new() })
    }

    /// The (thread, register) points of element `flat`.
    fn points(&mut self, flat: i64) -> Result<&[(i64, i64)]> {
        let count = self.eval.values_into(flat, &mut self.values)?;
        self.points.clear();
        if count == 0 {
            return Ok(&self.points);
        }
        let width = self.values.len() / count;
        if width == 0 {
            // No axes at all: every point is thread 0's register 0.
            self.points.resize(count, (0, 0));
            return Ok(&self.points);
        }
        for values in self.values.chunks_exact(width) {
            let point = values.iter().zip(&self.weights).fold((0, 0), |(thread, reg), (&v, w)| match w {
                Some(per) => (thread + v * per, reg),
                None => (thread, reg + v),
            });
            self.points.push(point);
        }
        Ok(&self.points)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_layout;

    fn layout(text: &str) -> Layout {
        parse_layout(text).unwrap()
    }

    /// The wgmma accumulator of two warpgroups on a 128x128 tile (PTX ISA 9.7.15.5.1, the m64nNk accumulator
    /// fragment, per warpgroup 64 rows).
    const ACC: &str = "S[(2,4,2,8,16,4,2):(1@wgid,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]";

    #[test]
    fn the_same_layout_maps_each_register_to_itself() {
        let map = register_map(&layout(ACC), &[128, 128], &layout(ACC), &[128, 128]).unwrap();
        assert_eq!(map.len(), 64);
        assert!(map.iter().all(|(r, from)| r == from));
    }

    #[test]
    fn a_row_vector_broadcasts_along_the_accumulator_rows() {
        // Thread (wg, warp, lane) holds rows 64 wg + 16 warp + lane / 4 and that + 8 (the fragment's two row
        // halves, register bit 1); the scale tensor holds them in its registers 0 and 1.
        let scale = layout("S[(2,4,2,8,1):(1@wgid,1@wid_in_wg,1,4@laneid,1)] + R[4:1@laneid]");
        let map = register_map(&layout(ACC), &[128, 128], &scale, &[128, 1]).unwrap();
        // Accumulator register r = 4 c + 2 h + p (c the column group, h the row half, p the pair): row half h.
        for (r, from) in &map {
            assert_eq!(*from, (r / 2) % 2, "register {r}");
        }
        assert_eq!(map.len(), 64);
    }

    #[test]
    fn a_scalar_broadcasts_from_its_one_register() {
        let scalar = layout("S[(1,1):(1,1)] + R[(2,4,32):(1@wgid,1@wid_in_wg,1@laneid)]");
        let map = register_map(&layout(ACC), &[128, 128], &scalar, &[1, 1]).unwrap();
        assert!(map.values().all(|&from| from == 0));
    }

    #[test]
    fn a_row_vector_without_its_replicas_is_refused_with_the_thread() {
        // Only lanes 0, 4, 8, ... hold the scales: lane 1 holds accumulator columns 2, 3 of row 0 unscaled.
        let scale = layout("S[(2,4,2,8,1):(1@wgid,1@wid_in_wg,1,4@laneid,1)]");
        let e = register_map(&layout(ACC), &[128, 128], &scale, &[128, 1]).unwrap_err();
        assert!(e.message.starts_with("register-broadcast rule: thread 1 holds dest element [0, 2]"), "{e}");
    }

    #[test]
    fn rows_held_by_other_threads_are_refused() {
        // Lanes 4q to 4q + 3 hold scale rows 2q and 2q + 1, but accumulator rows q and q + 8: lane 4 lacks row 1.
        let wrong = layout("S[(2,4,8,2,1):(1@wgid,1@wid_in_wg,4@laneid,1,1)] + R[4:1@laneid]");
        let e = register_map(&layout(ACC), &[128, 128], &wrong, &[128, 1]).unwrap_err();
        assert!(
            e.message.contains("thread 4 holds dest element [1, 0] (register 0) but not the operand's element [1, 0]"),
            "{e}"
        );
    }

    #[test]
    fn a_register_whose_operand_register_depends_on_the_thread_is_refused() {
        // dest (i, j) on warp i, register j; the operand's row i in register i of both warps: dest register 0
        // reads operand register 0 on warp 0 and register 1 on warp 1.
        let dest = layout("S[(2,2):(1@warpid,1)]");
        let e = register_map(&dest, &[2, 2], &layout("S[(2,1):(1,1)] + R[2:1@warpid]"), &[2, 1]).unwrap_err();
        assert!(e.message.contains("dest register 0 reads operand register 0 on one thread and 1 on thread 32"), "{e}");
        // Row i in register 0 of warp i: one register for all.
        let map = register_map(&dest, &[2, 2], &layout("S[(2,1):(1@warpid,1)]"), &[2, 1]).unwrap();
        assert_eq!(map, BTreeMap::from([(0, 0), (1, 0)]));
    }

    #[test]
    fn more_elements_than_a_register_file_are_refused_before_enumerating() {
        let big = layout("S[(512,256):(1,1@tid)]");
        let e = register_map(&big, &[512, 256], &big, &[512, 256]).unwrap_err();
        assert!(e.message.contains("dest has 131072 elements"), "{e}");
    }

    #[test]
    fn shapes_that_do_not_broadcast_are_refused() {
        let e = register_map(&layout(ACC), &[128, 128], &layout("S[128:1]"), &[128]).unwrap_err();
        assert!(e.message.contains("does not broadcast"), "{e}");
        assert!(broadcasts(&[1, 128], &[64, 128]) && !broadcasts(&[2, 128], &[64, 128]));
    }
}
