//! In-process targets over the Trainium planners: the matmul planner (`axe_layout::trn::matmul`) and where the NKI
//! emitter finds tiles (`axe_layout::trn::nki`).
//!
//! Inputs are `key: value` documents: K, M, N and a layout for each operand on the partition and free axes, made
//! from the shapes the planner is meant for (rows split into an inner part on the partitions and an outer part
//! along the free axis, columns along the free axis) and bent at random: a dimension on the other axis, a stride
//! of 2, a partition or free offset, a row part past 128 partitions. Properties: the planner never panics; a
//! plan runs right on the Tensor Engine model of `layout/tests/model/trn_engine.rs` (the model shared with the
//! layout crate's tests: C equals A^T B, every instruction within the engine's limits and a PSUM bank); the same
//! request plans the same way twice. Every refusal is a `MatmulError`, which names its rule by construction.
//!
//! `layout-trn-nki` feeds the same bent layouts, with random regions and steps, to `nki::buffer`, `region` and
//! `region_step`, and checks each answer against the model's placement by the notation's definition: every element
//! inside the buffer, every element of a region where its rectangle says, every element of a moved region moved by
//! the step's delta.

// The engine model lives with the layout crate's tests; one model serves both.
#[path = "../../../layout/tests/model/trn_engine.rs"]
#[allow(dead_code)]
mod trn_engine;

use crate::driver::Outcome::{self, Planned, Refused};
use crate::driver::{Kind, Limits, Rng, Target};
use axe_layout::hw::ElemType;
use axe_layout::notation::parse_layout;
use axe_layout::trn::matmul::{plan, MatmulRequest, Operand};
use axe_layout::trn::nki::{buffer, region, region_step};
use axe_layout::trn::{TrnMemory, TRN1};
use rand::seq::IndexedRandom;
use rand::RngExt;

/// The Trainium targets.
pub fn targets() -> Vec<Target> {
    vec![
        Target {
            name: "layout-trn-matmul",
            about: "trn::matmul::plan: plans run right on the Tensor Engine model, refusals are rule errors",
            kind: Kind::InProcess,
            weight: 1,
            generate,
            check,
            limits: Limits::IN_PROCESS,
        },
        Target {
            name: "layout-trn-nki",
            about: "trn::nki buffer/region/region_step: every answer agrees with the model's placement",
            kind: Kind::InProcess,
            weight: 1,
            generate: generate_region,
            check: check_region,
            limits: Limits::IN_PROCESS,
        },
    ]
}

/// A tensor, its layout (bent as the matmul target's operands are), a region of it and a step along one dimension.
fn generate_region(rng: &mut Rng) -> String {
    let pick = |rng: &mut Rng, from: &[i64]| *from.choose(rng).unwrap_or(&1);
    let (rows, cols) = (pick(rng, &[1, 2, 8, 64, 128, 256, 512]), pick(rng, &[1, 4, 64, 128]));
    let layout = operand(rng, rows, cols);
    let size = |rng: &mut Rng, extent: i64| pick(rng, &[1, extent / 4, extent / 2, extent]).max(1);
    let (r, c) = (size(rng, rows), size(rng, cols));
    let origin = |rng: &mut Rng, extent: i64, size: i64| rng.random_range(0..=(extent - size).max(0) + 1);
    let (o0, o1) = (origin(rng, rows, r), origin(rng, cols, c));
    let dim = rng.random_range(0..2);
    let step = pick(rng, &[1, 2, 64, 128, r.max(c)]);
    let mem = if rng.random_range(0..3) == 0 { "psum" } else { "sbuf" };
    format!(
        "shape: {rows},{cols}\nlayout: {layout}\nmem: {mem}\norigin: {o0},{o1}\nsizes: {r},{c}\ndim: {dim}\nstep: {step}\n"
    )
}

