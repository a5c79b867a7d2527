//! In-process targets over the `axe-layout` crate: the parser, each algebra operation, the evaluator and the
//! TMA planner (with its validator).
//!
//! Inputs are text: the parse and canon targets take a layout as it would be written; the others take a small
//! document of `key: value` lines (`inner: S[...]`, `inner_shape: 2,2`, ...), so a saved failure can be read
//! and edited by hand. Shapes and regions are read permissively (any `i64`, zero and negative included), so the
//! operations meet the edge values themselves rather than the shape parser's refusals.
//!
//! The properties checked are the ones the crate's own tests assert (`layout/tests/prop_*.rs`,
//! `tma_model.rs`), evaluated with the independent reference of [`super::reference`]:
//! - parse: `parse(print(L)) == L` and the print is one line and stable; tile layouts also round-trip through
//!   `to_pretty(width)`; every error of `parse_layout`, `parse_tile_layout`, `parse_shape` and `parse_region`
//!   carries a column inside the input, on a character boundary, with a message;
//! - canonicalize: same induced map, idempotent, swizzle kept, normal form (D0, D1, C0, C1, C2, sorted
//!   replica) and the gap-condition flag as defined, `equivalent(L, canon(L))`, and under GC equal map keys;
//! - equivalent: agrees with enumeration; semantics-preserving rewrites are equivalent;
//! - group: succeeds exactly when an order-preserving split exists (Lemma B.1), keeps the map, blocks multiply
//!   to the dims, replica and offset untouched; a wrong element count is named in the error;
//! - tile, direct sum: the defining equation at every index (sampled for large layouts); ranks must agree;
//! - tile-of: every answer re-tiles to the given layout; `outer_of`/`inner_of` of a layout built by `tile`
//!   succeed;
//! - slice: `L'(y) == L(y + begin)`, and whole, single-point and single-row regions always slice on a shape
//!   the layout groups by;
//! - evaluator: agrees with the reference and with `Layout::eval`; indices out of range are errors;
//! - TMA: a plan validates, moves exactly the region's bytes, and a software model of the hardware copy puts
//!   every element where the layouts say (small copies), also when a region start is a run-time offset (the
//!   dynamic plan resolved at that start); `validate` accepts exactly the documented rules.
//!
//! Each check reports the input planned when the operation answers (each check's doc says which operation) and
//! refused when it refuses or a field of the document does not parse.

// The TMA hardware model lives with the layout crate's tests; one transcription serves both.
#[path = "../../../layout/tests/model/tma_hw.rs"]
mod tma_hw;

use super::reference::{self, crate_eval, indices, Point, Ref};
use crate::driver::Outcome::{self, Planned, Refused};
use crate::driver::{Check, Kind, Limits, Rng, Target};
use crate::gen_layout::{self, Knobs};
use crate::{mutate, seeds};
use axe_layout::canonicalize::{canonicalize, equivalent, map_key, normalize_shard};
use axe_layout::group::{group, group_many};
use axe_layout::notation::{parse_coord, parse_layout, parse_region, parse_shape, parse_tile_layout};
use axe_layout::tma::{
    plan_dynamic, validate, Direction, DynamicOffset, ElemType, Interleave, L2Promotion, OobFill, TensorMapDataType,
    TensorMapDesc, TmaOptions, TmaPlan, TmaRequest,
};
use axe_layout::{Axis, ComposeLayout, Iter, Layout, LayoutError, SwizzleMode, TileLayout};
use rand::seq::IndexedRandom;
use rand::RngExt;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use tma_hw::{check_transfer, hardware_pairs, resolve, SMEM_BASE};

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

// ----- parse ----------------------------------------------------------------------------------------------------

/// Characters the notation uses, plus some it does not (as in `prop_notation.rs`).
const ALPHABET: &[char] = &[
    'S', 'R', '[', ']', '(', ')', ':', ',', '@', '+', '-', ' ', '\n', '0', '1', '2', '8', '9', 'o', 'l', 'a', 'n', 'e',
    'i', 'd', 'm', 'w', 'r', 'p', 'z', '_', '$', 'é', '∘', '\u{0}', '\t', 'x', 'S', '[', '(',
];

