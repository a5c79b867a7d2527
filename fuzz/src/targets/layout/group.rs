//! The `layout-group` target: `group` succeeds exactly when an order-preserving split exists (Lemma B.1), keeps
//! the map, its blocks multiply to the dims, replica and offset untouched; a wrong element count is named in the
//! error; `group_many` likewise for two shapes.

use super::{doc, fail, layout_field, prod, regression, same_map, Doc};
use crate::driver::Outcome::{self, Planned, Refused};
use crate::driver::Rng;
use crate::gen_layout::{self, Knobs};
use axe_layout::canonicalize::normalize_shard;
use axe_layout::group::{group, group_many};
use axe_layout::notation::parse_layout;
use axe_layout::{Layout, TileLayout};

pub(super) fn gen_group(rng: &mut Rng) -> String {
    if let Some(s) = regression(rng, "layout-group") {
        return s;
    }
    let text = layout_field(rng, Knobs { max_replica: 1, ..Knobs::GENERAL });
    let l = parse_layout(&text).ok();
    let shape = gen_layout::shape_for(rng, l.as_ref());
    let shape2 = gen_layout::shape_for(rng, l.as_ref());
    doc(&[("layout", text), ("shape", gen_layout::list_text(&shape)), ("shape2", gen_layout::list_text(&shape2))])
}

/// Lemma B.1: a grouping exists iff every cumulative product `Q` of the shape falls at a split point of the
/// normalized iters (some iter with prefix products `P_{j-1} <= Q <= P_j`, `P_{j-1} | Q`, `Q | P_j`).
fn groupable(t: &TileLayout, shape: &[i64]) -> bool {
    let mut prefix = vec![1i128];
    for it in normalize_shard(t.shard()) {
        prefix.push(prefix.last().copied().unwrap_or(1) * it.extent as i128);
    }
    let mut q = Some(1i128);
    shape.iter().all(|&d| {
        q = q.and_then(|q| q.checked_mul(d as i128));
        q.is_some_and(|q| q == 1 || prefix.windows(2).any(|w| w[0] <= q && q <= w[1] && q % w[0] == 0 && w[1] % q == 0))
    })
}

fn check_grouped(t: &TileLayout, g: &TileLayout, seps: &[usize], shape: &[i64]) -> Result<(), String> {
    // Iters after the last block must not exist, except unit iters when the shape is empty (rank 0: a size-1
    // layout keeps its unit iter, which no dimension owns).
    let last = seps.last().copied().unwrap_or(usize::MAX);
    let leftover_ok = last == g.shard().len()
        || (shape.is_empty() && last <= g.shard().len() && g.shard()[last..].iter().all(|i| i.extent == 1));
    if seps.len() != shape.len() + 1 || seps.first() != Some(&0) || !leftover_ok {
        return fail(format!("bad block boundaries {seps:?} for shape {shape:?} and {g}"));
    }
    for (i, &dim) in shape.iter().enumerate() {
        if seps[i] >= seps[i + 1] {
            return fail(format!("dimension {i} has no iter: {seps:?} in {g}"));
        }
        let p: i64 = g.shard()[seps[i]..seps[i + 1]].iter().map(|it| it.extent).product();
        if p != dim {
            return fail(format!("block {i} of {g} multiplies to {p}, not {dim}"));
        }
    }
    if g.replica() != t.replica() || g.offset() != t.offset() {
        return fail(format!("grouping changed the replica or offset: {t} -> {g}"));
    }
    if let Some(r) = same_map(&Layout::Tile(t.clone()), &Layout::Tile(g.clone())) {
        r.map_err(|e| format!("grouping changes the map: {t} -> {g}: {e}"))?;
    }
    Ok(())
}

/// Planned: `group` by the first shape answers; refused: it refuses, or a field does not parse.
pub(super) fn check_group(text: &str) -> Result<Outcome, String> {
    let d = Doc::parse(text);
    let (Some(l), Some(shape)) = (d.layout("layout"), d.ints("shape")) else { return Ok(Refused) };
    let t = l.tile();
    let sane = shape.iter().all(|&x| x >= 1);
    let outcome = match group(t, &shape) {
        Ok(g) => {
            if sane && !groupable(t, &shape) {
                return fail(format!("grouped {t} by {shape:?} but Lemma B.1 says no"));
            }
            check_grouped(t, &g.layout, &g.seps, &shape)?;
            Planned
        }
        Err(e) => match prod(&shape) {
            Some(p) if sane && p == t.size() && groupable(t, &shape) => {
                return fail(format!("{t} by {shape:?} is groupable by Lemma B.1 but group refused: {e}"));
            }
            Some(p) if sane && p == t.size() && !e.message.contains("dimension") => {
                return fail(format!("refusal does not name a dimension: {e}"));
            }
            Some(p) if sane && p != t.size() && !e.message.contains(&format!("{p} elements")) => {
                return fail(format!("wrong element count {p} not named: {e}"));
            }
            _ => Refused,
        },
    };
    if let Some(shape2) = d.ints("shape2") {
        if let Ok(g) = group_many(t, &[&shape, &shape2]) {
            if g.seps.len() != 2 {
                return fail(format!("group_many gave {} boundary lists for 2 shapes", g.seps.len()));
            }
            check_grouped(t, &g.layout, &g.seps[0], &shape)?;
            check_grouped(t, &g.layout, &g.seps[1], &shape2)?;
        }
    }
    Ok(outcome)
}
