//! A software model of collective plans over N simulated ranks (issue 16 item 4).
//!
//! Every rank's source buffer is filled from a global integer tensor through the *source* layout, evaluated by a
//! brute-force reference written here from semantics.md (flatten row-major, split over the shard extents, add
//! digit*stride per axis, the offset, every replica combination; mesh rank row-major over the mesh axes), not by
//! the planner or the crate's evaluator. For a Partial source every partial group (combination of coordinates on
//! the partial axes) holds its own tensor. The model then executes the plan's steps literally, rank by rank and
//! in order (put/get/copy overwrite, get-reduce/reduce accumulate; reads only from source buffers; an element
//! written twice, accumulated before written, read or written out of its buffer, or whose claimed logical index
//! is not the one the reference layouts put there, is an error), and checks every destination place of every
//! logical element against the destination layout's definition computed from the global tensor(s): the value,
//! or the sum/max over the partial groups. Padding places (uneven shards) must stay untouched.

use axe_layout::distributed::collective::{self, CollectiveKind, CollectivePlan, StepOp};
use axe_layout::distributed::placement::{self, DistLayout, LocalBuffers, Placement, ReduceOp};
use axe_layout::distributed::{from_placements_with, from_spec, parse_spec, plan, to_placements, to_spec, Mesh};
use axe_layout::{Layout, TileLayout};
use proptest::prelude::*;
use std::collections::BTreeMap;

#[path = "model/collective_hw.rs"]
mod collective_hw;
use collective_hw::*;

fn placements(text: &str) -> Vec<Placement> {
    placement::parse_placements(text).unwrap()
}

/// The layout of placements with padded local tiles: the planner moves elements between whatever places the
/// layouts name, and padded tiles also take the placements whose DTensor `to_local()` strides depend on the rank
/// (`local-strides`; DTensor's own memory is checked in dtensor_local.rs).
fn from_placements(mesh: &Mesh, shape: &[i64], p: &[Placement]) -> axe_layout::Result<DistLayout> {
    from_placements_with(mesh, shape, p, LocalBuffers::Padded)
}

fn dist(mesh: &Mesh, shape: &[i64], p: &str) -> DistLayout {
    from_placements(mesh, shape, &placements(p)).unwrap()
}

fn raw(layout: &str, shape: &[i64], partial: &[(&str, ReduceOp)]) -> DistLayout {
    let partial = partial.iter().map(|(a, op)| (axe_layout::Axis::named(a).unwrap(), *op)).collect();
    DistLayout::new(Layout::Tile(layout.parse().unwrap()), shape.to_vec(), shape.to_vec(), partial).unwrap()
}

/// (mesh, shape, source placements, destination placements, expected kind): each kind checked by hand from the
/// placements (Shard -> Replicate gathers, Partial -> Shard reduce-scatters, ...).
const CASES: &[(&str, &[i64], &str, &str, &str)] = &[
    ("2", &[16, 6], "Shard(0)", "Replicate()", "all-gather"),
    ("4", &[16, 6], "Shard(0)", "Replicate()", "all-gather"),
    ("8", &[16, 6], "Shard(0)", "Replicate()", "all-gather"),
    ("8", &[16, 6], "Shard(1)", "Replicate()", "all-gather"),
    ("4", &[10, 3], "Shard(0)", "Replicate()", "all-gather"),
    ("8", &[10, 3], "Shard(0)", "Replicate()", "all-gather"),
    ("8", &[3, 10], "Shard(1)", "Shard(0)", "all-to-all"),
    ("4", &[16, 6], "Partial(sum)", "Shard(0)", "reduce-scatter"),
    ("8", &[10, 3], "Partial(sum)", "Shard(0)", "reduce-scatter"),
    ("2", &[16, 6], "Partial(max)", "Replicate()", "all-reduce"),
    ("4", &[16, 8], "Shard(0)", "Shard(1)", "all-to-all"),
    ("4", &[16, 8], "Replicate()", "Shard(1)", "local"),
    ("4", &[16, 8], "Shard(1)", "Shard(1)", "local"),
    ("2,4", &[16, 8], "Shard(0), Replicate()", "Replicate(), Replicate()", "all-gather"),
    ("2,4", &[16, 8], "Shard(0), Shard(1)", "Replicate(), Shard(1)", "all-gather"),
    ("2,4", &[16, 8], "Shard(0), Shard(0)", "Replicate(), Replicate()", "all-gather"),
    ("2,4", &[16, 8], "Shard(0), Shard(0)", "Shard(0), Replicate()", "all-gather"),
    ("2,4", &[16, 8], "Partial(sum), Shard(0)", "Shard(1), Shard(0)", "reduce-scatter"),
    ("2,4", &[16, 8], "Partial(sum), Partial(sum)", "Replicate(), Replicate()", "all-reduce"),
    ("4,2", &[16, 8], "Partial(max), Replicate()", "Shard(0), Replicate()", "reduce-scatter"),
    // Uneven both ways: gathers along gpuid_y, slices locally along gpuid_x.
    ("2,4", &[7, 5], "Replicate(), Shard(0)", "Shard(1), Replicate()", "all-gather"),
    // Mixed kinds (gather on gpuid_x, all-to-all on gpuid_y).
    ("2,4", &[16, 8], "Shard(0), Shard(1)", "Replicate(), Shard(0)", "point-to-point"),
    ("2,2", &[6, 6], "Shard(0), Shard(1)", "Shard(1), Shard(0)", "all-to-all"),
];

