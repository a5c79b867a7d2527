//! In-process target over the copy planner (`axe_layout::copy::plan`).
//!
//! Inputs are `key: value` documents: chip, dtype, scope, an optional thread subset and CTA thread count, and for
//! the source and the destination a layout, a shape and a memory. The generator builds the layouts the planner is
//! for, bit by bit (each bit of the element index goes to a lane, a warp, a register, an address or a
//! tensor-memory lane/column; addresses sometimes under a swizzle, with an offset), so most requests reach an
//! instruction; one side in eight is a generated layout instead, and shapes, memories and scopes are sometimes
//! wrong.
//!
//! Properties of a plan: it executes right on the hardware model of `layout/tests/model/copy_hw.rs` (the one
//! transcription of the PTX ISA shared with the layout crate's tests): every element lands where the destination
//! layout says, nothing else is written, every access is aligned and every collective rule is kept; and the
//! same request plans the same way twice. A refusal must name its rule (`copy: <rule> rule: ...`).

// The copy hardware model lives with the layout crate's tests; one transcription serves both.
#[path = "../../../layout/tests/model/copy_hw.rs"]
#[allow(dead_code)]
mod copy_hw;

use crate::driver::Outcome::{self, Planned, Refused};
use crate::driver::{Kind, Limits, Rng, Target};
use crate::gen_layout::{self, Knobs};
use axe_layout::copy::{plan, Chip, CopyRequest, ElemType, Memory, Side, ThreadSubset};
use axe_layout::notation::parse_layout;
use axe_layout::{Axis, ExecScope};
use rand::seq::IndexedRandom;
use rand::RngExt;

/// The copy planner target.
pub fn targets() -> Vec<Target> {
    vec![Target {
        name: "layout-copy",
        about: "copy::plan: runs right on the PTX model (every element, alignment, collectives), deterministic",
        kind: Kind::InProcess,
        weight: 1,
        generate,
        check,
        limits: Limits::IN_PROCESS,
    }]
}

/// A layout text from bit targets: bit `i` of the element index (bit 0 innermost) moves `stride` along `axis`.
fn from_bits(bits: &[(i64, &str)]) -> String {
    let extents = vec!["2"; bits.len()].join(",");
    let strides: Vec<String> = bits.iter().rev().map(|(s, a)| format!("{s}@{a}")).collect();
    format!("S[({extents}):({})]", strides.join(","))
}

