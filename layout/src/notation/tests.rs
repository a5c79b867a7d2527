//! Unit tests: every form of the notation, canonical printing, and error columns.

use super::*;
use crate::axis::Axis;
use crate::iter::Iter;
use crate::layout::ComposeLayout;
use crate::swizzle::Swizzle;
use std::collections::BTreeMap;

fn ax(name: &str) -> Axis {
    Axis::named(name).unwrap()
}

fn it(e: i64, s: i64, a: &str) -> Iter {
    Iter::new(e, s, ax(a)).unwrap()
}

fn tile(shard: Vec<Iter>, replica: Vec<Iter>, offset: &[(&str, i64)]) -> TileLayout {
    TileLayout::new(shard, replica, offset.iter().map(|(a, v)| (ax(a), *v)).collect::<BTreeMap<_, _>>()).unwrap()
}

fn roundtrip(text: &str, canonical: &str) {
    let l = parse_layout(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(l.to_string(), canonical, "printing {text}");
    assert_eq!(parse_layout(canonical).unwrap(), l, "reparsing {canonical}");
}

fn err(text: &str) -> LayoutError {
    parse_layout(text).expect_err(text)
}

#[test]
fn tensor_core_tile_from_the_tirx_page() {
    let l = parse_tile_layout("S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid").unwrap();
    let want = tile(
        vec![it(8, 4, "laneid"), it(2, 1, "warpid"), it(4, 1, "laneid"), it(2, 1, "m")],
        vec![it(2, 4, "warpid")],
        &[("warpid", 5)],
    );
    assert_eq!(l, want);
    assert_eq!(l.to_string(), "S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid");
}

#[test]
fn single_iter_extents_only_and_spacing() {
    roundtrip("S[8:4@laneid]", "S[8:4@laneid]");
    roundtrip("S[(8):(4@laneid)]", "S[8:4@laneid]");
    roundtrip("S[(4,8)]", "S[(4,8):(8,1)]");
    roundtrip("S[16]", "S[16:1]");
    roundtrip("  S [ ( 4 , 4 ) : ( 4 , 1 ) ]  ", "S[(4,4):(4,1)]");
    roundtrip("S[(4, 4) : (4@m, 1@m)]", "S[(4,4):(4,1)]");
    roundtrip("S[(2,4,8):(1@gpuid_y,8@m,1@m)] + R[2:1@gpuid_x]", "S[(2,4,8):(1@gpuid_y,8,1)] + R[2:1@gpuid_x]");
    roundtrip("S[(2,128,112):(112@TCol,1@TLane,1@TCol)]", "S[(2,128,112):(112@TCol,1@TLane,1@TCol)]");
    roundtrip("S[\n(8,4,2)\n:\n(4@laneid,1@laneid,1@reg)\n]", "S[(8,4,2):(4@laneid,1@laneid,1@reg)]");
}

#[test]
fn negative_and_zero_strides() {
    roundtrip("S[(4,8):(-8,0@laneid)]", "S[(4,8):(-8,0@laneid)]");
    roundtrip("S[4:-1@warpid]", "S[4:-1@warpid]");
    roundtrip("S[4:- 1]", "S[4:-1]");
}

#[test]
fn offsets_bare_summed_sorted_signed_and_zero() {
    let l = parse_tile_layout("S[4:1] + 5@warpid + 3 + 2@warpid + 1@laneid").unwrap();
    assert_eq!(l.offset().get(&ax("warpid")), Some(&7));
    assert_eq!(l.offset().get(&Axis::M), Some(&3));
    assert_eq!(l.to_string(), "S[4:1] + 1@laneid + 3 + 7@warpid");
    roundtrip("S[4:1] - 2@laneid", "S[4:1] - 2@laneid");
    roundtrip("S[4:1] + -2@laneid", "S[4:1] - 2@laneid");
    roundtrip("S[4:1] + 0@warpid", "S[4:1] + 0@warpid");
    roundtrip("S[4:1] + 1@warpid - 1@warpid", "S[4:1] + 0@warpid");
    assert_eq!(parse_tile_layout("S[4:1] + 0@warpid").unwrap().offset().len(), 1);
}

#[test]
fn empty_shard_and_offset_only() {
    roundtrip("S[]", "S[]");
    roundtrip("S[()]", "S[]");
    roundtrip("S[():()]", "S[]");
    roundtrip("5@warpid", "S[] + 5@warpid");
    roundtrip("-5@warpid", "S[] - 5@warpid");
    roundtrip("S[] + R[2:1@laneid]", "S[] + R[2:1@laneid]");
    assert_eq!(parse_tile_layout("S[]").unwrap(), TileLayout::default());
    assert_eq!(parse_tile_layout("S[]").unwrap().size(), 1);
}

#[test]
fn replicas_keep_their_order_and_concatenate() {
    let l = parse_tile_layout("S[2:1] + R[(2,4):(8@warpid,1@laneid)] + R[3:2]").unwrap();
    assert_eq!(l.replica(), &[it(2, 8, "warpid"), it(4, 1, "laneid"), it(3, 2, "m")]);
    assert_eq!(l.to_string(), "S[2:1] + R[(2,4,3):(8@warpid,1@laneid,2)]");
    roundtrip("R[4:32@TLane] + S[32:1@TLane]", "S[32:1@TLane] + R[4:32@TLane]");
}

#[test]
fn tx_reads_as_tid() {
    let l = parse_tile_layout("S[128:1@tx]").unwrap();
    assert_eq!(l.shard()[0].axis, ax("tid"));
    assert_eq!(l.to_string(), "S[128:1@tid]");
}

#[test]
fn swizzles() {
    let l = parse_layout("Swizzle(3,3,3) o S[(8,64):(64,1)]").unwrap();
    let Layout::Compose(c) = &l else { panic!("not a compose layout") };
    assert_eq!(c.swizzle(), Swizzle::new(3, 3, 3).unwrap());
    assert_eq!(c.tile(), &tile(vec![it(8, 64, "m"), it(64, 1, "m")], vec![], &[]));
    roundtrip("Swizzle(3,3,3) o S[(8,64):(64,1)]", "Swizzle(3,3,3) o S[(8,64):(64,1)]");
    roundtrip("Swizzle ( 3 , 3 , 3 )  o  S[(8,64)]", "Swizzle(3,3,3) o S[(8,64):(64,1)]");
    roundtrip("Swizzle(3,3,3)", "Swizzle(3,3,3)");
    assert_eq!(
        parse_layout("Swizzle(1,2,3)").unwrap(),
        Layout::Compose(ComposeLayout::bare(Swizzle::new(1, 2, 3).unwrap()))
    );
    roundtrip("Swizzle(1,2,3) o S[64:1]", "Swizzle(1,2,3)");
    roundtrip("Swizzle(2,1,3) o S[64:1] + 3", "Swizzle(2,1,3) o S[64:1] + 3");
    assert!(parse_tile_layout("Swizzle(3,3,3)").is_err());
}

#[test]
fn from_str_and_pretty() {
    let l: Layout = "S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid".parse().unwrap();
    let narrow = l.to_pretty(20);
    assert!(narrow.lines().count() > 1, "{narrow}");
    assert_eq!(parse_layout(&narrow).unwrap(), l);
    assert_eq!(l.to_pretty(200), l.to_string());
    let t: TileLayout = "S[4:1]".parse().unwrap();
    assert_eq!(t.to_string(), "S[4:1]");
    assert_eq!(it(8, 4, "laneid").to_string(), "8:4@laneid");
    assert_eq!(it(8, -1, "m").to_string(), "8:-1");
}

#[test]
fn unknown_axis_reports_its_column() {
    let e = err("S[(8,2):(4@laneid,1@lanid)]");
    assert_eq!(e.column, Some(20), "{e}");
    assert!(e.message.contains("unknown axis 'lanid'"), "{e}");
    let e = err("S[4:1] + 5@foo");
    assert_eq!(e.column, Some(11), "{e}");
}

#[test]
fn syntax_errors_point_at_the_token_and_list_expected() {
    let e = err("S[(8,2):(4@laneid,1]");
    assert_eq!(e.column, Some(19), "{e}");
    assert!(e.message.contains("unexpected ']'") && e.message.contains("')'"), "{e}");
    let e = err("S[8:4@laneid");
    assert_eq!(e.column, Some(12), "{e}");
    assert!(e.message.contains("end of input") && e.message.contains("']'"), "{e}");
    let e = err("S[8:4] $");
    assert_eq!(e.column, Some(7), "{e}");
    assert!(e.message.contains("unexpected character '$'"), "{e}");
    let e = err("S[8:4] S");
    assert_eq!(e.column, Some(7), "{e}");
    let e = err("");
    assert_eq!(e.column, Some(0), "{e}");
    let e = err("S[8:4@]");
    assert_eq!(e.column, Some(6), "{e}");
    assert!(e.message.contains("an axis name"), "{e}");
}

#[test]
fn semantic_errors_point_at_the_token() {
    let e = err("S[(8,0):(1,1)]");
    assert_eq!(e.column, Some(5), "{e}");
    assert!(e.message.contains("at least 1"), "{e}");
    let e = err("S[(8,2):(1,1,1)]");
    assert_eq!(e.column, Some(8), "{e}");
    assert!(e.message.contains("2 extents but 3 strides"), "{e}");
    let e = err("S[4:1] + S[4:1]");
    assert_eq!(e.column, Some(9), "{e}");
    let e = err("S[4:1] - R[2:1]");
    assert_eq!(e.column, Some(7), "{e}");
    let e = err("S[4:99999999999999999999999]");
    assert_eq!(e.column, Some(4), "{e}");
    assert!(e.message.contains("too large"), "{e}");
    let e = err("S[4:281474976710657]");
    assert_eq!(e.column, Some(2), "{e}");
    let e = err("S[(4,8):(1,2)] + 99999999999999999999@warpid");
    assert_eq!(e.column, Some(17), "{e}");
    let e = err("Swizzle(3,3,2)");
    assert_eq!(e.column, Some(0), "{e}");
    let e = err("Swizzle(3,99999999999,3)");
    assert_eq!(e.column, Some(10), "{e}");
    let e = err("Swizzle(3,3,3) o S[8:1@laneid]");
    assert_eq!(e.column, Some(17), "{e}");
    assert!(e.message.contains("memory axis m"), "{e}");
}

#[test]
fn shapes_coords_and_regions() {
    assert_eq!(parse_shape("8,16").unwrap(), vec![8, 16]);
    assert_eq!(parse_shape(" [8, 16] ").unwrap(), vec![8, 16]);
    assert_eq!(parse_shape("(128)").unwrap(), vec![128]);
    assert_eq!(parse_shape("").unwrap(), Vec::<i64>::new());
    assert_eq!(parse_shape("8,0").unwrap_err().column, Some(2));
    assert_eq!(parse_shape("8,,4").unwrap_err().column, Some(2));
    assert_eq!(parse_shape("8,x").unwrap_err().column, Some(2));
    assert!(parse_shape("99999999999999999999").unwrap_err().message.contains("too large"));
    assert_eq!(parse_coord("7,15").unwrap(), vec![7, 15]);
    assert_eq!(parse_region("2:3,6:10").unwrap(), vec![(2, 3), (6, 10)]);
    assert_eq!(parse_region("2:3, 6 : 10").unwrap(), vec![(2, 3), (6, 10)]);
    assert_eq!(parse_region("2:3,6").unwrap_err().column, Some(4));
    assert_eq!(parse_region("2:3,6:x").unwrap_err().column, Some(6));
    assert!(parse_region("3:2").is_err());
}
