//! The collective model shared by layout/tests/collective_model.rs and the `layout-collective` fuzz target: each
//! rank's source buffer filled from a global integer tensor through the source layout, evaluated by a brute-force
//! reference written here from semantics.md (not by the planner or the crate's evaluator), the plan's steps
//! executed literally, every destination place checked against the destination layout's definition (the value,
//! or the sum/max over the partial groups), padding untouched. See collective_model.rs for the full statement.

use axe_layout::distributed::collective::{CollectivePlan, StepOp};
use axe_layout::distributed::placement::{DistLayout, ReduceOp};
use axe_layout::distributed::Mesh;
use axe_layout::TileLayout;
use std::collections::{BTreeMap, HashMap};

/// Reference forward map: every (axis name -> value) point of padded flat index `flat`.
pub fn ref_points(tile: &TileLayout, flat: i64) -> Vec<BTreeMap<String, i64>> {
    let mut base: BTreeMap<String, i64> = BTreeMap::new();
    for (a, v) in tile.offset() {
        *base.entry(a.name().to_string()).or_default() += v;
    }
    let mut rest = flat;
    for it in tile.shard().iter().rev() {
        let digit = rest % it.extent;
        rest /= it.extent;
        *base.entry(it.axis.name().to_string()).or_default() += digit * it.stride;
    }
    let mut points = vec![base];
    for it in tile.replica() {
        let mut next = Vec::new();
        for p in &points {
            for k in 0..it.extent {
                let mut q = p.clone();
                *q.entry(it.axis.name().to_string()).or_default() += k * it.stride;
                next.push(q);
            }
        }
        points = next;
    }
    points
}

/// Mesh axes (name, extent) of the mesh, in order.
pub fn mesh_axes(mesh: &Mesh) -> Vec<(String, i64)> {
    mesh.axes().iter().map(|a| (a.axis.name().to_string(), a.extent)).collect()
}

/// (rank, m offset, mesh coordinate) of a reference point; panics if off the mesh (the layouts here are on it).
pub fn rank_of(axes: &[(String, i64)], p: &BTreeMap<String, i64>) -> Place {
    let mut rank = 0;
    let mut coord = Vec::new();
    for (name, ext) in axes {
        let c = p.get(name).copied().unwrap_or(0);
        assert!((0..*ext).contains(&c), "reference point {p:?} is off the mesh");
        rank = rank * ext + c;
        coord.push(c);
    }
    (rank, p.get("m").copied().unwrap_or(0), coord)
}

pub fn row_major(shape: &[i64], x: &[i64]) -> i64 {
    shape.iter().zip(x).fold(0, |acc, (e, c)| acc * e + c)
}

pub fn coords(shape: &[i64]) -> Vec<Vec<i64>> {
    let mut out = vec![vec![]];
    for &e in shape {
        out = out.into_iter().flat_map(|p| (0..e).map(move |c| [p.clone(), vec![c]].concat())).collect();
    }
    out
}

/// Every place (rank, offset, coordinate) of every logical element (by its logical flat index).
/// A place: (rank, m offset, mesh coordinate).
type Place = (i64, i64, Vec<i64>);

pub fn ref_places(mesh: &Mesh, d: &DistLayout) -> Vec<(i64, Vec<Place>)> {
    let axes = mesh_axes(mesh);
    coords(&d.shape)
        .into_iter()
        .map(|x| {
            let f = row_major(&d.shape, &x);
            let pf = row_major(&d.padded, &x);
            (f, ref_points(d.layout.tile(), pf).iter().map(|p| rank_of(&axes, p)).collect())
        })
        .collect()
}

/// The value partial group `g` holds for logical element `f` (one tensor when there is no Partial).
pub fn value(g: i64, f: i64) -> i64 {
    f * 7 + 3 + g * 100_003 - (f % 5) * g * 17
}

pub const UNTOUCHED: i64 = i64::MIN + 12345;

