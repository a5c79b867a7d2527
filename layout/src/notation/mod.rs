//! The layout text notation (semantics.md, "Text notation"): a lalrpop grammar (`grammar.lalrpop`) and a
//! canonical printer built on `pretty`.
//!
//! # Syntax
//!
//! ```text
//! layout  := swizzle 'o' tile | swizzle | tile
//! swizzle := 'Swizzle' '(' M ',' B ',' S ')'
//! tile    := part (('+' | '-') part)*
//! part    := 'S' '[' iters ']' | 'R' '[' iters ']' | n ('@' axis)?
//! iters   := <empty> | extents | extents ':' strides
//! extents := n | '(' n (',' n)* ')' | '()'
//! strides := n ('@' axis)? | '(' n('@' axis)? (',' ...)* ')' | '()'
//! ```
//!
//! - A stride or offset without `@axis` is on the memory axis `m`; `tx` reads as `tid`; an unknown axis is an
//!   error (declare new ones with [`crate::Axis::declare`]).
//! - `S[(4,8)]` (extents only) is row-major on `m`: `S[(4,8):(8,1)]`. The same holds inside `R[...]`.
//! - Offsets are parts of their own: `5@warpid`, `3` (on `m`), `- 2@laneid`. Several offsets on one axis are
//!   summed; an offset of 0 is kept in the structure (canonicalization drops it, the parser does not).
//! - Several `R[...]` parts are concatenated in order; a second `S[...]` is an error. Parts may come in any order.
//! - **Empty shard**: `S[]` (also `S[()]`, `S[():()]`): size 1, the single logical element maps to `O`. A layout
//!   with no `S[...]` part at all (e.g. just `5@warpid`) has an empty shard too. An offset-only layout therefore
//!   prints as `S[] + 5@warpid`, and the empty layout as `S[]`.
//! - A bare `Swizzle(M,B,S)` is the swizzle over the identity tile of its period, `S[2^(M+B+S):1]`.
//! - Whitespace (including newlines) is allowed between any two tokens.
//!
//! # Canonical text
//!
//! [`std::fmt::Display`] prints one line: the shard first (always, `S[]` when empty), then ` + R[...]` when the
//! replica is non-empty, with its iters in their stored order, then every stored offset (zeros included) sorted by
//! axis name as ` + n@axis` or ` - n@axis` (negative); `@m` is elided, a single iter has no parentheses, there are
//! no spaces inside brackets, and a swizzle is written `Swizzle(M,B,S) o ...` (bare when the tile is the identity
//! over its period). `to_pretty(width)` breaks the same text into lines. In both cases
//! `parse_layout(&l.to_string()) == Ok(l)`, structurally.
//!
//! # Errors
//!
//! Every error carries the 0-based byte column of the offending token ([`LayoutError::column`]): unexpected
//! tokens (with the list of expected ones), numbers that do not fit in 64 bits, unknown axes, extents below 1,
//! extent/stride count mismatches, strides or offsets beyond the supported magnitude.

mod ast;
mod lower;
mod print;

#[allow(missing_docs, clippy::all, clippy::pedantic, unused_qualifications)]
mod grammar {
    include!(concat!(env!("OUT_DIR"), "/grammar.rs"));
}

use crate::error::{LayoutError, Result};
use crate::layout::Layout;
use crate::tile_layout::TileLayout;
use std::str::FromStr;

/// `[8,16]`-style text of a shape, for messages.
pub fn shape_text(shape: &[i64]) -> String {
    format!("[{}]", shape.iter().map(|e| e.to_string()).collect::<Vec<_>>().join(","))
}

thread_local! {
    // A lalrpop parser compiles its lexer's regular expressions when it is made: about 70% of a layout parse when
    // made per call. One per thread, made on first use.
    static LAYOUT_PARSER: grammar::LayoutParser = grammar::LayoutParser::new();
    static TILE_PARSER: grammar::TileParser = grammar::TileParser::new();
}

