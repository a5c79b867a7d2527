//! The `layout-tile` and `layout-direct-sum` targets: the defining equation at every index (sampled for large
//! layouts), through the interleaving check both share ([`check_interleaved`], also used by `tile_of.rs`); ranks
//! must agree.

use super::{base_tile, doc, fail, layout_field, prod, regression, Doc};
use crate::driver::Outcome::{self, Planned, Refused};
use crate::driver::Rng;
use crate::gen_layout::{self, Knobs};
use crate::targets::reference::{self, indices, Point, Ref};
use axe_layout::group::group;
use axe_layout::notation::{parse_layout, parse_tile_layout};
use axe_layout::{Layout, TileLayout};
use rand::RngExt;
use std::collections::BTreeSet;

/// Shapes of one rank for two layouts (groupable mostly), as `(a_shape, b_shape)`.
fn paired_shapes(rng: &mut Rng, a: Option<&Layout>, b: Option<&Layout>) -> (Vec<i64>, Vec<i64>) {
    let mut sa = gen_layout::shape_for(rng, a);
    let mut sb = gen_layout::shape_for(rng, b);
    if rng.random_range(0..8) != 0 {
        // Same rank: pad the shorter with unit dims.
        while sa.len() < sb.len() {
            sa.insert(rng.random_range(0..=sa.len()), 1);
        }
        while sb.len() < sa.len() {
            sb.insert(rng.random_range(0..=sb.len()), 1);
        }
    }
    (sa, sb)
}

/// The tiling equation at every visited index: `t(X) = swz(span(A) (.) B(x_o) + A(x_i))` over the interleaved
/// shape `X = x_o * inner + x_i`, where `scale` is span(A) for tiling and all ones for the direct sum.
pub(super) fn check_interleaved(
    t: &Layout,
    a: &TileLayout,
    b: &TileLayout,
    swizzle: Option<axe_layout::Swizzle>,
    inner: &[i64],
    outer: &[i64],
    scale: &Point,
) -> Result<(), String> {
    let shape: Vec<i64> = outer.iter().zip(inner).map(|(o, i)| o.saturating_mul(*i)).collect();
    let (Some(rt), Some(ra), Some(rb)) = (Ref::new(t), Ref::with_swizzle(a, None), Ref::with_swizzle(b, None)) else {
        return Ok(());
    };
    let total = prod(&shape).unwrap_or(i64::MAX);
    if rt.size != total {
        return fail(format!("result {t} has {} elements, the tiled shape {shape:?} has {total}", rt.size));
    }
    for flat in indices(total) {
        let x = reference::coord_of(&shape, flat);
        let xo: Vec<i64> = x.iter().zip(inner).map(|(c, i)| c / i).collect();
        let xi: Vec<i64> = x.iter().zip(inner).map(|(c, i)| c % i).collect();
        let (pb, pa) = (rb.eval(reference::flat_of(outer, &xo)), ra.eval(reference::flat_of(inner, &xi)));
        let want: BTreeSet<Point> = pb
            .iter()
            .flat_map(|q| {
                pa.iter().map(move |p| reference::finish(swizzle, reference::add(&reference::hadamard(scale, q), p)))
            })
            .collect();
        let got = rt.eval(flat);
        if got != want {
            return fail(format!("at {x:?}: {t} gives {got:?}, the equation gives {want:?}"));
        }
    }
    Ok(())
}

pub(super) fn gen_tile(rng: &mut Rng) -> String {
    if let Some(s) = regression(rng, "layout-tile") {
        return s;
    }
    let inner_text = layout_field(rng, Knobs::SMALL);
    let inner = parse_layout(&inner_text).ok();
    let memory_only = inner.as_ref().is_some_and(|l| l.swizzle().is_some());
    let outer_text = layout_field(rng, Knobs { memory_only, ..Knobs::SMALL });
    let outer = parse_tile_layout(&outer_text).ok().map(Layout::Tile);
    let (mut is, os) = paired_shapes(rng, inner.as_ref(), outer.as_ref());
    if matches!(&inner, Some(Layout::Compose(c)) if c.is_bare()) && rng.random_bool(0.5) {
        is = (0..os.len()).map(|_| rng.random_range(1..=4)).collect();
    }
    doc(&[
        ("inner", inner_text),
        ("outer", outer_text),
        ("inner_shape", gen_layout::list_text(&is)),
        ("outer_shape", gen_layout::list_text(&os)),
    ])
}

