//! One static TMA copy as the model tests write it, and the check every such plan gets: planned in both
//! directions and run on the hardware model (`tma_hw.rs`), every element of the region landing where the layouts
//! say (shared byte -> global byte, the shared tensor at [`SMEM_BASE`]) and nothing else written. Shared by
//! tma_model.rs and tma_general.rs, which include it next to `tma_hw`.

#[path = "notation.rs"]
mod notation;

use super::tma_hw::{check_transfer, hardware_pairs, SMEM_BASE};
use axe_layout::notation::parse_layout;
use axe_layout::tile_layout::unflatten;
use axe_layout::tma::{plan, Direction, ElemType, TmaOptions, TmaPlan, TmaRequest};
use axe_layout::{Axis, Layout};
use std::collections::HashMap;

/// The memory address (in elements) a layout gives one logical coordinate.
pub fn address(layout: &Layout, shape: &[i64], x: &[i64]) -> i64 {
    // By the notation's definition (`notation.rs`), not the crate's evaluator.
    let points = notation::points_at(layout, shape, x);
    assert_eq!(points.len(), 1, "a TMA operand maps each element to one address");
    points[0].get(&Axis::M).copied().unwrap_or(0)
}

/// One static copy as text: the global and shared layouts, shapes and regions, and the element type.
pub struct Copy<'a> {
    pub global: &'a str,
    pub gshape: &'a [i64],
    pub gregion: &'a [(i64, i64)],
    pub shared: &'a str,
    pub sshape: &'a [i64],
    pub sregion: &'a [(i64, i64)],
    pub dtype: ElemType,
}

/// What the layouts say: region element k pairs global element `gregion(k)` with shared element `sregion(k)`
/// (shared byte -> global byte, the shared tensor at [`SMEM_BASE`]).
pub fn expected_bytes(c: &Copy<'_>, g: &Layout, s: &Layout, gregion: &[(i64, i64)]) -> HashMap<i64, i64> {
    expected_at(c, g, s, gregion, c.sregion)
}

/// [`expected_bytes`] with the shared region given too (a ring's stage moved at run time).
pub fn expected_at(
    c: &Copy<'_>,
    g: &Layout,
    s: &Layout,
    gregion: &[(i64, i64)],
    sregion: &[(i64, i64)],
) -> HashMap<i64, i64> {
    let e = c.dtype.bytes();
    let gext: Vec<i64> = gregion.iter().map(|(b, e)| e - b).collect();
    let sext: Vec<i64> = sregion.iter().map(|(b, e)| e - b).collect();
    let n: i64 = gext.iter().product();
    let mut expected: HashMap<i64, i64> = HashMap::new();
    for k in 0..n {
        let gx: Vec<i64> = unflatten(&gext, k).iter().zip(gregion).map(|(y, (b, _))| y + b).collect();
        let sx: Vec<i64> = unflatten(&sext, k).iter().zip(sregion).map(|(y, (b, _))| y + b).collect();
        let ga = address(g, c.gshape, &gx) * e;
        let sa = SMEM_BASE + address(s, c.sshape, &sx) * e;
        for b in 0..e {
            assert!(expected.insert(sa + b, ga + b).is_none(), "the shared layout is not injective");
        }
    }
    expected
}

/// Global memory: every byte of every element of the global tensor, uniquely tagged.
pub fn global_memory(c: &Copy<'_>, g: &Layout) -> HashMap<i64, u64> {
    let e = c.dtype.bytes();
    let gcount: i64 = c.gshape.iter().product();
    let mut gmem: HashMap<i64, u64> = HashMap::new();
    for id in 0..gcount {
        let a = address(g, c.gshape, &unflatten(c.gshape, id)) * e;
        for b in 0..e {
            gmem.insert(a + b, (id as u64) << 8 | b as u64);
        }
    }
    gmem
}

/// Plans the copy in both directions and checks every element against the layouts.
pub fn check(c: &Copy<'_>) -> TmaPlan {
    let g = parse_layout(c.global).expect("global parses");
    let s = parse_layout(c.shared).expect("shared parses");
    let e = c.dtype.bytes();
    let n: i64 = c.gregion.iter().map(|(b, e)| e - b).product();
    let expected = expected_bytes(c, &g, &s, c.gregion);
    let gmem = global_memory(c, &g);
    let mut last = None;
    for direction in [Direction::G2S, Direction::S2G] {
        let p =
            plan(&request(c, &g, &s, direction)).unwrap_or_else(|err| panic!("{} -> {}: {err}", c.global, c.shared));
        assert_eq!(p.total_bytes() as i64, n * e, "payload");
        assert!(p.dynamic.is_empty(), "a static region has no run-time terms");
        assert_eq!(SMEM_BASE % p.shared_base_alignment_bytes as i64, 0);
        let pairs = hardware_pairs(&p).unwrap_or_else(|err| panic!("{err}"));
        check_transfer(direction, &pairs, &expected, &gmem)
            .unwrap_or_else(|err| panic!("{} -> {} {direction:?}: {err}", c.global, c.shared));
        last = Some(p);
    }
    last.expect("two directions planned")
}

pub fn full(shape: &[i64]) -> Vec<(i64, i64)> {
    shape.iter().map(|&e| (0, e)).collect()
}

/// A request over `c` in `direction` (the regions at offsets 0).
pub fn request<'a>(c: &'a Copy<'a>, g: &'a Layout, s: &'a Layout, direction: Direction) -> TmaRequest<'a> {
    TmaRequest {
        global: g,
        global_shape: c.gshape,
        global_region: c.gregion,
        shared: s,
        shared_shape: c.sshape,
        shared_region: c.sregion,
        dtype: c.dtype,
        direction,
        options: TmaOptions::default(),
    }
}
