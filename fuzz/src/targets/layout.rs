//! In-process targets over the `axe-layout` crate: the parser, each algebra operation, the evaluator and the
//! TMA planner (with its validator).
//!
//! Inputs are text: the parse and canon targets take a layout as it would be written; the others take a small
//! document of `key: value` lines (`inner: S[...]`, `inner_shape: 2,2`, ...), so a saved failure can be read
//! and edited by hand. Shapes and regions are read permissively (any `i64`, zero and negative included), so the
//! operations meet the edge values themselves rather than the shape parser's refusals.
//!
//! The properties checked are the ones the crate's own tests assert (`layout/tests/prop_*.rs`,
//! `tma_model.rs`), evaluated with the independent reference of [`super::reference`]. One submodule per
//! target, whose doc lists what it checks: `parse`, `canon`, `equivalent`, `group`, `tile` (tile and direct sum,
//! which share the interleaving equation), `tile_of`, `slice`, `eval`, `tma` (the planner against the hardware
//! model) and `tma_validate`. This module holds what they share: the target list, the document reader and
//! writer, the layout field generator, and the checks and constructions more than one target uses (round trip,
//! same map, resizing, the base tile of a bare swizzle).
//!
//! Each check reports the input planned when the operation answers (each check's doc says which operation) and
//! refused when it refuses or a field of the document does not parse.

mod canon;
mod equivalent;
mod eval;
mod group;
mod parse;
mod slice;
mod tile;
mod tile_of;
mod tma;
mod tma_validate;

use super::reference::{indices, Ref};
use crate::driver::{Check, Kind, Limits, Rng, Target};
use crate::gen_layout::{self, Knobs};
use crate::{mutate, seeds};
use axe_layout::notation::{parse_layout, parse_tile_layout};
use axe_layout::{Axis, ComposeLayout, Iter, Layout, TileLayout};
use canon::{check_canon, gen_canon};
use equivalent::{check_equivalent, gen_equivalent};
use eval::{check_eval, gen_eval};
use group::{check_group, gen_group};
use parse::{check_parse, gen_parse};
use rand::seq::IndexedRandom;
use rand::RngExt;
use slice::{check_slice, gen_slice};
use tile::{check_direct_sum, check_tile, gen_direct_sum, gen_tile};
use tile_of::{check_tile_of, gen_tile_of};
use tma::{check_tma, gen_tma};
use tma_validate::{check_validate, gen_validate};

fn target(name: &'static str, about: &'static str, generate: fn(&mut Rng) -> String, check: Check) -> Target {
    Target { name, about, kind: Kind::InProcess, weight: 1, generate, check, limits: Limits::IN_PROCESS }
}

/// The layout targets.
pub fn targets() -> Vec<Target> {
    vec![
        target(
            "layout-parse",
            "parse_layout/parse_tile_layout/shape/region: round trip, error columns",
            gen_parse,
            check_parse,
        ),
        target(
            "layout-canon",
            "canonicalize: same map, idempotent, normal form, GC flag, map key",
            gen_canon,
            check_canon,
        ),
        target(
            "layout-equivalent",
            "equivalent: agrees with enumeration and with rewrites",
            gen_equivalent,
            check_equivalent,
        ),
        target("layout-group", "group/group_many: exact criterion, same map, blocks", gen_group, check_group),
        target("layout-tile", "tile: the defining equation (Theorem C.2)", gen_tile, check_tile),
        target("layout-tile-of", "outer_of/inner_of: answers re-tile, tiles are recovered", gen_tile_of, check_tile_of),
        target("layout-slice", "slice: L'(y) == L(y + begin); whole/point/row always slice", gen_slice, check_slice),
        target("layout-direct-sum", "direct_sum: the defining equation (App. F)", gen_direct_sum, check_direct_sum),
        target("layout-eval", "Evaluator/eval/span: agree with the reference, range errors", gen_eval, check_eval),
        target("layout-tma", "tma::plan: validates, moves the region's bytes, hardware model", gen_tma, check_tma),
        target(
            "layout-tma-validate",
            "tma::validate: exactly the documented driver rules",
            gen_validate,
            check_validate,
        ),
    ]
}

// ----- documents ------------------------------------------------------------------------------------------------

/// A `key: value` document.
struct Doc<'a>(Vec<(&'a str, &'a str)>);

impl<'a> Doc<'a> {
    fn parse(text: &'a str) -> Doc<'a> {
        Doc(text
            .lines()
            .filter_map(|l| l.split_once(':').map(|(k, v)| (k.trim(), v.strip_prefix(' ').unwrap_or(v))))
            .collect())
    }

    fn get(&self, key: &str) -> Option<&'a str> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    fn layout(&self, key: &str) -> Option<Layout> {
        parse_layout(self.get(key)?).ok()
    }

    fn tile(&self, key: &str) -> Option<TileLayout> {
        parse_tile_layout(self.get(key)?).ok()
    }