/// Fills, executes and checks; `Err` says what the model caught.
pub fn run_model(mesh: &Mesh, src: &DistLayout, dst: &DistLayout, p: &CollectivePlan) -> Result<(), String> {
    let n = mesh.ranks();
    let axes = mesh_axes(mesh);
    let partial: Vec<usize> =
        src.partial.iter().map(|(a, _)| axes.iter().position(|(name, _)| name == a.name()).unwrap()).collect();
    let group_of = |coord: &[i64]| partial.iter().fold(0, |acc, &i| acc * axes[i].1 + coord[i]);
    let groups: i64 = partial.iter().map(|&i| axes[i].1).product();
    // Source buffers from the reference evaluation of the source layout.
    let mut sbuf = vec![vec![UNTOUCHED; p.src_elements as usize]; n as usize];
    let mut sowner: HashMap<(i64, i64), i64> = HashMap::new();
    for (f, places) in ref_places(mesh, src) {
        for (r, off, coord) in places {
            let slot = sbuf[r as usize].get_mut(off as usize).ok_or(format!("source offset {off} off the buffer"))?;
            *slot = value(group_of(&coord), f);
            sowner.insert((r, off), f);
        }
    }
    let mut dbuf = vec![vec![UNTOUCHED; p.dst_elements as usize]; n as usize];
    let mut written = vec![vec![false; p.dst_elements as usize]; n as usize];
    let mut downer: HashMap<(i64, i64), i64> = HashMap::new();
    let dplaces = ref_places(mesh, dst);
    for (f, places) in &dplaces {
        for (r, off, _) in places {
            downer.insert((*r, *off), *f);
        }
    }
    if p.ranks.len() as i64 != n {
        return Err(format!("plan has {} ranks, mesh {n}", p.ranks.len()));
    }
    for (ri, rp) in p.ranks.iter().enumerate() {
        let r = ri as i64;
        for st in &rp.steps {
            let initiator_ok = match st.op {
                StepOp::Copy | StepOp::Reduce => st.src_rank == r && st.dst_rank == r,
                StepOp::Put => st.src_rank == r && st.dst_rank != r,
                StepOp::Get | StepOp::GetReduce => st.dst_rank == r && st.src_rank != r,
            };
            if !initiator_ok {
                return Err(format!("rank {r} cannot initiate {:?} from {} to {}", st.op, st.src_rank, st.dst_rank));
            }
            let (s, d) = (st.src_rank as usize, st.dst_rank as usize);
            if s >= n as usize || d >= n as usize {
                return Err(format!("step peer out of range: {} -> {}", st.src_rank, st.dst_rank));
            }
            let mut moved = 0;
            for sl in &st.slices {
                let f0 = row_major(&src.shape, &sl.logical);
                for c in 0..sl.count {
                    for j in 0..sl.len {
                        let (so, dof, f) = (
                            sl.src_offset + c * sl.src_stride + j,
                            sl.dst_offset + c * sl.dst_stride + j,
                            f0 + c * sl.logical_stride + j,
                        );
                        if sowner.get(&(st.src_rank, so)) != Some(&f) {
                            return Err(format!("rank {} offset {so} does not hold source element {f}", st.src_rank));
                        }
                        if downer.get(&(st.dst_rank, dof)) != Some(&f) {
                            return Err(format!("rank {} offset {dof} is not a place of element {f}", st.dst_rank));
                        }
                        let v = sbuf[s][so as usize];
                        let (slot, w) = (&mut dbuf[d][dof as usize], &mut written[d][dof as usize]);
                        if st.op.accumulates() {
                            if !*w {
                                return Err(format!("rank {d} offset {dof} accumulated before written"));
                            }
                            *slot = match p.reduce {
                                Some(ReduceOp::Max) => (*slot).max(v),
                                _ => *slot + v,
                            };
                        } else {
                            if *w {
                                return Err(format!("rank {d} offset {dof} written twice"));
                            }
                            *slot = v;
                            *w = true;
                        }
                        moved += 1;
                    }
                }
            }
            if moved != st.elements {
                return Err(format!("step claims {} elements, moves {moved}", st.elements));
            }
        }
    }
    // The destination's definition, from the global tensor(s).
    let expected = |f: i64| -> i64 {
        let vals = (0..groups).map(|g| value(g, f));
        match src.partial.first().map(|p| p.1) {
            None => value(0, f),
            Some(ReduceOp::Sum) => vals.sum(),
            Some(ReduceOp::Max) => vals.max().unwrap_or_default(),
        }
    };
    for (f, places) in &dplaces {
        for (r, off, _) in places {
            let got = dbuf[*r as usize][*off as usize];
            if got != expected(*f) {
                return Err(format!("rank {r} offset {off} (element {f}): got {got}, expected {}", expected(*f)));
            }
        }
    }
    for (r, buf) in dbuf.iter().enumerate() {
        for (off, v) in buf.iter().enumerate() {
            if !downer.contains_key(&(r as i64, off as i64)) && *v != UNTOUCHED {
                return Err(format!("rank {r} offset {off} is padding but was written"));
            }
        }
    }
    Ok(())
}
