//! `broadcast::register_map` against maps worked out bit by bit, on random register layouts.
//!
//! A dest tile of shape [2^a, 2^b] has each bit of its row and column indices placed on one bit of the lane (0..5)
//! or of the register index (a random injective placement): thread and register are sums of the bits' values. A
//! row-vector operand [2^a, 1] places each row bit where dest put it if dest put it on a lane (it must: the thread
//! that holds a dest element holds that row), and on a register bit of its own choosing (a random permutation)
//! if dest put it on a register; dest's column lane bits become the operand's replica (every lane of a row holds
//! its scale). The expected map is then read off the bits: dest register r holds, per row bit on a register, that
//! bit of r at dest's position, which the operand keeps at its own position. Moving one row bit to another lane
//! must be refused.

use axe_layout::broadcast::register_map;
use axe_layout::notation::parse_layout;
use proptest::prelude::*;
use std::collections::BTreeMap;

/// Where one index bit lives: lane bit `i` or register bit `i`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Place {
    Lane(u32),
    Reg(u32),
}

/// A shard iter of extent 2 for a bit at `place`.
fn iter(place: Place) -> String {
    match place {
        Place::Lane(i) => format!("{}@laneid", 1 << i),
        Place::Reg(i) => format!("{}", 1 << i),
    }
}

/// `S[(2,...):(strides)]` (+ a replica) for bits outermost first.
fn layout_text(bits: &[Place], extra: &[(u32, u32)], replica: &[u32]) -> String {
    let mut extents: Vec<String> = bits.iter().map(|_| "2".to_string()).collect();
    let mut strides: Vec<String> = bits.iter().map(|p| iter(*p)).collect();
    for &(extent, stride) in extra {
        extents.push(extent.to_string());
        strides.push(stride.to_string());
    }
    let mut text = format!("S[({}):({})]", extents.join(","), strides.join(","));
    if !replica.is_empty() {
        let r: Vec<String> = replica.iter().map(|i| format!("{}@laneid", 1 << i)).collect();
        let e: Vec<String> = replica.iter().map(|_| "2".to_string()).collect();
        text.push_str(&format!(" + R[({}):({})]", e.join(","), r.join(",")));
    }
    text
}

/// A random dest placement for `a` row bits and `b` column bits (at most 5 on lanes), and the operand's register
/// order for the row bits dest puts on registers.
fn case() -> impl Strategy<Value = (usize, Vec<Place>, Vec<usize>)> {
    (1usize..=3, 1usize..=3)
        .prop_flat_map(|(a, b)| {
            let n = a + b;
            // Each bit: lane or register, then positions by shuffling.
            (
                Just(a),
                proptest::collection::vec(any::<bool>(), n),
                Just((0..5u32).collect::<Vec<_>>()).prop_shuffle(),
                Just((0..n as u32).collect::<Vec<_>>()).prop_shuffle(),
                Just((0..a).collect::<Vec<_>>()).prop_shuffle(),
            )
        })
        .prop_map(|(a, on_lane, lanes, regs, order)| {
            let (mut next_lane, mut next_reg) = (0, 0);
            let mut places = Vec::new();
            for lane in on_lane {
                if lane && next_lane < lanes.len() {
                    places.push(Place::Lane(lanes[next_lane]));
                    next_lane += 1;
                } else {
                    places.push(Place::Reg(next_reg));
                    next_reg += 1;
                }
            }
            // Register bits used densely (0..count) in a random order.
            let count = next_reg;
            let mut perm: Vec<u32> = regs.into_iter().filter(|&r| r < count).collect();
            for p in &mut places {
                if let Place::Reg(i) = p {
                    *i = perm.remove(0);
                }
            }
            (a, places, order)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn row_broadcast_maps_match_the_bits((a, places, order) in case()) {
        let b = places.len() - a;
        let dest_text = layout_text(&places, &[], &[]);
        let (rows, cols) = (1i64 << a, 1i64 << b);
        // Operand: row bits on dest's lanes, or on operand register bits in the order `order` picks among the
        // row bits that dest keeps in registers.
        let reg_rows: Vec<usize> = (0..a).filter(|&i| matches!(places[i], Place::Reg(_))).collect();
        let mut ranks: Vec<usize> = order.iter().copied().filter(|i| reg_rows.contains(i)).collect();
        ranks.dedup();
        let operand_place = |i: usize| match places[i] {
            Place::Lane(l) => Place::Lane(l),
            Place::Reg(_) => Place::Reg(ranks.iter().position(|&r| r == i).unwrap() as u32),
        };
        let operand_bits: Vec<Place> = (0..a).map(operand_place).collect();
        let replica: Vec<u32> = places[a..].iter().filter_map(|p| match p { Place::Lane(l) => Some(*l), _ => None }).collect();
        let operand_text = layout_text(&operand_bits, &[(1, 1)], &replica);
        let dest = parse_layout(&dest_text).unwrap();
        let operand = parse_layout(&operand_text).unwrap();
        let map = register_map(&dest, &[rows, cols], &operand, &[rows, 1]).map_err(|e| {
            TestCaseError::fail(format!("{dest_text} / {operand_text}: {e}"))
        })?;
        // Expected: for every dest register value r (the register bits of dest), the operand register made of the
        // row bits' values.
        let reg_bits: Vec<(usize, u32)> = places.iter().enumerate().filter_map(|(i, p)| match p {
            Place::Reg(r) => Some((i, *r)),
            _ => None,
        }).collect();
        let mut want = BTreeMap::new();
        for r in 0..(1i64 << reg_bits.len()) {
            let mut from = 0i64;
            for &(bit, pos) in &reg_bits {
                if bit < a && (r >> pos) & 1 == 1 {
                    if let Place::Reg(o) = operand_bits[bit] {
                        from += 1 << o;
                    }
                }
            }
            want.insert(r, from);
        }
        prop_assert_eq!(map, want, "{} / {}", dest_text, operand_text);
    }

    #[test]
    fn a_row_bit_on_another_lane_is_refused((a, places, _order) in case()) {
        let b = places.len() - a;
        // Only cases where some row bit sits on a lane and a free lane bit exists to move it to.
        let used: Vec<u32> = places.iter().filter_map(|p| match p { Place::Lane(l) => Some(*l), _ => None }).collect();
        let Some(row) = (0..a).find(|&i| matches!(places[i], Place::Lane(_))) else { return Ok(()) };
        let Some(free) = (0..5u32).find(|l| !used.contains(l)) else { return Ok(()) };
        let mut operand_bits: Vec<Place> = places[..a].to_vec();
        operand_bits[row] = Place::Lane(free);
        // Registers as dest has them, renumbered densely.
        let mut next = 0;
        for p in &mut operand_bits {
            if let Place::Reg(_) = p {
                *p = Place::Reg(next);
                next += 1;
            }
        }
        let replica: Vec<u32> = places[a..].iter().filter_map(|p| match p { Place::Lane(l) => Some(*l), _ => None }).collect();
        let dest = parse_layout(&layout_text(&places, &[], &[])).unwrap();
        let operand = parse_layout(&layout_text(&operand_bits, &[(1, 1)], &replica)).unwrap();
        let result = register_map(&dest, &[1 << a, 1 << b], &operand, &[1 << a, 1]);
        prop_assert!(result.is_err(), "a row moved from its lane was accepted");
    }
}
