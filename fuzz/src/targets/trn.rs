//! In-process target over the Trainium matmul planner (`axe_layout::trn::matmul`).
//!
//! Inputs are `key: value` documents: K, M, N and a layout for each operand on the partition and free axes, made
//! from the shapes the planner is meant for (rows split into an inner part on the partitions and an outer part
//! along the free axis, columns along the free axis) and bent at random: a dimension on the other axis, a stride
//! of 2, a partition or free offset, a row part past 128 partitions. Properties: the planner never panics; a
//! plan runs right on the Tensor Engine model of `layout/tests/model/trn_engine.rs` (the model shared with the
//! layout crate's tests: C equals A^T B, every instruction within the engine's limits and a PSUM bank); the same
//! request plans the same way twice. Every refusal is a `MatmulError`, which names its rule by construction.

// The engine model lives with the layout crate's tests; one model serves both.
#[path = "../../../layout/tests/model/trn_engine.rs"]
#[allow(dead_code)]
mod trn_engine;

use crate::driver::Outcome::{self, Planned, Refused};
use crate::driver::{Kind, Limits, Rng, Target};
use axe_layout::hw::ElemType;
use axe_layout::notation::parse_layout;
use axe_layout::trn::matmul::{plan, MatmulRequest, Operand};
use axe_layout::trn::{TrnMemory, TRN1};
use rand::seq::IndexedRandom;
use rand::RngExt;

/// The Trainium target.
pub fn targets() -> Vec<Target> {
    vec![Target {
        name: "layout-trn-matmul",
        about: "trn::matmul::plan: plans run right on the Tensor Engine model, refusals are rule errors",
        kind: Kind::InProcess,
        weight: 1,
        generate,
        check,
        limits: Limits::IN_PROCESS,
    }]
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
