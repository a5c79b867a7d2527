//! Regression tests for inputs that once crashed, hung or exhausted memory (issue 13, "no input crashes a tool").
//!
//! Each test names the input class and checks that the library now answers it, or refuses it with an error that
//! names the rule and the numbers, in bounded time and memory.

use axe_layout::canonicalize::{canonicalize, equivalent};
use axe_layout::notation::{parse_layout, parse_tile_layout};
use axe_layout::tile_of::{inner_of, outer_of};
use axe_layout::tma::{plan, Direction, ElemType, TmaFailure, TmaOptions, TmaRequest, TmaRule};
use axe_layout::{Axis, Coord, Layout, TileLayout};

fn layout(text: &str) -> Layout {
    parse_layout(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn tile(text: &str) -> TileLayout {
    parse_tile_layout(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn m(value: i64) -> Coord {
    Coord::from([(Axis::M, value)])
}

/// A swizzle over an empty shard has no `m` axis to swizzle: its one element maps to the empty point (and an
/// offset on `m` is swizzled as usual). The evaluator once indexed the slot of `m` in an empty axis list.
#[test]
fn swizzle_over_an_empty_shard_evaluates() {
    for text in ["Swizzle(3,3,3) o S[]", "Swizzle(3,3,3) o S[()]", "Swizzle(0,0,0) o S[():()]"] {
        let l = layout(text);
        assert_eq!(l.eval_flat(0).unwrap(), vec![Coord::new()], "{text}");
        assert_eq!(l.eval(&[], &[]).unwrap(), vec![Coord::new()], "{text}");
        assert!(l.eval_flat(1).unwrap_err().message.contains("outside the layout's size 1"), "{text}");
    }
    // 72 = chunk 9 (row 1, column 1): column 1 ^ row 1 = column 0, so 64.
    assert_eq!(layout("Swizzle(3,3,3) o S[] + 72").eval_flat(0).unwrap(), vec![m(64)]);
}

/// A stride-0 replica iter adds only the zero vector however long it is (its reach is 0, so its extent is bounded
/// only by i64): the evaluator once materialised all 2^40 copies.
#[test]
fn huge_stride_zero_replica_evaluates_to_one_point() {
    let l = layout("S[1] + R[1099511627776:0]");
    assert_eq!(l.evaluator().unwrap().eval_flat(0).unwrap(), vec![m(0)]);
    let l = layout("S[2:1] + R[(1152921504606846976,4):(0,1@laneid)]");
    let laneid = Axis::named("laneid").unwrap();
    let want: Vec<Coord> = (0..4).map(|k| Coord::from([(laneid, k), (Axis::M, 1)])).collect();
    assert_eq!(l.eval_flat(1).unwrap(), want);
}

/// A replica with more distinct offsets than an evaluator prepares is refused before anything is allocated, and
/// the message gives the count and the limit.
#[test]
fn replica_with_too_many_distinct_offsets_is_refused_with_the_numbers() {
    let err = layout("S[4:1] + R[(65536,65536):(1@laneid,1@warpid)]").evaluator().unwrap_err().message;
    assert!(err.contains("4294967296") && err.contains("65536 an evaluator prepares"), "{err}");
    let err = layout("S[1] + R[281474976710657:1]").eval_flat(0).unwrap_err().message;
    assert!(err.contains("281474976710657") && err.contains("on m"), "{err}");
    // Overlapping copies: 2^20 + 2^20 - 1 distinct offsets out of 2^40 combinations.
    let err = layout("S[4:1] + R[(1048576,1048576):(1,1)]").eval_flat(0).unwrap_err().message;
    assert!(err.contains("2097151"), "{err}");
}

/// tile-of with a replica that violates the gap condition (issue 13, E): the answer is decided axis by axis
/// instead of by enumerating the 2 million combinations of the replica (once 13 s and 2.4 GB).
#[test]
fn tile_of_a_gap_violating_replica_is_decided_per_axis() {
    let t = layout("S[] + R[(228,2,64,71):(5,128,1@laneid,1@warpid)]");
    let unit = tile("S[]");
    let inner = inner_of(&t, &unit, &[1], &[1]).unwrap();
    assert!(equivalent(&inner, &t, &[1]).unwrap(), "{inner}");
    let outer = outer_of(&t, &Layout::Tile(unit), &[1], &[1]).unwrap();
    assert!(equivalent(&Layout::Tile(outer.clone()), &t, &[1]).unwrap(), "{outer}");
}

/// Equivalence of replicas without the gap condition whose combined point count is beyond the enumeration limit:
/// decided per axis (the replica set is the product of its per-axis sets).
#[test]
fn equivalence_beyond_the_enumeration_limit_is_decided_per_axis() {
    let a = layout("S[2:1@tid] + R[(228,2,64,128):(5,128,1@laneid,1@warpid)] + 3");
    let b = layout("S[2:1@tid] + R[(2,228,128,64):(128,5,1@warpid,1@laneid)] + 3");
    assert!(!canonicalize(&a).gap_condition);
    assert!(equivalent(&a, &b, &[2]).unwrap());
    let c = layout("S[2:1@tid] + R[(228,2,64,128):(5,129,1@laneid,1@warpid)] + 3");
    assert!(!equivalent(&a, &c, &[2]).unwrap());
    let d = layout("S[2:1@tid] + R[(228,2,64,128):(5,128,1@laneid,1@warpid)] + 4");
    assert!(!equivalent(&a, &d, &[2]).unwrap());
    // Canonical replicas that differ as iter lists but agree as sets ({0,2,3,4,...,13,15} on m), no gap condition.
    let e = layout("S[2:1@tid] + R[(4,4):(2,3)]");
    let f = layout("S[2:1@tid] + R[(2,3,3):(5,2,3)]");
    assert_ne!(e.canonical(), f.canonical());
    assert!(equivalent(&e, &f, &[2]).unwrap());
}

/// A refusal that lists a point set shows its first points and the count, not the whole set (once 28 KB).
#[test]
fn long_point_lists_in_refusals_are_truncated_with_a_count() {
    let t = layout("S[1] + R[(64,64):(1,1000)]");
    let err = outer_of(&t, &layout("S[1] + R[(2,2):(1,64)]"), &[1], &[1]).unwrap_err().message;
    assert!(err.len() < 300, "{} bytes: {err}", err.len());
    assert!(err.contains("{0, 1, 2, 3, 4, 5, 6, 7, ... (4096 points)}"), "{err}");
    let err = inner_of(&t, &tile("S[1] + R[2:7000000]"), &[1], &[1]).unwrap_err().message;
    assert!(err.contains("... (4096 points)} a tile of {0, 7000000}"), "{err}");
}

/// Finding the inner span where the outer shard leaves it open tries up to 8193 candidates; each that fits at
/// the lowest point costs a full Minkowski division of 4096 points (once 36 s in a debug build). The search now
/// stops at a step budget and says how far it got.
#[test]
fn inner_span_search_is_bounded() {
    let t = layout("S[1] + R[(64,64):(1,1000)]");
    let err = inner_of(&t, &tile("S[1] + R[3:7]"), &[1], &[1]).unwrap_err().message;
    assert!(err.contains("stopped after") && err.contains("of 8193 candidates"), "{err}");
}

/// `n` copies of `open`, then `inner`, then `n` copies of `close`.
fn nested(open: &str, inner: &str, close: &str, n: usize) -> String {
    format!("{}{inner}{}", open.repeat(n), close.repeat(n))
}

/// 10^5 levels of parentheses wherever a parenthesis may stand: the grammar has one level of tuples, so the
/// second `(` is a syntax error at its column (nothing recurses on the depth: no stack overflow).
#[test]
fn deeply_nested_parentheses_are_a_syntax_error_at_the_second_one() {
    const DEPTH: usize = 100_000;
    let cases = [
        (format!("S[{}]", nested("(", "8", ")", DEPTH)), 3),
        (format!("S[8:{}]", nested("(", "1", ")", DEPTH)), 5),
        (format!("S[(8,2):(1,{})]", nested("(", "1", ")", DEPTH)), 11),
        (format!("S[] + R[{}]", nested("(", "2", ")", DEPTH)), 9),
        (nested("(", "S[8]", ")", DEPTH), 0),
        (format!("S[8] + {}", nested("(", "5", ")", DEPTH)), 7),
        (format!("Swizzle({})", nested("(", "3,3,3", ")", DEPTH)), 8),
        (format!("Swizzle(3,3,3) o {}", nested("(", "S[8]", ")", DEPTH)), 17),
        (nested("S[", "8", "]", DEPTH), 2),
    ];
    for (text, column) in cases {
        let err = parse_layout(&text).unwrap_err();
        assert_eq!(err.column, Some(column), "{}...: {err}", &text[..20]);
        assert!(err.message.starts_with("unexpected '"), "{err}");
    }
}

/// 10^4 iters: more than a layout may hold, refused with the numbers; and row-major strides beyond the supported
/// magnitude are refused at the first extent whose stride is too large (2^49: 49 twos to its right).
#[test]
fn ten_thousand_iters_are_refused() {
    let ones = vec!["1"; 10_000].join(",");
    let err = parse_layout(&format!("S[({ones}):({ones})]")).unwrap_err().message;
    assert!(err.contains("at most 64 shard and 64 replica iters, got 10000 and 0"), "{err}");
    let err = parse_layout(&format!("S[] + R[({ones}):({ones})]")).unwrap_err().message;
    assert!(err.contains("got 0 and 10000"), "{err}");
    let twos = vec!["2"; 10_000].join(",");
    let err = parse_layout(&format!("S[({twos})]")).unwrap_err();
    assert!(err.message.contains("iter stride 562949953421312 exceeds the supported magnitude 2^48"), "{err}");
    assert_eq!(err.column, Some(3 + 2 * (10_000 - 50)), "{err}");
    let terms = vec!["R[2:1]"; 10_000].join(" + ");
    assert!(parse_layout(&format!("S[] + {terms}")).unwrap_err().message.contains("got 0 and 10000"));
    let offsets = vec!["1@laneid"; 10_000].join(" + ");
    assert_eq!(parse_layout(&format!("S[] + {offsets}")).unwrap(), layout("S[] + 10000@laneid"));
}

/// A global layout with a negative offset once gave `global_offset_bytes` 2^64 - 128 (an `as u64` of -128): the
/// planner now refuses it by the global-address rule.
#[test]
fn tma_plan_refuses_a_global_offset_below_the_base() {
    let (global, shared) = (layout("S[(256,256)] - 64"), layout("Swizzle(3,3,3) o S[(128,64):(64,1)]"));
    let request = TmaRequest {
        global: &global,
        global_shape: &[256, 256],
        global_region: &[(0, 128), (64, 128)],
        shared: &shared,
        shared_shape: &[128, 64],
        shared_region: &[(0, 128), (0, 64)],
        dtype: ElemType::F16,
        direction: Direction::G2S,
        options: TmaOptions::default(),
    };
    let err = plan(&request).unwrap_err();
    assert_eq!(err.failure, TmaFailure::Rule(TmaRule::GlobalAddress), "{err}");
    assert!(err.message.contains("-128 bytes"), "{err}");
}

/// Public functions over plain values and hand-built structs (`Iter`, `Swizzle` and `TensorMapDesc` have public
/// fields) answer without panicking on values at the edges: a zero dimension, i64::MIN, shifts of 64 bits, products
/// beyond u64.
#[test]
fn edge_values_of_public_helpers_do_not_panic() {
    use axe_layout::canonicalize::gap_condition;
    use axe_layout::tile_layout::{flatten, unflatten};
    use axe_layout::tma::{Interleave, L2Promotion, OobFill, TensorMapDataType, TensorMapDesc};
    use axe_layout::{Iter, Swizzle, SwizzleMode};

    assert_eq!(unflatten(&[0, 4], 5), vec![0, 1]);
    assert_eq!(unflatten(&[-3, 4], 7), vec![0, 3]);
    assert_eq!(unflatten(&[4, -1], i64::MIN), vec![0, 0]);
    let err = flatten(&[3074457345618258603, 3], &[3074457345618258602, 2]).unwrap_err().message;
    assert!(err.contains("overflow while computing a flat index"), "{err}");

    let wild = Iter { extent: i64::MIN, stride: i64::MIN, axis: Axis::M };
    assert_eq!(Iter { extent: 2, stride: i64::MIN, axis: Axis::M }.reach(), i64::MAX);
    assert!(wild.reach() <= 0);
    assert!(!gap_condition(&[wild, Iter { extent: i64::MAX, stride: i64::MAX, axis: Axis::M }]));

    let swizzle = Swizzle { per_element: 64, swizzle_len: 64, atom_len: 64 };
    let _ = (swizzle.apply(i64::MIN), swizzle.apply(-1), swizzle.apply(i64::MAX));
    assert_eq!(swizzle.period(), i64::MAX);

    let desc = TensorMapDesc {
        data_type: TensorMapDataType::Float64,
        rank: 9,
        global_dims: vec![u64::MAX; 9],
        global_strides_bytes: vec![u64::MAX; 8],
        box_dims: vec![u32::MAX; 9],
        element_strides: vec![0; 9],
        interleave: Interleave::None,
        swizzle: SwizzleMode::B128,
        l2_promotion: L2Promotion::L256B,
        oob_fill: OobFill::None,
    };
    assert_eq!(desc.box_bytes(), u64::MAX);
    assert!(axe_layout::tma::validate(&desc, u64::MAX).is_err());
}