/// Planned: a region's rectangle (and, where it moves, its step) agree with the model; refused: every function
/// refused (each refusal is an `NkiError`, a rule by construction).
fn check_region(text: &str) -> Result<Outcome, String> {
    let pair = |key: &str| -> Option<[i64; 2]> {
        let (a, b) = field(text, key).split_once(',')?;
        Some([a.trim().parse().ok()?, b.trim().parse().ok()?])
    };
    let (Some(shape), Some(origin), Some(sizes)) = (pair("shape"), pair("origin"), pair("sizes")) else {
        return Ok(Refused);
    };
    let (Ok(layout), Ok(dim), Ok(step)) =
        (parse_layout(field(text, "layout")), field(text, "dim").parse::<usize>(), field(text, "step").parse::<i64>())
    else {
        return Ok(Refused);
    };
    if shape.iter().any(|&e| !(1..=4096).contains(&e)) || dim > 1 || !(1..=4096).contains(&step) {
        return Ok(Refused);
    }
    let mem = if field(text, "mem") == "psum" { TrnMemory::Psum } else { TrnMemory::Sbuf };
    let place = |x: [i64; 2]| trn_engine::points(&layout, x[0] * shape[1] + x[1]);
    let mut planned = false;
    if let Ok([p_extent, f_extent]) = buffer(&shape, &layout, mem, TRN1, 4) {
        for flat in 0..shape[0] * shape[1] {
            let points = trn_engine::points(&layout, flat);
            if points.iter().any(|&(p, f)| !(0..p_extent).contains(&p) || !(0..f_extent).contains(&f)) {
                return Err(format!("element {flat} at {points:?} lies outside the buffer [{p_extent}, {f_extent}]"));
            }
        }
        planned = true;
    }
    let Ok(rect) = region(&shape, &layout, origin, sizes) else { return Ok(if planned { Planned } else { Refused }) };
    for i in 0..sizes[0] {
        for j in 0..sizes[1] {
            let want = rect.place([i, j]);
            let got = place([origin[0] + i, origin[1] + j]);
            if got != [want] {
                return Err(format!("region element [{i}, {j}] is at {got:?}, the rectangle {rect:?} says {want:?}"));
            }
        }
    }
    if let Ok((dp, df)) = region_step(&shape, &layout, origin, sizes, dim, step) {
        // The first step and the last (every step between is what region_step's induction covers).
        let last = (shape[dim] - sizes[dim] - origin[dim]) / step;
        for q in [1, last].into_iter().filter(|&q| (1..=last).contains(&q)) {
            for i in 0..sizes[0] {
                for j in 0..sizes[1] {
                    let x = [origin[0] + i, origin[1] + j];
                    let mut y = x;
                    y[dim] += q * step;
                    let (a, b) = (place(x), place(y));
                    let moved: Vec<(i64, i64)> = a.iter().map(|&(p, f)| (p + q * dp, f + q * df)).collect();
                    if b != moved {
                        return Err(format!("step {q}: element {x:?} goes from {a:?} to {b:?}, not by ({dp}, {df})"));
                    }
                }
            }
        }
    }
    Ok(Planned)
}

/// A layout of `[rows, cols]`: rows as `outer x inner` with the inner part (up to 128) on the partitions (stride
/// 1) and the outer part along the free axis after the columns, columns along the free axis; bent at random.
fn operand(rng: &mut Rng, rows: i64, cols: i64) -> String {
    let inner = [128, 64, rows].iter().copied().filter(|&i| i <= rows && rows % i == 0).max().unwrap_or(1);
    let col_stride = if rng.random_range(0..8) == 0 { 2 } else { 1 };
    let (row_axis, col_axis) = if rng.random_range(0..10) == 0 { ("F", "P") } else { ("P", "F") };
    let inner_rows = if rng.random_range(0..16) == 0 { rows } else { inner };
    let outer_rows = rows / inner_rows;
    let mut text =
        format!("S[({outer_rows},{inner_rows},{cols}):({}@F,1@{row_axis},{col_stride}@{col_axis})]", cols * col_stride);
    match rng.random_range(0..12) {
        0 => text.push_str(" + 256@F"),
        1 => text.push_str(" + 1@F"),
        2 => text.push_str(" + 1@P"),
        _ => {}
    }
    text
}

fn generate(rng: &mut Rng) -> String {
    let pick = |rng: &mut Rng, from: &[i64]| *from.choose(rng).unwrap_or(&1);
    loop {
        let k = pick(rng, &[1, 2, 16, 64, 128, 256]);
        let m = pick(rng, &[1, 8, 64, 128, 256]);
        let n = pick(rng, &[1, 16, 100, 256, 512, 1024]);
        // Keep the model's work (K x M x N multiply-adds) small enough for a debug build.
        if k * m * n > 1 << 21 {
            continue;
        }
        let (a, b, c) = (operand(rng, k, m), operand(rng, k, n), operand(rng, m, n));
        return format!("k: {k}\nm: {m}\nn: {n}\na: {a}\nb: {b}\nc: {c}\n");
    }
}

fn field<'a>(text: &'a str, key: &str) -> &'a str {
    text.lines().find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(": "))).unwrap_or("")
}

/// Planned: the plan runs right on the model and is the same twice; refused: a layout or number does not parse,
/// or the planner refuses (a `MatmulError`: a rule and the numbers).
fn check(text: &str) -> Result<Outcome, String> {
    let number = |key: &str| field(text, key).parse::<i64>().ok().filter(|&v| (1..=4096).contains(&v));
    let (Some(k), Some(m), Some(n)) = (number("k"), number("m"), number("n")) else { return Ok(Refused) };
    let (Ok(a), Ok(b), Ok(c)) =
        (parse_layout(field(text, "a")), parse_layout(field(text, "b")), parse_layout(field(text, "c")))
    else {
        return Ok(Refused);
    };
    let request = MatmulRequest {
        chip: TRN1,
        dtype: ElemType::BF16,
        acc: ElemType::F32,
        a: Operand { layout: &a, shape: [k, m], mem: TrnMemory::Sbuf },
        b: Operand { layout: &b, shape: [k, n], mem: TrnMemory::Sbuf },
        c: Operand { layout: &c, shape: [m, n], mem: TrnMemory::Psum },
    };
    match plan(&request) {
        Err(_) => Ok(Refused),
        Ok(p) => {
            trn_engine::run_model(&p, &a, &b, &c, [k, m, n]).map_err(|e| format!("model: {e}"))?;
            match plan(&request) {
                Ok(again) if again == p => Ok(Planned),
                _ => Err("the same request planned differently".to_string()),
            }
        }
    }
}
