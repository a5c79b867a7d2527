//! Regression tests for inputs that once crashed, hung or exhausted memory (issue 13, "no input crashes a tool").
//!
//! Each test names the input class and checks that the library now answers it, or refuses it with an error that
//! names the rule and the numbers, in bounded time and memory.

use axe_layout::canonicalize::{canonicalize, equivalent};
use axe_layout::notation::{parse_layout, parse_tile_layout};
use axe_layout::tile_of::{inner_of, outer_of};
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
    assert!(err.contains("4294967296") && err.contains("1048576"), "{err}");
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
