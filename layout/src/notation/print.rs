//! Canonical printing with `pretty`: one document per layout, rendered on one line for `Display` and broken at a
//! width by `to_pretty`. Both renderings parse back to the identical structure.

use crate::axis::Axis;
use crate::iter::Iter;
use crate::layout::{ComposeLayout, Layout};
use crate::tile_layout::TileLayout;
use pretty::RcDoc;
use std::fmt;

/// Indentation of a broken line.
const INDENT: isize = 2;

/// `n` on `m`, `n@axis` elsewhere.
fn on_axis(value: impl fmt::Display, axis: Axis) -> String {
    if axis == Axis::M {
        value.to_string()
    } else {
        format!("{value}@{axis}")
    }
}

/// `(a,b,c)` with soft breaks after the commas.
fn tuple(items: Vec<String>) -> RcDoc<'static> {
    RcDoc::text("(")
        .append(RcDoc::intersperse(items.into_iter().map(RcDoc::text), RcDoc::text(",").append(RcDoc::line_())))
        .nest(INDENT)
        .append(RcDoc::text(")"))
        .group()
}

/// The inside of `S[...]`/`R[...]`: empty, `e:s` for one iter, `(e,...):(s,...)` otherwise.
fn iters_doc(iters: &[Iter]) -> RcDoc<'static> {
    match iters {
        [] => RcDoc::nil(),
        [it] => RcDoc::text(format!("{}:{}", it.extent, on_axis(it.stride, it.axis))),
        _ => tuple(iters.iter().map(|i| i.extent.to_string()).collect())
            .append(RcDoc::text(":"))
            .append(tuple(iters.iter().map(|i| on_axis(i.stride, i.axis)).collect())),
    }
}

fn bracketed(tag: &'static str, iters: &[Iter]) -> RcDoc<'static> {
    RcDoc::text(tag).append(RcDoc::text("[")).append(iters_doc(iters)).append(RcDoc::text("]"))
}

/// `S[...] + R[...] + n@a - k@b`: the shard always, the replica when non-empty (in stored order), then every
/// stored offset (zeros included) in axis-name order.
fn tile_doc(t: &TileLayout) -> RcDoc<'static> {
    let mut parts = vec![bracketed("S", t.shard())];
    if !t.replica().is_empty() {
        parts.push(RcDoc::text("+ ").append(bracketed("R", t.replica())));
    }
    for (axis, value) in t.offset() {
        let sign = if *value < 0 { "- " } else { "+ " };
        let magnitude = value.unsigned_abs();
        parts.push(RcDoc::text(sign).append(RcDoc::text(on_axis(magnitude, *axis))));
    }
    RcDoc::intersperse(parts, RcDoc::line()).nest(INDENT).group()
}

fn compose_doc(c: &ComposeLayout) -> RcDoc<'static> {
    let sw = RcDoc::text(c.swizzle().to_string());
    if c.is_bare() {
        return sw;
    }
    sw.append(RcDoc::line()).append(RcDoc::text("o ")).append(tile_doc(c.tile())).nest(INDENT).group()
}

fn layout_doc(l: &Layout) -> RcDoc<'static> {
    match l {
        Layout::Tile(t) => tile_doc(t),
        Layout::Compose(c) => compose_doc(c),
    }
}

fn render(doc: RcDoc<'static>, width: usize) -> String {
    let mut out = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = doc.render(width, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// One-line canonical text (`Display`).
fn one_line(doc: RcDoc<'static>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    f.write_str(&render(doc, usize::MAX))
}

impl Layout {
    /// The canonical text broken into lines of at most `width` columns where possible (it parses back to the same
    /// layout; `Display` is the same text on one line).
    pub fn to_pretty(&self, width: usize) -> String {
        render(layout_doc(self), width)
    }
}

impl TileLayout {
    /// The canonical text broken into lines of at most `width` columns where possible.
    pub fn to_pretty(&self, width: usize) -> String {
        render(tile_doc(self), width)
    }
}

impl ComposeLayout {
    /// The canonical text broken into lines of at most `width` columns where possible.
    pub fn to_pretty(&self, width: usize) -> String {
        render(compose_doc(self), width)
    }
}

impl fmt::Display for Iter {
    /// `extent:stride@axis` (`@m` elided), as inside `S[...]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.extent, on_axis(self.stride, self.axis))
    }
}

impl fmt::Display for TileLayout {
    /// The canonical one-line text, e.g. `S[(8,2):(4@laneid,1)] + R[2:4@warpid] + 5@warpid`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        one_line(tile_doc(self), f)
    }
}

impl fmt::Display for ComposeLayout {
    /// `Swizzle(M,B,S) o <tile>`, or a bare `Swizzle(M,B,S)` over the identity tile of its period.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        one_line(compose_doc(self), f)
    }
}

impl fmt::Display for Layout {
    /// The canonical one-line text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        one_line(layout_doc(self), f)
    }
}