fn plan_case(mesh: &str, shape: &[i64], s: &str, d: &str) -> (Mesh, DistLayout, DistLayout, CollectivePlan) {
    let mesh = Mesh::parse(mesh).unwrap();
    let (src, dst) = (dist(&mesh, shape, s), dist(&mesh, shape, d));
    let p = plan(&mesh, &src, &dst).unwrap_or_else(|e| panic!("{s} -> {d}: {e}"));
    (mesh, src, dst, p)
}

#[test]
fn every_case_runs_on_the_model() {
    for &(mesh, shape, s, d, kind) in CASES {
        let (mesh, src, dst, p) = plan_case(mesh, shape, s, d);
        assert_eq!(p.kind.name(), kind, "{s} -> {d} on {}", mesh.text());
        // The block planner and the element-by-element reference give the same plan.
        assert_eq!(collective::plan_enumerated(&mesh, &src, &dst).unwrap(), p, "{s} -> {d} on {}", mesh.text());
        run_model(&mesh, &src, &dst, &p).unwrap_or_else(|e| panic!("{s} -> {d} on {}: {e}", mesh.text()));
    }
}

#[test]
fn large_tensors_plan_by_blocks() {
    // 8192x8192 on 8 ranks: far more places than the enumeration takes, planned from the blocks: rank r puts
    // its 1024 rows (one contiguous run of 2^23 elements) at offset r * 2^23 of every replica.
    let mesh = Mesh::parse("8").unwrap();
    let (src, dst) = (dist(&mesh, &[8192, 8192], "Shard(0)"), dist(&mesh, &[8192, 8192], "Replicate()"));
    assert!(collective::plan_enumerated(&mesh, &src, &dst).unwrap_err().message.starts_with("size rule:"));
    let p = plan(&mesh, &src, &dst).unwrap();
    assert_eq!(p.kind, CollectiveKind::AllGather);
    let r3: Vec<(StepOp, i64, i64, i64)> =
        p.ranks[3].steps.iter().map(|s| (s.op, s.dst_rank, s.slices[0].dst_offset, s.elements)).collect();
    let want: Vec<(StepOp, i64, i64, i64)> = (0..8)
        .map(|k| ((3 + k) % 8, if k == 0 { StepOp::Copy } else { StepOp::Put }))
        .map(|(peer, op)| (op, peer, 3 << 23, 1 << 23))
        .collect();
    assert_eq!(r3, want);
    assert!(p.ranks[3].steps.iter().all(|s| s.slices.len() == 1 && s.slices[0].len == 1 << 23));
}

#[test]
fn all_gather_plan_by_hand() {
    // 8x2 Shard(0) on 4 ranks: each holds rows 2r..2r+2 (elements 4r..4r+4 of its 4-element buffer); Replicate
    // holds all 16. Rank 1 copies its own block to dst[4..8), then puts it to ranks 2, 3, 0 (ring order) at 4.
    let (_, _, _, p) = plan_case("4", &[8, 2], "Shard(0)", "Replicate()");
    assert_eq!((p.src_elements, p.dst_elements), (4, 16));
    let r1: Vec<(StepOp, i64, i64, i64)> =
        p.ranks[1].steps.iter().map(|s| (s.op, s.dst_rank, s.slices[0].src_offset, s.slices[0].dst_offset)).collect();
    assert_eq!(
        r1,
        vec![(StepOp::Copy, 1, 0, 4), (StepOp::Put, 2, 0, 4), (StepOp::Put, 3, 0, 4), (StepOp::Put, 0, 0, 4)]
    );
    assert!(p.ranks[1]
        .steps
        .iter()
        .all(|s| s.slices.len() == 1 && s.slices[0].len == 4 && s.slices[0].logical == vec![2, 0]));
}

