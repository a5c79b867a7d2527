//! Cluster multicast TMA loads (issue 12, item 5): a shared destination replicated over the cluster's CTA axes
//! becomes `cp.async.bulk.tensor ... .multicast::cluster` with the CTA mask read off the layout, issued by one CTA or
//! split among the receiving CTAs. Each plan runs on the hardware model (`model/tma_hw.rs`, `multicast_pairs`):
//! every CTA the layout names must receive its whole tile where the layout says, nothing else is written, and each
//! CTA's mbarrier receives the bytes it expects. Masks, issuers and boxes are also checked against numbers derived
//! by hand.

#[path = "model/tma_hw.rs"]
#[allow(dead_code)] // the run-time term helpers are for other test files
mod tma_hw;

use axe_layout::notation::parse_layout;
use axe_layout::tile_layout::unflatten;
use axe_layout::tma::{
    plan_multicast, Cluster, Direction, ElemType, MulticastForm, MulticastPlan, TmaError, TmaFailure, TmaOptions,
    TmaRequest, TmaRule,
};
use axe_layout::Axis;
use std::collections::HashMap;
use tma_hw::{multicast_pairs, SMEM_BASE};

struct Copy<'a> {
    global: &'a str,
    gshape: &'a [i64],
    gregion: &'a [(i64, i64)],
    shared: &'a str,
    sshape: &'a [i64],
    dtype: ElemType,
    cluster: [i64; 3],
}

fn run(c: &Copy<'_>, direction: Direction) -> Result<MulticastPlan, TmaError> {
    let g = parse_layout(c.global).expect("global parses");
    let s = parse_layout(c.shared).expect("shared parses");
    let sregion: Vec<(i64, i64)> = c.sshape.iter().map(|&e| (0, e)).collect();
    plan_multicast(
        &TmaRequest {
            global: &g,
            global_shape: c.gshape,
            global_region: c.gregion,
            shared: &s,
            shared_shape: c.sshape,
            shared_region: &sregion,
            dtype: c.dtype,
            direction,
            options: TmaOptions::default(),
        },
        &[],
        &[],
        Cluster { dims: c.cluster },
    )
}

/// Plans the multicast load and runs it on the model: for every element of the region and every point the shared
/// layout gives it (an address on `m` in a CTA at (cbx, cby, cbz)), the CTA of rank `cbx + cby*nx + cbz*nx*ny`
/// holds the global element's bytes at that address; no other shared byte of any CTA is written; every receiving
/// CTA's mbarrier gets exactly its tile's bytes.
fn check(c: &Copy<'_>) -> MulticastPlan {
    let p = run(c, Direction::G2S).unwrap_or_else(|e| panic!("{} -> {}: {e}", c.global, c.shared));
    let g = parse_layout(c.global).expect("global parses");
    let s = parse_layout(c.shared).expect("shared parses");
    let e = c.dtype.bytes();
    let [nx, ny, nz] = c.cluster;
    let gext: Vec<i64> = c.gregion.iter().map(|(b, e)| e - b).collect();
    let n: i64 = gext.iter().product();
    // (cta, shared byte) -> global byte, from the layouts alone.
    let mut expected: HashMap<(u32, i64), i64> = HashMap::new();
    let mut per_cta: HashMap<u32, u64> = HashMap::new();
    for k in 0..n {
        let gx: Vec<i64> = unflatten(&gext, k).iter().zip(c.gregion).map(|(y, (b, _))| y + b).collect();
        let gp = g.eval(c.gshape, &gx).expect("global evaluates");
        let ga = gp[0].get(&Axis::M).copied().unwrap_or(0) * e;
        for point in s.eval(c.sshape, &unflatten(c.sshape, k)).expect("shared evaluates") {
            let at = |name: &str| point.get(&Axis::named(name).unwrap()).copied().unwrap_or(0);
            let (x, y, z) = (at("cbx"), at("cby"), at("cbz"));
            assert!(x < nx && y < ny && z < nz, "the layout names a CTA outside the cluster");
            let cta = (x + y * nx + z * nx * ny) as u32;
            let sa = SMEM_BASE + point.get(&Axis::M).copied().unwrap_or(0) * e;
            for b in 0..e {
                assert!(expected.insert((cta, sa + b), ga + b).is_none(), "two elements at one place");
                *per_cta.entry(cta).or_insert(0) += 1;
            }
        }
    }
    let (pairs, tx) = multicast_pairs(&p.plan, p.cta_mask, &p.issuer, (nx * ny * nz) as u32).expect("model runs");
    let mut written: HashMap<(u32, i64), i64> = HashMap::new();
    for (cta, ga, sa) in pairs {
        let ga = ga.expect("no out-of-bounds element in these regions");
        assert!(written.insert((cta, sa), ga).is_none(), "CTA {cta} shared byte {sa} written twice");
    }
    assert_eq!(written, expected, "every CTA holds exactly its tile");
    assert_eq!(tx, per_cta, "each CTA's mbarrier receives its tile's bytes");
    for &cta in &p.ctas {
        assert_eq!(tx[&cta], p.plan.total_bytes(), "every CTA expects total_bytes");
    }
    p
}

