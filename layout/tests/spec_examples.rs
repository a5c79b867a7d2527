//! Every worked example in `../shared/spec` that an Axe layout can express, as unit tests.
//!
//! The expected values come from the spec itself: its printed tables (pasted verbatim below, between `r#"` and
//! `"#`) and its closed formulas (re-derived here in plain integer arithmetic), never from this crate's output.
//! Where a peer system uses another convention (Mojo/CuTe are column-major, Tilus maps `(thread, local)`), the
//! comment above the test shows the translation into a row-major Axe layout over the same 2-D shape.
//!
//! Every test goes through [`check`] (listed cells) or [`check_all`] (every logical index against a formula). The
//! operations (canonicalize, group, tile, tile-of, slice, direct sum) are checked by their defining equations on
//! the induced map, and structurally only where `semantics.md` fixes the structure.
//!
//! Examples the spec mentions but a layout cannot express, or whose numbers were lost in the PDF extraction, are
//! listed in the comment at the end of this file.

use axe_layout::canonicalize::canonicalize;
use axe_layout::direct_sum::direct_sum;
use axe_layout::group::group;
use axe_layout::notation::parse_layout;
use axe_layout::slice::slice;
use axe_layout::tile::tile;
use axe_layout::tile_of::{inner_of, outer_of};
use axe_layout::{Axis, ComposeLayout, Coord, Iter, Layout, Swizzle, SwizzleMode, TileLayout};
use std::collections::{BTreeMap, BTreeSet};

// ------------------------------------------------------------------------------------------------------------------
// Helpers
// ------------------------------------------------------------------------------------------------------------------

