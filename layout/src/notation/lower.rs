//! From the syntax tree to checked layouts, and from lalrpop's errors to [`LayoutError`]s with a column.

use super::ast::*;
use crate::arith::{add, mul};
use crate::axis::Axis;
use crate::error::{LayoutError, Result};
use crate::iter::Iter;
use crate::layout::{ComposeLayout, Layout};
use crate::swizzle::Swizzle;
use crate::tile_layout::TileLayout;
use lalrpop_util::lexer::Token;
use lalrpop_util::ParseError;
use std::collections::BTreeMap;

/// Re-anchors a column-less error at `pos`.
fn at(pos: usize, e: LayoutError) -> LayoutError {
    match e.column {
        Some(_) => e,
        None => LayoutError::at(pos, e.message),
    }
}

/// The value of an integer literal, or an error at its column if it does not fit in 64 bits.
pub fn number(n: &Num<'_>) -> Result<i64> {
    let magnitude: i64 = n.digits.parse().map_err(|_| {
        LayoutError::at(n.pos, format!("number {}{} is too large", if n.negative { "-" } else { "" }, n.digits))
    })?;
    Ok(if n.negative { -magnitude } else { magnitude })
}

fn axis(name: &Option<Spanned<'_>>) -> Result<Axis> {
    match name {
        None => Ok(Axis::M),
        Some(s) => Axis::named(s.text).map_err(|e| at(s.pos, e)),
    }
}

fn iters(ast: &ItersAst<'_>, what: &str) -> Result<Vec<Iter>> {
    let Some(extents) = &ast.extents else { return Ok(Vec::new()) };
    let mut values = Vec::with_capacity(extents.items.len());
    for e in &extents.items {
        let v = number(e)?;
        if v < 1 {
            return Err(LayoutError::at(e.pos, format!("{what} extent must be at least 1, got {v}")));
        }
        values.push(v);
    }
    match &ast.strides {
        None => {
            // Extents only: row-major on m.
            let mut out = Vec::with_capacity(values.len());
            let mut stride = 1i64;
            for (e, ast) in values.iter().zip(&extents.items).rev() {
                out.push(Iter::m(*e, stride).map_err(|err| at(ast.pos, err))?);
                stride = mul(stride, *e, "row-major strides").map_err(|err| at(ast.pos, err))?;
            }
            out.reverse();
            Ok(out)
        }
        Some(strides) => {
            if strides.items.len() != values.len() {
                return Err(LayoutError::at(
                    strides.pos,
                    format!(
                        "{what} has {} extent{} but {} stride{}",
                        values.len(),
                        if values.len() == 1 { "" } else { "s" },
                        strides.items.len(),
                        if strides.items.len() == 1 { "" } else { "s" }
                    ),
                ));
            }
            let mut out = Vec::with_capacity(values.len());
            for ((e, e_ast), s) in values.iter().zip(&extents.items).zip(&strides.items) {
                let stride = number(&s.value)?;
                let a = axis(&s.axis)?;
                out.push(Iter::new(*e, stride, a).map_err(|err| at(e_ast.pos, err))?);
            }
            Ok(out)
        }
    }
}

/// Builds a checked tile layout.
pub fn tile(ast: &TileAst<'_>) -> Result<TileLayout> {
    let mut shard: Option<Vec<Iter>> = None;
    let mut replica = Vec::new();
    let mut offset: BTreeMap<Axis, i64> = BTreeMap::new();
    for (sep, term) in &ast.terms {
        let negate = match (sep, term) {
            (Sep::Minus(p), TermAst::Shard(..) | TermAst::Replica(..)) => {
                return Err(LayoutError::at(*p, "only an offset can follow '-' (write '- n@axis')"));
            }
            (Sep::Minus(_), _) => true,
            (Sep::Plus, _) => false,
        };
        match term {
            TermAst::Shard(p, body) => {
                if shard.is_some() {
                    return Err(LayoutError::at(*p, "a layout has one shard S[...], found a second one"));
                }
                shard = Some(iters(body, "a shard iter")?);
            }
            TermAst::Replica(body) => replica.extend(iters(body, "a replica iter")?),
            TermAst::Offset(o) => {
                let mut v = number(&o.value)?;
                if negate {
                    v = v.checked_neg().ok_or_else(|| LayoutError::at(o.value.pos, "offset is too large"))?;
                }
                let a = axis(&o.axis)?;
                let slot = offset.entry(a).or_insert(0);
                *slot = add(*slot, v, &format!("the offset on {a}")).map_err(|e| at(o.value.pos, e))?;
            }
        }
    }
    TileLayout::new(shard.unwrap_or_default(), replica, offset).map_err(|e| at(ast.pos, e))
}