/// Parses a layout in the notation: a tile layout, `Swizzle(M,B,S) o <tile>`, or a bare `Swizzle(M,B,S)`.
pub fn parse_layout(text: &str) -> Result<Layout> {
    let ast = LAYOUT_PARSER.with(|parser| parser.parse(text)).map_err(|e| lower::parse_error(text, e))?;
    lower::layout(&ast)
}

/// Parses a tile layout (`S[...] + R[...] + offsets`); a swizzle is an error.
pub fn parse_tile_layout(text: &str) -> Result<TileLayout> {
    let ast = TILE_PARSER.with(|parser| parser.parse(text)).map_err(|e| lower::parse_error(text, e))?;
    lower::tile(&ast)
}

impl FromStr for Layout {
    type Err = LayoutError;

    /// Same as [`parse_layout`].
    fn from_str(s: &str) -> Result<Layout> {
        parse_layout(s)
    }
}

impl FromStr for TileLayout {
    type Err = LayoutError;

    /// Same as [`parse_tile_layout`].
    fn from_str(s: &str) -> Result<TileLayout> {
        parse_tile_layout(s)
    }
}

/// Splits `text` on commas, tolerating whitespace and one pair of surrounding `[]` or `()`; yields each item's
/// trimmed text and byte column. An empty list (`""`, `[]`) yields nothing.
fn comma_items(text: &str) -> Vec<(usize, &str)> {
    let lead = text.len() - text.trim_start().len();
    let mut body = text.trim();
    let mut base = lead;
    for (open, close) in [('[', ']'), ('(', ')')] {
        if let Some(inner) = body.strip_prefix(open).and_then(|b| b.strip_suffix(close)) {
            body = inner;
            base += open.len_utf8();
            break;
        }
    }
    if body.trim().is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut start = 0;
    for piece in body.split(',') {
        let lead = piece.len() - piece.trim_start().len();
        out.push((base + start + lead, piece.trim()));
        start += piece.len() + 1;
    }
    out
}

fn int_at(col: usize, item: &str, what: &str) -> Result<i64> {
    if item.is_empty() {
        return Err(LayoutError::at(col, format!("expected {what}, found nothing")));
    }
    item.parse::<i64>().map_err(|_| {
        let digits = item.strip_prefix('-').unwrap_or(item);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            LayoutError::at(col, format!("number {item} is too large"))
        } else {
            LayoutError::at(col, format!("expected {what}, found '{}'", item.escape_debug()))
        }
    })
}

/// Parses a shape such as `8,16` (also `[8,16]`, `(8, 16)`): every dimension at least 1. An empty text is the
/// rank-0 shape.
pub fn parse_shape(text: &str) -> Result<Vec<i64>> {
    comma_items(text)
        .into_iter()
        .map(|(col, item)| {
            let v = int_at(col, item, "a dimension")?;
            if v < 1 {
                return Err(LayoutError::at(col, format!("a shape dimension must be at least 1, got {v}")));
            }
            Ok(v)
        })
        .collect()
}

/// Parses a logical coordinate such as `7,15` (components may be any integers; range checks are the caller's).
pub fn parse_coord(text: &str) -> Result<Vec<i64>> {
    comma_items(text).into_iter().map(|(col, item)| int_at(col, item, "a coordinate")).collect()
}

/// Parses a region such as `2:3,6:10`: one half-open `begin:end` per dimension, `0 <= begin < end`.
pub fn parse_region(text: &str) -> Result<Vec<(i64, i64)>> {
    comma_items(text)
        .into_iter()
        .map(|(col, item)| {
            let Some((b, e)) = item.split_once(':') else {
                return Err(LayoutError::at(col, format!("expected begin:end, found '{}'", item.escape_debug())));
            };
            let b_col = col;
            let e_col = col + b.len() + 1 + (e.len() - e.trim_start().len());
            let begin = int_at(b_col, b.trim(), "a region begin")?;
            let end = int_at(e_col, e.trim(), "a region end")?;
            if begin < 0 || end <= begin {
                return Err(LayoutError::at(
                    col,
                    format!("a region dimension needs 0 <= begin < end, got {begin}:{end}"),
                ));
            }
            Ok((begin, end))
        })
        .collect()
}

#[cfg(test)]
mod tests;