#[test]
fn two_ctas_along_x_split_the_rows() {
    // A 128x64 f16 tile, 128B-swizzled, in both CTAs of a 2x1x1 cluster (replica R[2:1@cbx]): mask 0b11. Alone the
    // tile is one box [64, 128] (one issue); split between 2 CTAs, the slowest box dimension (128 rows) becomes 2
    // parts of 64 rows: CTA 0 issues rows 0..64 at shared byte 0, CTA 1 rows 64..128 at 64*128 = 8192 bytes.
    let p = check(&Copy {
        global: "S[(256,256):(256,1)]",
        gshape: &[256, 256],
        gregion: &[(128, 256), (64, 128)],
        shared: "Swizzle(3,3,3) o S[(128,64):(64,1)] + R[2:1@cbx]",
        sshape: &[128, 64],
        dtype: ElemType::F16,
        cluster: [2, 1, 1],
    });
    assert_eq!(p.cta_mask, 0b11);
    assert_eq!(p.ctas, vec![0, 1]);
    assert_eq!(p.form, MulticastForm::Split);
    assert_eq!(p.plan.desc.box_dims, vec![64, 64]);
    let issues: Vec<(Vec<i64>, i64)> =
        p.plan.issues.iter().map(|i| (i.coordinates.clone(), i.smem_offset_bytes)).collect();
    assert_eq!(issues, vec![(vec![64, 128], 0), (vec![64, 192], 8192)]);
    assert_eq!(p.issuer, vec![0, 1]);
    assert_eq!(p.plan.total_bytes(), 128 * 64 * 2);
}

#[test]
fn a_column_of_a_2x2_cluster_with_an_offset() {
    // The CTAs at cbx = 1, cby = 0..2 of a 2x2 cluster (R[2:1@cby] + 1@cbx): ranks 1 + 0*2 = 1 and 1 + 1*2 = 3,
    // mask 0b1010. The unswizzled 64x64 f16 tile is one box [64, 64]; split in two parts of 32 rows (4096 bytes).
    let p = check(&Copy {
        global: "S[(128,64):(64,1)]",
        gshape: &[128, 64],
        gregion: &[(0, 64), (0, 64)],
        shared: "S[(64,64):(64,1)] + R[2:1@cby] + 1@cbx",
        sshape: &[64, 64],
        dtype: ElemType::F16,
        cluster: [2, 2, 1],
    });
    assert_eq!(p.cta_mask, 0b1010);
    assert_eq!(p.ctas, vec![1, 3]);
    assert_eq!(p.form, MulticastForm::Split);
    assert_eq!(p.issuer, vec![1, 3]);
    assert_eq!(p.plan.issues[1].smem_offset_bytes, 4096);
}

#[test]
fn issues_already_a_multiple_of_the_ctas_are_shared_out() {
    // Two 128B panels (two issues of 64 columns x 128 rows) into 2 CTAs: one panel each, no cut.
    let p = check(&Copy {
        global: "S[(256,256):(256,1)]",
        gshape: &[256, 256],
        gregion: &[(0, 128), (0, 128)],
        shared: "Swizzle(3,3,3) o S[(128,2,64):(64,8192,1)] + R[2:1@cbx]",
        sshape: &[128, 128],
        dtype: ElemType::F16,
        cluster: [2, 1, 1],
    });
    assert_eq!(p.form, MulticastForm::Split);
    assert_eq!(p.plan.desc.box_dims, vec![64, 128]);
    assert_eq!(p.issuer, vec![0, 1]);
    assert_eq!(p.plan.issues[1].smem_offset_bytes, 16384);
}

#[test]
fn an_uncuttable_box_is_issued_by_one_cta() {
    // Three CTAs (R[3:1@cbx], cluster 3x1x1) and an 8-row box of one 128B row each: 8 is not a multiple of 3 and
    // the innermost row cannot be cut, so CTA 0 (the lowest rank) issues the one box with mask 0b111.
    let p = check(&Copy {
        global: "S[(64,64):(64,1)]",
        gshape: &[64, 64],
        gregion: &[(8, 16), (0, 64)],
        shared: "Swizzle(3,3,3) o S[(8,64):(64,1)] + R[3:1@cbx]",
        sshape: &[8, 64],
        dtype: ElemType::F16,
        cluster: [3, 1, 1],
    });
    assert_eq!(p.cta_mask, 0b111);
    assert_eq!(p.form, MulticastForm::Single);
    assert_eq!(p.issuer, vec![0]);
    assert_eq!(p.plan.desc.box_dims, vec![64, 8]);
}