#[test]
fn reduce_scatter_plan_by_hand() {
    // 4x2 Partial(sum) -> Shard(0) on 2 ranks: rank 0 owns rows 0..2 (elements 0..4): its own partial first
    // (copy), then get-reduce from rank 1's buffer at 0..4; rank 1 the same at 4..8.
    let (_, _, _, p) = plan_case("2", &[4, 2], "Partial(sum)", "Shard(0)");
    let steps = |r: usize| -> Vec<(StepOp, i64, i64, i64, i64)> {
        p.ranks[r]
            .steps
            .iter()
            .map(|s| (s.op, s.src_rank, s.slices[0].src_offset, s.slices[0].dst_offset, s.elements))
            .collect()
    };
    assert_eq!(steps(0), vec![(StepOp::Copy, 0, 0, 0, 4), (StepOp::GetReduce, 1, 0, 0, 4)]);
    assert_eq!(steps(1), vec![(StepOp::Copy, 1, 4, 0, 4), (StepOp::GetReduce, 0, 4, 0, 4)]);
}

#[test]
fn raw_layouts_broadcast_reduce_and_cyclic() {
    let mesh = Mesh::parse("4").unwrap();
    // The whole 8x6 tensor on rank 0 (no device iter: gpuid = 0), replicated everywhere: a broadcast from 0.
    let src = raw("S[(8,6):(6,1)]", &[8, 6], &[]);
    let rep = dist(&mesh, &[8, 6], "Replicate()");
    let p = plan(&mesh, &src, &rep).unwrap();
    assert_eq!((p.kind, p.root), (CollectiveKind::Broadcast, Some(0)));
    run_model(&mesh, &src, &rep, &p).unwrap();
    // Partial sums reduced into rank 0 only.
    let part = raw("S[(8,6):(6,1)] + R[4:1@gpuid]", &[8, 6], &[("gpuid", ReduceOp::Sum)]);
    let p = plan(&mesh, &part, &src).unwrap();
    assert_eq!((p.kind, p.root), (CollectiveKind::Reduce, Some(0)));
    run_model(&mesh, &part, &src, &p).unwrap();
    // A cyclic (interleaved) row split gathered: not placements, so point-to-point.
    let cyc = raw("S[(4,4,6):(6,1@gpuid,1)]", &[16, 6], &[]);
    let rep16 = dist(&mesh, &[16, 6], "Replicate()");
    let p = plan(&mesh, &cyc, &rep16).unwrap();
    assert_eq!(p.kind, CollectiveKind::PointToPoint);
    run_model(&mesh, &cyc, &rep16, &p).unwrap();
    // And back: the cyclic split sliced locally out of a replica.
    let p = plan(&mesh, &rep16, &cyc).unwrap();
    assert_eq!(p.kind, CollectiveKind::Local);
    run_model(&mesh, &rep16, &cyc, &p).unwrap();
}

#[test]
fn refusals_name_their_rule() {
    let mesh = Mesh::parse("4").unwrap();
    let rep = dist(&mesh, &[8, 6], "Replicate()");
    let cases: Vec<(DistLayout, DistLayout, &str)> = vec![
        (
            dist(&mesh, &[6, 8], "Shard(0)"),
            rep.clone(),
            "shape rule: source shape [6,8] and destination shape [8,6] differ",
        ),
        (raw("S[(8,6):(6,1@laneid)]", &[8, 6], &[]), rep.clone(), "axis rule: source layout uses axis laneid"),
        (
            raw("S[(2,4,6):(4@gpuid,6,1)]", &[8, 6], &[]),
            rep.clone(),
            "device-range rule: source layout puts element [4,0] on mesh coordinate [4]",
        ),
        (
            raw("S[(8,6):(6,1)] - 1", &[8, 6], &[]),
            rep.clone(),
            "buffer rule: source layout puts element [0,0] at m = -1",
        ),
        (
            raw("S[(2,4,6):(1@gpuid,6,0)]", &[8, 6], &[]),
            rep.clone(),
            "src-alias rule: source rank 0 offset 0 holds both element [0,0] and element [0,1]",
        ),
        (
            rep.clone(),
            raw("S[(8,6):(0,1)]", &[8, 6], &[]),
            "dst-alias rule: destination rank 0 offset 0 holds both element [0,0] and element [1,0]",
        ),
        (
            raw("S[(4,2,6):(1@gpuid,6,1)]", &[8, 6], &[("gpuid", ReduceOp::Sum)]),
            rep.clone(),
            "partial rule: partial axis gpuid: the source is not replicated over it",
        ),
        (rep.clone(), raw("S[(8,6):(6,1)] + R[4:1@gpuid]", &[8, 6], &[("gpuid", ReduceOp::Sum)]), "dst-partial rule"),
    ];
    for (s, d, want) in cases {
        let e = plan(&mesh, &s, &d).unwrap_err().message;
        assert!(e.starts_with(want), "got {e}, want {want}");
        assert!(collective::RULES.iter().any(|r| e.starts_with(&format!("{r} rule:"))));
    }
}