fn swizzle(ast: &SwizzleAst<'_>) -> Result<Swizzle> {
    let mut params = [0u32; 3];
    for (slot, n) in params.iter_mut().zip([&ast.m, &ast.b, &ast.s]) {
        let v = number(n)?;
        *slot = u32::try_from(v).ok().filter(|v| *v <= 64).ok_or_else(|| {
            LayoutError::at(n.pos, format!("a swizzle parameter must be an integer in 0..=64, got {v}"))
        })?;
    }
    Swizzle::new(params[0], params[1], params[2]).map_err(|e| at(ast.pos, e))
}

/// Builds a checked layout.
pub fn layout(ast: &LayoutAst<'_>) -> Result<Layout> {
    match ast {
        LayoutAst::Tile(t) => Ok(Layout::Tile(tile(t)?)),
        LayoutAst::Bare(s) => Ok(Layout::Compose(ComposeLayout::bare(swizzle(s)?))),
        LayoutAst::Compose(s, t) => {
            let sw = swizzle(s)?;
            let tl = tile(t)?;
            Ok(Layout::Compose(ComposeLayout::new(sw, tl).map_err(|e| at(t.pos, e))?))
        }
    }
}

/// A person's name for a token lalrpop expected.
fn expected_name(raw: &str) -> String {
    match raw {
        "NUM" => "a number".to_owned(),
        "IDENT" => "an axis name".to_owned(),
        _ => {
            let inner = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')).unwrap_or(raw);
            format!("'{}'", inner.replace("\\\"", "\""))
        }
    }
}

fn expected_list(expected: &[String]) -> String {
    // Where an axis name may come, the keywords are axis names too: do not list them separately.
    let axis_expected = expected.iter().any(|e| e == "IDENT");
    let keyword = |e: &str| ["\"S\"", "\"R\"", "\"o\"", "\"Swizzle\""].contains(&e);
    let mut names: Vec<String> =
        expected.iter().filter(|e| !(axis_expected && keyword(e))).map(|e| expected_name(e)).collect();
    names.sort();
    names.dedup();
    match names.len() {
        0 => String::new(),
        1 => format!(", expected {}", names[0]),
        n => format!(", expected one of {} or {}", names[..n - 1].join(", "), names[n - 1]),
    }
}

fn shown(text: &str) -> String {
    let mut s: String = text.chars().take(24).collect();
    if s.len() < text.len() {
        s.push_str("...");
    }
    format!("'{}'", s.escape_debug())
}

/// Converts a lalrpop parse error into a [`LayoutError`] at the offending column.
pub fn parse_error(input: &str, e: ParseError<usize, Token<'_>, &'static str>) -> LayoutError {
    match e {
        ParseError::InvalidToken { location } => {
            let c = input.get(location..).and_then(|r| r.chars().next()).unwrap_or('?');
            LayoutError::at(location, format!("unexpected character '{}'", c.escape_debug()))
        }
        ParseError::UnrecognizedEof { location, expected } => {
            LayoutError::at(location.min(input.len()), format!("unexpected end of input{}", expected_list(&expected)))
        }
        ParseError::UnrecognizedToken { token: (l, t, _), expected } => {
            LayoutError::at(l, format!("unexpected {}{}", shown(t.1), expected_list(&expected)))
        }
        ParseError::ExtraToken { token: (l, t, _) } => {
            LayoutError::at(l, format!("unexpected {} after the end of the layout", shown(t.1)))
        }
        ParseError::User { error } => LayoutError::at(0, error),
    }
}