#[test]
fn four_ctas_of_a_4x2_cluster_along_y_and_x() {
    // R[(2,2):(1@cbx,2@cby)] in a 4x2 cluster: (x, y) in {0,1} x {0,2}, and y = 2 is outside ny = 2: refused. With
    // R[(2,2):(2@cbx,1@cby)]: x in {0, 2}, y in {0, 1}: ranks 0, 2, 4, 6 (x + 4y), mask 0b1010101. The 128-row box
    // is cut into 4 parts of 32 rows (4096 bytes).
    let outside = run(
        &Copy {
            global: "S[(256,256):(256,1)]",
            gshape: &[256, 256],
            gregion: &[(0, 128), (0, 64)],
            shared: "Swizzle(3,3,3) o S[(128,64):(64,1)] + R[(2,2):(1@cbx,2@cby)]",
            sshape: &[128, 64],
            dtype: ElemType::F16,
            cluster: [4, 2, 1],
        },
        Direction::G2S,
    )
    .unwrap_err();
    assert_eq!(outside.failure, TmaFailure::Rule(TmaRule::Multicast), "{outside}");
    assert!(outside.to_string().contains("outside the cluster"), "{outside}");
    let p = check(&Copy {
        global: "S[(256,256):(256,1)]",
        gshape: &[256, 256],
        gregion: &[(0, 128), (0, 64)],
        shared: "Swizzle(3,3,3) o S[(128,64):(64,1)] + R[(2,2):(2@cbx,1@cby)]",
        sshape: &[128, 64],
        dtype: ElemType::F16,
        cluster: [4, 2, 1],
    });
    assert_eq!(p.cta_mask, 0b0101_0101);
    assert_eq!(p.ctas, vec![0, 2, 4, 6]);
    assert_eq!(p.issuer, vec![0, 2, 4, 6]);
    assert_eq!(p.plan.desc.box_dims, vec![64, 32]);
}

#[test]
fn refusals_name_the_multicast_rule() {
    let base = Copy {
        global: "S[(256,256):(256,1)]",
        gshape: &[256, 256],
        gregion: &[(0, 64), (0, 64)],
        shared: "S[(64,64):(64,1)] + R[2:1@cbx]",
        sshape: &[64, 64],
        dtype: ElemType::F16,
        cluster: [2, 1, 1],
    };
    // Multicast exists for loads only.
    let e = run(&base, Direction::S2G).unwrap_err();
    assert_eq!(e.failure, TmaFailure::Rule(TmaRule::Multicast), "{e}");
    assert!(e.to_string().contains("only for loads"), "{e}");
    // A cluster of 4x4x2 = 32 CTAs: ctaMask has 16 bits.
    let e = run(&Copy { cluster: [4, 4, 2], ..base }, Direction::G2S).unwrap_err();
    assert!(e.to_string().contains("32 CTAs"), "{e}");
    // A shard over cbx: the CTAs hold different halves, not one tile.
    let e = run(&Copy { shared: "S[(2,32,64):(1@cbx,64,1)]", ..base }, Direction::G2S).unwrap_err();
    assert!(e.to_string().contains("different elements"), "{e}");
    // No CTA axis at all: a plain load.
    let e = run(&Copy { shared: "S[(64,64):(64,1)]", ..base }, Direction::G2S).unwrap_err();
    assert!(e.to_string().contains("plain TMA load"), "{e}");
    // A replica on a thread axis of the CTA (not of the cluster) is not a multicast destination: with no CTA axis
    // the layout is a plain load's; beside a CTA replica, the one CTA's tile still has a replica, which a TMA box
    // (one address per element) cannot write.
    let e = run(&Copy { shared: "S[(64,64):(64,1)] + R[2:1@warpid]", ..base }, Direction::G2S).unwrap_err();
    assert!(e.to_string().contains("names no cluster CTA axis"), "{e}");
    let e = run(&Copy { shared: "S[(64,64):(64,1)] + R[(2,2):(1@cbx,1@warpid)]", ..base }, Direction::G2S).unwrap_err();
    assert!(e.to_string().contains("tma: shared-layout stage: the shared layout has replica iters"), "{e}");
}