#[test]
fn a_wrong_peer_or_slice_fails_the_model() {
    for &(mesh, shape, s, d) in &[
        ("2,4", &[16, 8][..], "Shard(0), Shard(1)", "Replicate(), Shard(1)"),
        ("2,4", &[16, 8][..], "Partial(sum), Shard(0)", "Shard(1), Shard(0)"),
        ("8", &[10, 3][..], "Shard(0)", "Replicate()"),
    ] {
        let (mesh, src, dst, p) = plan_case(mesh, shape, s, d);
        run_model(&mesh, &src, &dst, &p).unwrap();
        let n = mesh.ranks();
        let (ri, si) = p
            .ranks
            .iter()
            .enumerate()
            .find_map(|(ri, r)| r.steps.iter().position(|s| s.src_rank != s.dst_rank).map(|si| (ri, si)))
            .unwrap();
        let mut mutants = Vec::new();
        // One peer changed (the other end of the step, to the next rank that is neither end).
        let mut m = p.clone();
        let st = &mut m.ranks[ri].steps[si];
        let other = (1..n)
            .map(|k| (st.src_rank.max(st.dst_rank) + k) % n)
            .find(|&q| q != st.src_rank && q != st.dst_rank)
            .unwrap();
        if st.op == StepOp::Put {
            st.dst_rank = other;
        } else {
            st.src_rank = other;
        }
        mutants.push(("peer", m));
        // One slice's source offset, destination offset or logical start moved by one.
        for field in 0..3 {
            let mut m = p.clone();
            let sl = &mut m.ranks[ri].steps[si].slices[0];
            match field {
                0 => sl.src_offset = if sl.src_offset > 0 { sl.src_offset - 1 } else { sl.src_offset + 1 },
                1 => sl.dst_offset = if sl.dst_offset > 0 { sl.dst_offset - 1 } else { sl.dst_offset + 1 },
                _ => sl.logical[0] = (sl.logical[0] + 1) % shape[0],
            }
            mutants.push(("slice", m));
        }
        // One step dropped.
        let mut m = p.clone();
        m.ranks[ri].steps.remove(si);
        mutants.push(("dropped step", m));
        for (what, m) in mutants {
            assert!(run_model(&mesh, &src, &dst, &m).is_err(), "{what} mutant of {s} -> {d} passed the model");
        }
    }
}

#[test]
fn round_trips_on_the_examples() {
    for &(mesh, shape, s, d, _) in CASES {
        let mesh = Mesh::parse(mesh).unwrap();
        for p in [s, d] {
            let pl = placements(p);
            let back = to_placements(&mesh, &from_placements(&mesh, shape, &pl).unwrap()).unwrap();
            assert_eq!(back, pl, "{p} on {}", mesh.text());
        }
    }
    let mesh = Mesh::parse("x=2,y=4").unwrap();
    for spec in ["P('x', None)", "P(('x', 'y'), None)", "P(('y', 'x'), None)", "P(None, 'y')", "P('y', 'x')"] {
        let sp = parse_spec(spec).unwrap();
        let back = to_spec(&mesh, &from_spec(&mesh, &[16, 8], &sp).unwrap()).unwrap();
        assert_eq!(back, sp.padded_to(2), "{spec}");
    }
    // P(('y','x')) splits rows y-major: DTensor cannot say that.
    let d = from_spec(&mesh, &[16, 8], &parse_spec("P(('y', 'x'))").unwrap()).unwrap();
    assert!(to_placements(&mesh, &d).unwrap_err().message.starts_with("dtensor-order rule:"));
}

fn mesh_strategy() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["2", "4", "8", "2,2", "2,4", "4,2"])
}

fn placement_strategy(rank: usize, partial: bool) -> impl Strategy<Value = Placement> {
    let shard = (0..rank).prop_map(Placement::Shard);
    if partial {
        prop_oneof![
            shard,
            Just(Placement::Replicate),
            Just(Placement::Partial(ReduceOp::Sum)),
            Just(Placement::Partial(ReduceOp::Max))
        ]
        .boxed()
    } else {
        prop_oneof![shard, Just(Placement::Replicate)].boxed()
    }
}

