//! Property tests of the text notation: parse(print(L)) == L structurally (one line and broken at any width), and
//! no input, however malformed, makes the parser panic; every error carries a column inside the input.

use axe_layout::notation::{parse_layout, parse_region, parse_shape, parse_tile_layout};
use axe_layout::{Axis, ComposeLayout, Iter, Layout, Swizzle, TileLayout};
use proptest::prelude::*;
use std::collections::BTreeMap;

const AXES: &[&str] = &["m", "m", "reg", "laneid", "warpid", "wgid", "tid", "TLane", "TCol", "gpuid_x", "pid", "P"];

fn axis() -> impl Strategy<Value = Axis> {
    prop::sample::select(AXES).prop_map(|a| Axis::named(a).expect("built-in axis"))
}

/// Mostly small strides (zero and negative included), sometimes large ones.
fn stride() -> impl Strategy<Value = i64> {
    prop_oneof![8 => -64i64..=64, 1 => -(1i64 << 40)..=(1i64 << 40)]
}

fn iter_on(axis: impl Strategy<Value = Axis>) -> impl Strategy<Value = Iter> {
    (1i64..=16, stride(), axis).prop_filter_map("iter out of range", |(e, s, a)| Iter::new(e, s, a).ok())
}

fn offsets(axis: impl Strategy<Value = Axis>) -> impl Strategy<Value = BTreeMap<Axis, i64>> {
    prop::collection::btree_map(
        axis,
        prop_oneof![3 => -100i64..=100, 1 => Just(0i64), 1 => -(1i64 << 47)..=(1i64 << 47)],
        0..4,
    )
}

fn tile_layout() -> impl Strategy<Value = TileLayout> {
    (prop::collection::vec(iter_on(axis()), 0..7), prop::collection::vec(iter_on(axis()), 0..4), offsets(axis()))
        .prop_filter_map("layout out of range", |(d, r, o)| TileLayout::new(d, r, o).ok())
}

fn m_tile_layout() -> impl Strategy<Value = TileLayout> {
    (
        prop::collection::vec(iter_on(Just(Axis::M)), 0..5),
        prop::collection::vec(iter_on(Just(Axis::M)), 0..2),
        offsets(Just(Axis::M)),
    )
        .prop_filter_map("layout out of range", |(d, r, o)| TileLayout::new(d, r, o).ok())
}

fn swizzle() -> impl Strategy<Value = Swizzle> {
    (0u32..5, 0u32..4, 0u32..5).prop_filter_map("ill-formed swizzle", |(m, b, s)| Swizzle::new(m, b, s).ok())
}

fn layout() -> impl Strategy<Value = Layout> {
    prop_oneof![
        6 => tile_layout().prop_map(Layout::Tile),
        2 => (swizzle(), m_tile_layout())
            .prop_filter_map("not on m", |(s, t)| ComposeLayout::new(s, t).ok().map(Layout::Compose)),
        1 => swizzle().prop_map(|s| Layout::Compose(ComposeLayout::bare(s))),
    ]
}

/// Characters the notation uses, plus some it does not.
const ALPHABET: &[char] = &[
    'S', 'R', '[', ']', '(', ')', ':', ',', '@', '+', '-', ' ', '\n', '0', '1', '2', '8', '9', 'o', 'l', 'a', 'n', 'e',
    'i', 'd', 'm', 'w', 'r', 'p', 'z', '_', '$', 'é', '∘', '\u{0}', '\t', 'x', 'S', '[', '(',
];

fn check_error_column(text: &str, result: Result<(), axe_layout::LayoutError>) -> Result<(), TestCaseError> {
    if let Err(e) = result {
        let col = e.column.ok_or_else(|| TestCaseError::fail(format!("no column for {text:?}: {e}")))?;
        prop_assert!(col <= text.len(), "column {} beyond {:?} ({})", col, text, e);
        prop_assert!(text.is_char_boundary(col), "column {} inside a character of {:?}", col, text);
        prop_assert!(!e.message.is_empty());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, ..ProptestConfig::default() })]

    #[test]
    fn parse_print_round_trip(l in layout()) {
        let text = l.to_string();
        prop_assert!(!text.contains('\n'));
        let back = parse_layout(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert_eq!(&back, &l, "text {}", text);
        prop_assert_eq!(back.to_string(), text);
    }

    #[test]
    fn tile_round_trip_and_pretty_at_any_width(t in tile_layout(), width in 1usize..120) {
        let text = t.to_string();
        prop_assert_eq!(parse_tile_layout(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?, t.clone());
        let broken = t.to_pretty(width);
        let back = parse_tile_layout(&broken).map_err(|e| TestCaseError::fail(format!("{broken}: {e}")))?;
        prop_assert_eq!(back, t);
    }

    #[test]
    fn garbage_never_panics(chars in prop::collection::vec(prop::sample::select(ALPHABET), 0..40)) {
        let text: String = chars.into_iter().collect();
        check_error_column(&text, parse_layout(&text).map(|_| ()))?;
        check_error_column(&text, parse_tile_layout(&text).map(|_| ()))?;
        check_error_column(&text, parse_shape(&text).map(|_| ()))?;
        check_error_column(&text, parse_region(&text).map(|_| ()))?;
    }

    #[test]
    fn mutated_layouts_never_panic(l in layout(), at in any::<prop::sample::Index>(), c in prop::sample::select(ALPHABET), op in 0u8..3) {
        let mut chars: Vec<char> = l.to_string().chars().collect();
        let i = at.index(chars.len() + 1);
        match op {
            0 => chars.insert(i, c),
            1 if i < chars.len() => { chars.remove(i); }
            _ if i < chars.len() => chars[i] = c,
            _ => chars.push(c),
        }
        let text: String = chars.into_iter().collect();
        check_error_column(&text, parse_layout(&text).map(|_| ()))?;
    }

    #[test]
    fn arbitrary_strings_never_panic(text in "\\PC{0,60}") {
        check_error_column(&text, parse_layout(&text).map(|_| ()))?;
        check_error_column(&text, parse_shape(&text).map(|_| ()))?;
        check_error_column(&text, parse_region(&text).map(|_| ()))?;
    }
}

#[test]
fn huge_numbers_are_errors() {
    for text in [
        "S[99999999999999999999999999:1]",
        "S[4:-99999999999999999999999999]",
        "S[4:1] + 9223372036854775807@warpid",
        "S[9223372036854775807:1]",
        "S[(65536,65536,65536,65536):(1,1,1,1)]",
        "Swizzle(4294967296,3,3)",
        "Swizzle(30,3,30)",
        "S[4:1] + 140737488355328@m + 140737488355329@m",
    ] {
        let e = parse_layout(text).expect_err(text);
        assert!(e.column.is_some_and(|c| c <= text.len()), "{text}: {e}");
    }
}
