//! DTensor's own placement of every element, against the layouts `from_placements` gives (issue 21, items 1-2).
//!
//! The reference is a transcription written here of PyTorch DTensor's split rule, not the crate's code:
//! `Shard._local_shard_size_and_offset` (torch.chunk sizes: chunks of `ceil(n/k)`, the last short, the rest
//! empty) applied mesh dimension by mesh dimension as `compute_local_shape_and_global_offset` does (the second
//! `Shard(d)` splits the first one's chunk again), and `to_local()` as the contiguous row-major tensor of the
//! rank's local shape. A layout is evaluated by a brute-force evaluator also written here (flatten the padded
//! coordinate row-major, split it over the shard extents, add digit * stride per axis, every replica
//! combination, the offset; rank row-major over the mesh axes).
//!
//! Exhaustively over small meshes (1-D to 3-D, extents of 1 included), shapes and placements:
//! - every accepted placement puts every logical element on exactly DTensor's (rank, local offset) places, its
//!   per-rank local shapes are DTensor's, and it reads back to the same placements;
//! - every refusal is `uneven-nested` or `local-strides`, and the reference confirms it: for `uneven-nested`,
//!   DTensor's pieces of a dimension in rank order are not blocks of one size (which is all a layout's device
//!   iters over a dimension can make: rank r holds `[r*c, (r+1)*c)`); for `local-strides`, two non-empty ranks
//!   hold the same rows of a dimension `e` (at least two of them) but one step along `e` moves a different
//!   number of elements in their `to_local()` tensors, while a layout grouped by the shape adds one term per
//!   dimension, the same on every rank;
//! - with padded local buffers every `local-strides` case is accepted, on DTensor's ranks, at the row-major
//!   offsets of the padded local tile.

use axe_layout::distributed::placement::{Distribution, LocalBuffers, Placement, ReduceOp};
use axe_layout::distributed::{from_placements, from_placements_with, parse_placements_for, to_placements, Mesh};
use axe_layout::TileLayout;
use std::collections::{BTreeMap, BTreeSet};

/// DTensor `Shard._local_shard_size_and_offset(curr_local_size, num_chunks, rank)`: (size, offset).
fn local_shard_size_and_offset(size: i64, chunks: i64, rank: i64) -> (i64, i64) {
    if size % chunks == 0 {
        let full = size / chunks;
        return (full, full * rank);
    }
    let full = (size + chunks - 1) / chunks;
    let start = full * rank;
    if size < start {
        return (0, size);
    }
    (size.min(start + full) - start, start)
}

/// DTensor `compute_local_shape_and_global_offset` for one mesh coordinate: (local shape, global offset). For a
/// non-empty piece DTensor's offset update is the sum of the levels' offsets (its `<=` branch fires only at
/// offset 0 or on an empty piece, whose offset holds nothing).
fn local_shape_and_offset(
    shape: &[i64],
    mesh: &[i64],
    coord: &[i64],
    placements: &[Placement],
) -> (Vec<i64>, Vec<i64>) {
    let mut local = shape.to_vec();
    let mut offset = vec![0; shape.len()];
    for (i, p) in placements.iter().enumerate() {
        if let Placement::Shard(d) = *p {
            let (size, off) = local_shard_size_and_offset(local[d], mesh[i], coord[i]);
            local[d] = size;
            offset[d] += off;
        }
    }
    (local, offset)
}

fn extents(mesh: &Mesh) -> Vec<i64> {
    mesh.axes().iter().map(|a| a.extent).collect()
}

/// The mesh coordinate of a rank, row-major (written here, not the crate's `Mesh::coord`).
fn coord_of(mesh: &[i64], mut rank: i64) -> Vec<i64> {
    let mut c = vec![0; mesh.len()];
    for i in (0..mesh.len()).rev() {
        c[i] = rank % mesh[i];
        rank /= mesh[i];
    }
    c
}

fn all_coords(shape: &[i64]) -> Vec<Vec<i64>> {
    let mut out = vec![vec![]];
    for &n in shape {
        out = out.into_iter().flat_map(|c| (0..n).map(move |i| [c.clone(), vec![i]].concat())).collect();
    }
    out
}

fn row_major(coord: &[i64], shape: &[i64]) -> i64 {
    coord.iter().zip(shape).fold(0, |acc, (c, n)| acc * n + c)
}

