//! In-process target over the distributed layouts: `from_placements` and the collective planner
//! (`axe_layout::distributed::plan`).
//!
//! Inputs are `key: value` documents: a mesh (1-3 dimensions, at most 64 ranks), a tensor shape, and DTensor
//! placements for the source and the destination (Shard(d), Replicate(), Partial(sum|max); sometimes an odd
//! one, a wrong count or a Partial destination). Properties: every refusal names a documented rule
//! (`placement::RULES` or `collective::RULES`); a plan runs right on the collective model of
//! `layout/tests/model/collective_hw.rs` (the model shared with the layout crate's tests: every destination
//! place of every rank holds the value, or the sum/max over the partial groups, and nothing else is written);
//! and the same request plans the same way twice.

// The collective model lives with the layout crate's tests; one model serves both.
#[path = "../../../layout/tests/model/collective_hw.rs"]
#[allow(dead_code)]
mod collective_hw;

use crate::driver::Outcome::{self, Planned, Refused};
use crate::driver::{Kind, Limits, Rng, Target};
use axe_layout::distributed::placement::{self, parse_placements};
use axe_layout::distributed::{collective, from_placements, plan, Mesh};
use rand::seq::IndexedRandom;
use rand::RngExt;

/// The collective target.
pub fn targets() -> Vec<Target> {
    vec![Target {
        name: "layout-collective",
        about: "from_placements + collective::plan: refusals name a rule, plans run right on N simulated ranks",
        kind: Kind::InProcess,
        weight: 1,
        generate,
        check,
        limits: Limits::IN_PROCESS,
    }]
}

fn generate(rng: &mut Rng) -> String {
    let dims = rng.random_range(1..=3usize);
    let mut mesh: Vec<i64> = (0..dims).map(|_| *[1, 2, 2, 3, 4, 8].choose(rng).unwrap_or(&2)).collect();
    while mesh.iter().product::<i64>() > 64 {
        mesh.pop();
    }
    let rank = rng.random_range(1..=3usize);
    let shape: Vec<i64> = (0..rank).map(|_| *[1, 2, 3, 5, 6, 8, 10, 16].choose(rng).unwrap_or(&8)).collect();
    let placements = |rng: &mut Rng, partial: bool| {
        let count = if rng.random_range(0..16) == 0 { mesh.len() + 1 } else { mesh.len() };
        (0..count)
            .map(|_| match rng.random_range(0..8) {
                0..=3 => {
                    let past_the_rank = usize::from(rng.random_range(0..8) == 0);
                    format!("Shard({})", rng.random_range(0..rank + past_the_rank))
                }
                4 | 5 => "Replicate()".to_string(),
                6 if partial => ["Partial(sum)", "Partial(max)"].choose(rng).unwrap_or(&"Partial(sum)").to_string(),
                _ => "Replicate()".to_string(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let src = placements(rng, true);
    let partial_dst = rng.random_range(0..16) == 0;
    let dst = placements(rng, partial_dst);
    let list = |v: &[i64]| v.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
    format!("mesh: {}\nshape: {}\nsrc: {src}\ndst: {dst}\n", list(&mesh), list(&shape))
}

fn field<'a>(text: &'a str, key: &str) -> &'a str {
    text.lines().find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(": "))).unwrap_or("")
}

/// Whether an error message names one of `rules` (`<rule> rule: ...`).
fn names_rule(message: &str, rules: &[&str]) -> bool {
    rules.iter().any(|r| message.contains(&format!("{r} rule:")))
}

/// Planned: `collective::plan` answers (and the plan runs right on the model, the same twice); refused: a
/// placement or the plan is refused naming a documented rule, or a field does not parse.
fn check(text: &str) -> Result<Outcome, String> {
    let Ok(mesh) = Mesh::parse(field(text, "mesh")) else { return Ok(Refused) };
    let Ok(shape) = field(text, "shape").split(',').map(str::parse).collect::<Result<Vec<i64>, _>>() else {
        return Ok(Refused);
    };
    let dist = |key: &str| -> Result<Option<_>, String> {
        let Ok(p) = parse_placements(field(text, key)) else { return Ok(None) };
        match from_placements(&mesh, &shape, &p) {
            Ok(d) => Ok(Some(d)),
            Err(e) if names_rule(&e.message, placement::RULES) => Ok(None),
            Err(e) => Err(format!("from_placements refusal names no rule: {}", e.message)),
        }
    };
    let (Some(src), Some(dst)) = (dist("src")?, dist("dst")?) else { return Ok(Refused) };
    match plan(&mesh, &src, &dst) {
        Err(e) if names_rule(&e.message, collective::RULES) || names_rule(&e.message, placement::RULES) => Ok(Refused),
        Err(e) => Err(format!("plan refusal names no rule: {}", e.message)),
        Ok(p) => {
            collective_hw::run_model(&mesh, &src, &dst, &p).map_err(|e| format!("model: {e}"))?;
            match plan(&mesh, &src, &dst) {
                Ok(again) if again == p => Ok(Planned),
                _ => Err("the same request planned differently".to_string()),
            }
        }
    }
}
