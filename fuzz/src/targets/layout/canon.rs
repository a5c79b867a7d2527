//! The `layout-canon` target: `canonicalize` keeps the induced map, is idempotent, keeps the swizzle, reaches
//! the normal form (D0, D1, C0, C1, C2, sorted replica) and sets the gap-condition flag as defined;
//! `equivalent(L, canon(L))`, and under GC equal map keys.

use super::{fail, layout_field, regression, round_trip, same_map};
use crate::driver::Outcome::{self, Planned, Refused};
use crate::driver::Rng;
use crate::gen_layout::{self, Knobs};
use axe_layout::canonicalize::{canonicalize, equivalent, map_key};
use axe_layout::notation::parse_layout;
use axe_layout::{Iter, Layout, TileLayout};
use rand::RngExt;
use std::collections::BTreeMap;

pub(super) fn gen_canon(rng: &mut Rng) -> String {
    if let Some(s) = regression(rng, "layout-canon") {
        return s;
    }
    match rng.random_range(0..10) {
        0..=1 => gen_layout::tame_layout(rng, Knobs::TINY),
        2 => gen_layout::wild_layout(rng),
        _ => layout_field(rng, Knobs::GENERAL),
    }
}

/// The normal form of `prop_canonicalize.rs`: D0, D1, no zero offsets, C0, C1, C2 done, replica sorted.
fn check_normal(t: &TileLayout) -> Result<(), String> {
    let d = t.shard();
    if !(d.len() == 1 || d.iter().all(|i| i.extent > 1)) {
        return fail(format!("D0 left a unit iter: {t}"));
    }
    for w in d.windows(2) {
        if w[0].axis == w[1].axis && Some(w[0].stride) == w[1].extent.checked_mul(w[1].stride) {
            return fail(format!("D1 pair left: {t}"));
        }
    }
    if t.offset().values().any(|v| *v == 0) {
        return fail(format!("zero offset left: {t}"));
    }
    let r = t.replica();
    if !r.iter().all(|i| i.extent > 1 && i.stride > 0) {
        return fail(format!("C0/C1 left an iter: {t}"));
    }
    let absorbable = |f: &Iter, c: &Iter| {
        f.axis == c.axis && c.stride % f.stride == 0 && (1..=f.extent).contains(&(c.stride / f.stride))
    };
    for (i, a) in r.iter().enumerate() {
        for b in &r[i + 1..] {
            if absorbable(a, b) || absorbable(b, a) {
                return fail(format!("C2 pair left: {t}"));
            }
        }
    }
    let keys: Vec<_> = r.iter().map(|i| (i.axis, i.stride, i.extent)).collect();
    if !keys.windows(2).all(|w| w[0] <= w[1]) {
        return fail(format!("replica not sorted: {t}"));
    }
    Ok(())
}

/// GC from its definition: per axis, by increasing stride, each stride exceeds the reach below it.
fn ref_gap_condition(t: &TileLayout) -> bool {
    let mut by_axis: BTreeMap<&str, Vec<(i128, i128)>> = BTreeMap::new();
    for it in t.replica() {
        by_axis.entry(it.axis.name()).or_default().push((it.stride as i128, it.extent as i128));
    }
    by_axis.values_mut().all(|v| {
        v.sort();
        let mut reach = 0i128;
        v.iter().all(|&(s, e)| {
            let ok = s > reach;
            reach += (e - 1) * s;
            ok
        })
    })
}

/// Planned: the text parses (canonicalize is total); refused: it does not.
pub(super) fn check_canon(text: &str) -> Result<Outcome, String> {
    let Ok(l) = parse_layout(text) else { return Ok(Refused) };
    let c = canonicalize(&l);
    if canonicalize(&c.layout) != c {
        return fail(format!("not idempotent: {l} -> {} -> {}", c.layout, canonicalize(&c.layout).layout));
    }
    if c.layout.swizzle() != l.swizzle() {
        return fail(format!("swizzle changed: {l} -> {}", c.layout));
    }
    if let Some(r) = same_map(&l, &c.layout) {
        r.map_err(|e| format!("canonical form changes the map: {l} -> {}: {e}", c.layout))?;
    }
    // The documented exception: when C1 would push an offset beyond 2^48 the input comes back unchanged.
    let unchanged = c.layout == l && !c.gap_condition;
    if !unchanged {
        check_normal(c.layout.tile())?;
        if c.gap_condition != ref_gap_condition(c.layout.tile()) {
            return fail(format!("gap_condition {} for {} disagrees with the definition", c.gap_condition, c.layout));
        }
    }
    round_trip(&c.layout)?;
    if let Ok(false) = equivalent(&l, &c.layout, &[l.size()]) {
        return fail(format!("equivalent(L, canonical(L)) is false: {l} vs {}", c.layout));
    }
    if let (Layout::Tile(t), true) = (&l, c.gap_condition) {
        if map_key(t) != map_key(c.layout.tile()) {
            return fail(format!("under GC the map keys of {l} and its canonical form differ"));
        }
    }
    Ok(Planned)
}
