//! In-process target over the tensor-core GEMM planner (`axe_layout::mma::plan`).
//!
//! Inputs are `key: value` documents: chip, dtype (f16, bf16, e4m3, e5m2, tf32, and f32, which no instruction
//! takes), accumulator dtype, and for each of A (`[M,K]`), B (`[K,N]`)
//! and C (`[M,N]`) a layout, a shape and a memory. The generator builds operands from the planner's own atoms
//! (mma.sync and wgmma register fragments, tensor-memory data paths, shared swizzle atoms in both majors) tiled
//! by small outer layouts over registers and warps, so most requests reach the matching stages; one operand in
//! eight is a generated layout instead, and the shapes are sometimes inconsistent.
//!
//! Properties of a plan (module documentation of `mma`): the family exists on the chip; the instruction shape
//! divides M, N and K; every operand is reached the way its memory says (registers, a shared descriptor, a
//! tensor-memory address); tensor-memory columns are a power of two in 32..=512 exactly when tensor memory is
//! used; the issues cover the `(m, n, k)` instruction grid exactly once ("every C tile is computed by
//! exactly one warp", K innermost), at most 2^16 of them (the planner's `MAX_ISSUES`); and the plan computes
//! `C += A * B` on the tensor-core hardware model of `layout/tests/model/mma_hw.rs` (shared with the layout
//! crate's tests). A refusal must name its rule (`mma: <rule> rule: <what>`, a rule of `MmaRule`, with a
//! message).

// The tensor-core model lives with the layout crate's tests; one model serves both.
#[path = "../../../layout/tests/model/mma_hw.rs"]
#[allow(dead_code, clippy::all)]
mod mma_hw;

use crate::driver::Outcome::{self, Planned, Refused};
use crate::driver::{Kind, Limits, Rng, Target};
use crate::gen_layout::{self, Knobs};
use axe_layout::mma::{self, atoms, Access, Chip, ElemType, GemmRequest, Major, Memory, Operand, Role};
use axe_layout::notation::parse_layout;
use axe_layout::{Layout, SwizzleMode, TileLayout};
use rand::seq::IndexedRandom;
use rand::RngExt;
use std::collections::BTreeSet;

/// The GEMM planner target.
pub fn targets() -> Vec<Target> {
    vec![Target {
        name: "layout-mma",
        about: "mma::plan: family on the chip, shapes divide, accesses match memories, issues tile the grid once",
        kind: Kind::InProcess,
        weight: 1,
        generate,
        check,
        limits: Limits::IN_PROCESS,
    }]
}

/// `atom` tiled by a small outer layout over `outer_shape` (registers on `m`, or warps), or the atom alone.
fn tiled(rng: &mut Rng, atom: &Layout, atom_shape: [i64; 2], warp_axis: &str, [a, b]: [i64; 2]) -> (String, [i64; 2]) {
    if a * b == 1 {
        return (atom.to_string(), atom_shape);
    }
    let (ax0, ax1) = match rng.random_range(0..4) {
        0 => (warp_axis, "m"),
        1 => ("m", warp_axis),
        _ => ("m", "m"),
    };
    let (s0, s1) = if ax0 == ax1 { (b, 1) } else { (1, 1) };
    let outer = format!("S[({a},{b}):({s0}@{ax0},{s1}@{ax1})]");
    let Ok(outer) = axe_layout::notation::parse_tile_layout(&outer) else { return (atom.to_string(), atom_shape) };
    match axe_layout::tile::tile(atom, &outer, &atom_shape, &[a, b]) {
        Ok(t) => (t.to_string(), [atom_shape[0] * a, atom_shape[1] * b]),
        Err(_) => (atom.to_string(), atom_shape),
    }
}

fn tile_text(t: axe_layout::Result<TileLayout>) -> Option<Layout> {
    t.ok().map(Layout::Tile)
}

/// A shared operand over `shape`: the swizzle atom of a random mode and major tiled row-major on `m` up to the
/// shape (a plain row-major layout when the atom does not divide it).
fn shared(rng: &mut Rng, role: Role, bits: u32, shape: [i64; 2]) -> (String, [i64; 2]) {
    let plain = || format!("S[({},{}):({},1)]", shape[0], shape[1], shape[1]);
    let mode = *[SwizzleMode::None, SwizzleMode::B32, SwizzleMode::B64, SwizzleMode::B128]
        .choose(rng)
        .unwrap_or(&SwizzleMode::B128);
    let major = if rng.random_bool(0.6) { Major::K } else { Major::MN };
    let Ok((atom, a)) = atoms::smem_atom(mode, major, role, bits) else { return (plain(), shape) };
    if a[0] <= 0 || a[1] <= 0 || shape[0] % a[0] != 0 || shape[1] % a[1] != 0 {
        return (plain(), shape);
    }
    let (x, y) = (shape[0] / a[0], shape[1] / a[1]);
    // Outer iters in either order: the atoms of a row next to each other, or of a column.
    let outer = if rng.random_bool(0.5) { format!("S[({x},{y}):({y},1)]") } else { format!("S[({x},{y}):(1,{x})]") };
    let tiled = outer.parse::<TileLayout>().ok().and_then(|o| axe_layout::tile::tile(&atom, &o, &a, &[x, y]).ok());
    (tiled.map_or_else(plain, |t| t.to_string()), shape)
}

