//! The `layout-equivalent` target: `equivalent` agrees with enumeration, and semantics-preserving rewrites are
//! equivalent.

use super::{doc, fail, layout_field, regression, resized_layout, same_map, Doc};
use crate::driver::Outcome::{self, Planned, Refused};
use crate::driver::Rng;
use crate::gen_layout::{self, Knobs};
use crate::targets::reference;
use axe_layout::canonicalize::equivalent;
use axe_layout::notation::parse_layout;
use axe_layout::{Axis, Iter, Layout, TileLayout};
use rand::RngExt;

/// A semantics-preserving rewrite of `t` (as `prop_canonicalize.rs`): split a shard iter, insert a unit iter,
/// negate a replica stride moving its reach into the offset, add a stride-0 replica iter, rotate the replica.
fn rewrite(rng: &mut Rng, t: &TileLayout) -> Option<TileLayout> {
    let (mut shard, mut replica, mut offset) = t.clone().into_parts();
    if !shard.is_empty() {
        let i = rng.random_range(0..shard.len());
        let it = shard[i];
        if let Some(&f) = gen_layout::factors(it.extent).first().filter(|&&f| f < it.extent) {
            let outer = Iter::new(it.extent / f, it.stride.checked_mul(f)?, it.axis).ok()?;
            shard.splice(i..=i, [outer, Iter { extent: f, ..it }]);
        }
    }
    if rng.random_bool(0.5) {
        let axis = shard.first().map_or(Axis::M, |i| i.axis);
        let at = rng.random_range(0..=shard.len());
        shard.insert(at, Iter::new(1, rng.random_range(-3..=3), axis).ok()?);
    }
    if !replica.is_empty() && rng.random_bool(0.5) {
        let i = rng.random_range(0..replica.len());
        let it = replica[i];
        *offset.entry(it.axis).or_insert(0) += (it.extent - 1) * it.stride;
        replica[i].stride = -it.stride;
    }
    if rng.random_range(0..3) == 0 {
        let axis = t.axes().first().copied().unwrap_or(Axis::M);
        replica.push(Iter::new(rng.random_range(2..=4), 0, axis).ok()?);
        offset.entry(axis).or_insert(0);
    }
    if !replica.is_empty() {
        let rot = rng.random_range(0..replica.len());
        replica.rotate_left(rot);
    }
    TileLayout::new(shard, replica, offset).ok()
}

pub(super) fn gen_equivalent(rng: &mut Rng) -> String {
    if let Some(s) = regression(rng, "layout-equivalent") {
        return s;
    }
    let k = if rng.random_bool(0.5) { Knobs::TINY } else { Knobs { max_size: 16, ..Knobs::GENERAL } };
    let a_text = layout_field(rng, k);
    let a = parse_layout(&a_text).ok();
    let (b_text, same) = match (&a, rng.random_range(0..3)) {
        (Some(Layout::Tile(t)), 0) => match rewrite(rng, t) {
            Some(r) => (r.to_string(), true),
            None => (a_text.clone(), true),
        },
        (Some(a), _) => {
            let b = parse_layout(&layout_field(rng, k)).ok();
            match b.and_then(|b| if b.size() == a.size() { Some(b) } else { resized_layout(&b, a.size()) }) {
                Some(b) => (b.to_string(), false),
                None => (layout_field(rng, k), false),
            }
        }
        (None, _) => (layout_field(rng, k), false),
    };
    let shape = if rng.random_range(0..5) == 0 {
        gen_layout::shape_for(rng, a.as_ref())
    } else {
        vec![a.as_ref().map_or(1, Layout::size)]
    };
    let mut fields = vec![("a", a_text), ("b", b_text), ("shape", gen_layout::list_text(&shape))];
    if same {
        fields.push(("same", "yes".into()));
    }
    doc(&fields)
}

/// Planned: `equivalent` answers; refused: it refuses, or a field does not parse.
pub(super) fn check_equivalent(text: &str) -> Result<Outcome, String> {
    let d = Doc::parse(text);
    let (Some(a), Some(b), Some(shape)) = (d.layout("a"), d.layout("b"), d.ints("shape")) else {
        return Ok(Refused);
    };
    let result = equivalent(&a, &b, &shape);
    let outcome = if result.is_ok() { Planned } else { Refused };
    if d.get("same") == Some("yes") && a.admits(&shape).is_ok() {
        match &result {
            Ok(true) => {}
            Ok(false) => return fail(format!("a semantics-preserving rewrite is not equivalent: {a} vs {b}")),
            Err(e) if e.message.contains("2^22") => {}
            Err(e) => return fail(format!("equivalent refused a rewrite: {a} vs {b}: {e}")),
        }
    }
    if let Ok(v) = result {
        if a.size() <= reference::ENUMERATE {
            if let Some(r) = same_map(&a, &b) {
                // Equivalence is over every index, so compare on all of them (the layouts are small here).
                if r.is_ok() != v {
                    return fail(format!("equivalent says {v} but enumeration says {}: {a} vs {b}", r.is_ok()));
                }
            }
        }
    }
    Ok(outcome)
}
