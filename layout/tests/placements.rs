//! Round trips between placements (DTensor, JAX) and layouts, and random layouts read back as placements.
//!
//! - `to_placements(from_placements(p)) == p` and `to_spec(from_spec(s)) == s` on random meshes, shapes and
//!   placements (uneven dimensions included; the only refusals allowed on the way in are `uneven-nested`,
//!   `local-strides` (whose padded-tile layout must then round-trip) and the JAX divisibility rule);
//! - a random layout over `m` and the mesh's device axes is either refused by one of the documented rules, or
//!   its placements give back a layout with the same forward map, compared element by element with a reference
//!   evaluator written here (flatten row-major, digits over the shard extents, replica combinations, offset).

use axe_layout::distributed::placement::{self, DistLayout, LocalBuffers, PartitionSpec, Placement, ReduceOp};
use axe_layout::distributed::{from_placements, from_placements_with, from_spec, to_placements, to_spec, Mesh};
use axe_layout::{Axis, Iter, Layout, TileLayout};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

const MESHES: &[&str] = &["2", "4", "8", "2,2", "2,4", "4,2", "x=2,y=4", "a=4,b=2,c=2"];

fn placement_strategy(rank: usize) -> impl Strategy<Value = Placement> {
    prop_oneof![
        (0..rank).prop_map(Placement::Shard),
        Just(Placement::Replicate),
        Just(Placement::Partial(ReduceOp::Sum)),
        Just(Placement::Partial(ReduceOp::Max)),
    ]
}

fn case() -> impl Strategy<Value = (&'static str, Vec<i64>, Vec<Placement>)> {
    (prop::sample::select(MESHES), 1usize..=4).prop_flat_map(|(mesh, rank)| {
        let dims = mesh.split(',').count();
        (Just(mesh), prop::collection::vec(1i64..=20, rank), prop::collection::vec(placement_strategy(rank), dims))
    })
}

/// A random PartitionSpec: every mesh dimension unused or given to one tensor dimension, in a random order.
fn spec_case() -> impl Strategy<Value = (&'static str, Vec<i64>, Vec<Option<usize>>, Vec<u32>)> {
    (prop::sample::select(&["x=2,y=4", "x=4", "a=2,b=2,c=2"][..]), 1usize..=3).prop_flat_map(|(mesh, rank)| {
        let dims = mesh.split(',').count();
        (
            Just(mesh),
            prop::collection::vec(1i64..=4, rank),
            prop::collection::vec(prop::option::of(0..rank), dims),
            prop::collection::vec(any::<u32>(), dims),
        )
    })
}

fn ref_map(tile: &TileLayout, size: i64) -> Vec<BTreeSet<BTreeMap<&'static str, i64>>> {
    (0..size)
        .map(|flat| {
            let mut base: BTreeMap<&'static str, i64> = BTreeMap::new();
            for (a, v) in tile.offset() {
                *base.entry(a.name()).or_default() += v;
            }
            let mut rest = flat;
            for it in tile.shard().iter().rev() {
                *base.entry(it.axis.name()).or_default() += (rest % it.extent) * it.stride;
                rest /= it.extent;
            }
            let mut points = vec![base];
            for it in tile.replica() {
                points = points
                    .iter()
                    .flat_map(|p| {
                        (0..it.extent).map(move |k| {
                            let mut q = p.clone();
                            *q.entry(it.axis.name()).or_default() += k * it.stride;
                            q
                        })
                    })
                    .collect();
            }
            points
                .into_iter()
                .map(|mut p| {
                    p.retain(|_, v| *v != 0);
                    p
                })
                .collect()
        })
        .collect()
}

