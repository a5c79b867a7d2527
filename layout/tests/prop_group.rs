//! Property tests of grouping (paper App. B): a grouped layout has the same map over the shape, its blocks
//! multiply to the dims, and grouping fails exactly when no order-preserving split/fuse exists.

mod common;

use axe_layout::canonicalize::normalize_shard;
use axe_layout::group::{group, group_many};
use axe_layout::{Layout, TileLayout};
use common::*;
use proptest::prelude::*;

/// A grouping exists iff every cumulative product `Q` of the shape falls at a split point of the normalized
/// iters: some iter `j` with prefix products `P_{j-1} <= Q <= P_j`, `P_{j-1} | Q` and `Q | P_j` (Lemma B.1).
fn groupable(t: &TileLayout, shape: &[i64]) -> bool {
    let mut prefix = vec![1i64];
    for it in normalize_shard(t.shard()) {
        prefix.push(prefix.last().unwrap() * it.extent);
    }
    let mut q = 1i64;
    shape.iter().all(|&d| {
        q *= d;
        prefix.windows(2).any(|w| w[0] <= q && q <= w[1] && q % w[0] == 0 && w[1] % q == 0) || q == 1
    })
}

/// The grouped layout is checked against the definition: same map, blocks multiplying to the dims, replica and
/// offset untouched.
fn check_grouped(t: &TileLayout, g: &TileLayout, seps: &[usize], shape: &[i64]) -> Result<(), TestCaseError> {
    prop_assert_eq!(seps.len(), shape.len() + 1);
    prop_assert_eq!(seps[0], 0);
    prop_assert_eq!(*seps.last().unwrap(), g.shard().len());
    for (i, &d) in shape.iter().enumerate() {
        prop_assert!(seps[i] < seps[i + 1], "dimension {} has no iter", i);
        prop_assert_eq!(g.shard()[seps[i]..seps[i + 1]].iter().map(|it| it.extent).product::<i64>(), d);
    }
    prop_assert_eq!(g.replica(), t.replica());
    prop_assert_eq!(g.offset(), t.offset());
    prop_assert_eq!(ref_map(&Layout::Tile(g.clone())), ref_map(&Layout::Tile(t.clone())), "{} -> {}", t, g);
    Ok(())
}

/// Sizes up to 64 with at most one replica iter (grouping leaves the replica alone).
const GROUP: Params = Params { max_replica: 1, ..Params::general() };

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    /// Any shape of the right size: group succeeds iff a grouping exists; on success the map is kept; on failure
    /// the error names a dimension.
    #[test]
    fn group_keeps_the_map_or_names_the_dimension(t in tile_layout(GROUP), s in seeds()) {
        let shape = any_shape(t.size(), rank_of(s[0], 4), &s[1..]);
        match group(&t, &shape) {
            Ok(g) => {
                prop_assert!(groupable(&t, &shape), "grouped {} by {:?} but the criterion says no", t, shape);
                check_grouped(&t, &g.layout, &g.seps, &shape)?;
            }
            Err(e) => {
                prop_assert!(!groupable(&t, &shape), "{} by {:?}: {}", t, shape, e);
                prop_assert!(e.message.contains("dimension"), "{}", e);
            }
        }
    }

    /// Shapes cut at split points always group.
    #[test]
    fn groupable_shapes_group(t in tile_layout(GROUP), s in seeds()) {
        let shape = groupable_shape(&t, rank_of(s[0], 4), &s[1..]);
        let g = group(&t, &shape).map_err(|e| TestCaseError::fail(format!("{t} by {shape:?}: {e}")))?;
        check_grouped(&t, &g.layout, &g.seps, &shape)?;
    }

    /// A shape with a different element count is refused, with both counts in the message.
    #[test]
    fn wrong_size_is_refused(t in tile_layout(Params::general()), extra in 2i64..5, s in seeds()) {
        let shape = any_shape(t.size() * extra, rank_of(s[0], 3), &s[1..]);
        let e = group(&t, &shape).unwrap_err();
        prop_assert!(e.message.contains(&format!("{} elements", t.size() * extra)), "{}", e);
    }

    /// group_many: two shapes cut from the same split points are refined together; each keeps its blocks.
    #[test]
    fn group_many_refines_both(t in tile_layout(GROUP), s in seeds(), s2 in seeds()) {
        let a = groupable_shape(&t, rank_of(s[0], 3), &s[1..]);
        let b = groupable_shape(&t, rank_of(s2[0], 3), &s2[1..]);
        match group_many(&t, &[&a, &b]) {
            Ok(g) => {
                check_grouped(&t, &g.layout, &g.seps[0], &a)?;
                check_grouped(&t, &g.layout, &g.seps[1], &b)?;
            }
            Err(e) => prop_assert!(e.message.contains("incompatible"), "{} by {:?} and {:?}: {}", t, a, b, e),
        }
    }
}