/// DTensor's places of every logical element: (rank, offset in the rank's `to_local()`), per element.
fn dtensor_places(mesh: &[i64], shape: &[i64], placements: &[Placement]) -> Vec<BTreeSet<(i64, i64)>> {
    let ranks: i64 = mesh.iter().product();
    let boxes: Vec<(Vec<i64>, Vec<i64>)> =
        (0..ranks).map(|r| local_shape_and_offset(shape, mesh, &coord_of(mesh, r), placements)).collect();
    all_coords(shape)
        .iter()
        .map(|g| {
            let mut places = BTreeSet::new();
            for (r, (local, offset)) in boxes.iter().enumerate() {
                let inside = g.iter().zip(local.iter().zip(offset)).all(|(&x, (&l, &o))| o <= x && x < o + l);
                if inside {
                    let rel: Vec<i64> = g.iter().zip(offset).map(|(x, o)| x - o).collect();
                    places.insert((r as i64, row_major(&rel, local)));
                }
            }
            places
        })
        .collect()
}

/// The layout's places of every logical element (coordinates below `shape` of the `padded` domain).
fn layout_places(mesh: &Mesh, tile: &TileLayout, shape: &[i64], padded: &[i64]) -> Vec<BTreeSet<(i64, i64)>> {
    let ext = extents(mesh);
    all_coords(shape)
        .iter()
        .map(|g| {
            let mut rest = row_major(g, padded);
            let mut base: BTreeMap<&'static str, i64> = BTreeMap::new();
            for (a, v) in tile.offset() {
                *base.entry(a.name()).or_default() += v;
            }
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
                .map(|p| {
                    for a in p.keys() {
                        assert!(*a == "m" || mesh.axes().iter().any(|x| x.axis.name() == *a), "axis {a} in {tile}");
                    }
                    let dev: Vec<i64> =
                        mesh.axes().iter().map(|x| p.get(x.axis.name()).copied().unwrap_or(0)).collect();
                    (row_major(&dev, &ext), p.get("m").copied().unwrap_or(0))
                })
                .collect()
        })
        .collect()
}

/// The pieces DTensor gives the ranks along dimension `d`, in rank order over the mesh dimensions that shard it
/// (the others at coordinate 0): (start, length).
fn pieces_along(mesh: &[i64], shape: &[i64], placements: &[Placement], d: usize) -> Vec<(i64, i64)> {
    let sharding: Vec<usize> = (0..mesh.len()).filter(|&i| placements[i] == Placement::Shard(d)).collect();
    let count: i64 = sharding.iter().map(|&i| mesh[i]).product();
    (0..count)
        .map(|k| {
            let mut coord = vec![0; mesh.len()];
            let mut rest = k;
            for &i in sharding.iter().rev() {
                coord[i] = rest % mesh[i];
                rest /= mesh[i];
            }
            let (local, offset) = local_shape_and_offset(shape, mesh, &coord, placements);
            (offset[d], local[d])
        })
        .collect()
}

/// Whether the pieces are the blocks `[r*c, (r+1)*c) ∩ [0, n)` of one size `c` in rank order.
fn one_block_size(pieces: &[(i64, i64)], n: i64) -> bool {
    (1..=n).any(|c| {
        pieces.iter().enumerate().all(|(r, &(start, len))| {
            let (lo, hi) = ((r as i64 * c).min(n), ((r as i64 + 1) * c).min(n));
            len == hi - lo && (len == 0 || start == lo)
        })
    })
}

/// Reference confirmation of `local-strides`: two non-empty ranks holding the same two consecutive indices
/// `i, i + 1` of dimension `e` (all other coordinates anywhere in their pieces) whose `to_local()` offsets of one
/// step along `e` differ.
fn rank_dependent_step(mesh: &[i64], shape: &[i64], placements: &[Placement]) -> Option<String> {
    let ranks: i64 = mesh.iter().product();
    let boxes: Vec<(Vec<i64>, Vec<i64>)> =
        (0..ranks).map(|r| local_shape_and_offset(shape, mesh, &coord_of(mesh, r), placements)).collect();
    let step = |local: &[i64], e: usize| local[e + 1..].iter().product::<i64>();
    for e in 0..shape.len() {
        for (a, (la, oa)) in boxes.iter().enumerate() {
            for (b, (lb, ob)) in boxes.iter().enumerate() {
                let nonempty = la.iter().all(|&l| l > 0) && lb.iter().all(|&l| l > 0);
                if nonempty && oa[e] == ob[e] && la[e] == lb[e] && la[e] >= 2 && step(la, e) != step(lb, e) {
                    return Some(format!(
                        "ranks {a} ({la:?}) and {b} ({lb:?}) step {} and {} along dimension {e}",
                        step(la, e),
                        step(lb, e)
                    ));
                }
            }
        }
    }
    None
}