    fn ints(&self, key: &str) -> Option<Vec<i64>> {
        let text = self.get(key)?.trim();
        if text.is_empty() {
            return Some(Vec::new());
        }
        text.split(',').map(|s| s.trim().parse().ok()).collect()
    }

    fn region(&self, key: &str) -> Option<Vec<(i64, i64)>> {
        let text = self.get(key)?.trim();
        if text.is_empty() {
            return Some(Vec::new());
        }
        text.split(',')
            .map(|s| {
                let (b, e) = s.split_once(':')?;
                Some((b.trim().parse().ok()?, e.trim().parse().ok()?))
            })
            .collect()
    }
}

fn doc(fields: &[(&str, String)]) -> String {
    fields.iter().map(|(k, v)| format!("{k}: {}\n", v.replace('\n', " "))).collect()
}

/// A layout field: mostly tame within `k`, sometimes wild, from the corpus, or mutated.
fn layout_field(rng: &mut Rng, k: Knobs) -> String {
    let corpus = &seeds::corpus().layouts;
    match rng.random_range(0..20) {
        0 if !corpus.is_empty() => corpus.choose(rng).cloned().unwrap_or_default(),
        1 => {
            let base = match corpus.choose(rng) {
                Some(l) if rng.random_bool(0.5) => l.clone(),
                _ => gen_layout::tame_layout(rng, k),
            };
            mutate::mutate(rng, &base, &[])
        }
        2 => gen_layout::wild_layout(rng),
        _ => gen_layout::tame_layout(rng, k),
    }
}

/// A regression seed of `target` (as is or mutated) one time in forty, else `None`.
fn regression(rng: &mut Rng, target: &str) -> Option<String> {
    let seeds = seeds::regressions(target);
    if seeds.is_empty() || rng.random_range(0..40) != 0 {
        return None;
    }
    let s = seeds.choose(rng)?;
    Some(if rng.random_bool(0.5) { s.to_string() } else { mutate::mutate(rng, s, &seeds) })
}

fn prod(shape: &[i64]) -> Option<i64> {
    shape.iter().try_fold(1i64, |a, &d| a.checked_mul(d))
}

fn fail<T>(what: impl Into<String>) -> Result<T, String> {
    Err(what.into())
}

fn round_trip(l: &Layout) -> Result<(), String> {
    let text = l.to_string();
    if text.contains('\n') {
        return fail(format!("printed layout spans lines: {text:?}"));
    }
    let back = parse_layout(&text).map_err(|e| format!("printed layout does not parse: {text}: {e}"))?;
    if &back != l {
        return fail(format!("parse(print(L)) != L: {text} reads back as {back:?}, was {l:?}"));
    }
    if back.to_string() != text {
        return fail(format!("print is not stable: {text} then {back}"));
    }
    Ok(())
}

/// The two layouts have the same map at every visited index (reference evaluation); `None` when a layout has
/// too many replica points to expand.
fn same_map(a: &Layout, b: &Layout) -> Option<Result<(), String>> {
    let (ra, rb) = (Ref::new(a)?, Ref::new(b)?);
    if ra.size != rb.size {
        return Some(fail(format!("sizes differ: {} has {}, {} has {}", a, ra.size, b, rb.size)));
    }
    for f in indices(ra.size) {
        let (pa, pb) = (ra.eval(f), rb.eval(f));
        if pa != pb {
            return Some(fail(format!("maps differ at flat index {f}: {a} gives {pa:?}, {b} gives {pb:?}")));
        }
    }
    Some(Ok(()))
}

/// `t` with its shard extents replaced by the prime factors of `size` (strides and axes kept where there are
/// iters), as `layout/tests/common::resized`.
fn resized(t: &TileLayout, size: i64) -> Option<TileLayout> {
    let f = gen_layout::factors(size);
    let n = f.len().max(t.shard().len());
    let shard = (0..n)
        .map(|i| {
            let e = f.get(i).copied().unwrap_or(1);
            let (s, a) = t.shard().get(i).map_or((1, Axis::M), |it| (it.stride, it.axis));
            Iter::new(e, s, a).ok()
        })
        .collect::<Option<Vec<_>>>()?;
    TileLayout::new(shard, t.replica().to_vec(), t.offset().clone()).ok()
}

fn resized_layout(l: &Layout, size: i64) -> Option<Layout> {
    let t = resized(l.tile(), size)?;
    match l.swizzle() {
        Some(sw) => ComposeLayout::new(sw, t).ok().map(Layout::Compose),
        None => Some(Layout::Tile(t)),
    }
}

/// The tile a (possibly bare-swizzled) layout contributes over `shape` (the bare-swizzle rule of tile and direct
/// sum: a bare swizzle whose period differs from the shape's size is the identity over the shape).
fn base_tile(l: &Layout, shape: &[i64]) -> Option<TileLayout> {
    let size = prod(shape)?;
    match l {
        Layout::Compose(c) if c.is_bare() && c.tile().size() != size => TileLayout::row_major(&[size]).ok(),
        _ => Some(l.tile().clone()),
    }
}