/// A coordinate as the spec writes it: `(axis, value)` pairs; axes not named are 0.
type Point = Vec<(&'static str, i64)>;

/// A coordinate set in a comparable form: zero components dropped, axes sorted by name.
type PointSet = BTreeSet<Vec<(String, i64)>>;

/// `pt!(laneid = 4, warpid = 5, m = 1)`: one point.
macro_rules! pt {
    ($($axis:ident = $v:expr),* $(,)?) => { vec![$((stringify!($axis), ($v) as i64)),*] };
}

/// The layout written in `text`, read by the crate's notation parser.
fn layout(text: &str) -> Layout {
    parse_layout(text).unwrap_or_else(|e| panic!("parse `{text}`: {e}"))
}

/// The layout written in `text`, which must be a plain tile layout (no swizzle).
fn tile_layout(text: &str) -> TileLayout {
    match layout(text) {
        Layout::Tile(t) => t,
        other => panic!("{text}: expected a tile layout, got {other:?}"),
    }
}

/// A reference construction of the spec's text, independent of the crate's notation parser: whitespace is
/// insignificant, `S[...]` shard, `R[...]` replica (may repeat), `n@axis` offset, no `@axis` means `m`, extents
/// alone mean row-major on `m`, `Swizzle(M,B,S) o ...` composes and a bare `Swizzle(M,B,S)` is the identity tile of
/// its period.
fn build(text: &str) -> Layout {
    let s: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if let Some(rest) = s.strip_prefix("Swizzle(") {
        let close = rest.find(')').expect("Swizzle(...) closes");
        let p: Vec<u32> = rest[..close].split(',').map(|n| n.parse().expect("swizzle parameter")).collect();
        let sw = Swizzle::new(p[0], p[1], p[2]).expect("well-formed swizzle");
        let tail = &rest[close + 1..];
        if tail.is_empty() {
            return ComposeLayout::bare(sw).into();
        }
        let tile = build_tile(tail.strip_prefix('o').expect("`o` after Swizzle(...)"));
        return ComposeLayout::new(sw, tile).expect("swizzle over m").into();
    }
    build_tile(&s).into()
}

fn build_tile(s: &str) -> TileLayout {
    let (mut shard, mut replica, mut offset) = (Vec::new(), Vec::new(), BTreeMap::new());
    for term in s.split('+') {
        if let Some(body) = term.strip_prefix("S[") {
            shard = build_iters(body.strip_suffix(']').expect("S[...]"));
        } else if let Some(body) = term.strip_prefix("R[") {
            replica.extend(build_iters(body.strip_suffix(']').expect("R[...]")));
        } else {
            let (v, a) = on_axis(term);
            *offset.entry(a).or_insert(0) += v;
        }
    }
    TileLayout::new(shard, replica, offset).expect("valid layout")
}

fn build_iters(body: &str) -> Vec<Iter> {
    let list = |s: &str| -> Vec<String> {
        s.trim_start_matches('(').trim_end_matches(')').split(',').map(str::to_string).collect()
    };
    let (ext, strides) = match body.split_once(':') {
        Some((e, s)) => (e, Some(s)),
        None => (body, None),
    };
    let extents: Vec<i64> = list(ext).iter().map(|e| e.parse().expect("extent")).collect();
    let strides: Vec<(i64, Axis)> = match strides {
        Some(s) => list(s).iter().map(|t| on_axis(t)).collect(),
        None => {
            let mut acc = 1;
            let mut out: Vec<(i64, Axis)> = extents
                .iter()
                .rev()
                .map(|e| {
                    let s = acc;
                    acc *= e;
                    (s, Axis::M)
                })
                .collect();
            out.reverse();
            out
        }
    };
    assert_eq!(extents.len(), strides.len(), "{body}: as many strides as extents");
    extents.iter().zip(strides).map(|(&e, (s, a))| Iter::new(e, s, a).expect("valid iter")).collect()
}

fn on_axis(term: &str) -> (i64, Axis) {
    match term.split_once('@') {
        Some((v, a)) => (v.parse().expect("integer"), Axis::named(a).expect("known axis")),
        None => (term.parse().expect("integer"), Axis::M),
    }
}

/// `[(extent, stride, axis)]` as iters.
fn iters(list: &[(i64, i64, &str)]) -> Vec<Iter> {
    list.iter().map(|&(e, s, a)| Iter::new(e, s, Axis::named(a).unwrap()).unwrap()).collect()
}

fn expected_set(points: &[Point]) -> PointSet {
    points
        .iter()
        .map(|p| {
            let mut acc: BTreeMap<String, i64> = BTreeMap::new();
            for (a, v) in p {
                *acc.entry(Axis::named(a).expect("known axis").name().to_string()).or_insert(0) += v;
            }
            acc.into_iter().filter(|(_, v)| *v != 0).collect()
        })
        .collect()
}

fn actual_set(points: Vec<Coord>) -> PointSet {
    points
        .into_iter()
        .map(|c| c.into_iter().filter(|(_, v)| *v != 0).map(|(a, v)| (a.name().to_string(), v)).collect())
        .collect()
}

/// Every coordinate of `shape`, row-major.
fn coords(shape: &[i64]) -> Vec<Vec<i64>> {
    let mut out = vec![vec![]];
    for &e in shape {
        out = out.into_iter().flat_map(|p| (0..e).map(move |d| [p.clone(), vec![d]].concat())).collect();
    }
    out
}

fn assert_at(l: &Layout, what: &str, shape: &[i64], x: &[i64], want: &[Point]) {
    let got = l.eval(shape, x).unwrap_or_else(|e| panic!("{what} over {shape:?} at {x:?}: {e}"));
    assert_eq!(actual_set(got), expected_set(want), "{what} over {shape:?} at {x:?}");
}

/// Checks the listed cells of `text` over `shape`: each coordinate's point set equals the expected one.
fn check(text: &str, shape: &[i64], cases: &[(Vec<i64>, Vec<Point>)]) {
    let l = layout(text);
    for (x, want) in cases {
        assert_at(&l, text, shape, x, want);
    }
}

/// Checks every logical index of `l` over `shape` against `expected`.
fn check_map(l: &Layout, what: &str, shape: &[i64], expected: impl Fn(&[i64]) -> Vec<Point>) {
    for x in coords(shape) {
        assert_at(l, what, shape, &x, &expected(&x));
    }
}

/// Checks every logical index of `text` over `shape` against `expected`.
fn check_all(text: &str, shape: &[i64], expected: impl Fn(&[i64]) -> Vec<Point>) {
    check_map(&layout(text), text, shape, expected);
}

/// Unwraps an operation's result, naming the operation on failure.
fn ok<T>(what: &str, r: axe_layout::Result<T>) -> T {
    r.unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// The TIRx swizzle formula, written from the spec text (not `Swizzle::apply`): `q = a >> M`,
/// `f(q) = q XOR ((q AND ((2^B-1) << S)) >> S)`, `addr = f(q) * 2^M + a mod 2^M`.
fn swizzle_formula(m: u32, b: u32, s: u32, a: i64) -> i64 {
    let q = a >> m;
    let f = q ^ ((q & (((1 << b) - 1) << s)) >> s);
    f * (1 << m) + a % (1 << m)
}

/// Cells of a Mojo `print_layout` table: `(row, col, value)`; the row label is checked against the row's position.
fn mojo_table(text: &str) -> Vec<(i64, i64, i64)> {
    let mut out = Vec::new();
    let rows = text.lines().map(str::trim).filter(|l| l.contains('|') && !l.starts_with('+'));
    for (r, line) in rows.enumerate() {
        let cells: Vec<i64> =
            line.split('|').map(str::trim).filter(|c| !c.is_empty()).map(|c| c.parse().unwrap()).collect();
        assert_eq!(cells[0], r as i64, "row label of `{line}`");
        out.extend(cells[1..].iter().enumerate().map(|(c, &v)| (r as i64, c as i64, v)));
    }
    out
}

/// Cells of a Tilus `visualize_layout` table: `(row, col, threads, local)` from `t: i` or `[t0, t1, ...]: i`.
fn tilus_table(text: &str) -> Vec<(i64, i64, Vec<i64>, i64)> {
    let mut out = Vec::new();
    let rows = text.lines().map(str::trim).filter(|l| l.starts_with('│'));
    for (r, line) in rows.enumerate() {
        for (c, cell) in line.split('│').map(str::trim).filter(|c| !c.is_empty()).enumerate() {
            let (threads, local) = cell.split_once(':').expect("t: i");
            let threads: Vec<i64> = threads
                .trim_matches(|ch| ch == '[' || ch == ']')
                .split(',')
                .map(|t| t.trim().parse().unwrap())
                .collect();
            out.push((r as i64, c as i64, threads, local.trim().parse().unwrap()));
        }
    }
    out
}

/// Checks every cell of a Mojo table against the Axe translation `text` over `shape` (on `m`).
fn check_mojo(text: &str, shape: &[i64], table: &str) {
    let cells = mojo_table(table);
    assert_eq!(cells.len() as i64, shape.iter().product::<i64>(), "the table has one cell per element");
    let cases: Vec<(Vec<i64>, Vec<Point>)> = cells.iter().map(|&(r, c, v)| (vec![r, c], vec![pt!(m = v)])).collect();
    check(text, shape, &cases);
}

/// The cells of a Tilus table as `(coordinate, points)`: thread `t` -> `laneid`, local `i` -> `reg`.
fn tilus_cases(table: &str, rank: usize) -> Vec<(Vec<i64>, Vec<Point>)> {
    tilus_table(table)
        .into_iter()
        .map(|(r, c, threads, local)| {
            let x = if rank == 1 { vec![c] } else { vec![r, c] };
            (x, threads.iter().map(|&t| pt!(laneid = t, reg = local)).collect())
        })
        .collect()
}

/// Checks every cell of a Tilus table against the layout `l` over `shape`.
fn check_tilus_layout(l: &Layout, what: &str, shape: &[i64], table: &str) {
    let cases = tilus_cases(table, shape.len());
    assert_eq!(cases.len() as i64, shape.iter().product::<i64>(), "the table has one cell per element");
    for (x, want) in &cases {
        assert_at(l, what, shape, x, want);
    }
}

fn check_tilus(text: &str, shape: &[i64], table: &str) {
    check_tilus_layout(&layout(text), text, shape, table);
}

// ------------------------------------------------------------------------------------------------------------------
// TIRx layout page, "Case study: NVIDIA tensor-core tile" (also the paper's Figure 2A)
// ------------------------------------------------------------------------------------------------------------------

/// As written on the TIRx page.
const TC_TILE: &str = "S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid";

/// The page's table: (i, j), flat, (c0, c1, c2, c3), laneid, warpid (x2), m.
type TcRow = ((i64, i64), i64, [i64; 4], i64, [i64; 2], i64);
const TC_ROWS: [TcRow; 6] = [
    ((0, 0), 0, [0, 0, 0, 0], 0, [5, 9], 0),
    ((0, 1), 1, [0, 0, 0, 1], 0, [5, 9], 1),
    ((0, 2), 2, [0, 0, 1, 0], 1, [5, 9], 0),
    ((1, 0), 16, [1, 0, 0, 0], 4, [5, 9], 0),
    ((0, 8), 8, [0, 1, 0, 0], 0, [6, 10], 0),
    ((7, 15), 127, [7, 1, 3, 1], 31, [6, 10], 1),
];

/// The page's closed formulas: laneid = 4i + floor(j/2) mod 4, warpid in {floor(j/8)+5, floor(j/8)+9}, m = j mod 2.
fn tc_formula(i: i64, j: i64) -> Vec<Point> {
    let lane = 4 * i + (j / 2) % 4;
    [j / 8 + 5, j / 8 + 9].iter().map(|&w| pt!(laneid = lane, warpid = w, m = j % 2)).collect()
}

#[test]
fn tensor_core_tile_table_rows() {
    let l = layout(TC_TILE);
    for ((i, j), flat, digits, lane, warps, m) in TC_ROWS {
        let want: Vec<Point> = warps.iter().map(|&w| pt!(laneid = lane, warpid = w, m = m)).collect();
        assert_eq!(16 * i + j, flat, "step 1 of the page: flat = 16i + j");
        assert_at(&l, TC_TILE, &[8, 16], &[i, j], &want);
        // The same layout admits any shape of 128 elements: the flat index, and the digits themselves.
        assert_at(&l, TC_TILE, &[128], &[flat], &want);
        assert_at(&l, TC_TILE, &[8, 2, 4, 2], &digits, &want);
    }
}

#[test]
fn tensor_core_tile_all_128_elements() {
    check_all(TC_TILE, &[8, 16], |x| tc_formula(x[0], x[1]));
    // "the same layout then works for any such shape": re-derive (i, j) from the flat index.
    for shape in [vec![128], vec![4, 32], vec![2, 64], vec![16, 8]] {
        check_all(TC_TILE, &shape, |x| {
            let flat = x.iter().zip(&shape).fold(0, |acc, (&c, &e)| acc * e + c);
            tc_formula(flat / 16, flat % 16)
        });
    }
}

/// "The shard places the tile on warps {5, 6}; the replica copies it to {9, 10}", "each element lives on two warps":
/// every (laneid, warpid, m) in 32 x {5,6,9,10} x 2 holds exactly one element.
#[test]
fn tensor_core_tile_owners_partition_the_warps() {
    let l = layout(TC_TILE);
    let mut owners: BTreeMap<Vec<(String, i64)>, usize> = BTreeMap::new();
    for x in coords(&[8, 16]) {
        let points = actual_set(l.eval(&[8, 16], &x).unwrap());
        assert_eq!(points.len(), 2, "two copies of {x:?}");
        for p in points {
            *owners.entry(p).or_insert(0) += 1;
        }
    }
    assert_eq!(owners.len(), 32 * 4 * 2);
    assert!(owners.values().all(|&n| n == 1));
    let warps: BTreeSet<i64> =
        owners.keys().flat_map(|p| p.iter().filter(|(a, _)| a == "warpid").map(|(_, v)| *v)).collect();
    assert_eq!(warps, BTreeSet::from([5, 6, 9, 10]));
}

/// Shape admission: a shape is admitted iff its element count is 128; other shapes and out-of-range coordinates
/// are errors, not wrapped indices (semantics.md, "Forward map").
#[test]
fn tensor_core_tile_rejects_other_shapes_and_coordinates() {
    let l = layout(TC_TILE);
    assert_eq!(l.size(), 128);
    for shape in [vec![8, 15], vec![16, 16], vec![129], vec![0, 128]] {
        let x = vec![0; shape.len()];
        assert!(l.eval(&shape, &x).is_err(), "shape {shape:?} must not be admitted");
    }
    for x in [vec![8, 0], vec![0, 16], vec![-1, 0], vec![0], vec![0, 0, 0]] {
        assert!(l.eval(&[8, 16], &x).is_err(), "coordinate {x:?} is outside (8,16)");
    }
}

/// span(L, a) = 1 + sum (e-1)|s| over shard and replica iters on a, plus O[a] (semantics.md).
#[test]
fn tensor_core_tile_spans() {
    let t = tile_layout(TC_TILE);
    let ax = |n| Axis::named(n).unwrap();
    assert_eq!(t.span_on(ax("laneid")), 1 + 7 * 4 + 3, "32 lanes");
    assert_eq!(t.span_on(ax("warpid")), 1 + 1 + 4 + 5, "shard 1, replica 4, offset 5");
    assert_eq!(t.span_on(ax("m")), 2);
    assert_eq!(t.span_memory(), 2);
}

// ------------------------------------------------------------------------------------------------------------------
// TIRx page, "Case study: Blackwell tensor memory" and the scale factors
// ------------------------------------------------------------------------------------------------------------------

const TMEM: &str = "S[(2,128,112):(112@TCol,1@TLane,1@TCol)]";

#[test]
fn tensor_memory_table_rows() {
    let rows = [((0, 0, 0), 0, 0), ((0, 5, 3), 5, 3), ((1, 0, 0), 0, 112), ((1, 127, 111), 127, 223)];
    let cases: Vec<(Vec<i64>, Vec<Point>)> =
        rows.iter().map(|&((a, l, c), lane, col)| (vec![a, l, c], vec![pt!(TLane = lane, TCol = col)])).collect();
    check(TMEM, &[2, 128, 112], &cases);
}

/// TLane = l, TCol = 112a + c, a singleton for every element; the 224-column span.
#[test]
fn tensor_memory_all_elements() {
    check_all(TMEM, &[2, 128, 112], |x| vec![pt!(TLane = x[1], TCol = 112 * x[0] + x[2])]);
    // The same placement viewed as a 256 x 112 tile (rows 128..256 are the second accumulator stage).
    check_all(TMEM, &[256, 112], |x| vec![pt!(TLane = x[0] % 128, TCol = 112 * (x[0] / 128) + x[1])]);
    let t = tile_layout(TMEM);
    assert_eq!(t.span_on(Axis::named("TCol").unwrap()), 224);
    assert_eq!(t.span_on(Axis::named("TLane").unwrap()), 128);
}

/// The scale-factor atom `S[(32, sf_per_mma):(1@TLane, 1@TCol)] + R[4:32@TLane]` with sf_per_mma = 4 (the
/// chapter's SFA packing has 4 scale factors per 32-lane group), spaces as in the spec: row l, factor sf ->
/// TLane l + 32k (k = 0..4, the warpx4 router), TCol sf.
const SF_ATOM: &str = "S[(32, 4):(1@TLane, 1@TCol)] + R[4:32@TLane]";

#[test]
fn scale_factor_atom_replicates_across_the_warpgroup() {
    check_all(SF_ATOM, &[32, 4], |x| (0..4).map(|k| pt!(TLane = x[0] + 32 * k, TCol = x[1])).collect());
    // "stride 32 covers lanes 0-127".
    assert_eq!(tile_layout(SF_ATOM).span_on(Axis::named("TLane").unwrap()), 128);
}

/// The chapter's SFA packing: "SFA[m, sf] packs into TMEM at lane m mod 32, column (m // 32)*4 + sf, and is then
/// broadcast warpx4 across the TLane axis to the four lane copies (l, l+32, l+64, l+96)", for a 128-row scale
/// vector.
fn sfa_formula(x: &[i64]) -> Vec<Point> {
    let (m, sf) = (x[0], x[1]);
    let l = m % 32;
    [l, l + 32, l + 64, l + 96].iter().map(|&lane| pt!(TLane = lane, TCol = (m / 32) * 4 + sf)).collect()
}

#[test]
fn scale_factor_sfa_packing_as_one_layout() {
    // Rows m = 32*g + l: the group g steps 4 columns, l steps lanes; then the factor sf steps columns.
    check_all("S[(4,32,4):(4@TCol,1@TLane,1@TCol)] + R[4 : 32@TLane]", &[128, 4], sfa_formula);
    // The chapter's shorthand with the packing elided, `S[(32, ...) : (1@TLane, ...)] + R[4 : 32@TLane]`, at
    // sf_per_mma = 1: row r -> lanes r mod 32 (+ 32k), column r // 32.
    check_all("S[(4,32):(1@TCol,1@TLane)] + R[4 : 32@TLane]", &[128, 1], |x| {
        (0..4).map(|k| pt!(TLane = x[0] % 32 + 32 * k, TCol = x[0] / 32)).collect()
    });
}

/// The TIRx page: "The atom is then direct-summed with an outer over (M rows, K scale-factor groups)". The outer
/// `S[4:4@TCol]` over [4, 1] places the four 32-row groups 4 columns apart.
#[test]
fn scale_factor_sfa_packing_as_direct_sum() {
    let outer = tile_layout("S[4:4@TCol]");
    let sum = ok("direct_sum(S[4:4@TCol], atom)", direct_sum(&outer, &layout(SF_ATOM), &[4, 1], &[32, 4]));
    check_map(&sum, "direct_sum(S[4:4@TCol], sf atom)", &[128, 4], sfa_formula);
}

// ------------------------------------------------------------------------------------------------------------------
// TIRx page, "Worked example: 128B swizzle, float16, (8, 64) tile"
// ------------------------------------------------------------------------------------------------------------------

const SWIZZLED: &str = "Swizzle(3,3,3) o S[(8,64):(64,1)]";

/// addr(i, j) = 64i + 8 (floor(j/8) xor i) + j mod 8.
fn swizzled_addr(i: i64, j: i64) -> i64 {
    64 * i + 8 * ((j / 8) ^ i) + j % 8
}

#[test]
fn swizzle_128b_f16_address_formula() {
    check_all(SWIZZLED, &[8, 64], |x| vec![pt!(m = swizzled_addr(x[0], x[1]))]);
    // The closed form agrees with the general Swizzle(M,B,S) formula on m = 64i + j.
    for x in coords(&[8, 64]) {
        assert_eq!(swizzled_addr(x[0], x[1]), swizzle_formula(3, 3, 3, 64 * x[0] + x[1]));
    }
}

fn m_of(l: &Layout, shape: &[i64], x: &[i64]) -> i64 {
    let points = l.eval(shape, x).unwrap();
    assert_eq!(points.len(), 1);
    points[0].get(&Axis::M).copied().unwrap_or(0)
}

/// "Reading column j = 0 down the 8 rows gives addr = 72 i and banks 0, 4, 8, ..., 28"; "without the swizzle the
/// same column is bank = floor(j/2) for every row".
#[test]
fn swizzle_128b_f16_bank_example() {
    let bank = |addr: i64| (addr * 2 / 4) % 32; // b = 2 bytes per float16
    let sw = layout(SWIZZLED);
    let col0: Vec<i64> = (0..8).map(|i| m_of(&sw, &[8, 64], &[i, 0])).collect();
    assert_eq!(col0, (0..8).map(|i| 72 * i).collect::<Vec<_>>());
    assert_eq!(col0.iter().map(|&a| bank(a)).collect::<Vec<_>>(), vec![0, 4, 8, 12, 16, 20, 24, 28]);
    let plain = layout("S[(8,64):(64@m,1@m)]");
    for j in 0..64 {
        let banks: BTreeSet<i64> = (0..8).map(|i| bank(m_of(&plain, &[8, 64], &[i, j]))).collect();
        assert_eq!(banks, BTreeSet::from([j / 2]), "column {j} without swizzle sits in one bank");
    }
}

/// "With swizzle, a read of any 8x16B column is conflict-free, under any format (32B / 64B / 128B)", with the
/// parameters M = bitlen(128 / dtype bits) - 1, B = 1/2/3, S = 3.
#[test]
fn swizzle_any_mode_reads_columns_conflict_free() {
    for bits in [8i64, 16, 32] {
        for (mode, b, row_bytes) in
            [(SwizzleMode::B32, 1u32, 32i64), (SwizzleMode::B64, 2, 64), (SwizzleMode::B128, 3, 128)]
        {
            let m = 63 - (128 / bits as u64).leading_zeros(); // bitlen(x) - 1
            assert_eq!(Swizzle::for_dtype(bits as u32, mode).unwrap(), Some(Swizzle::new(m, b, 3).unwrap()));
            let n = row_bytes * 8 / bits; // elements per atom row
            let text = format!("Swizzle({m},{b},3) o S[(8,{n}):({n},1)]");
            let l = layout(&text);
            let per16 = 128 / bits; // elements per 16-byte chunk
            for chunk in 0..row_bytes / 16 {
                // The 16-byte chunks of one chunk-column, one per row, must cover 8 disjoint groups of 4 banks.
                let groups: BTreeSet<i64> = (0..8)
                    .map(|i| {
                        let a = m_of(&l, &[8, n], &[i, chunk * per16]);
                        assert_eq!(a % per16, 0, "{text}: a 16-byte run stays aligned");
                        (a * bits / 8 / 4) % 32 / 4
                    })
                    .collect();
                assert_eq!(groups.len(), 8, "{text}: chunk column {chunk}");
            }
        }
    }
}

/// reference-tirx.md: `Swizzle(3,3,3)`: `(i*8+j)*8+k -> (i*8 + (i XOR j))*8 + k`, the high part passing through;
/// `Swizzle(0,2,3)`: `i*8+j -> i*8 + (j div 4)*4 + ((i mod 4) XOR (j mod 4))`; a bare swizzle is the identity tile
/// of its period 2^(M+B+S).
#[test]
fn bare_swizzles() {
    check_all("Swizzle(3,3,3)", &[8, 8, 8], |x| vec![pt!(m = (x[0] * 8 + (x[0] ^ x[1])) * 8 + x[2])]);
    check_all("Swizzle(0,2,3)", &[4, 8], |x| vec![pt!(m = x[0] * 8 + (x[1] / 4) * 4 + ((x[0] % 4) ^ (x[1] % 4)))]);
    assert_eq!(layout("Swizzle(3,2,3)").size(), 256);
    assert_eq!(layout("Swizzle(0,3,3)").size(), 64);
    // The period-512 pass-through on a two-period tile.
    check_all("Swizzle(3,3,3) o S[1024:1]", &[2, 8, 8, 8], |x| {
        vec![pt!(m = 512 * x[0] + (x[1] * 8 + (x[1] ^ x[2])) * 8 + x[3])]
    });
}

// ------------------------------------------------------------------------------------------------------------------
// The notation chapter
// ------------------------------------------------------------------------------------------------------------------

/// "S[(4, 4) : (4, 1)]  addr(i, j) = i*4 + j*1".
#[test]
fn chapter_row_major() {
    check_all("S[(4, 4) : (4, 1)]", &[4, 4], |x| vec![pt!(m = 4 * x[0] + x[1])]);
}

/// `t = torch.arange(12).reshape(3, 4)` has strides (4, 1), "exactly S[(3, 4) : (4, 1)]"; `t.permute(1, 0)` "is
/// S[(4, 3) : (1, 4)] over the same memory": tt[i][j] = t[j][i] = 4j + i.
#[test]
fn chapter_torch_view_and_transpose() {
    check_all("S[(3, 4) : (4, 1)]", &[3, 4], |x| vec![pt!(m = 4 * x[0] + x[1])]);
    check_all("S[(4, 3) : (1, 4)]", &[4, 3], |x| vec![pt!(m = x[0] + 4 * x[1])]);
}

/// "Cut an 8x8 matrix into 2x4 tiles ... S[(4, 2, 2, 4) : (16, 4, 8, 1)]. A logical (i, j) first becomes
/// (i//2, i%2, j//4, j%4) and then runs through the strides"; each tile stays contiguous.
const CHAPTER_TILED: &str = "S[(4, 2, 2, 4) : (16, 4, 8, 1)]";

fn chapter_tiled_addr(i: i64, j: i64) -> i64 {
    16 * (i / 2) + 4 * (i % 2) + 8 * (j / 4) + (j % 4)
}

#[test]
fn chapter_tiled_layout() {
    check_all(CHAPTER_TILED, &[8, 8], |x| vec![pt!(m = chapter_tiled_addr(x[0], x[1]))]);
    let l = layout(CHAPTER_TILED);
    for (ti, tj) in coords(&[4, 2]).iter().map(|t| (t[0], t[1])) {
        let mut addrs: Vec<i64> =
            coords(&[2, 4]).iter().map(|y| m_of(&l, &[8, 8], &[2 * ti + y[0], 4 * tj + y[1]])).collect();
        addrs.sort();
        let base = addrs[0];
        assert_eq!(addrs, (base..base + 8).collect::<Vec<_>>(), "tile ({ti},{tj}) is contiguous");
    }
}

/// The chapter's tiling "asks for nothing new": it is tile(row-major 2x4 tile, row-major 4x2 grid of tiles), the
/// grid scaled by the tile's span 8 (paper section 3.3, "a matrix tiled into a grid of submatrices").
#[test]
fn chapter_tiled_layout_is_a_tile() {
    let inner = layout("S[(2,4):(4,1)]");
    let outer = tile_layout("S[(4,2):(2,1)]");
    let t = ok("tile", tile(&inner, &outer, &[2, 4], &[4, 2]));
    check_map(&t, "tile(S[(2,4):(4,1)], S[(4,2):(2,1)])", &[8, 8], |x| vec![pt!(m = chapter_tiled_addr(x[0], x[1]))]);
    // tile-of in both directions recovers the factors (their induced maps are determined by T).
    let tiled = layout(CHAPTER_TILED);
    let b = ok("outer_of", outer_of(&tiled, &inner, &[8, 8], &[2, 4]));
    check_map(&b.into(), "outer_of(chapter tiled)", &[4, 2], |x| vec![pt!(m = 2 * x[0] + x[1])]);
    let a = ok("inner_of", inner_of(&tiled, &outer, &[8, 8], &[4, 2]));
    check_map(&a, "inner_of(chapter tiled)", &[2, 4], |x| vec![pt!(m = 4 * x[0] + x[1])]);
}

/// "a row-major 8x16 tile in memory is simply S[(8, 16) : (16@m, 1@m)]", the same map as `S[(8,16)]` (extents
/// only) and as the single iter `S[128:1]`.
#[test]
fn chapter_memory_tags() {
    for text in ["S[(8, 16) : (16@m, 1@m)]", "S[(8,16)]", "S[128:1]", "S[(8,16):(16,1)]"] {
        check_all(text, &[8, 16], |x| vec![pt!(m = 16 * x[0] + x[1])]);
    }
}

/// "S[(8, 4, 2) : (4@laneid, 1@laneid, 1@reg)] maps rows and columns onto lane IDs and a per-lane register", over
/// an 8x8 fragment: row i, column j -> laneid 4i + j//2, reg j%2.
#[test]
fn chapter_register_fragment() {
    check_all("S[(8, 4, 2) : (4@laneid, 1@laneid, 1@reg)]", &[8, 8], |x| {
        vec![pt!(laneid = 4 * x[0] + x[1] / 2, reg = x[1] % 2)]
    });
}

/// "S[(2, 4, 8) : (1@gpuid_y, 8@m, 1@m)] + R[2 : 1@gpuid_x]" shards the 64 elements over gpuid_y and
/// replicates them on both gpuid_x: over 8x8, rows 0..4 on gpuid_y 0 and rows 4..8 on gpuid_y 1, each at local
/// address 8 (i mod 4) + j, on gpuid_x 0 and 1.
#[test]
fn chapter_gpu_mesh() {
    let text = "S[(2, 4, 8) : (1@gpuid_y, 8@m, 1@m)] + R[2 : 1@gpuid_x]";
    check_all(text, &[8, 8], |x| {
        (0..2).map(|gx| pt!(gpuid_y = x[0] / 4, m = 8 * (x[0] % 4) + x[1], gpuid_x = gx)).collect()
    });
    check_all(text, &[64], |x| (0..2).map(|gx| pt!(gpuid_y = x[0] / 32, m = x[0] % 32, gpuid_x = gx)).collect());
}

// ------------------------------------------------------------------------------------------------------------------
// Mojo TileTensor layouts (CuTe conventions: a mode's coordinate is split colexicographically, i.e. the leftmost
// sub-mode varies fastest). Translation to Axe: a 2-D Mojo layout ((rows), (cols)) : ((row strides), (col strides))
// over R x C becomes an Axe shard over the same R x C whose row iters come first, outermost sub-mode first (the
// reverse of the Mojo order), then the column iters, likewise reversed.
// ------------------------------------------------------------------------------------------------------------------

/// `row_major[3, 4]()`, `((3, 4):(4, 1))`: already row-major, `S[(3,4):(4,1)]`. Also "coordinate (1, 1) maps to
/// 5" and "coordinates at index 7: (1, 3)".
#[test]
fn mojo_row_major_3x4() {
    check_mojo(
        "S[(3,4):(4,1)]",
        &[3, 4],
        r#"
0 1 2 3
+----+----+----+----+
0 | 0 | 1 | 2 | 3 |
+----+----+----+----+
1 | 4 | 5 | 6 | 7 |
+----+----+----+----+
2 | 8 | 9 | 10 | 11 |
+----+----+----+----+
"#,
    );
    check("S[(3,4):(4,1)]", &[3, 4], &[(vec![1, 1], vec![pt!(m = 5)]), (vec![1, 3], vec![pt!(m = 7)])]);
}

/// The tile-major 6x10 layout `(((3, 2), (2, 5)):((1, 6), (3, 12)))`: row r = (r%3, r//3) with strides (1, 6),
/// column c = (c%2, c//2) with strides (3, 12). Axe, outermost first: rows (2:6),(3:1), columns (5:12),(2:3):
/// `S[(2,3,5,2):(6,1,12,3)]`.
const MOJO_TILED: &str = "S[(2,3,5,2):(6,1,12,3)]";
const MOJO_TILED_TABLE: &str = r#"
0 1 2 3 4 5 6 7 8 9
+----+----+----+----+----+----+----+----+----+----+
0 | 0 | 3 | 12 | 15 | 24 | 27 | 36 | 39 | 48 | 51 |
+----+----+----+----+----+----+----+----+----+----+
1 | 1 | 4 | 13 | 16 | 25 | 28 | 37 | 40 | 49 | 52 |
+----+----+----+----+----+----+----+----+----+----+
2 | 2 | 5 | 14 | 17 | 26 | 29 | 38 | 41 | 50 | 53 |
+----+----+----+----+----+----+----+----+----+----+
3 | 6 | 9 | 18 | 21 | 30 | 33 | 42 | 45 | 54 | 57 |
+----+----+----+----+----+----+----+----+----+----+
4 | 7 | 10 | 19 | 22 | 31 | 34 | 43 | 46 | 55 | 58 |
+----+----+----+----+----+----+----+----+----+----+
5 | 8 | 11 | 20 | 23 | 32 | 35 | 44 | 47 | 56 | 59 |
+----+----+----+----+----+----+----+----+----+----+
"#;

#[test]
fn mojo_tile_major_6x10() {
    check_mojo(MOJO_TILED, &[6, 10], MOJO_TILED_TABLE);
}

/// `blocked_product(tile, tiler)`: Tile `col_major[3, 2]` = `((3, 2):(1, 3))` -> `S[(3,2):(1,3)]`, Tiler
/// `col_major[2, 5]` = `((2, 5):(1, 2))` -> `S[(2,5):(1,2)]`, and the blocked product prints the tile-major table
/// again. blocked_product is Axe's tile(inner = Tile, outer = Tiler): the Tiler is scaled by span(Tile) = 6.
#[test]
fn mojo_blocked_product_is_tile() {
    check_mojo(
        "S[(3,2):(1,3)]",
        &[3, 2],
        r#"
0 1
+---+---+
0 | 0 | 3 |
+---+---+
1 | 1 | 4 |
+---+---+
2 | 2 | 5 |
+---+---+
"#,
    );
    check_mojo(
        "S[(2,5):(1,2)]",
        &[2, 5],
        r#"
0 1 2 3 4
+----+----+----+----+----+
0 | 0 | 2 | 4 | 6 | 8 |
+----+----+----+----+----+
1 | 1 | 3 | 5 | 7 | 9 |
+----+----+----+----+----+
"#,
    );
    let blocked_table = r#"
0 1 2 3 4 5 6 7 8 9
+----+----+----+----+----+----+----+----+----+----+
0 | 0 | 3 | 12 | 15 | 24 | 27 | 36 | 39 | 48 | 51 |
+----+----+----+----+----+----+----+----+----+----+
1 | 1 | 4 | 13 | 16 | 25 | 28 | 37 | 40 | 49 | 52 |
+----+----+----+----+----+----+----+----+----+----+
2 | 2 | 5 | 14 | 17 | 26 | 29 | 38 | 41 | 50 | 53 |
+----+----+----+----+----+----+----+----+----+----+
3 | 6 | 9 | 18 | 21 | 30 | 33 | 42 | 45 | 54 | 57 |
+----+----+----+----+----+----+----+----+----+----+
4 | 7 | 10 | 19 | 22 | 31 | 34 | 43 | 46 | 55 | 58 |
+----+----+----+----+----+----+----+----+----+----+
5 | 8 | 11 | 20 | 23 | 32 | 35 | 44 | 47 | 56 | 59 |
+----+----+----+----+----+----+----+----+----+----+
"#;
    check_mojo(MOJO_TILED, &[6, 10], blocked_table);
    let (inner, outer) = (layout("S[(3,2):(1,3)]"), tile_layout("S[(2,5):(1,2)]"));
    let t = ok("tile(Tile, Tiler)", tile(&inner, &outer, &[3, 2], &[2, 5]));
    for (r, c, v) in mojo_table(blocked_table) {
        assert_at(&t, "tile(Tile, Tiler)", &[6, 10], &[r, c], &[pt!(m = v)]);
    }
    // tile-of recovers the Tiler and the Tile from the blocked layout.
    let tiled = layout(MOJO_TILED);
    let b = ok("outer_of", outer_of(&tiled, &inner, &[6, 10], &[3, 2]));
    check_map(&b.into(), "outer_of(blocked, Tile)", &[2, 5], |x| vec![pt!(m = x[0] + 2 * x[1])]);
    let a = ok("inner_of", inner_of(&tiled, &outer, &[6, 10], &[2, 5]));
    check_map(&a, "inner_of(blocked, Tiler)", &[3, 2], |x| vec![pt!(m = x[0] + 3 * x[1])]);
}

/// `zipped_divide[coord[2, 2]()](row_major[6, 4]())`: base `((6, 4):(4, 1))` = `S[(6,4):(4,1)]`; result
/// `(((2, 2), (3, 2)):((4, 1), (8, 2)))` printed 4 x 6 ("each column a tile"): row r = (r%2, r//2) with strides
/// (4, 1), column c = (c%3, c//3) with strides (8, 2). Axe: rows (2:1),(2:4), columns (2:2),(3:8):
/// `S[(2,2,2,3):(1,4,2,8)]`.
#[test]
fn mojo_zipped_divide() {
    let base_table = r#"
0 1 2 3
+----+----+----+----+
0 | 0 | 1 | 2 | 3 |
+----+----+----+----+
1 | 4 | 5 | 6 | 7 |
+----+----+----+----+
2 | 8 | 9 | 10 | 11 |
+----+----+----+----+
3 | 12 | 13 | 14 | 15 |
+----+----+----+----+
4 | 16 | 17 | 18 | 19 |
+----+----+----+----+
5 | 20 | 21 | 22 | 23 |
+----+----+----+----+
"#;
    check_mojo("S[(6,4):(4,1)]", &[6, 4], base_table);
    check_mojo(
        "S[(2,2,2,3):(1,4,2,8)]",
        &[4, 6],
        r#"
0 1 2 3 4 5
+----+----+----+----+----+----+
0 | 0 | 8 | 16 | 2 | 10 | 18 |
+----+----+----+----+----+----+
1 | 4 | 12 | 20 | 6 | 14 | 22 |
+----+----+----+----+----+----+
2 | 1 | 9 | 17 | 3 | 11 | 19 |
+----+----+----+----+----+----+
3 | 5 | 13 | 21 | 7 | 15 | 23 |
+----+----+----+----+----+----+
"#,
    );
    // The two modes of the zipped result are the two addends of a direct sum that rebuilds the base: the tile mode
    // (2,2):(4,1) on the inside, the rest mode (3,2):(8,2) outside, without span scaling (paper App. F).
    let rest = tile_layout("S[(3,2):(8,2)]");
    let sum = ok("direct_sum(rest, tile)", direct_sum(&rest, &layout("S[(2,2):(4,1)]"), &[3, 2], &[2, 2]));
    for (r, c, v) in mojo_table(base_table) {
        assert_at(&sum, "direct_sum(rest, tile)", &[6, 4], &[r, c], &[pt!(m = v)]);
    }
}

/// The smaller Mojo examples: `(4:1)`; the sparse `(4:2)` with size 4 and cosize 7 (Axe span on m); column-major
/// 2x4 `((2, 4):(1, 2))`; the nested 1-D `(((4, 2):(1, 4)))` (index i -> (i%4, i//4) -> i; Axe `S[(2,4):(4,1)]`);
/// "Layout B" with row mode (2, 2):(1, 4) and column mode (2, 2):(2, 8) over 4x4 (Axe `S[(2,2,2,2):(4,1,8,2)]`),
/// where "four consecutive indices are grouped into each 2x2 tile".
#[test]
fn mojo_small_layouts() {
    check_all("S[4:1]", &[4], |x| vec![pt!(m = x[0])]);
    check_all("S[4:2]", &[4], |x| vec![pt!(m = 2 * x[0])]);
    let sparse = tile_layout("S[4:2]");
    assert_eq!((sparse.size(), sparse.span_on(Axis::M)), (4, 7));
    check_all("S[(2,4):(1,2)]", &[2, 4], |x| vec![pt!(m = x[0] + 2 * x[1])]);
    check_all("S[(2,4):(4,1)]", &[8], |x| vec![pt!(m = x[0])]);
    check_all("S[(2,2,2,2):(4,1,8,2)]", &[4, 4], |x| {
        vec![pt!(m = (x[0] % 2) + 4 * (x[0] / 2) + 2 * (x[1] % 2) + 8 * (x[1] / 2))]
    });
    let b = layout("S[(2,2,2,2):(4,1,8,2)]");
    for (ti, tj) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
        let mut addrs: Vec<i64> =
            coords(&[2, 2]).iter().map(|y| m_of(&b, &[4, 4], &[2 * ti + y[0], 2 * tj + y[1]])).collect();
        addrs.sort();
        assert_eq!(addrs, (addrs[0]..addrs[0] + 4).collect::<Vec<_>>());
    }
}

// ------------------------------------------------------------------------------------------------------------------
// Tilus register layouts. A cell `t: i` means thread t, local slot i; translated to `t@laneid` and `i@reg`.
// Tilus's mode decomposition is row-major like Axe's: a layout with mode_shape [n0, n1, ...] is an Axe shard with
// one iter per mode, in mode order; a spatial mode takes its stride on laneid and a local mode on reg, each stride
// the product of the later modes of its own list (spatial_modes or local_modes).
// ------------------------------------------------------------------------------------------------------------------

/// `local(3, 4)`: thread 0, local 4r + c.
#[test]
fn tilus_local() {
    check_tilus(
        "S[(3,4):(4@reg,1@reg)]",
        &[3, 4],
        r#"
┌──────┬──────┬───────┬───────┐
│ 0: 0 │ 0: 1 │ 0: 2  │ 0: 3  │
├──────┼──────┼───────┼───────┤
│ 0: 4 │ 0: 5 │ 0: 6  │ 0: 7  │
├──────┼──────┼───────┼───────┤
│ 0: 8 │ 0: 9 │ 0: 10 │ 0: 11 │
└──────┴──────┴───────┴───────┘
"#,
    );
}

/// `spatial(3, 2)`: thread 2r + c.
#[test]
fn tilus_spatial() {
    check_tilus(
        "S[(3,2):(2@laneid,1@laneid)]",
        &[3, 2],
        r#"
┌──────┬──────┐
│ 0: 0 │ 1: 0 │
├──────┼──────┤
│ 2: 0 │ 3: 0 │
├──────┼──────┤
│ 4: 0 │ 5: 0 │
└──────┴──────┘
"#,
    );
}

/// `local(3, 4).spatial(2, 3)`: mode_shape [3, 2, 4, 3], spatial_modes [1, 3] (thread = 3 m1 + m3), local_modes
/// [0, 2] (local = 4 m0 + m2). Composition replaces each element of the left layout by the right one: Axe's
/// tile(inner = spatial(2, 3), outer = local(3, 4)); the inner has no reg span, so the outer keeps its reg strides.
#[test]
fn tilus_local_then_spatial() {
    let table = r#"
┌──────┬──────┬──────┬──────┬──────┬──────┬───────┬───────┬───────┬───────┬───────┬───────┐
│ 0: 0 │ 1: 0 │ 2: 0 │ 0: 1 │ 1: 1 │ 2: 1 │ 0: 2  │ 1: 2  │ 2: 2  │ 0: 3  │ 1: 3  │ 2: 3  │
├──────┼──────┼──────┼──────┼──────┼──────┼───────┼───────┼───────┼───────┼───────┼───────┤
│ 3: 0 │ 4: 0 │ 5: 0 │ 3: 1 │ 4: 1 │ 5: 1 │ 3: 2  │ 4: 2  │ 5: 2  │ 3: 3  │ 4: 3  │ 5: 3  │
├──────┼──────┼──────┼──────┼──────┼──────┼───────┼───────┼───────┼───────┼───────┼───────┤
│ 0: 4 │ 1: 4 │ 2: 4 │ 0: 5 │ 1: 5 │ 2: 5 │ 0: 6  │ 1: 6  │ 2: 6  │ 0: 7  │ 1: 7  │ 2: 7  │
├──────┼──────┼──────┼──────┼──────┼──────┼───────┼───────┼───────┼───────┼───────┼───────┤
│ 3: 4 │ 4: 4 │ 5: 4 │ 3: 5 │ 4: 5 │ 5: 5 │ 3: 6  │ 4: 6  │ 5: 6  │ 3: 7  │ 4: 7  │ 5: 7  │
├──────┼──────┼──────┼──────┼──────┼──────┼───────┼───────┼───────┼───────┼───────┼───────┤
│ 0: 8 │ 1: 8 │ 2: 8 │ 0: 9 │ 1: 9 │ 2: 9 │ 0: 10 │ 1: 10 │ 2: 10 │ 0: 11 │ 1: 11 │ 2: 11 │
├──────┼──────┼──────┼──────┼──────┼──────┼───────┼───────┼───────┼───────┼───────┼───────┤
│ 3: 8 │ 4: 8 │ 5: 8 │ 3: 9 │ 4: 9 │ 5: 9 │ 3: 10 │ 4: 10 │ 5: 10 │ 3: 11 │ 4: 11 │ 5: 11 │
└──────┴──────┴──────┴──────┴──────┴──────┴───────┴───────┴───────┴───────┴───────┴───────┘
"#;
    check_tilus("S[(3,2,4,3):(4@reg,3@laneid,1@reg,1@laneid)]", &[6, 12], table);
    let (inner, outer) = (layout("S[(2,3):(3@laneid,1@laneid)]"), tile_layout("S[(3,4):(4@reg,1@reg)]"));
    let t = ok("tile(spatial(2,3), local(3,4))", tile(&inner, &outer, &[2, 3], &[3, 4]));
    check_tilus_layout(&t, "tile(spatial(2,3), local(3,4))", &[6, 12], table);
}

/// `spatial(2, 3).local(3, 4)`: mode_shape [2, 3, 3, 4], spatial [0, 2] (thread = 3 m0 + m2), local [1, 3]
/// (local = 4 m1 + m3); as a tile, the outer spatial(2, 3) keeps its laneid strides.
#[test]
fn tilus_spatial_then_local() {
    let table = r#"
┌──────┬──────┬───────┬───────┬──────┬──────┬───────┬───────┬──────┬──────┬───────┬───────┐
│ 0: 0 │ 0: 1 │ 0: 2  │ 0: 3  │ 1: 0 │ 1: 1 │ 1: 2  │ 1: 3  │ 2: 0 │ 2: 1 │ 2: 2  │ 2: 3  │
├──────┼──────┼───────┼───────┼──────┼──────┼───────┼───────┼──────┼──────┼───────┼───────┤
│ 0: 4 │ 0: 5 │ 0: 6  │ 0: 7  │ 1: 4 │ 1: 5 │ 1: 6  │ 1: 7  │ 2: 4 │ 2: 5 │ 2: 6  │ 2: 7  │
├──────┼──────┼───────┼───────┼──────┼──────┼───────┼───────┼──────┼──────┼───────┼───────┤
│ 0: 8 │ 0: 9 │ 0: 10 │ 0: 11 │ 1: 8 │ 1: 9 │ 1: 10 │ 1: 11 │ 2: 8 │ 2: 9 │ 2: 10 │ 2: 11 │
├──────┼──────┼───────┼───────┼──────┼──────┼───────┼───────┼──────┼──────┼───────┼───────┤
│ 3: 0 │ 3: 1 │ 3: 2  │ 3: 3  │ 4: 0 │ 4: 1 │ 4: 2  │ 4: 3  │ 5: 0 │ 5: 1 │ 5: 2  │ 5: 3  │
├──────┼──────┼───────┼───────┼──────┼──────┼───────┼───────┼──────┼──────┼───────┼───────┤
│ 3: 4 │ 3: 5 │ 3: 6  │ 3: 7  │ 4: 4 │ 4: 5 │ 4: 6  │ 4: 7  │ 5: 4 │ 5: 5 │ 5: 6  │ 5: 7  │
├──────┼──────┼───────┼───────┼──────┼──────┼───────┼───────┼──────┼──────┼───────┼───────┤
│ 3: 8 │ 3: 9 │ 3: 10 │ 3: 11 │ 4: 8 │ 4: 9 │ 4: 10 │ 4: 11 │ 5: 8 │ 5: 9 │ 5: 10 │ 5: 11 │
└──────┴──────┴───────┴───────┴──────┴──────┴───────┴───────┴──────┴──────┴───────┴───────┘
"#;
    check_tilus("S[(2,3,3,4):(3@laneid,4@reg,1@laneid,1@reg)]", &[6, 12], table);
    let (inner, outer) = (layout("S[(3,4):(4@reg,1@reg)]"), tile_layout("S[(2,3):(3@laneid,1@laneid)]"));
    let t = ok("tile(local(3,4), spatial(2,3))", tile(&inner, &outer, &[3, 4], &[2, 3]));
    check_tilus_layout(&t, "tile(local(3,4), spatial(2,3))", &[6, 12], table);
}

/// The mma.sync m16n8k8 C fragment `repeat(2, 1).spatial(8, 4).repeat(1, 2)`: mode_shape [2, 8, 4, 2], spatial
/// [1, 2] (thread = 4 m1 + m2), local [0, 3] (local = 2 m0 + m3). Built with two tiles as Tilus composes it.
#[test]
fn tilus_mma_fragment() {
    let table = r#"
┌───────┬───────┬───────┬───────┬───────┬───────┬───────┬───────┐
│ 0: 0  │ 0: 1  │ 1: 0  │ 1: 1  │ 2: 0  │ 2: 1  │ 3: 0  │ 3: 1  │
├───────┼───────┼───────┼───────┼───────┼───────┼───────┼───────┤
│ 4: 0  │ 4: 1  │ 5: 0  │ 5: 1  │ 6: 0  │ 6: 1  │ 7: 0  │ 7: 1  │
├───────┼───────┼───────┼───────┼───────┼───────┼───────┼───────┤
│ 8: 0  │ 8: 1  │ 9: 0  │ 9: 1  │ 10: 0 │ 10: 1 │ 11: 0 │ 11: 1 │
├───────┼───────┼───────┼───────┼───────┼───────┼───────┼───────┤
│ 12: 0 │ 12: 1 │ 13: 0 │ 13: 1 │ 14: 0 │ 14: 1 │ 15: 0 │ 15: 1 │
├───────┼───────┼───────┼───────┼───────┼───────┼───────┼───────┤
│ 16: 0 │ 16: 1 │ 17: 0 │ 17: 1 │ 18: 0 │ 18: 1 │ 19: 0 │ 19: 1 │
├───────┼───────┼───────┼───────┼───────┼───────┼───────┼───────┤
│ 20: 0 │ 20: 1 │ 21: 0 │ 21: 1 │ 22: 0 │ 22: 1 │ 23: 0 │ 23: 1 │
├───────┼───────┼───────┼───────┼───────┼───────┼───────┼───────┤
│ 24: 0 │ 24: 1 │ 25: 0 │ 25: 1 │ 26: 0 │ 26: 1 │ 27: 0 │ 27: 1 │
├───────┼───────┼───────┼───────┼───────┼───────┼───────┼───────┤
│ 28: 0 │ 28: 1 │ 29: 0 │ 29: 1 │ 30: 0 │ 30: 1 │ 31: 0 │ 31: 1 │
├───────┼───────┼───────┼───────┼───────┼───────┼───────┼───────┤
│ 0: 2  │ 0: 3  │ 1: 2  │ 1: 3  │ 2: 2  │ 2: 3  │ 3: 2  │ 3: 3  │
├───────┼───────┼───────┼───────┼───────┼───────┼───────┼───────┤
│ 4: 2  │ 4: 3  │ 5: 2  │ 5: 3  │ 6: 2  │ 6: 3  │ 7: 2  │ 7: 3  │
├───────┼───────┼───────┼───────┼───────┼───────┼───────┼───────┤
│ 8: 2  │ 8: 3  │ 9: 2  │ 9: 3  │ 10: 2 │ 10: 3 │ 11: 2 │ 11: 3 │
├───────┼───────┼───────┼───────┼───────┼───────┼───────┼───────┤
│ 12: 2 │ 12: 3 │ 13: 2 │ 13: 3 │ 14: 2 │ 14: 3 │ 15: 2 │ 15: 3 │
├───────┼───────┼───────┼───────┼───────┼───────┼───────┼───────┤
│ 16: 2 │ 16: 3 │ 17: 2 │ 17: 3 │ 18: 2 │ 18: 3 │ 19: 2 │ 19: 3 │
├───────┼───────┼───────┼───────┼───────┼───────┼───────┼───────┤
│ 20: 2 │ 20: 3 │ 21: 2 │ 21: 3 │ 22: 2 │ 22: 3 │ 23: 2 │ 23: 3 │
├───────┼───────┼───────┼───────┼───────┼───────┼───────┼───────┤
│ 24: 2 │ 24: 3 │ 25: 2 │ 25: 3 │ 26: 2 │ 26: 3 │ 27: 2 │ 27: 3 │
├───────┼───────┼───────┼───────┼───────┼───────┼───────┼───────┤
│ 28: 2 │ 28: 3 │ 29: 2 │ 29: 3 │ 30: 2 │ 30: 3 │ 31: 2 │ 31: 3 │
└───────┴───────┴───────┴───────┴───────┴───────┴───────┴───────┘
"#;
    check_tilus("S[(2,8,4,2):(2@reg,4@laneid,1@laneid,1@reg)]", &[16, 8], table);
    // PTX: row = g + 8 rM with g = laneid / 4, col = 2t + rN with t = laneid % 4, register 2 rM + rN.
    check_all("S[(2,8,4,2):(2@reg,4@laneid,1@laneid,1@reg)]", &[16, 8], |x| {
        vec![pt!(laneid = 4 * (x[0] % 8) + x[1] / 2, reg = 2 * (x[0] / 8) + x[1] % 2)]
    });
    let spatial_then_repeat = ok(
        "tile(repeat(1,2), spatial(8,4))",
        tile(&layout("S[(1,2):(2@reg,1@reg)]"), &tile_layout("S[(8,4):(4@laneid,1@laneid)]"), &[1, 2], &[8, 4]),
    );
    let t = ok(
        "tile(spatial(8,4).repeat(1,2), repeat(2,1))",
        tile(&spatial_then_repeat, &tile_layout("S[(2,1):(1@reg,1@reg)]"), &[8, 8], &[2, 1]),
    );
    check_tilus_layout(&t, "repeat(2,1).spatial(8,4).repeat(1,2)", &[16, 8], table);
}

/// `spatial(3, 4)` and `reduce(spatial(3, 4), dims=[0])`: the reduced layout holds element c in threads c, c+4,
/// c+8, an Axe replica `R[3:4@laneid]`.
#[test]
fn tilus_replication_by_reduce() {
    check_tilus(
        "S[(3,4):(4@laneid,1@laneid)]",
        &[3, 4],
        r#"
┌──────┬──────┬───────┬───────┐
│ 0: 0 │ 1: 0 │ 2: 0  │ 3: 0  │
├──────┼──────┼───────┼───────┤
│ 4: 0 │ 5: 0 │ 6: 0  │ 7: 0  │
├──────┼──────┼───────┼───────┤
│ 8: 0 │ 9: 0 │ 10: 0 │ 11: 0 │
└──────┴──────┴───────┴───────┘
"#,
    );
    check_tilus(
        "S[4:1@laneid] + R[3:4@laneid]",
        &[4],
        r#"
┌──────────────┬──────────────┬───────────────┬───────────────┐
│ [0, 4, 8]: 0 │ [1, 5, 9]: 0 │ [2, 6, 10]: 0 │ [3, 7, 11]: 0 │
└──────────────┴──────────────┴───────────────┴───────────────┘
"#,
    );
}

/// `local`, `column_local`, `spatial`, `column_spatial` over [2, 3]: the column variants list their modes in
/// reverse (local_modes [1, 0]), i.e. the stride of mode 0 is 1 and of mode 1 is 2.
#[test]
fn tilus_row_and_column_orders() {
    check_tilus(
        "S[(2,3):(3@reg,1@reg)]",
        &[2, 3],
        r#"
┌──────┬──────┬──────┐
│ 0: 0 │ 0: 1 │ 0: 2 │
├──────┼──────┼──────┤
│ 0: 3 │ 0: 4 │ 0: 5 │
└──────┴──────┴──────┘
"#,
    );
    check_tilus(
        "S[(2,3):(1@reg,2@reg)]",
        &[2, 3],
        r#"
┌──────┬──────┬──────┐
│ 0: 0 │ 0: 2 │ 0: 4 │
├──────┼──────┼──────┤
│ 0: 1 │ 0: 3 │ 0: 5 │
└──────┴──────┴──────┘
"#,
    );
    check_tilus(
        "S[(2,3):(3@laneid,1@laneid)]",
        &[2, 3],
        r#"
┌──────┬──────┬──────┐
│ 0: 0 │ 1: 0 │ 2: 0 │
├──────┼──────┼──────┤
│ 3: 0 │ 4: 0 │ 5: 0 │
└──────┴──────┴──────┘
"#,
    );
    check_tilus(
        "S[(2,3):(1@laneid,2@laneid)]",
        &[2, 3],
        r#"
┌──────┬──────┬──────┐
│ 0: 0 │ 2: 0 │ 4: 0 │
├──────┼──────┼──────┤
│ 1: 0 │ 3: 0 │ 5: 0 │
└──────┴──────┴──────┘
"#,
    );
}

/// "Mapping Process": shape [4, 6], mode_shape [2, 2, 3, 2], spatial [0, 2], local [3, 1]:
/// thread_id = (i // 2) * 3 + (j // 2), local_id = (j % 2) * 2 + (i % 2).
#[test]
fn tilus_mapping_process() {
    check_all("S[(2,2,3,2):(3@laneid,1@reg,1@laneid,2@reg)]", &[4, 6], |x| {
        vec![pt!(laneid = (x[0] / 2) * 3 + x[1] / 2, reg = (x[1] % 2) * 2 + x[0] % 2)]
    });
}

// ------------------------------------------------------------------------------------------------------------------
// The paper (Figure 2, section 3.3, appendices) and the worked results in reference-tirx.md
// ------------------------------------------------------------------------------------------------------------------

/// Figure 2B (its layouts did not survive extraction; rebuilt from the prose): a 64 x 128 tensor on a 2 x 2 mesh.
/// Fully sharded: the 64 rows split over gpuid_x, the 128 columns over gpuid_y, each GPU holding a 32 x 64
/// row-major block. Shard with replication: rows split over gpuid_x, each shard replicated on both gpuid_y.
#[test]
fn paper_figure_2b_mesh() {
    check_all("S[(2,32,2,64):(1@gpuid_x,64,1@gpuid_y,1)]", &[64, 128], |x| {
        vec![pt!(gpuid_x = x[0] / 32, gpuid_y = x[1] / 64, m = 64 * (x[0] % 32) + x[1] % 64)]
    });
    check_all("S[(2,32,128):(1@gpuid_x,128,1)] + R[2:1@gpuid_y]", &[64, 128], |x| {
        (0..2).map(|gy| pt!(gpuid_x = x[0] / 32, gpuid_y = gy, m = 128 * (x[0] % 32) + x[1])).collect()
    });
}

/// reference-tirx.md: span(S[(8,8,8):(64@F,1@P,1@F)], "F") = 456 (a Trainium scratchpad layout, Figure 2C's kind).
#[test]
fn scratchpad_span() {
    let t = tile_layout("S[(8,8,8):(64@F,1@P,1@F)]");
    assert_eq!(t.span_on(Axis::named("F").unwrap()), 456);
    assert_eq!(t.span_on(Axis::named("P").unwrap()), 8);
    check_all("S[(8,8,8):(64@F,1@P,1@F)]", &[8, 64], |x| vec![pt!(P = x[1] / 8, F = 64 * x[0] + x[1] % 8)]);
}

/// App. F.4: A = a 2x2 block of a width-4 row-major matrix, `S[(2,2):(4,1)]`; B = the four quadrant origins of a
/// 4x4 matrix (0, 2, 8, 10), `S[(2,2):(8,2)]`. Their direct sum on the interleaved domain is the contiguous 4x4
/// row-major layout; reference-tirx.md: the shard is `(2,2,2,2):(8,4,2,1)`, which D1-fuses to `S[16:1]`.
#[test]
fn paper_app_f_direct_sum_is_contiguous() {
    let quadrants = tile_layout("S[(2,2):(8,2)]");
    let block = layout("S[(2,2):(4,1)]");
    let sum = ok("direct_sum", direct_sum(&quadrants, &block, &[2, 2], &[2, 2]));
    check_map(&sum, "direct_sum(quadrants, block)", &[4, 4], |x| vec![pt!(m = 4 * x[0] + x[1])]);
    check_all("S[(2,2,2,2):(8,4,2,1)]", &[4, 4], |x| vec![pt!(m = 4 * x[0] + x[1])]);
    let canon = canonicalize(&sum).layout;
    assert_eq!(canon.tile().shard(), iters(&[(16, 1, "m")]), "canonical form of the direct sum");
}

/// App. F.4: "no C can" make tile(A, C) the contiguous 4x4 layout: span(A) = 6, so every image is congruent to
/// one of A's residues {0, 1, 4, 5} mod 6, but the target reaches 2.
#[test]
fn paper_app_f_contiguous_is_not_a_tile_of_the_block() {
    let target = layout("S[16:1]");
    assert!(outer_of(&target, &layout("S[(2,2):(4,1)]"), &[4, 4], &[2, 2]).is_err());
}

/// reference-tirx.md: "`S[(8,8):(8,1)]`, outer_shape [8,8], inner_shape [2,4] -> `S[(8,2,32):(64,1,2)]` (inner
/// span 8)". The result pins the inner down: its dimension blocks are (2:1) and (4:2), i.e. the column-major 2x4
/// tile `S[(2,4):(1,2)]`. The outer has no replica or offset, so our semantics agrees with TIRx:
/// L(r, c) = 8 (8 (r//2) + c//4) + (r%2) + 2 (c%4).
#[test]
fn tirx_tile_worked_result() {
    let inner = layout("S[(2,4):(1,2)]");
    let outer = tile_layout("S[(8,8):(8,1)]");
    let expected = |x: &[i64]| vec![pt!(m = 8 * (8 * (x[0] / 2) + x[1] / 4) + x[0] % 2 + 2 * (x[1] % 4))];
    check_all("S[(8,2,32):(64,1,2)]", &[16, 32], expected);
    let t = ok("tile", tile(&inner, &outer, &[2, 4], &[8, 8]));
    check_map(&t, "tile(S[(2,4):(1,2)], S[(8,8):(8,1)])", &[16, 32], expected);
    // The canonical form is unique without replicas (Theorem A.8), so it is TIRx's printed result exactly.
    assert_eq!(canonicalize(&t).layout.tile().shard(), iters(&[(8, 64, "m"), (2, 1, "m"), (32, 2, "m")]));
    assert_eq!(axe_layout::canonicalize::equivalent(&t, &layout("S[(8,2,32):(64,1,2)]"), &[16, 32]), Ok(true));
    assert_eq!(axe_layout::canonicalize::equivalent(&t, &layout("S[(8,2,32):(64,2,1)]"), &[16, 32]), Ok(false));
    let b = ok("outer_of", outer_of(&layout("S[(8,2,32):(64,1,2)]"), &inner, &[16, 32], &[2, 4]));
    check_map(&b.into(), "outer_of", &[8, 8], |x| vec![pt!(m = 8 * x[0] + x[1])]);
}

/// Where our semantics differs from TIRx (semantics.md, "tile"): the outer's replica and offset are scaled by the
/// inner's span too. L_T(x_o, x_i) = span(A) (.) L_B(x_o) + L_A(x_i) with L_B = {8a + b + 1 + 64r}.
#[test]
fn tile_scales_the_outer_replica_and_offset() {
    let inner = layout("S[(2,4):(1,2)]");
    let outer = tile_layout("S[(8,8):(8,1)] + R[2:64] + 1");
    let t = ok("tile", tile(&inner, &outer, &[2, 4], &[8, 8]));
    check_map(&t, "tile(S[(2,4):(1,2)], S[(8,8):(8,1)] + R[2:64] + 1)", &[16, 32], |x| {
        let base = 8 * (8 * (x[0] / 2) + x[1] / 4 + 1) + x[0] % 2 + 2 * (x[1] % 4);
        vec![pt!(m = base), pt!(m = base + 8 * 64)]
    });
    // On a thread axis: the tensor-core tile has warpid span 11 (shard 1 + replica 4 + offset 5 + 1), so a second
    // row block of it lands 11 warps further: warps {16, 17, 20, 21}.
    let t = ok(
        "tile(tc tile, S[2:1@warpid])",
        tile(&layout(TC_TILE), &tile_layout("S[(2,1):(1@warpid,1)]"), &[8, 16], &[2, 1]),
    );
    check_map(&t, "tile(tc tile, S[2:1@warpid])", &[16, 16], |x| {
        let (blk, i, j) = (x[0] / 8, x[0] % 8, x[1]);
        tc_formula(i, j)
            .into_iter()
            .map(|mut p| {
                p.push(("warpid", 11 * blk));
                p
            })
            .collect()
    });
}

/// reference-tirx.md, `mma_shared_layout`: fp16 / 128B / (3, 64, 256) is `Swizzle(3,3,3) o
/// S[(3,64,4,64):(16384,64,4096,1)]`, the 8 x 64 swizzle atom tiled by an outer over [3, 8, 4] (the atom's span is
/// its period 512); fp16 / 64B is `Swizzle(3,2,3) o S[(3,64,8,32):(16384,32,2048,1)]` (period 256).
#[test]
fn tirx_mma_shared_layouts() {
    let addr128 = |x: &[i64]| 16384 * x[0] + 64 * x[1] + 4096 * (x[2] / 64) + x[2] % 64;
    let addr64 = |x: &[i64]| 16384 * x[0] + 32 * x[1] + 2048 * (x[2] / 32) + x[2] % 32;
    let want128 = |x: &[i64]| vec![pt!(m = swizzle_formula(3, 3, 3, addr128(x)))];
    let want64 = |x: &[i64]| vec![pt!(m = swizzle_formula(3, 2, 3, addr64(x)))];
    check_all("Swizzle(3,3,3) o S[(3,64,4,64):(16384,64,4096,1)]", &[3, 64, 256], want128);
    check_all("Swizzle(3,2,3) o S[(3,64,8,32):(16384,32,2048,1)]", &[3, 64, 256], want64);
    let t = ok(
        "tile(Swizzle(3,3,3), outer)",
        tile(&layout("Swizzle(3,3,3)"), &tile_layout("S[(3,8,4):(32,1,8)]"), &[1, 8, 64], &[3, 8, 4]),
    );
    check_map(&t, "tile(Swizzle(3,3,3), S[(3,8,4):(32,1,8)])", &[3, 64, 256], want128);
    let t = ok(
        "tile(Swizzle(3,2,3), outer)",
        tile(&layout("Swizzle(3,2,3)"), &tile_layout("S[(3,8,8):(64,1,8)]"), &[1, 8, 32], &[3, 8, 8]),
    );
    check_map(&t, "tile(Swizzle(3,2,3), S[(3,8,8):(64,1,8)])", &[3, 64, 256], want64);
    // tile-of on a ComposeLayout acts on its tile (how TIRx's tcgen05 dispatch recovers the atom tiler): the outer
    // of the 128B buffer over the bare atom is the [3, 8, 4] grid of atoms, 32 / 1 / 8 atoms apart.
    let smem = layout("Swizzle(3,3,3) o S[(3,64,4,64):(16384,64,4096,1)]");
    let b = ok("outer_of(smem, atom)", outer_of(&smem, &layout("Swizzle(3,3,3)"), &[3, 64, 256], &[1, 8, 64]));
    check_map(&b.into(), "outer_of(smem, atom)", &[3, 8, 4], |x| vec![pt!(m = 32 * x[0] + x[1] + 8 * x[2])]);
    let a = ok("inner_of(smem, grid)", inner_of(&smem, &tile_layout("S[(3,8,4):(32,1,8)]"), &[3, 64, 256], &[3, 8, 4]));
    assert_eq!(a.swizzle(), Some(Swizzle::new(3, 3, 3).unwrap()), "the inner keeps the swizzle");
    check_map(&a, "inner_of(smem, grid)", &[1, 8, 64], |x| vec![pt!(m = swizzle_formula(3, 3, 3, 64 * x[1] + x[2]))]);
}

// ------------------------------------------------------------------------------------------------------------------
// Slice (paper section 3.3 and App. E): L'(y) == L(y + begin) on the region
// ------------------------------------------------------------------------------------------------------------------

fn check_slice(text: &str, shape: &[i64], region: &[(i64, i64)]) {
    let l = layout(text);
    let what = format!("slice({text}, {region:?})");
    let s = ok(&what, slice(&l, shape, region));
    let extents: Vec<i64> = region.iter().map(|(b, e)| e - b).collect();
    for y in coords(&extents) {
        let x: Vec<i64> = y.iter().zip(region).map(|(yi, (b, _))| yi + b).collect();
        let want = actual_set(l.eval(shape, &x).unwrap());
        let got = actual_set(s.eval(&extents, &y).unwrap_or_else(|e| panic!("{what} at {y:?}: {e}")));
        assert_eq!(got, want, "{what} at {y:?}");
    }
}

/// reference-tirx.md lists the slice result `S[(1,2,2):(4,14,1)] + 26@m` (its input was lost). It is the
/// symmetric one-wrap form (App. E.2) of `S[(4,4,4):(4,16,1)]` over 4 x 16 on rows [2,3), columns [6,10): the
/// column block (4:16),(4:1) starts at digits (1, 2) and the 4 columns wrap once at the midpoint; the wrap iter has
/// stride 16 - 2*1 = 14 and the offset is 2*4 + 1*16 + 2 = 26. From the definition: L(2, 6 + y) = 8 + 16 ((6+y)//4)
/// + (6+y)%4 = 26, 27, 40, 41.
#[test]
fn slice_one_wrap_worked_result() {
    check_all("S[(1,2,2):(4,14,1)] + 26@m", &[1, 4], |x| vec![pt!(m = [26, 27, 40, 41][x[1] as usize])]);
    let s = ok("slice", slice(&layout("S[(4,4,4):(4,16,1)]"), &[4, 16], &[(2, 3), (6, 10)]));
    check_map(&s, "slice(S[(4,4,4):(4,16,1)], [2:3, 6:10])", &[1, 4], |x| {
        vec![pt!(m = [26, 27, 40, 41][x[1] as usize])]
    });
    // No replica, so the normalized shard is unique (App. A, Theorem A.8): the slice's canonical form is the listed
    // result's, `S[(2,2):(14,1)] + 26` once D0 drops the unit iter.
    let listed = canonicalize(&layout("S[(1,2,2):(4,14,1)] + 26@m")).layout;
    assert_eq!(canonicalize(&s).layout, listed);
    assert_eq!(listed.tile().shard(), iters(&[(2, 14, "m"), (2, 1, "m")]));
    check_slice("S[(4,4,4):(4,16,1)]", &[4, 16], &[(0, 4), (6, 10)]);
}

/// Slices of the spec's layouts that App. E's sufficient conditions cover, against the formulas.
#[test]
fn slice_spec_layouts() {
    // The tensor-core tile: one warp's half (no-wrap on warpid), and a 4-row band.
    check_slice(TC_TILE, &[8, 16], &[(0, 8), (8, 16)]);
    check_slice(TC_TILE, &[8, 16], &[(2, 6), (0, 8)]);
    check_slice(TC_TILE, &[8, 16], &[(3, 4), (2, 6)]);
    let s = ok("slice", slice(&layout(TC_TILE), &[8, 16], &[(2, 6), (8, 16)]));
    check_map(&s, "slice(tc tile, [2:6, 8:16])", &[4, 8], |y| tc_formula(y[0] + 2, y[1] + 8));
    // One 2x4 tile of the chapter's tiled layout is contiguous: 24 + 4a + b.
    let s = ok("slice", slice(&layout(CHAPTER_TILED), &[8, 8], &[(2, 4), (4, 8)]));
    check_map(&s, "slice(chapter tiled, [2:4, 4:8])", &[2, 4], |y| vec![pt!(m = 24 + 4 * y[0] + y[1])]);
    // Tensor memory: lanes 32..64 of both stages.
    let s = ok("slice", slice(&layout(TMEM), &[2, 128, 112], &[(0, 2), (32, 64), (0, 112)]));
    check_map(&s, "slice(tmem)", &[2, 32, 112], |y| vec![pt!(TLane = 32 + y[1], TCol = 112 * y[0] + y[2])]);
    // The scale-factor atom keeps its replica.
    check_slice(SF_ATOM, &[32, 4], &[(8, 16), (0, 4)]);
    // A swizzled tile keeps its swizzle, applied to the absolute address: 64i + 8 (1 xor i) + j'.
    let s = ok("slice", slice(&layout(SWIZZLED), &[8, 64], &[(0, 8), (8, 16)]));
    check_map(&s, "slice(swizzled, [0:8, 8:16])", &[8, 8], |y| vec![pt!(m = swizzled_addr(y[0], 8 + y[1]))]);
    check_slice(SWIZZLED, &[8, 64], &[(2, 6), (16, 48)]);
}

/// Columns 4..12 of the tensor-core tile cross the warp boundary while laneid wraps: y -> (warp + y//4,
/// lane 2 + (y//2)%2 - 2 (y//4)). One digit would have to move two axes, so no layout exists; the error must say
/// so rather than return a wrong layout.
#[test]
fn slice_without_a_layout_is_an_error() {
    let err = slice(&layout(TC_TILE), &[8, 16], &[(0, 8), (4, 12)]);
    assert!(err.is_err(), "no layout realizes columns 4..12 of the tensor-core tile: {err:?}");
    let msg = err.unwrap_err().message;
    assert!(msg.contains("dim"), "the error names the dimension: {msg}");
}

// ------------------------------------------------------------------------------------------------------------------
// Canonicalize and group on the spec's layouts (semantics.md fixes these structures)
// ------------------------------------------------------------------------------------------------------------------

/// D1 fusion and the reference-tirx.md results: `S[(4,1,4):(0,7,0)] -> S[16:0]`, `S[(8,4):(-4,-1)] -> S[32:-1]`,
/// the non-adjacent `S[(4,8):(1,4)]` stays; the chapter's `S[(8, 16) : (16@m, 1@m)]` is `S[128:1]` and its
/// register fragment fuses the two laneid iters.
#[test]
fn canonical_shards() {
    let cases: [(&str, Vec<Iter>); 7] = [
        ("S[(4,1,4):(0,7,0)]", iters(&[(16, 0, "m")])),
        ("S[(8,4):(-4,-1)]", iters(&[(32, -1, "m")])),
        ("S[(4,8):(1,4)]", iters(&[(4, 1, "m"), (8, 4, "m")])),
        ("S[(8, 16) : (16@m, 1@m)]", iters(&[(128, 1, "m")])),
        ("S[(8, 4, 2) : (4@laneid, 1@laneid, 1@reg)]", iters(&[(32, 1, "laneid"), (2, 1, "reg")])),
        (TC_TILE, iters(&[(8, 4, "laneid"), (2, 1, "warpid"), (4, 1, "laneid"), (2, 1, "m")])),
        (TMEM, iters(&[(2, 112, "TCol"), (128, 1, "TLane"), (112, 1, "TCol")])),
    ];
    for (text, want) in cases {
        let l = layout(text);
        let c = canonicalize(&l);
        assert_eq!(c.layout.tile().shard(), want.as_slice(), "canonical shard of {text}");
        let shape = [l.size()];
        for x in 0..l.size() {
            assert_eq!(actual_set(c.layout.eval(&shape, &[x]).unwrap()), actual_set(l.eval(&shape, &[x]).unwrap()));
        }
    }
}

/// The replica and offset rules on the spec's replicated layouts: one replica iter each, so the gap condition holds
/// and the canonical form is unique; the offset 5@warpid stays, a zero offset goes.
#[test]
fn canonical_replica_and_offset() {
    let c = canonicalize(&layout(TC_TILE));
    assert_eq!(c.layout.tile().replica(), iters(&[(2, 4, "warpid")]));
    assert_eq!(c.layout.tile().offset(), &BTreeMap::from([(Axis::named("warpid").unwrap(), 5)]));
    assert!(c.gap_condition, "a single replica iter satisfies the gap condition");
    for text in [SF_ATOM, "S[4:1@laneid] + R[3:4@laneid]", "S[(2, 4, 8) : (1@gpuid_y, 8@m, 1@m)] + R[2 : 1@gpuid_x]"] {
        assert!(canonicalize(&layout(text)).gap_condition, "{text}");
    }
    let c = canonicalize(&layout("S[4:1@laneid] + 0@warpid"));
    assert!(c.layout.tile().offset().is_empty(), "zero offsets are dropped: {:?}", c.layout);
    // C1: a negative replica stride flips and moves (e-1)*s into the offset; C2: R[2:1] and R[4:2] on one axis
    // cover the contiguous run 0..8.
    let c = canonicalize(&layout("S[4:1@laneid] + R[4:-2@warpid]"));
    assert_eq!(c.layout.tile().replica(), iters(&[(4, 2, "warpid")]));
    assert_eq!(c.layout.tile().offset(), &BTreeMap::from([(Axis::named("warpid").unwrap(), -6)]));
    let c = canonicalize(&layout("S[4:1@laneid] + R[2:1@warpid] + R[4:2@warpid]"));
    assert_eq!(c.layout.tile().replica(), iters(&[(8, 1, "warpid")]));
}

/// Grouping (paper App. B: "split or fused consecutively into blocks ... we pick the (unique) one with the fewest
/// iters"). reference-tirx.md's `S[(4,2):(2,1)]` by [2,4] gives TIRx's unfused `S[(2,2,2):(4,2,1)]`; the
/// fewest-iter grouping fuses the contiguous pair first: `(2:4) | (4:1)`. Likewise TIRx rejects `S[(2,3):(3,1)]` by
/// [3,2], but it is the row-major `S[6:1]`, which groups as `(3:2) | (2:1)`; an order-preserving grouping is
/// impossible for `S[(2,3):(1,2)]` by [3,2]. The tensor-core tile groups by (8, 16) as (8:4@laneid) | the three
/// column iters; unit dims get unit iters.
#[test]
fn group_worked_results() {
    let g = ok("group", group(&tile_layout("S[(4,2):(2,1)]"), &[2, 4]));
    assert_eq!(g.layout.shard(), iters(&[(2, 4, "m"), (4, 1, "m")]));
    assert_eq!(g.seps, vec![0, 1, 2]);
    let g = ok("group", group(&tile_layout("S[(2,3):(3,1)]"), &[3, 2]));
    assert_eq!(g.layout.shard(), iters(&[(3, 2, "m"), (2, 1, "m")]));
    assert_eq!(g.seps, vec![0, 1, 2]);
    assert!(group(&tile_layout("S[(2,3):(1,2)]"), &[3, 2]).is_err());
    let g = ok("group", group(&tile_layout(TC_TILE), &[8, 16]));
    assert_eq!(g.layout.shard(), iters(&[(8, 4, "laneid"), (2, 1, "warpid"), (4, 1, "laneid"), (2, 1, "m")]));
    assert_eq!(g.seps, vec![0, 1, 4]);
    assert_eq!(g.layout.replica(), iters(&[(2, 4, "warpid")]));
    let g = ok("group", group(&tile_layout("S[8:1]"), &[1, 8]));
    assert_eq!(g.seps.len(), 3);
    let blocks: Vec<i64> =
        g.seps.windows(2).map(|w| g.layout.shard()[w[0]..w[1]].iter().map(|i| i.extent).product()).collect();
    assert_eq!(blocks, vec![1, 8]);
    // Each grouping keeps the induced map over the shape.
    for (text, shape) in [("S[(4,2):(2,1)]", vec![2, 4]), (TC_TILE, vec![8, 16]), (TMEM, vec![256, 112])] {
        let l = layout(text);
        let g: Layout = ok("group", group(&tile_layout(text), &shape)).layout.into();
        for x in coords(&shape) {
            assert_eq!(actual_set(g.eval(&shape, &x).unwrap()), actual_set(l.eval(&shape, &x).unwrap()), "{text}");
        }
    }
}

// ------------------------------------------------------------------------------------------------------------------
// The notation: the spec's texts as written
// ------------------------------------------------------------------------------------------------------------------

/// Every layout text of the spec used above, spelled as the spec spells it.
const SPEC_TEXTS: &[&str] = &[
    TC_TILE,
    TMEM,
    SF_ATOM,
    "S[(4,32,4):(4@TCol,1@TLane,1@TCol)] + R[4 : 32@TLane]",
    SWIZZLED,
    "S[(8,64):(64@m,1@m)]",
    "Swizzle(3,3,3)",
    "S[(4, 4) : (4, 1)]",
    "S[(3, 4) : (4, 1)]",
    "S[(4, 3) : (1, 4)]",
    CHAPTER_TILED,
    "S[(8, 16) : (16@m, 1@m)]",
    "S[(8,16)]",
    "S[(8, 4, 2) : (4@laneid, 1@laneid, 1@reg)]",
    "S[(2, 4, 8) : (1@gpuid_y, 8@m, 1@m)] + R[2 : 1@gpuid_x]",
    "S[(8,8,8):(64@F,1@P,1@F)]",
    "S[(8,2,32):(64,1,2)]",
    "S[(1,2,2):(4,14,1)] + 26@m",
    "Swizzle(3,3,3) o S[(3,64,4,64):(16384,64,4096,1)]",
    "Swizzle(3,2,3) o S[(3,64,8,32):(16384,32,2048,1)]",
    "S[4:1@laneid] + R[3:4@laneid]",
];

/// The crate's parser reads each spec text as the reference construction [`build`] does, and the canonical text
/// parses back to the identical structure (semantics.md: parse(print(L)) == L).
#[test]
fn parser_reads_the_spec_texts() {
    for text in SPEC_TEXTS {
        let parsed = layout(text);
        assert_eq!(parsed, build(text), "parse `{text}`");
        let printed = parsed.to_string();
        assert_eq!(parse_layout(&printed).as_ref(), Ok(&parsed), "parse(print(`{text}`)) = parse(`{printed}`)");
        assert_no_space_in_brackets(&printed);
    }
    // The TIRx page writes a term as "n @ axis" and prints `4 @ Axis.laneid`; TIRx's `tx` is our `tid`.
    let spaced = "S[(8, 2, 4, 2) : (4 @ laneid, 1 @ warpid, 1 @ laneid, 1)] + R[2 : 4 @ warpid] + 5 @ warpid";
    assert_eq!(layout(spaced), layout(TC_TILE));
    assert_eq!(layout("S[(4,32):(32@tx,1)]"), layout("S[(4,32):(32@tid,1)]"));
}

fn assert_no_space_in_brackets(text: &str) {
    let mut depth = 0;
    for ch in text.chars() {
        match ch {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ' ' => assert_eq!(depth, 0, "no spaces inside brackets: `{text}`"),
            _ => {}
        }
    }
}

/// Canonical text (semantics.md): `@m` elided, one iter without parentheses, no spaces inside brackets; compared
/// with whitespace outside brackets ignored.
#[test]
fn canonical_text_of_spec_layouts() {
    let cases = [
        ("S[(4,1,4):(0,7,0)]", "S[16:0]"),
        ("S[(8,4):(-4,-1)]", "S[32:-1]"),
        ("S[(8, 16) : (16@m, 1@m)]", "S[128:1]"),
        ("S[(8, 4, 2) : (4@laneid, 1@laneid, 1@reg)]", "S[(32,2):(1@laneid,1@reg)]"),
        (TC_TILE, "S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)]+R[2:4@warpid]+5@warpid"),
        ("S[(2, 4, 8) : (1@gpuid_y, 8@m, 1@m)] + R[2 : 1@gpuid_x]", "S[(2,32):(1@gpuid_y,1)]+R[2:1@gpuid_x]"),
        (SF_ATOM, "S[(32,4):(1@TLane,1@TCol)]+R[4:32@TLane]"),
        (SWIZZLED, "Swizzle(3,3,3)"),
        ("S[(2,2,2,2):(8,4,2,1)]", "S[16:1]"),
        // Replica iters in a fixed order: by axis, then stride, then extent.
        ("S[8:1] + R[2:64@warpid] + R[2:16] + R[2:8@laneid]", "S[8:1]+R[(2,2,2):(8@laneid,16,64@warpid)]"),
        // D0 keeps one unit iter when the shard would become empty; reference-tirx.md:
        // `S[(1,1):(5@laneid,3)] -> S[(1):(1@laneid)]`. Zero offsets are dropped.
        ("S[(1,1):(5@laneid,3)] + 0@warpid", "S[1:1@laneid]"),
    ];
    for (text, want) in cases {
        let printed = canonicalize(&layout(text)).layout.to_string();
        assert_no_space_in_brackets(&printed);
        let squeeze = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
        assert_eq!(squeeze(&printed), want, "canonical text of `{text}`");
    }
}

// ------------------------------------------------------------------------------------------------------------------
// Not covered, and why
// ------------------------------------------------------------------------------------------------------------------
//
// - Paper Figure 2C (tensor memory "spans 256 columns in one grouping and 256 in another"), the Trainium layout of
//   section 2.2, the tile and slice examples of section 3.3 and App. G's column-major counterexample: their layouts
//   were math and did not survive extraction. The TIRx page's tensor-memory and tensor-core cases stand in for 2A/2C.
// - The chapter's "shard + offset" mesh button and the scale_vec 1X/2X/4X byte packing: no numbers given.
// - Mojo's "alternate coordinates" table (Figure 9's strides are an image) and hierarchical coordinates such as
//   ((0, 1), (0, 1)): Axe coordinates are flat per dimension; only the layout function is comparable.
// - Tilus operations (squeeze, permute, reshape, concat, divide): listed without examples.
// - The swizzle's 8x8 toy picture and the 16B interleaved mode: no numbers given.
