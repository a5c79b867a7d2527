//! The `layout-parse` target: `parse(print(L)) == L` and the print is one line and stable; tile layouts also
//! round-trip through `to_pretty(width)`; every error of `parse_layout`, `parse_tile_layout`, `parse_shape` and
//! `parse_region` carries a column inside the input, on a character boundary, with a message.

use super::{fail, layout_field, regression, round_trip};
use crate::driver::Outcome::{self, Planned, Refused};
use crate::driver::Rng;
use crate::gen_layout::{self, Knobs};
use crate::mutate;
use axe_layout::notation::{parse_coord, parse_layout, parse_region, parse_shape, parse_tile_layout};
use axe_layout::{Layout, LayoutError};
use rand::seq::IndexedRandom;
use rand::RngExt;

/// Characters the notation uses, plus some it does not (as in `prop_notation.rs`).
const ALPHABET: &[char] = &[
    'S', 'R', '[', ']', '(', ')', ':', ',', '@', '+', '-', ' ', '\n', '0', '1', '2', '8', '9', 'o', 'l', 'a', 'n', 'e',
    'i', 'd', 'm', 'w', 'r', 'p', 'z', '_', '$', 'é', '∘', '\u{0}', '\t', 'x', 'S', '[', '(',
];

pub(super) fn gen_parse(rng: &mut Rng) -> String {
    if let Some(s) = regression(rng, "layout-parse") {
        return s;
    }
    match rng.random_range(0..10) {
        0..=3 => gen_layout::tame_layout(rng, Knobs::GENERAL),
        4..=5 => gen_layout::wild_layout(rng),
        6 => {
            let base = layout_field(rng, Knobs::GENERAL);
            mutate::mutate(rng, &base, &[])
        }
        7 => (0..rng.random_range(0..40)).map(|_| *ALPHABET.choose(rng).unwrap_or(&'S')).collect(),
        8 => (0..rng.random_range(0..30)).filter_map(|_| char::from_u32(rng.random_range(0..0x3000))).collect(),
        _ => {
            let text = gen_layout::tame_layout(rng, Knobs::GENERAL);
            match parse_layout(&text) {
                Ok(l) => l.to_pretty(rng.random_range(1..120)),
                Err(_) => text,
            }
        }
    }
}

fn check_column(what: &str, text: &str, e: &LayoutError) -> Result<(), String> {
    let Some(col) = e.column else { return fail(format!("{what}: error without a column: {e}")) };
    if col > text.len() {
        return fail(format!("{what}: column {col} beyond the input ({} bytes): {e}", text.len()));
    }
    if !text.is_char_boundary(col) {
        return fail(format!("{what}: column {col} inside a character: {e}"));
    }
    if e.message.is_empty() {
        return fail(format!("{what}: empty error message"));
    }
    Ok(())
}

/// Planned: `parse_layout` reads the text; refused: it does not (with a column, checked).
pub(super) fn check_parse(text: &str) -> Result<Outcome, String> {
    let parsed = parse_layout(text);
    let outcome = if parsed.is_ok() { Planned } else { Refused };
    match &parsed {
        Ok(l) => {
            round_trip(l)?;
            if let Layout::Tile(t) = l {
                // Two widths per input, chosen by the text, keep the cost of a parse target input low.
                let h = crate::driver::fnv1a(text.as_bytes());
                for width in [1 + (h % 40) as usize, 40 + (h >> 8) as usize % 160] {
                    let broken = t.to_pretty(width);
                    match parse_tile_layout(&broken) {
                        Ok(back) if &back == t => {}
                        Ok(back) => {
                            return fail(format!("to_pretty({width}) reads back differently: {broken:?} -> {back}"))
                        }
                        Err(e) => return fail(format!("to_pretty({width}) does not parse: {broken:?}: {e}")),
                    }
                }
            }
        }
        Err(e) => check_column("parse_layout", text, e)?,
    }
    match parse_tile_layout(text) {
        Ok(t) => {
            if parsed.ok() != Some(Layout::Tile(t)) {
                return fail("parse_tile_layout accepts what parse_layout reads differently");
            }
        }
        Err(e) => check_column("parse_tile_layout", text, &e)?,
    }
    if let Err(e) = parse_shape(text) {
        check_column("parse_shape", text, &e)?;
    }
    if let Err(e) = parse_region(text) {
        check_column("parse_region", text, &e)?;
    }
    let _ = parse_coord(text);
    Ok(outcome)
}