fn gen_parse(rng: &mut Rng) -> String {
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

/// Planned: `parse_layout` reads the text; refused: it does not (with a column, checked).
fn check_parse(text: &str) -> Result<Outcome, String> {
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

// ----- canonicalize ---------------------------------------------------------------------------------------------

fn gen_canon(rng: &mut Rng) -> String {
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

/// Planned: the text parses (canonicalize is total); refused: it does not.
fn check_canon(text: &str) -> Result<Outcome, String> {
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

// ----- equivalent -----------------------------------------------------------------------------------------------

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

fn gen_equivalent(rng: &mut Rng) -> String {
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
fn check_equivalent(text: &str) -> Result<Outcome, String> {
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

// ----- group ----------------------------------------------------------------------------------------------------

fn gen_group(rng: &mut Rng) -> String {
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
fn check_group(text: &str) -> Result<Outcome, String> {
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

// ----- tile, tile-of, direct sum -------------------------------------------------------------------------------

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

/// The tile a (possibly bare-swizzled) layout contributes over `shape` (the bare-swizzle rule of tile and direct
/// sum: a bare swizzle whose period differs from the shape's size is the identity over the shape).
fn base_tile(l: &Layout, shape: &[i64]) -> Option<TileLayout> {
    let size = prod(shape)?;
    match l {
        Layout::Compose(c) if c.is_bare() && c.tile().size() != size => TileLayout::row_major(&[size]).ok(),
        _ => Some(l.tile().clone()),
    }
}

/// The tiling equation at every visited index: `t(X) = swz(span(A) (.) B(x_o) + A(x_i))` over the interleaved
/// shape `X = x_o * inner + x_i`, where `scale` is span(A) for tiling and all ones for the direct sum.
fn check_interleaved(
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

fn gen_tile(rng: &mut Rng) -> String {
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
fn check_tile(text: &str) -> Result<Outcome, String> {
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

fn gen_direct_sum(rng: &mut Rng) -> String {
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
fn check_direct_sum(text: &str) -> Result<Outcome, String> {
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

fn gen_tile_of(rng: &mut Rng) -> String {
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
fn check_tile_of(text: &str) -> Result<Outcome, String> {
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

// ----- slice ----------------------------------------------------------------------------------------------------

fn gen_slice(rng: &mut Rng) -> String {
    if let Some(s) = regression(rng, "layout-slice") {
        return s;
    }
    let text = layout_field(rng, Knobs::GENERAL);
    let l = parse_layout(&text).ok();
    let shape = gen_layout::shape_for(rng, l.as_ref());
    let region = gen_layout::region_for(rng, &shape);
    doc(&[("layout", text), ("shape", gen_layout::list_text(&shape)), ("region", gen_layout::region_text(&region))])
}

/// Whole, single-point or single-row (one index in every dimension but the last, which is whole).
fn always_slices(shape: &[i64], region: &[(i64, i64)]) -> bool {
    if shape.len() != region.len() || region.iter().zip(shape).any(|(&(b, e), &d)| b < 0 || e <= b || e > d) {
        return false;
    }
    let whole = region.iter().zip(shape).all(|(&(b, e), &d)| b == 0 && e == d);
    let point = region.iter().all(|&(b, e)| e == b + 1);
    let last = shape.len().saturating_sub(1);
    let row = region
        .iter()
        .zip(shape)
        .enumerate()
        .all(|(i, (&(b, e), &d))| if i == last { b == 0 && e == d } else { e == b + 1 });
    whole || point || row
}

/// Planned: `slice` answers; refused: it refuses, or a field does not parse.
fn check_slice(text: &str) -> Result<Outcome, String> {
    let d = Doc::parse(text);
    let (Some(l), Some(shape), Some(region)) = (d.layout("layout"), d.ints("shape"), d.region("region")) else {
        return Ok(Refused);
    };
    match axe_layout::slice::slice(&l, &shape, &region) {
        Ok(s) => {
            let ext: Vec<i64> = region.iter().map(|(b, e)| e - b).collect();
            let n = prod(&ext).unwrap_or(-1);
            if s.size() != n {
                return fail(format!("sliced size {} != region size {n}: {s}", s.size()));
            }
            let (Some(rs), Some(rl)) = (Ref::new(&s), Ref::new(&l)) else { return Ok(Planned) };
            let base = match &l {
                Layout::Compose(c) if c.is_bare() && c.tile().size() != prod(&shape).unwrap_or(-1) => {
                    let Some(t) = base_tile(&l, &shape) else { return Ok(Planned) };
                    let Some(r) = Ref::with_swizzle(&t, l.swizzle()) else { return Ok(Planned) };
                    r
                }
                _ => rl,
            };
            for y in indices(n) {
                let local = reference::coord_of(&ext, y);
                let x: Vec<i64> = local.iter().zip(&region).map(|(l, (b, _))| l + b).collect();
                let (got, want) = (rs.eval(y), base.eval(reference::flat_of(&shape, &x)));
                if got != want {
                    return fail(format!("slice {s} at {local:?} gives {got:?}, the layout at {x:?} gives {want:?}"));
                }
            }
            Ok(Planned)
        }
        Err(e) => {
            // A result whose offset would pass the supported magnitude (2^48) cannot be built: a fair refusal.
            if always_slices(&shape, &region) && group(l.tile(), &shape).is_ok() && !e.message.contains("magnitude") {
                return fail(format!("a whole/point/row region of a groupable shape was refused: {e}"));
            }
            Ok(Refused)
        }
    }
}

// ----- evaluator ------------------------------------------------------------------------------------------------

fn gen_eval(rng: &mut Rng) -> String {
    if let Some(s) = regression(rng, "layout-eval") {
        return s;
    }
    let text = layout_field(rng, Knobs::GENERAL);
    let l = parse_layout(&text).ok();
    let shape = gen_layout::shape_for(rng, l.as_ref());
    let at = gen_layout::coord_for(rng, &shape);
    doc(&[("layout", text), ("shape", gen_layout::list_text(&shape)), ("at", gen_layout::list_text(&at))])
}

/// Planned: `eval` answers at the document's coordinate; refused: it refuses there, or a field does not parse
/// (the evaluator is checked against the reference at flat indices either way).
fn check_eval(text: &str) -> Result<Outcome, String> {
    let d = Doc::parse(text);
    let Some(l) = d.layout("layout") else { return Ok(Refused) };
    let mut outcome = Refused;
    let t = l.tile();
    for a in t.axes() {
        let _ = t.span_on(a);
    }
    let _ = t.span_memory();
    let _ = axe_layout::tile::span_vector(t);
    // `Layout::eval_flat` prepares an `Evaluator` each time (which may refuse a replica with too many points).
    for bad in [-1, l.size(), i64::MAX, i64::MIN] {
        if l.eval_flat(bad).is_ok() {
            return fail(format!("index {bad} of a layout of size {} evaluated", l.size()));
        }
    }
    if let Some(r) = Ref::new(&l) {
        for f in indices(l.size()).into_iter().take(256) {
            let got = crate_eval(&l, f)?;
            let want = r.eval(f);
            if got != want {
                return fail(format!("{l} at {f}: the evaluator gives {got:?}, the reference {want:?}"));
            }
        }
    }
    if let (Some(shape), Some(at)) = (d.ints("shape"), d.ints("at")) {
        if let Ok(points) = l.eval(&shape, &at) {
            outcome = Planned;
            let inside = l.admits(&shape).is_ok()
                && at.len() == shape.len()
                && at.iter().zip(&shape).all(|(&c, &e)| (0..e).contains(&c));
            if !inside {
                return fail(format!("eval accepted {at:?} in shape {shape:?} for a layout of size {}", l.size()));
            }
            let flat = reference::flat_of(&shape, &at);
            if l.eval_flat(flat).ok() != Some(points) {
                return fail(format!("eval({at:?}) differs from eval_flat({flat})"));
            }
        }
    }
    Ok(outcome)
}

// ----- TMA ------------------------------------------------------------------------------------------------------

fn gen_tma(rng: &mut Rng) -> String {
    if let Some(s) = regression(rng, "layout-tma") {
        return s;
    }
    let text = gen_layout::tma_request(rng);
    if rng.random_range(0..10) == 0 {
        mutate::mutate(rng, &text, &[])
    } else {
        text
    }
}

/// Planning inputs read from a document.
struct Request {
    global: Layout,
    gshape: Vec<i64>,
    gregion: Vec<(i64, i64)>,
    shared: Layout,
    sshape: Vec<i64>,
    sregion: Vec<(i64, i64)>,
    dtype: ElemType,
    direction: Direction,
    options: TmaOptions,
}

impl Request {
    fn read(d: &Doc<'_>) -> Option<Request> {
        Some(Request {
            global: d.layout("global")?,
            gshape: d.ints("global_shape")?,
            gregion: d.region("global_region")?,
            shared: d.layout("shared")?,
            sshape: d.ints("shared_shape")?,
            sregion: d.region("shared_region")?,
            dtype: ElemType::from_name(d.get("dtype")?.trim())?,
            direction: Direction::from_name(d.get("direction").unwrap_or("g2s").trim())?,
            options: TmaOptions {
                l2_promotion: L2Promotion::from_name(d.get("l2").unwrap_or("128B").trim())?,
                oob_fill: if d.get("oob").map(str::trim) == Some("nan") {
                    OobFill::NanRequestZeroFma
                } else {
                    OobFill::None
                },
            },
        })
    }

    fn plan(&self) -> Result<TmaPlan, axe_layout::tma::TmaError> {
        self.plan_at(&self.gregion, &[])
    }

    /// The plan of `gregion` shifted at run time by `dynamic`.
    fn plan_at(&self, gregion: &[(i64, i64)], dynamic: &[DynamicOffset]) -> Result<TmaPlan, axe_layout::tma::TmaError> {
        plan_dynamic(
            &TmaRequest {
                global: &self.global,
                global_shape: &self.gshape,
                global_region: gregion,
                shared: &self.shared,
                shared_shape: &self.sshape,
                shared_region: &self.sregion,
                dtype: self.dtype,
                direction: self.direction,
                options: self.options,
            },
            dynamic,
        )
    }
}

/// Planned: `tma::plan` answers; refused: it refuses, or a field does not parse.
fn check_tma(text: &str) -> Result<Outcome, String> {
    let d = Doc::parse(text);
    let Some(req) = Request::read(&d) else { return Ok(Refused) };
    let Ok(p) = req.plan() else { return Ok(Refused) };
    validate(&p.desc, p.global_offset_bytes).map_err(|e| format!("the plan does not validate: {e}"))?;
    let elems: i64 = req.gregion.iter().map(|(b, e)| e - b).product();
    let want = elems as u64 * req.dtype.bytes() as u64;
    if p.total_bytes() != want {
        return fail(format!("the plan moves {} bytes, the region holds {want}", p.total_bytes()));
    }
    if p.box_bytes != p.desc.box_bytes() {
        return fail(format!("box_bytes {} != the descriptor's {}", p.box_bytes, p.desc.box_bytes()));
    }
    // The planner's MAX_ISSUES (2^16): one copy never expands to more instructions.
    if p.issues.len() > 1 << 16 {
        return fail(format!("{} issues", p.issues.len()));
    }
    for issue in &p.issues {
        if issue.coordinates.len() != p.desc.rank as usize {
            return fail(format!("an issue has {} coordinates for rank {}", issue.coordinates.len(), p.desc.rank));
        }
        if issue.smem_offset_bytes % 128 != 0 {
            return fail(format!("issue shared offset {} is not 128-byte aligned", issue.smem_offset_bytes));
        }
    }
    if SMEM_BASE % p.shared_base_alignment_bytes as i64 != 0 {
        return fail(format!("shared base alignment {}", p.shared_base_alignment_bytes));
    }
    let gcount = prod(&req.gshape).unwrap_or(i64::MAX);
    if elems <= 1 << 12 && gcount <= 1 << 14 {
        model(&req, &p)?;
        dynamic_model(&req)?;
    }
    Ok(Planned)
}

/// Each non-zero start of the global region made a run-time offset (the start as its known multiple, the region
/// at offset 0 as the static part): a plan the planner accepts, resolved at that start, must move the region the
/// layouts give (the model), as the static plan does.
fn dynamic_model(req: &Request) -> Result<(), String> {
    for (d, &(b, e)) in req.gregion.iter().enumerate() {
        if b == 0 {
            continue;
        }
        let mut base = req.gregion.clone();
        base[d] = (0, e - b);
        let Ok(p) = req.plan_at(&base, &[DynamicOffset { dim: d, multiple: b }]) else { continue };
        if p.dynamic.is_empty() {
            return fail(format!("a run-time offset on dimension {d} left no coordinate term"));
        }
        model(req, &resolve(&p, &[b])?)?;
    }
    Ok(())
}

/// The one memory address (in elements) a layout gives a coordinate (a bare swizzle whose period differs from
/// the shape's size stands for the identity over the shape under the swizzle, as in slice and tile).
fn address(l: &Layout, shape: &[i64], x: &[i64]) -> Result<i64, String> {
    let widened = match l {
        Layout::Compose(c) if c.is_bare() && Some(c.tile().size()) != prod(shape) => {
            base_tile(l, shape).and_then(|t| ComposeLayout::new(c.swizzle(), t).ok()).map(Layout::Compose)
        }
        _ => None,
    };
    let l = widened.as_ref().unwrap_or(l);
    let points = l.eval(shape, x).map_err(|e| format!("model: {x:?} does not evaluate: {e}"))?;
    if points.len() != 1 {
        return fail(format!("model: a planned TMA operand maps {x:?} to {} addresses", points.len()));
    }
    Ok(points[0].get(&Axis::M).copied().unwrap_or(0))
}

/// The TMA box copy run through the hardware model (`layout/tests/model/tma_hw.rs`, the one transcription shared
/// with the layout crate's tests): every element of the region must land where the layouts say.
fn model(req: &Request, p: &TmaPlan) -> Result<(), String> {
    let e = req.dtype.bytes();
    let gext: Vec<i64> = req.gregion.iter().map(|(b, e)| e - b).collect();
    let sext: Vec<i64> = req.sregion.iter().map(|(b, e)| e - b).collect();
    let n: i64 = gext.iter().product();
    let mut expected: HashMap<i64, i64> = HashMap::new(); // shared byte -> global byte
    for k in 0..n {
        let gx: Vec<i64> = reference::coord_of(&gext, k).iter().zip(&req.gregion).map(|(y, (b, _))| y + b).collect();
        let sx: Vec<i64> = reference::coord_of(&sext, k).iter().zip(&req.sregion).map(|(y, (b, _))| y + b).collect();
        let ga = address(&req.global, &req.gshape, &gx)? * e;
        let sa = SMEM_BASE + address(&req.shared, &req.sshape, &sx)? * e;
        for b in 0..e {
            if expected.insert(sa + b, ga + b).is_some() {
                return fail("model: a planned shared layout is not injective");
            }
        }
    }
    let mut gmem: HashMap<i64, u64> = HashMap::new();
    for id in 0..prod(&req.gshape).unwrap_or(0) {
        let a = address(&req.global, &req.gshape, &reference::coord_of(&req.gshape, id))? * e;
        for b in 0..e {
            gmem.insert(a + b, (id as u64) << 8 | b as u64);
        }
    }
    check_transfer(p.direction, &hardware_pairs(p)?, &expected, &gmem)
}

const DATA_TYPES: &[TensorMapDataType] = &[
    TensorMapDataType::Uint8,
    TensorMapDataType::Uint16,
    TensorMapDataType::Uint32,
    TensorMapDataType::Int32,
    TensorMapDataType::Uint64,
    TensorMapDataType::Int64,
    TensorMapDataType::Float16,
    TensorMapDataType::Float32,
    TensorMapDataType::Float64,
    TensorMapDataType::Bfloat16,
    TensorMapDataType::Float32Ftz,
    TensorMapDataType::Tfloat32,
    TensorMapDataType::Tfloat32Ftz,
];

fn gen_validate(rng: &mut Rng) -> String {
    if let Some(s) = regression(rng, "layout-tma-validate") {
        return s;
    }
    if rng.random_bool(0.5) {
        return near_valid_descriptor(rng);
    }
    let rank: u32 = *[0u32, 1, 2, 3, 4, 5, 5, 6, 3, 2].choose(rng).unwrap_or(&2);
    let len = |rng: &mut Rng, n: u32| -> usize {
        if rng.random_range(0..10) == 0 {
            rng.random_range(0..=6)
        } else {
            n as usize
        }
    };
    let pick_u64 = |rng: &mut Rng, nice: &[u64]| -> u64 {
        match rng.random_range(0..8) {
            0 => {
                *[0u64, 1, 1 << 32, (1 << 32) + 1, 1 << 40, (1 << 40) - 16, u64::MAX, 15, 17].choose(rng).unwrap_or(&0)
            }
            _ => *nice.choose(rng).unwrap_or(&16),
        }
    };
    let gd = len(rng, rank);
    let gs = len(rng, rank.saturating_sub(1));
    let bd = len(rng, rank);
    let es = len(rng, rank);
    let global_dims: Vec<u64> = (0..gd).map(|_| pick_u64(rng, &[1, 8, 64, 128, 256, 1024])).collect();
    let global_strides: Vec<u64> = (0..gs).map(|_| pick_u64(rng, &[16, 32, 128, 256, 4096, 48])).collect();
    let box_dims: Vec<u64> = (0..bd).map(|_| pick_u64(rng, &[1, 8, 16, 32, 64, 128, 256, 257]) % (1 << 32)).collect();
    let elem_strides: Vec<u64> = (0..es).map(|_| *[0u64, 1, 1, 1, 2, 8, 9].choose(rng).unwrap_or(&1)).collect();
    let dt = rng.random_range(0..DATA_TYPES.len());
    doc(&[
        ("data_type", dt.to_string()),
        ("rank", rank.to_string()),
        ("global_dims", join(&global_dims)),
        ("global_strides_bytes", join(&global_strides)),
        ("box_dims", join(&box_dims)),
        ("element_strides", join(&elem_strides)),
        ("interleave", rng.random_range(0..3).to_string()),
        ("swizzle", rng.random_range(0..4).to_string()),
        ("oob", rng.random_range(0..2).to_string()),
        ("global_address", pick_u64(rng, &[0, 16, 32, 48, 256, 8]).to_string()),
    ])
}

/// A descriptor that meets every documented rule, then, one time in two, one field moved to (or across) the edge
/// of its rule: drawing every field at random meets all the rules about one time in seventy, so without this the
/// target would test refusals almost only, and never one rule at a time.
fn near_valid_descriptor(rng: &mut Rng) -> String {
    let dt = rng.random_range(0..DATA_TYPES.len());
    let bytes = DATA_TYPES[dt].bytes() as u64;
    let rank: u32 = rng.random_range(1..=5);
    // Interleaved layouts need rank >= 3; 32-byte interleave needs the 32-byte swizzle.
    let il: usize = if rank >= 3 && rng.random_bool(0.25) { rng.random_range(1..=2) } else { 0 };
    let sw: usize = if il == 2 { 1 } else { rng.random_range(0..4) };
    let align: u64 = if il == 2 { 32 } else { 16 };
    let pick = |rng: &mut Rng, v: &[u64]| *v.choose(rng).unwrap_or(&1);
    let mut global_dims: Vec<u64> = (0..rank).map(|_| pick(rng, &[1, 8, 64, 256, 1024, 1 << 32])).collect();
    let mut global_strides: Vec<u64> =
        (1..rank).map(|_| align * pick(rng, &[1, 2, 8, 256, (1 << 36) / align])).collect();
    let mut box_dims: Vec<u64> = (0..rank).map(|_| pick(rng, &[1, 2, 8, 64, 256])).collect();
    if il == 0 {
        // The inner box row: a multiple of 16 bytes, at most the swizzle span (256 elements at most).
        let span = [256 * bytes, 32, 64, 128][sw];
        let rows: Vec<u64> = (1..=span / 16).map(|j| 16 * j).filter(|b| b / bytes <= 256).collect();
        box_dims[0] = pick(rng, &rows) / bytes;
    }
    let mut element_strides: Vec<u64> = (0..rank).map(|_| rng.random_range(1..=8)).collect();
    let mut oob: usize = usize::from(DATA_TYPES[dt].is_float() && rng.random_bool(0.5));
    let mut address = align * rng.random_range(0..64u64);
    let (mut rank_field, mut il_field, mut sw_field) = (rank, il, sw);
    if rng.random_bool(0.5) {
        let i = rng.random_range(0..rank as usize);
        match rng.random_range(0..10) {
            0 => global_dims[i] = pick(rng, &[0, 1 << 32, (1 << 32) + 1]),
            1 if !global_strides.is_empty() => {
                let j = i.min(global_strides.len() - 1);
                global_strides[j] = pick(rng, &[8, 16, 48, (1 << 40) - align, 1 << 40]);
            }
            2 => box_dims[i] = pick(rng, &[0, 255, 256, 257]),
            3 => box_dims[0] += pick(rng, &[1, 16 / bytes.min(16), 256]),
            4 => element_strides[i] = pick(rng, &[0, 8, 9]),
            5 => address += pick(rng, &[8, 16, 24]),
            6 => oob = 1,
            7 => rank_field = pick(rng, &[0, 6, 2, 3]) as u32,
            8 => il_field = rng.random_range(0..3),
            _ => sw_field = rng.random_range(0..4),
        }
    }
    doc(&[
        ("data_type", dt.to_string()),
        ("rank", rank_field.to_string()),
        ("global_dims", join(&global_dims)),
        ("global_strides_bytes", join(&global_strides)),
        ("box_dims", join(&box_dims)),
        ("element_strides", join(&element_strides)),
        ("interleave", il_field.to_string()),
        ("swizzle", sw_field.to_string()),
        ("oob", oob.to_string()),
        ("global_address", address.to_string()),
    ])
}

fn join(v: &[u64]) -> String {
    v.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
}

fn u64s(d: &Doc<'_>, key: &str) -> Option<Vec<u64>> {
    let text = d.get(key)?.trim();
    if text.is_empty() {
        return Some(Vec::new());
    }
    text.split(',').map(|s| s.trim().parse().ok()).collect()
}

fn u32s(d: &Doc<'_>, key: &str) -> Option<Vec<u32>> {
    u64s(d, key)?.into_iter().map(|v| u32::try_from(v).ok()).collect()
}

/// The documented `cuTensorMapEncodeTiled` rules (`validate`'s doc comment), written out independently.
fn documented_rules_hold(desc: &TensorMapDesc, global_address: u64) -> bool {
    let rank = desc.rank as usize;
    let interleaved = desc.interleave != Interleave::None;
    let align = if desc.interleave == Interleave::B32 { 32 } else { 16 };
    (1..=5).contains(&desc.rank)
        && (!interleaved || desc.rank >= 3)
        && desc.global_dims.len() == rank
        && desc.global_strides_bytes.len() == rank - 1
        && desc.box_dims.len() == rank
        && desc.element_strides.len() == rank
        && global_address.is_multiple_of(align)
        && desc.global_dims.iter().all(|&d| (1..=1u64 << 32).contains(&d))
        && desc.global_strides_bytes.iter().all(|&s| s % align == 0 && s < 1 << 40)
        && desc.box_dims.iter().all(|&b| (1..=256).contains(&b))
        && (interleaved || {
            let inner = u64::from(desc.box_dims[0]) * desc.data_type.bytes() as u64;
            inner.is_multiple_of(16) && (desc.swizzle == SwizzleMode::None || inner <= desc.swizzle.bytes() as u64)
        })
        && desc.element_strides.iter().all(|&e| (1..=8).contains(&e))
        && (desc.interleave != Interleave::B32 || desc.swizzle == SwizzleMode::B32)
        && (desc.oob_fill != OobFill::NanRequestZeroFma || desc.data_type.is_float())
}

/// Planned: `validate` accepts the descriptor; refused: it refuses it, or a field does not parse.
fn check_validate(text: &str) -> Result<Outcome, String> {
    let d = Doc::parse(text);
    let field = |k: &str| d.get(k).and_then(|v| v.trim().parse::<usize>().ok());
    let (Some(dt), Some(rank), Some(il), Some(sw), Some(oob)) =
        (field("data_type"), field("rank"), field("interleave"), field("swizzle"), field("oob"))
    else {
        return Ok(Refused);
    };
    let (Some(global_dims), Some(global_strides_bytes), Some(box_dims), Some(element_strides), Some(addr)) = (
        u64s(&d, "global_dims"),
        u64s(&d, "global_strides_bytes"),
        u32s(&d, "box_dims"),
        u32s(&d, "element_strides"),
        d.get("global_address").and_then(|v| v.trim().parse::<u64>().ok()),
    ) else {
        return Ok(Refused);
    };
    let desc = TensorMapDesc {
        data_type: DATA_TYPES[dt % DATA_TYPES.len()],
        rank: rank as u32,
        global_dims,
        global_strides_bytes,
        box_dims,
        element_strides,
        interleave: [Interleave::None, Interleave::B16, Interleave::B32][il % 3],
        swizzle: [SwizzleMode::None, SwizzleMode::B32, SwizzleMode::B64, SwizzleMode::B128][sw % 4],
        l2_promotion: L2Promotion::L128B,
        oob_fill: [OobFill::None, OobFill::NanRequestZeroFma][oob % 2],
    };
    let got = validate(&desc, addr);
    let want = documented_rules_hold(&desc, addr);
    if got.is_ok() != want {
        return fail(format!("validate says {got:?} but the documented rules say {want} for {desc:?} at {addr}"));
    }
    Ok(if got.is_ok() { Planned } else { Refused })
}