/// Assigns the `n` index bits, in a random order, to `counts` bits of each axis; strides double per axis.
fn spread(rng: &mut Rng, n: usize, counts: &[(&'static str, usize)]) -> Vec<(i64, &'static str)> {
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        order.swap(i, rng.random_range(0..=i));
    }
    // Mostly keep the innermost bits in order (what real layouts do), sometimes fully permuted.
    if rng.random_bool(0.6) {
        order.sort_unstable();
    }
    let mut axes = Vec::new();
    for &(axis, count) in counts {
        axes.extend(std::iter::repeat_n(axis, count));
    }
    axes.resize(n, "m");
    let mut out = vec![(0, "m"); n];
    let mut next: Vec<(&str, i64)> = Vec::new();
    for (k, &bit) in order.iter().enumerate() {
        let axis = axes[k];
        let stride = match next.iter_mut().find(|(a, _)| *a == axis) {
            Some((_, s)) => {
                *s *= 2;
                *s
            }
            None => {
                next.push((axis, 1));
                1
            }
        };
        out[bit] = (stride, axis);
    }
    out
}

/// One side's layout text for `mem` over `n` index bits.
fn side(rng: &mut Rng, mem: &str, n: usize, warp_axis: &'static str, lanes: usize, warps: usize) -> String {
    match mem {
        "reg" => from_bits(&spread(rng, n, &[("laneid", lanes), (warp_axis, warps)])),
        "tmem" => {
            let lane_bits = n.min(5 + warps.min(2));
            from_bits(&spread(rng, n, &[("TLane", lane_bits), ("TCol", n - lane_bits)]))
        }
        _ => {
            let text = from_bits(&spread(rng, n, &[("m", n)]));
            let offset =
                if rng.random_bool(0.2) { format!(" + {}", rng.random_range(1..9) * 8) } else { String::new() };
            if mem == "shared" && n >= 7 && rng.random_bool(0.4) {
                let (b, s) = *[(1, 3), (2, 3), (3, 3), (2, 2), (1, 1)].choose(rng).unwrap_or(&(3, 3));
                let m = rng.random_range(0..=3);
                format!("Swizzle({b},{m},{s}) o {text}{offset}")
            } else {
                format!("{text}{offset}")
            }
        }
    }
}

fn generate(rng: &mut Rng) -> String {
    let pairs = [
        ("global", "reg"),
        ("reg", "global"),
        ("shared", "reg"),
        ("reg", "shared"),
        ("global", "shared"),
        ("tmem", "reg"),
        ("reg", "tmem"),
        ("reg", "reg"),
    ];
    let (mut src_mem, mut dst_mem) = *pairs.choose(rng).unwrap_or(&("global", "reg"));
    let chip = if src_mem == "tmem" || dst_mem == "tmem" {
        "sm_100a"
    } else {
        *["sm_80", "sm_90a", "sm_100a"].choose(rng).unwrap_or(&"sm_80")
    };
    let dtype = *["f16", "f16", "bf16", "f32", "u8", "f64"].choose(rng).unwrap_or(&"f16");
    let (scope, warp_axis, lanes, warps) = match rng.random_range(0..4) {
        0 => ("thread", "warpid", 0, 0),
        1 => ("warp", "warpid", 5, 0),
        2 => ("warpgroup", "wid_in_wg", 5, 2),
        _ => ("cta", "warpid", 5, rng.random_range(0..=2)),
    };
    let n = rng.random_range((lanes + warps).max(1)..=(lanes + warps + 3).min(10));
    let shape = {
        let inner = rng.random_range(0..=n);
        format!("{},{}", 1i64 << (n - inner), 1i64 << inner)
    };
    let mut src = side(rng, src_mem, n, warp_axis, lanes, warps);
    let mut dst = side(rng, dst_mem, n, warp_axis, lanes, warps);
    let (mut src_shape, mut dst_shape) = (shape.clone(), shape);
    match rng.random_range(0..24) {
        0 => src = gen_layout::tame_layout(rng, Knobs::GENERAL).replace('\n', " "),
        1 => dst = gen_layout::tame_layout(rng, Knobs::GENERAL).replace('\n', " "),
        2 => src_shape = format!("{}", 1i64 << n),
        3 => dst_shape = "3,5".into(),
        4 => src_mem = *["global", "shared", "reg", "tmem"].choose(rng).unwrap_or(&"reg"),
        5 => dst_mem = *["global", "shared", "reg", "tmem"].choose(rng).unwrap_or(&"reg"),
        _ => {}
    }
    let mut out = format!("chip: {chip}\ndtype: {dtype}\nscope: {scope}\n");
    if scope == "cta" {
        out.push_str(&format!("cta_threads: {}\n", 32 << warps));
        if rng.random_bool(0.2) && warps > 0 {
            out.push_str(&format!("threads: warpid:0:{}\n", 1 << (warps - 1)));
        }
    }
    out.push_str(&format!("src: {src}\nsrc_shape: {src_shape}\nsrc_mem: {src_mem}\n"));
    out.push_str(&format!("dst: {dst}\ndst_shape: {dst_shape}\ndst_mem: {dst_mem}\n"));
    out
}

/// Planned: `copy::plan` answers (and the plan runs right on the model, the same twice); refused: it refuses
/// naming its rule or stage, or a field does not parse.
fn check(text: &str) -> Result<Outcome, String> {
    let get = |k: &str| text.lines().find_map(|l| l.strip_prefix(k).and_then(|r| r.strip_prefix(": ")));
    let shape = |k: &str| -> Option<Vec<i64>> { get(k)?.split(',').map(|x| x.trim().parse().ok()).collect() };
    let (Some(chip), Some(dtype), Some(scope)) = (
        get("chip").and_then(Chip::from_name),
        get("dtype").and_then(ElemType::from_name),
        get("scope").and_then(ExecScope::from_name),
    ) else {
        return Ok(Refused);
    };
    let (Some(src), Some(dst)) =
        (get("src").and_then(|t| parse_layout(t).ok()), get("dst").and_then(|t| parse_layout(t).ok()))
    else {
        return Ok(Refused);
    };
    let (Some(src_shape), Some(dst_shape)) = (shape("src_shape"), shape("dst_shape")) else { return Ok(Refused) };
    let (Some(src_mem), Some(dst_mem)) =
        (get("src_mem").and_then(Memory::from_name), get("dst_mem").and_then(Memory::from_name))
    else {
        return Ok(Refused);
    };
    let threads = match get("threads").map(|t| t.split(':').collect::<Vec<_>>()) {
        Some(parts) => match parts[..] {
            [axis, begin, end] => match (Axis::named(axis), begin.parse(), end.parse()) {
                (Ok(axis), Ok(begin), Ok(end)) => Some(ThreadSubset { axis, begin, end }),
                _ => return Ok(Refused),
            },
            _ => return Ok(Refused),
        },
        None => None,
    };
    let req = CopyRequest {
        src: Side { layout: &src, shape: &src_shape, mem: src_mem },
        dst: Side { layout: &dst, shape: &dst_shape, mem: dst_mem },
        dtype,
        scope,
        threads,
        chip,
        cta_threads: get("cta_threads").and_then(|t| t.parse().ok()),
    };
    match plan(&req) {
        Ok(p) => {
            copy_hw::run(&req, &p).map_err(|e| format!("model: {e}"))?;
            let again = plan(&req).map_err(|e| format!("planned once, refused the second time: {e}"))?;
            if format!("{again:?}") != format!("{p:?}") {
                return Err("the same request planned two different ways".into());
            }
            Ok(Planned)
        }
        Err(e) => {
            let message = e.to_string();
            match message.strip_prefix("copy: ") {
                Some(rest) if rest.contains(" rule: ") || rest.contains(" stage: ") => Ok(Refused),
                _ => Err(format!("a refusal that names no rule: {message}")),
            }
        }
    }
}