/// The padded-tile places: DTensor's ranks, row-major offsets in the padded local tile (the first piece of every
/// dimension, torch.chunk's `ceil`).
fn padded_places(mesh: &[i64], shape: &[i64], placements: &[Placement]) -> Vec<BTreeSet<(i64, i64)>> {
    let ranks: i64 = mesh.iter().product();
    let tile = local_shape_and_offset(shape, mesh, &vec![0; mesh.len()], placements).0;
    let exact = dtensor_places(mesh, shape, placements);
    let boxes: Vec<Vec<i64>> =
        (0..ranks).map(|r| local_shape_and_offset(shape, mesh, &coord_of(mesh, r), placements).1).collect();
    all_coords(shape)
        .iter()
        .zip(exact)
        .map(|(g, places)| {
            places
                .iter()
                .map(|&(r, _)| {
                    let rel: Vec<i64> = g.iter().zip(&boxes[r as usize]).map(|(x, o)| x - o).collect();
                    (r, row_major(&rel, &tile))
                })
                .collect()
        })
        .collect()
}

/// Every placement list of a `rank`-dimensional tensor on `dims` mesh dimensions (Shard(d) or Replicate()).
fn placement_lists(dims: usize, rank: usize) -> Vec<Vec<Placement>> {
    let options: Vec<Placement> =
        (0..rank).map(Placement::Shard).chain(std::iter::once(Placement::Replicate)).collect();
    let mut out = vec![vec![]];
    for _ in 0..dims {
        out = out
            .into_iter()
            .flat_map(|p: Vec<Placement>| options.iter().map(move |o| [p.clone(), vec![*o]].concat()))
            .collect();
    }
    out
}

/// A Shard on a mesh dimension of extent 1 splits nothing and reads back as Replicate().
fn normalised(mesh: &[i64], placements: &[Placement]) -> Vec<Placement> {
    placements
        .iter()
        .zip(mesh)
        .map(|(p, &k)| if k == 1 && matches!(p, Placement::Shard(_)) { Placement::Replicate } else { *p })
        .collect()
}

#[derive(Default)]
struct Tally {
    accepted: usize,
    nested: usize,
    strides: usize,
}

fn check(mesh_text: &str, shape: &[i64], placements: &[Placement], tally: &mut Tally) {
    let mesh = Mesh::parse(mesh_text).unwrap();
    let ext = extents(&mesh);
    let case = format!("{placements:?} of {shape:?} on {mesh_text}");
    let reference = dtensor_places(&ext, shape, placements);
    match from_placements(&mesh, shape, placements) {
        Ok(d) => {
            tally.accepted += 1;
            assert_eq!(layout_places(&mesh, d.layout.tile(), shape, &d.padded), reference, "{case}: {}", d.layout);
            let shapes: Vec<Vec<i64>> = (0..mesh.ranks())
                .map(|r| local_shape_and_offset(shape, &ext, &coord_of(&ext, r), placements).0)
                .collect();
            let dist = Distribution::from_placements(&mesh, shape.len(), placements).unwrap();
            assert_eq!(dist.local_shapes(&mesh, shape), shapes, "{case}");
            assert_eq!(to_placements(&mesh, &d).unwrap(), normalised(&ext, placements), "{case}");
        }
        Err(e) if e.message.starts_with("uneven-nested rule:") => {
            tally.nested += 1;
            let bad = (0..shape.len()).find(|&d| !one_block_size(&pieces_along(&ext, shape, placements, d), shape[d]));
            assert!(bad.is_some(), "{case}: refused but every dimension is one block split: {}", e.message);
            let padded = from_placements_with(&mesh, shape, placements, LocalBuffers::Padded).unwrap_err();
            assert!(padded.message.starts_with("uneven-nested rule:"), "{case}: {}", padded.message);
        }
        Err(e) if e.message.starts_with("local-strides rule:") => {
            tally.strides += 1;
            assert!(rank_dependent_step(&ext, shape, placements).is_some(), "{case}: {}", e.message);
            let d = from_placements_with(&mesh, shape, placements, LocalBuffers::Padded).unwrap();
            assert_eq!(
                layout_places(&mesh, d.layout.tile(), shape, &d.padded),
                padded_places(&ext, shape, placements),
                "{case} padded: {}",
                d.layout
            );
            assert_eq!(to_placements(&mesh, &d).unwrap(), normalised(&ext, placements), "{case}");
            let mut exact = d.clone();
            exact.local = LocalBuffers::ToLocal;
            assert!(to_placements(&mesh, &exact).unwrap_err().message.starts_with("local-strides rule:"), "{case}");
        }
        Err(e) => panic!("{case}: refused by {}", e.message),
    }
    // What the reference can express is accepted: one block size on every dimension and no rank-dependent step.
    let blocks = (0..shape.len()).all(|d| one_block_size(&pieces_along(&ext, shape, placements, d), shape[d]));
    if blocks && rank_dependent_step(&ext, shape, placements).is_none() {
        assert!(from_placements(&mesh, shape, placements).is_ok(), "{case}: expressible but refused");
    }
}

