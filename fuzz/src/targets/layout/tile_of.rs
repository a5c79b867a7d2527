//! The `layout-tile-of` target: every answer of `outer_of`/`inner_of` re-tiles to the given layout, and both
//! succeed on a layout built by `tile`.

use super::tile::check_interleaved;
use super::{base_tile, doc, fail, layout_field, prod, regression, resized, resized_layout, Doc};
use crate::driver::Outcome::{self, Planned, Refused};
use crate::driver::Rng;
use crate::gen_layout::{self, Knobs};
use crate::targets::reference;
use axe_layout::notation::{parse_layout, parse_tile_layout};
use axe_layout::Layout;
use rand::seq::IndexedRandom;
use rand::RngExt;

pub(super) fn gen_tile_of(rng: &mut Rng) -> String {
    if let Some(s) = regression(rng, "layout-tile-of") {
        return s;
    }
    let a_text = gen_layout::tame_layout(rng, Knobs::SMALL);
    let a = parse_layout(&a_text).ok();
    let memory_only = a.as_ref().is_some_and(|l| l.swizzle().is_some());
    let b_text = gen_layout::tame_layout(rng, Knobs { memory_only, ..Knobs::SMALL });
    let b = parse_tile_layout(&b_text).ok();
    let (Some(a), Some(b)) = (a, b) else {
        return doc(&[("tiled", a_text), ("tiled_shape", "4".into()), ("inner", b_text), ("inner_shape", "4".into())]);
    };
    let rank = rng.random_range(1..=3);
    let cut = |rng: &mut Rng, l: &Layout| -> Vec<i64> {
        let mut s = gen_layout::shape_for(rng, Some(l));
        s.truncate(rank);
        while s.len() < rank {
            s.push(1);
        }
        s
    };
    let (is, os) = (cut(rng, &a), cut(rng, &Layout::Tile(b.clone())));
    let tiled_shape: Vec<i64> = is.iter().zip(&os).map(|(i, o)| i.saturating_mul(*o)).collect();
    let mut fields = match axe_layout::tile::tile(&a, &b, &is, &os) {
        Ok(t) if rng.random_range(0..4) != 0 => vec![("tiled", t.to_string()), ("expect", "recover".to_string())],
        _ => vec![("tiled", layout_field(rng, Knobs { max_size: 64, ..Knobs::GENERAL }))],
    };
    let tiled = fields.first().and_then(|(_, t)| parse_layout(t).ok());
    let tiled_shape = match (&tiled, fields.len()) {
        (_, 2) => tiled_shape,
        (Some(t), _) => gen_layout::shape_for(rng, Some(t)),
        (None, _) => tiled_shape,
    };
    // For a non-tile, cut the inner/outer factors out of its own shape.
    let (is, os) = if fields.len() == 2 {
        (is, os)
    } else {
        let part: Vec<i64> = tiled_shape
            .iter()
            .map(|&e| {
                let divs: Vec<i64> = (1..=e.clamp(1, 64)).filter(|k| e % k == 0).collect();
                divs.choose(rng).copied().unwrap_or(1)
            })
            .collect();
        let other: Vec<i64> = tiled_shape.iter().zip(&part).map(|(t, p)| if *p == 0 { 0 } else { t / p }).collect();
        (part, other)
    };
    let a_sized = if fields.len() == 2 { Some(a) } else { prod(&is).and_then(|n| resized_layout(&a, n)) };
    let b_sized = if fields.len() == 2 { Some(b) } else { prod(&os).and_then(|n| resized(&b, n)) };
    fields.extend([
        ("tiled_shape", gen_layout::list_text(&tiled_shape)),
        ("inner", a_sized.map_or(a_text, |a| a.to_string())),
        ("inner_shape", gen_layout::list_text(&is)),
        ("outer", b_sized.map_or(b_text, |b| b.to_string())),
        ("outer_shape", gen_layout::list_text(&os)),
    ]);
    doc(&fields)
}

/// Planned: `outer_of` or `inner_of` answers; refused: both refuse, or a field does not parse.
pub(super) fn check_tile_of(text: &str) -> Result<Outcome, String> {
    let d = Doc::parse(text);
    let Some(t) = d.layout("tiled") else { return Ok(Refused) };
    let Some(ts) = d.ints("tiled_shape") else { return Ok(Refused) };
    let mut outcome = Refused;
    let recover = d.get("expect") == Some("recover");
    let quotient = |part: &[i64]| -> Option<Vec<i64>> {
        (part.len() == ts.len() && part.iter().all(|&p| p > 0))
            .then(|| ts.iter().zip(part).map(|(t, p)| t / p).collect())
    };
    if let (Some(a), Some(is)) = (d.layout("inner"), d.ints("inner_shape")) {
        match axe_layout::tile_of::outer_of(&t, &a, &ts, &is) {
            Ok(b) => {
                outcome = Planned;
                let Some(os) = quotient(&is) else { return fail(format!("outer_of answered for a bad shape: {b}")) };
                if let Some(base) = base_tile(&a, &is) {
                    let scale = reference::spans(&base);
                    check_interleaved(&t, &base, &b, a.swizzle(), &is, &os, &scale)
                        .map_err(|e| format!("outer_of's answer {b} does not re-tile: {e}"))?;
                }
            }
            Err(e) if recover => return fail(format!("outer_of refused a tile of {a}: {e}")),
            Err(_) => {}
        }
    }
    if let (Some(b), Some(os)) = (d.tile("outer"), d.ints("outer_shape")) {
        match axe_layout::tile_of::inner_of(&t, &b, &ts, &os) {
            Ok(a) => {
                outcome = Planned;
                let Some(is) = quotient(&os) else { return fail(format!("inner_of answered for a bad shape: {a}")) };
                if let Some(base) = base_tile(&a, &is) {
                    let scale = reference::spans(&base);
                    check_interleaved(&t, &base, &b, a.swizzle(), &is, &os, &scale)
                        .map_err(|e| format!("inner_of's answer {a} does not re-tile: {e}"))?;
                }
            }
            Err(e) if recover => return fail(format!("inner_of refused a tile by {b}: {e}")),
            Err(_) => {}
        }
    }
    Ok(outcome)
}
