//! A model of the Trainium Tensor Engine, shared by layout/tests/trn_matmul.rs and the `layout-trn-matmul` fuzz
//! target, written from AWS's NKI documentation (`nki.isa.nc_matmul`, "Trainium architecture"), not from the
//! planner: SBUF and PSUM are 128 partitions of slots; the operands are placed by a reference evaluation of their
//! layouts written here from semantics.md (shard digits times strides, plus the offset; every replica point); each
//! planned instruction reads its stationary tile (`kt` partitions from its start, `mt` consecutive free slots) and
//! moving tile (`kt` x `nt`), checks the engine's limits (`kt`, `mt` <= 128, `nt` <= 512, the PSUM tile inside one
//! 2 KiB bank of f32) and writes or adds `stationary^T @ moving` to its PSUM tile (`mt` partitions, `nt` slots).
//! C is read back through its layout and compared with A^T B, exactly (small integers).

use axe_layout::trn::matmul::MatmulPlan;
use axe_layout::Layout;
use std::collections::BTreeMap;

const PARTITIONS: usize = 128;
const SBUF_SLOTS: usize = 192 * 1024;
const PSUM_SLOTS: usize = 16 * 1024 / 4;
const BANK_SLOTS: usize = 2048 / 4;

/// Every (P, F) point of element `flat` by the definition: digits of `flat` over the shard extents (last iter
/// fastest) times their strides, plus the offset, plus each replica combination.
pub fn points(layout: &Layout, flat: i64) -> Vec<(i64, i64)> {
    let tile = layout.tile();
    let mut base: BTreeMap<&str, i64> = BTreeMap::new();
    for (axis, v) in tile.offset() {
        *base.entry(axis.name()).or_default() += v;
    }
    let mut rest = flat;
    for it in tile.shard().iter().rev() {
        *base.entry(it.axis.name()).or_default() += (rest % it.extent) * it.stride;
        rest /= it.extent;
    }
    let mut all = vec![base];
    for it in tile.replica() {
        let mut next = Vec::new();
        for p in &all {
            for d in 0..it.extent {
                let mut q = p.clone();
                *q.entry(it.axis.name()).or_default() += d * it.stride;
                next.push(q);
            }
        }
        all = next;
    }
    let mut out: Vec<(i64, i64)> =
        all.iter().map(|p| (p.get("P").copied().unwrap_or(0), p.get("F").copied().unwrap_or(0))).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The value of element `(i, j)` of operand `salt`: a small integer.
pub fn value(i: i64, j: i64, salt: i64) -> f64 {
    (((i * 7 + j * 13 + salt * 5) % 7) - 3) as f64
}

/// The one place of an element, inside the memory.
fn place(layout: &Layout, flat: i64, slots: usize) -> Result<(usize, usize), String> {
    match points(layout, flat).as_slice() {
        [(p, f)] if (0..PARTITIONS as i64).contains(p) && (0..slots as i64).contains(f) => {
            Ok((*p as usize, *f as usize))
        }
        other => Err(format!("element {flat} is at {other:?}, not one place in the memory")),
    }
}

/// Runs `plan` on the model: A [K,M] and B [K,N] placed in SBUF by their layouts, C [M,N] read from PSUM by its
/// layout; an error when an instruction breaks the engine's limits, reads a slot nothing wrote, or C is not A^T B.
pub fn run_model(plan: &MatmulPlan, a: &Layout, b: &Layout, c: &Layout, [k, m, n]: [i64; 3]) -> Result<(), String> {
    // SBUF as wide as the operands reach (a slot nothing wrote is NaN, and reading it is an error).
    let mut sbufs = Vec::new();
    for (layout, cols, salt) in [(a, m, 1), (b, n, 2)] {
        let placed = (0..k * cols).map(|flat| place(layout, flat, SBUF_SLOTS)).collect::<Result<Vec<_>, _>>()?;
        let width = placed.iter().map(|&(_, f)| f + 1).max().unwrap_or(0);
        let mut sbuf = vec![vec![f64::NAN; width]; PARTITIONS];
        for (flat, &(p, f)) in placed.iter().enumerate() {
            sbuf[p][f] = value(flat as i64 / cols, flat as i64 % cols, salt);
        }
        sbufs.push(sbuf);
    }
    let (sbuf_a, sbuf_b) = (&sbufs[0], &sbufs[1]);
    let mut psum = vec![vec![f64::NAN; PSUM_SLOTS]; PARTITIONS];
    let [kt, mt, nt] = plan.tile.map(|x| x as usize);
    if kt > PARTITIONS || mt > 128 || nt > 512 {
        return Err(format!("instruction tile {:?} past the engine's limits (128 x 128 x 512)", plan.tile));
    }
    for step in &plan.steps {
        let (pa, fa) = (step.a.partition as usize, step.a.free as usize);
        let (pb, fb) = (step.b.partition as usize, step.b.free as usize);
        let (pc, fc) = (step.c.partition as usize, step.c.free as usize);
        if pa + kt > PARTITIONS || pb + kt > PARTITIONS || pc + mt > PARTITIONS {
            return Err(format!("{step:?}: a tile past partition 128"));
        }
        if fc / BANK_SLOTS != (fc + nt - 1) / BANK_SLOTS || fc + nt > PSUM_SLOTS {
            return Err(format!("{step:?}: the PSUM tile crosses a bank"));
        }
        for i in 0..mt {
            for j in 0..nt {
                let mut sum = 0.0;
                for q in 0..kt {
                    let x = sbuf_a[pa + q].get(fa + i).copied().unwrap_or(f64::NAN);
                    let y = sbuf_b[pb + q].get(fb + j).copied().unwrap_or(f64::NAN);
                    if x.is_nan() || y.is_nan() {
                        return Err(format!("{step:?} reads an SBUF slot no operand element is in"));
                    }
                    sum += x * y;
                }
                let cell = &mut psum[pc + i][fc + j];
                *cell = if step.accumulate { *cell + sum } else { sum };
            }
        }
    }
    for flat in 0..m * n {
        let (p, f) = place(c, flat, PSUM_SLOTS)?;
        let (i, j) = (flat / n, flat % n);
        let want: f64 = (0..k).map(|q| value(q, i, 1) * value(q, j, 2)).sum();
        if psum[p][f] != want {
            return Err(format!("C[{i}][{j}] = {}, expected {want}", psum[p][f]));
        }
    }
    Ok(())
}