fn generate(rng: &mut Rng) -> String {
    let family = rng.random_range(0..3);
    // The chip that has the family three times in four, any chip otherwise.
    let chip = match (rng.random_range(0..4), family) {
        (0, _) => *["sm_80", "sm_90a", "sm_100a", "sm_90", "sm_86"].choose(rng).unwrap_or(&"sm_80"),
        (_, 0) => *["sm_80", "sm_90a", "sm_100a"].choose(rng).unwrap_or(&"sm_80"),
        (_, 1) => "sm_90a",
        _ => "sm_100a",
    };
    let dtype = *["f16", "f16", "bf16", "e4m3", "e5m2", "tf32", "tf32", "f32"].choose(rng).unwrap_or(&"f16");
    let acc = *["f32", "f32", "f16"].choose(rng).unwrap_or(&"f32");
    let bits = ElemType::from_name(dtype).map_or(16, ElemType::bits);
    // K of one wgmma or tcgen05 instruction: 32 for 8-bit types, 8 for 32-bit (tf32), 16 otherwise.
    let inst_k = match bits {
        8 => 32,
        32 => 8,
        _ => 16,
    };
    // One set of outer factors for M, N and K, so the three operands chain `[M,K] x [K,N] -> [M,N]`.
    let (fm, fnn, fk) = (
        *[1i64, 1, 2, 4].choose(rng).unwrap_or(&1),
        *[1i64, 1, 2, 4].choose(rng).unwrap_or(&1),
        *[1i64, 1, 2].choose(rng).unwrap_or(&1),
    );
    let reg = |rng: &mut Rng, atom: Option<Layout>, shape: [i64; 2], warp: &str, f: [i64; 2]| -> (String, [i64; 2]) {
        match atom {
            Some(a) => tiled(rng, &a, shape, warp, f),
            None => ("S[]".into(), shape),
        }
    };
    let (a, b, c) = match family {
        0 => {
            // tf32 has m16n8k8 only, with its own fragments.
            let k = if bits != 32 && rng.random_bool(0.7) { 16 } else { 8 };
            let (fa, fb) = if bits == 32 {
                (atoms::mma_sync_a_tf32(), atoms::mma_sync_b_tf32())
            } else {
                (atoms::mma_sync_a(k), atoms::mma_sync_b(k))
            };
            (
                (reg(rng, tile_text(fa), [16, k], "warpid", [fm, fk]), "reg"),
                (reg(rng, tile_text(fb), [k, 8], "warpid", [fk, fnn]), "reg"),
                (reg(rng, tile_text(atoms::mma_sync_c()), [16, 8], "warpid", [fm, fnn]), "reg"),
            )
        }
        1 => {
            let n = *[8i64, 16, 64, 128, 256].choose(rng).unwrap_or(&64);
            let kk = inst_k;
            let a = if rng.random_bool(0.5) {
                (reg(rng, tile_text(atoms::wgmma_a(bits)), [64, kk], "wgid", [fm, fk]), "reg")
            } else {
                (shared(rng, Role::A, bits, [64 * fm, kk * fk]), "shared")
            };
            let b = (shared(rng, Role::B, bits, [kk * fk, n * fnn]), "shared");
            (a, b, (reg(rng, tile_text(atoms::wgmma_d(n)), [64, n], "wgid", [fm, fnn]), "reg"))
        }
        _ => {
            let (m, n) = (*[64i64, 128].choose(rng).unwrap_or(&128), *[16i64, 64, 128, 256].choose(rng).unwrap_or(&64));
            let kk = inst_k * fk;
            let a = (shared(rng, Role::A, bits, [m, kk]), "shared");
            let b = (shared(rng, Role::B, bits, [kk, n]), "shared");
            let c = tile_text(atoms::tmem_d(m, n)).map_or("S[]".into(), |l| l.to_string());
            (a, b, ((c, [m, n]), "tmem"))
        }
    };
    let mut ops = [a, b, c];
    for op in ops.iter_mut() {
        match rng.random_range(0..40) {
            0 => op.0 .0 = gen_layout::tame_layout(rng, Knobs::GENERAL).replace('\n', " "),
            1 => op.0 .1 = [op.0 .1[0] * 2, op.0 .1[1]],
            2 => op.1 = *["reg", "shared", "tmem", "global"].choose(rng).unwrap_or(&"reg"),
            _ => {}
        }
    }
    let mut out = format!("chip: {chip}\ndtype: {dtype}\nacc: {acc}\n");
    for (name, ((layout, shape), mem)) in ["a", "b", "c"].iter().zip(ops) {
        out.push_str(&format!("{name}: {layout}\n{name}_shape: {},{}\n{name}_mem: {mem}\n", shape[0], shape[1]));
    }
    out
}