fn case_strategy() -> impl Strategy<Value = (&'static str, Vec<i64>, Vec<Placement>, Vec<Placement>)> {
    (mesh_strategy(), 1usize..=3).prop_flat_map(|(mesh, rank)| {
        let dims = mesh.split(',').count();
        (
            Just(mesh),
            prop::collection::vec(1i64..=12, rank),
            prop::collection::vec(placement_strategy(rank, true), dims),
            prop::collection::vec(placement_strategy(rank, false), dims),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_placement_pairs_plan_and_agree((mesh, shape, mut s, d) in case_strategy()) {
        // One reduction op per plan: make every Partial the first one's op.
        let op = s.iter().find_map(|p| if let Placement::Partial(op) = p { Some(*op) } else { None });
        for p in s.iter_mut() {
            if let (Placement::Partial(_), Some(op)) = (&*p, op) {
                *p = Placement::Partial(op);
            }
        }
        let mesh = Mesh::parse(mesh).unwrap();
        let (src, dst) = match (from_placements(&mesh, &shape, &s), from_placements(&mesh, &shape, &d)) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => {
                prop_assert!(e.message.starts_with("uneven-nested rule:"), "{}", e.message);
                return Ok(());
            }
        };
        prop_assert_eq!(&to_placements(&mesh, &src).unwrap(), &s);
        prop_assert_eq!(&to_placements(&mesh, &dst).unwrap(), &d);
        match plan(&mesh, &src, &dst) {
            Ok(p) => {
                let r = run_model(&mesh, &src, &dst, &p);
                prop_assert!(r.is_ok(), "{:?} -> {:?}: {:?}", s, d, r);
                prop_assert_eq!(collective::plan_enumerated(&mesh, &src, &dst).unwrap(), p);
            }
            Err(e) => prop_assert!(
                collective::RULES.iter().any(|r| e.message.starts_with(&format!("{r} rule:"))),
                "{}", e.message
            ),
        }
    }
}

fn random_tile(mesh: &Mesh, iters: &[(usize, i64, i64)], replica: &[(usize, i64, i64)]) -> TileLayout {
    let mut axes = vec![axe_layout::Axis::M];
    axes.extend(mesh.axes().iter().map(|a| a.axis));
    let axis = |k: usize| axes[k % axes.len()];
    let it = |&(a, e, s): &(usize, i64, i64)| axe_layout::Iter::new(e, s, axis(a)).unwrap();
    TileLayout::new(iters.iter().map(it).collect(), replica.iter().map(it).collect(), BTreeMap::new()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_layouts_against_placements(
        mesh in prop::sample::select(vec!["2", "4", "2,2", "2,4"]),
        iters in prop::collection::vec((0usize..3, prop::sample::select(vec![1i64, 2, 4]), -1i64..=4), 1..=4),
        replica in prop::collection::vec((0usize..3, prop::sample::select(vec![1i64, 2, 4]), 0i64..=2), 0..=1),
        pick in prop::collection::vec(0usize..3, 2),
        reverse in any::<bool>(),
    ) {
        // A random layout over m and the mesh's axes (cyclic splits, broadcasts, device strides...) copied to or
        // from a placements layout: the plan runs correctly on the model, or is refused by a documented rule.
        let mesh = Mesh::parse(mesh).unwrap();
        let tile = random_tile(&mesh, &iters, &replica);
        let shape = vec![tile.size()];
        let raw = DistLayout::new(Layout::Tile(tile), shape.clone(), shape.clone(), vec![]).unwrap();
        let pl: Vec<Placement> = pick
            .iter()
            .take(mesh.axes().len())
            .map(|&k| if k == 0 { Placement::Shard(0) } else { Placement::Replicate })
            .collect();
        let Ok(other) = from_placements(&mesh, &shape, &pl) else { return Ok(()) };
        let (src, dst) = if reverse { (other, raw) } else { (raw, other) };
        match plan(&mesh, &src, &dst) {
            Ok(p) => {
                let r = run_model(&mesh, &src, &dst, &p);
                prop_assert!(r.is_ok(), "{} -> {}: {:?}", src.layout, dst.layout, r);
            }
            Err(e) => prop_assert!(
                collective::RULES.iter().any(|r| e.message.starts_with(&format!("{r} rule:"))),
                "{}",
                e.message
            ),
        }
    }
}