const MESHES: &[&str] = &["1", "2", "3", "4", "5", "1,4", "4,1", "2,2", "2,3", "3,2", "2,4", "2,2,2", "1,2,3", "3,1,2"];

#[test]
fn every_placement_is_dtensors_local_memory_or_a_confirmed_refusal() {
    let mut tally = Tally::default();
    for mesh in MESHES {
        let dims = mesh.split(',').count();
        let mut shapes: Vec<Vec<i64>> = (1..=13).map(|n| vec![n]).collect();
        shapes.extend(all_coords(&[7, 7]).into_iter().map(|c| vec![c[0] + 1, c[1] + 1]));
        shapes.extend(all_coords(&[4, 4, 4]).into_iter().map(|c| c.iter().map(|x| x + 1).collect()));
        for shape in &shapes {
            for placements in placement_lists(dims, shape.len()) {
                check(mesh, shape, &placements, &mut tally);
            }
        }
    }
    println!("accepted {}, uneven-nested {}, local-strides {}", tally.accepted, tally.nested, tally.strides);
    // Each outcome happens (so no branch above is vacuous).
    assert!(
        tally.accepted > 1000 && tally.nested > 50 && tally.strides > 100,
        "{} {} {}",
        tally.accepted,
        tally.nested,
        tally.strides
    );
}

#[test]
fn issue_reproducers() {
    let mesh = Mesh::parse("4").unwrap();
    // Shard(1) of 3x10 on 4 ranks: rank 3 holds columns 9:10 as a 3x1 tensor; element (1, 9) is at offset 1
    // there, which no layout with the 3x3 tile's row stride 3 says.
    assert_eq!(dtensor_places(&[4], &[3, 10], &[Placement::Shard(1)])[19], BTreeSet::from([(3, 1)]));
    let e = from_placements(&mesh, &[3, 10], &[Placement::Shard(1)]).unwrap_err();
    assert!(e.message.starts_with("local-strides rule:"), "{}", e.message);
    let d = from_placements_with(&mesh, &[3, 10], &[Placement::Shard(1)], LocalBuffers::Padded).unwrap();
    assert_eq!(layout_places(&mesh, d.layout.tile(), &[3, 10], &d.padded)[19], BTreeSet::from([(3, 3)]));
    // Nested shards that are one torch.chunk: 7 over 2x2 (rows 0:2, 2:4, 4:6, 6:7), 10 over 1x4.
    for (m, n) in [("2,2", 7), ("1,4", 10)] {
        let mesh = Mesh::parse(m).unwrap();
        let ss = [Placement::Shard(0), Placement::Shard(0)];
        let d = from_placements(&mesh, &[n], &ss).unwrap();
        let ext = extents(&mesh);
        assert_eq!(layout_places(&mesh, d.layout.tile(), &[n], &d.padded), dtensor_places(&ext, &[n], &ss));
    }
    assert_eq!(
        pieces_along(&[2, 2], &[7], &[Placement::Shard(0), Placement::Shard(0)], 0),
        [(0, 2), (2, 2), (4, 2), (6, 1)]
    );
    // 6 over 2x2: rows 2, 1, 2, 1.
    let pieces = pieces_along(&[2, 2], &[6], &[Placement::Shard(0), Placement::Shard(0)], 0);
    assert_eq!(pieces, [(0, 2), (2, 1), (3, 2), (5, 1)]);
    assert!(!one_block_size(&pieces, 6));
    // What DTensor prints: repr's tuple, dim=, a negative dimension, str()'s short forms.
    assert_eq!(
        parse_placements_for("(Shard(dim=0), Replicate())", 2).unwrap(),
        [Placement::Shard(0), Placement::Replicate]
    );
    assert_eq!(parse_placements_for("Shard(-1)", 2).unwrap(), [Placement::Shard(1)]);
    assert_eq!(parse_placements_for("[S(0), P]", 1).unwrap(), [Placement::Shard(0), Placement::Partial(ReduceOp::Sum)]);
}