/// Planned: `mma::plan` answers (and the plan runs right on the model); refused: it refuses naming its rule, or
/// a field does not parse.
fn check(text: &str) -> Result<Outcome, String> {
    let get = |k: &str| text.lines().find_map(|l| l.strip_prefix(k).and_then(|r| r.strip_prefix(": ")));
    let (Some(chip), Some(dtype), Some(acc)) = (
        get("chip").and_then(Chip::from_name),
        get("dtype").and_then(ElemType::from_name).filter(|t| t.is_mma_operand()),
        get("acc").and_then(ElemType::from_name).filter(|t| t.is_mma_operand()),
    ) else {
        return Ok(Refused);
    };
    let mut layouts = Vec::new();
    let mut shapes = Vec::new();
    let mut mems = Vec::new();
    for name in ["a", "b", "c"] {
        let Some(l) = get(name).and_then(|t| parse_layout(t).ok()) else { return Ok(Refused) };
        let shape: Option<Vec<i64>> =
            get(&format!("{name}_shape")).map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect());
        let Some(mem) = get(&format!("{name}_mem")).and_then(Memory::from_name).filter(|m| *m != Memory::Global) else {
            return Ok(Refused);
        };
        layouts.push(l);
        shapes.push(shape.unwrap_or_default());
        mems.push(mem);
    }
    let op = |i: usize| Operand { layout: &layouts[i], shape: &shapes[i], mem: mems[i] };
    let req = GemmRequest { chip, dtype, acc_dtype: acc, a: op(0), b: op(1), c: op(2) };
    let p = match mma::plan(&req) {
        Ok(p) => p,
        Err(e) => {
            let text = e.to_string();
            if e.message.trim().is_empty() || !text.starts_with(&format!("mma: {} rule: ", e.rule.name())) {
                return Err(format!("a refusal without a named rule and its numbers: {text}"));
            }
            return Ok(Refused);
        }
    };
    if !p.family.available_on(chip) {
        return Err(format!("planned {} on {}", p.family.name(), chip.name()));
    }
    let (m, k, n) = (shapes[0][0], shapes[0][1], shapes[1][1]);
    let [im, inn, ik] = p.inst_shape;
    if im <= 0 || inn <= 0 || ik <= 0 || m % im != 0 || n % inn != 0 || k % ik != 0 {
        return Err(format!("instruction shape {:?} does not divide M={m} N={n} K={k}", p.inst_shape));
    }
    let uses_tmem = mems.contains(&Memory::Tmem);
    match p.tmem_columns {
        Some(c) if !uses_tmem || !c.is_power_of_two() || !(32..=512).contains(&c) => {
            return Err(format!("tensor-memory columns {c} (tensor memory used: {uses_tmem})"));
        }
        None if uses_tmem => return Err("tensor memory used but no columns allocated".into()),
        _ => {}
    }
    let grid = (m / im) * (n / inn) * (k / ik);
    if p.issues.len() as i64 != grid || grid > 1 << 16 {
        return Err(format!("{} issues for a grid of {grid} instructions", p.issues.len()));
    }
    let mut seen = BTreeSet::new();
    for issue in &p.issues {
        let at = (issue.m, issue.n, issue.k);
        let aligned = issue.m % im == 0 && issue.n % inn == 0 && issue.k % ik == 0;
        let inside = (0..m).contains(&issue.m) && (0..n).contains(&issue.n) && (0..k).contains(&issue.k);
        if !aligned || !inside || !seen.insert(at) {
            return Err(format!("issue at {at:?} is misaligned, outside [{m},{n},{k}] or repeated"));
        }
        for (access, mem, role) in [(&issue.a, mems[0], "A"), (&issue.b, mems[1], "B"), (&issue.c, mems[2], "C")] {
            let ok = matches!(
                (access, mem),
                (Access::Regs(_), Memory::Reg)
                    | (Access::Smem(_), Memory::Shared)
                    | (Access::Tmem { .. }, Memory::Tmem)
            );
            if !ok {
                return Err(format!("operand {role} in {} is reached as {access:?}", mem.name()));
            }
        }
    }
    // The plan runs right on the hardware model (a mismatch panics with the element and the instruction).
    if shapes.iter().all(|s| s.len() == 2) {
        mma_hw::check_plan(&req, &p);
    }
    Ok(Planned)
}