fn refused_by_rule(e: &axe_layout::LayoutError) -> bool {
    placement::RULES.iter().any(|r| e.message.starts_with(&format!("{r} rule:")))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn dtensor_round_trip((mesh, shape, placements) in case()) {
        let mesh = Mesh::parse(mesh).unwrap();
        match from_placements(&mesh, &shape, &placements) {
            Ok(d) => prop_assert_eq!(to_placements(&mesh, &d).unwrap(), placements),
            Err(e) if e.message.starts_with("local-strides rule:") => {
                let d = from_placements_with(&mesh, &shape, &placements, LocalBuffers::Padded).unwrap();
                prop_assert_eq!(to_placements(&mesh, &d).unwrap(), placements);
            }
            Err(e) => prop_assert!(e.message.starts_with("uneven-nested rule:"), "{}", e.message),
        }
    }

    #[test]
    fn jax_round_trip((mesh, shape, owner, order) in spec_case()) {
        let mesh = Mesh::parse(mesh).unwrap();
        let mut dims: Vec<Vec<(u32, String)>> = vec![Vec::new(); shape.len()];
        for (i, o) in owner.iter().enumerate() {
            if let Some(d) = o {
                dims[*d].push((order[i], mesh.axes()[i].name.clone()));
            }
        }
        let spec = PartitionSpec(dims.into_iter().map(|mut v| { v.sort(); v.into_iter().map(|x| x.1).collect() }).collect());
        let spec = placement::parse_spec(&spec.to_string()).unwrap();
        match from_spec(&mesh, &shape, &spec) {
            Ok(d) => prop_assert_eq!(to_spec(&mesh, &d).unwrap(), spec.padded_to(shape.len())),
            Err(e) => prop_assert!(e.message.starts_with("jax-uneven rule:"), "{}", e.message),
        }
    }

    #[test]
    fn split_iters_read_back((mesh, shape, placements) in case(), splits in prop::collection::vec(any::<bool>(), 8)) {
        // The layout of random placements with its memory iters split in two (same map, not canonical): the
        // reader must regroup it and find the same placements.
        let mesh = Mesh::parse(mesh).unwrap();
        let Ok(d) = from_placements(&mesh, &shape, &placements) else { return Ok(()) };
        let tile = d.layout.tile();
        let mut shard = Vec::new();
        for (k, it) in tile.shard().iter().enumerate() {
            if it.axis == Axis::M && it.extent % 2 == 0 && splits[k % splits.len()] {
                shard.push(Iter::new(2, it.stride * (it.extent / 2), it.axis).unwrap());
                shard.push(Iter::new(it.extent / 2, it.stride, it.axis).unwrap());
            } else {
                shard.push(*it);
            }
        }
        let split = TileLayout::new(shard, tile.replica().to_vec(), tile.offset().clone()).unwrap();
        if tile.size() <= 512 {
            prop_assert_eq!(ref_map(&split, tile.size()), ref_map(tile, tile.size()));
        }
        let back = DistLayout::new(Layout::Tile(split), d.shape.clone(), d.padded.clone(), d.partial.clone()).unwrap();
        prop_assert_eq!(to_placements(&mesh, &back).unwrap(), placements);
    }

    #[test]
    fn random_layouts_read_back_or_name_a_rule(
        mesh in prop::sample::select(&["2", "4", "2,2", "2,4"][..]),
        iters in prop::collection::vec((0usize..3, prop::sample::select(&[1i64, 2, 4][..]), -2i64..=8), 1..=5),
        replica in prop::collection::vec((0usize..3, prop::sample::select(&[1i64, 2, 4][..]), 0i64..=2), 0..=2),
        offset in prop::option::weighted(0.1, (0usize..3, 1i64..=3)),
        cut in 0usize..=5,
    ) {
        let mesh = Mesh::parse(mesh).unwrap();
        let mut axes = vec![Axis::M];
        axes.extend(mesh.axes().iter().map(|a| a.axis));
        let axis = |k: usize| axes[k % axes.len()];
        let shard: Vec<Iter> = iters.iter().map(|&(a, e, s)| Iter::new(e, s, axis(a)).unwrap()).collect();
        let replica: Vec<Iter> = replica.iter().map(|&(a, e, s)| Iter::new(e, s, axis(a)).unwrap()).collect();
        let offset: BTreeMap<Axis, i64> = offset.into_iter().map(|(a, v)| (axis(a), v)).collect();
        let tile = TileLayout::new(shard.clone(), replica, offset).unwrap();
        // A 2-D shape from a cut of the shard extents (or 1-D).
        let size = tile.size();
        let head: i64 = shard.iter().take(cut.min(shard.len())).map(|i| i.extent).product();
        let shape = if cut == 0 || head == size { vec![size] } else { vec![head, size / head] };
        let d = DistLayout::new(Layout::Tile(tile.clone()), shape.clone(), shape.clone(), vec![]).unwrap();
        match to_placements(&mesh, &d) {
            Ok(p) => {
                let back = from_placements(&mesh, &shape, &p).unwrap();
                prop_assert_eq!(ref_map(back.layout.tile(), size), ref_map(&tile, size), "{} -> {:?}", tile, p);
            }
            Err(e) => prop_assert!(refused_by_rule(&e), "{}", e.message),
        }
    }
}