/// Planned: `tile` answers; refused: it refuses, or a field does not parse.
pub(super) fn check_tile(text: &str) -> Result<Outcome, String> {
    let d = Doc::parse(text);
    let (Some(inner), Some(outer), Some(is), Some(os)) =
        (d.layout("inner"), d.tile("outer"), d.ints("inner_shape"), d.ints("outer_shape"))
    else {
        return Ok(Refused);
    };
    match axe_layout::tile::tile(&inner, &outer, &is, &os) {
        Ok(t) => {
            if t.swizzle() != inner.swizzle() {
                return fail(format!("tile changed the swizzle: {inner} x {outer} -> {t}"));
            }
            let shape: Vec<i64> = os.iter().zip(&is).map(|(o, i)| o.saturating_mul(*i)).collect();
            if let Err(e) = group(t.tile(), &shape) {
                return fail(format!("{t} is not grouped by the tiled shape {shape:?}: {e}"));
            }
            let Some(base) = base_tile(&inner, &is) else { return Ok(Planned) };
            let scale = reference::spans(&base);
            check_interleaved(&t, &base, &outer, inner.swizzle(), &is, &os, &scale)?;
            Ok(Planned)
        }
        Err(e) => {
            if is.len() != os.len()
                && inner.admits(&is).is_ok()
                && outer.admits(&os).is_ok()
                && !e.message.contains("equal rank")
            {
                return fail(format!("rank mismatch refused without saying so: {e}"));
            }
            Ok(Refused)
        }
    }
}

pub(super) fn gen_direct_sum(rng: &mut Rng) -> String {
    if let Some(s) = regression(rng, "layout-direct-sum") {
        return s;
    }
    let right_text = layout_field(rng, Knobs::SMALL);
    let right = parse_layout(&right_text).ok();
    let memory_only = right.as_ref().is_some_and(|l| l.swizzle().is_some());
    let left_text = layout_field(rng, Knobs { memory_only, ..Knobs::SMALL });
    let left = parse_tile_layout(&left_text).ok().map(Layout::Tile);
    let (ls, rs) = paired_shapes(rng, left.as_ref(), right.as_ref());
    doc(&[
        ("left", left_text),
        ("right", right_text),
        ("left_shape", gen_layout::list_text(&ls)),
        ("right_shape", gen_layout::list_text(&rs)),
    ])
}

/// Planned: `direct_sum` answers; refused: it refuses, or a field does not parse.
pub(super) fn check_direct_sum(text: &str) -> Result<Outcome, String> {
    let d = Doc::parse(text);
    let (Some(left), Some(right), Some(ls), Some(rs)) =
        (d.tile("left"), d.layout("right"), d.ints("left_shape"), d.ints("right_shape"))
    else {
        return Ok(Refused);
    };
    let Ok(sum) = axe_layout::direct_sum::direct_sum(&left, &right, &ls, &rs) else { return Ok(Refused) };
    if sum.swizzle() != right.swizzle() {
        return fail(format!("direct sum changed the swizzle: {left} + {right} -> {sum}"));
    }
    let Some(base) = base_tile(&right, &rs) else { return Ok(Planned) };
    // L(x_A * right_shape + x_B) = A(x_A) + B(x_B): the "outer" is the left addend, unscaled.
    check_interleaved(&sum, &base, &left, right.swizzle(), &rs, &ls, &Point::new())?;
    Ok(Planned)
}
