//! Thread axes are one hardware: a layout's thread iters rewritten into one canonical spelling, so that planners
//! decide on what a layout means on the machine, not on how it was written.
//!
//! The notation keeps `tid`, `tid_in_wg`, `laneid`, `warpid`, `wid_in_wg` and `wgid` distinct (TIRx: "explicit
//! hardware axes ... legality and feasibility checks are left to tile primitive dispatch"), and canonicalization
//! never fuses them (semantics.md). Dispatch does: inside a CTA every one of them is a digit of the thread index,
//!
//! `tid = 32 warpid + laneid = 128 wgid + tid_in_wg`, `tid_in_wg = 32 wid_in_wg + laneid`, `warpid = 4 wgid +
//! wid_in_wg`,
//!
//! and a layout point names its thread as the sum of its thread coordinates, each times the threads one unit of
//! the axis holds (1, 32, 128; the convention of [`crate::copy`], "Threads"). [`to_hardware`] writes every thread
//! iter and offset of a CTA-level thread axis as iters of the [`Grain`]'s digits (`laneid` + `warpid`, or
//! `laneid` + `wid_in_wg` + `wgid`) and the register axis `reg` as `m` (TIRx: "the reg slot is the default memory
//! axis m"), keeping the induced map: `S[(2,2,8,4,2):(32@tid,2,4@tid,1@tid,1)]` becomes
//! `S[(2,2,8,4,2):(1@warpid,2,4@laneid,1@laneid,1)]`, the mma.sync accumulator of two warps along M.
//!
//! An iter of stride `s` threads (`s` = stride times the axis's unit) lands in the digit `u` (1, 32 or 128
//! threads) that `s` is a multiple of, highest first, with stride `s / u`; when its digits reach past that digit's
//! capacity `c` (32 lanes a warp, 4 warps a warpgroup) it splits into `k = c / (s / u)` inner digits and `e / k`
//! outer ones, which needs `s / u` to divide `c` and `k` to divide the extent `e`. Offsets are written in the
//! mixed radix of the digits. The rewrite is exact when every point's digits stay in their capacity, which is
//! checked on the interval each digit spans (the sum of its iters' reaches and its offset).
//!
//! Refusals ([`ThreadAxesError`], rule `thread-axes`), each a layout no iters of the digits can write:
//! - a thread axis leaves its range (`laneid` outside `0..32`, `wid_in_wg` outside `0..4`, `tid_in_wg` outside
//!   `0..128`, a CTA axis below 0 or past 1024 threads);
//! - an iter straddles a digit boundary unevenly (`S[3:16@tid]`: threads 0, 16, 32 are lanes 0, 16, 0 of warps
//!   0, 0, 1, which one iter of extent 3 cannot say);
//! - a digit's iters and offset together leave its capacity (`S[2:16@tid] + 16@tid`: lanes 16, 0 of warps 0, 1).
//!
//! Axes outside the CTA (`bx`, `cbx`, `clusterid`), memory axes other than `reg`, and device axes are kept as
//! they are.

use crate::arith::{add, mul};
use crate::axis::{Axis, AxisKind, ExecScope};
use crate::error::LayoutError;
use crate::iter::Iter;
use crate::layout::Layout;
use crate::tile_layout::TileLayout;
use std::collections::BTreeMap;
use std::fmt;

/// The most threads a CTA has (CUDA's limit).
const CTA_THREADS: i64 = 1024;

/// The digits a layout's threads are written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Grain {
    /// `laneid` (thread in warp) and `warpid` (warp in CTA): what warp-level instructions (`mma.sync`,
    /// `ldmatrix`) and their warp tilings read.
    Warp,
    /// `laneid`, `wid_in_wg` (warp in warpgroup) and `wgid` (warpgroup in CTA): what warpgroup-level
    /// instructions (`wgmma`) read.
    Warpgroup,
}

impl Grain {
    /// `(threads per unit, units per next digit, axis name)`, innermost first; the last digit is unbounded.
    fn digits(self) -> &'static [(i64, i64, &'static str)] {
        match self {
            Grain::Warp => &[(1, 32, "laneid"), (32, i64::MAX, "warpid")],
            Grain::Warpgroup => &[(1, 32, "laneid"), (32, 4, "wid_in_wg"), (128, i64::MAX, "wgid")],
        }
    }
}

/// Why a layout's thread iters cannot be written in the digits of a [`Grain`] (rule `thread-axes`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadAxesError {
    /// What failed, lowercase, with the numbers.
    pub message: String,
}

impl fmt::Display for ThreadAxesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "thread-axes rule: {}", self.message)
    }
}

impl std::error::Error for ThreadAxesError {}

impl From<LayoutError> for ThreadAxesError {
    fn from(e: LayoutError) -> ThreadAxesError {
        ThreadAxesError { message: e.message }
    }
}

fn fail(message: String) -> ThreadAxesError {
    ThreadAxesError { message }
}

/// For a thread axis inside a CTA (`laneid`, `tid`, `warpid`, ...; declared ones by their kind): the threads one
/// unit holds and the number of units its scope has (`None` for one that is not such an axis).
pub fn cta_digit(axis: Axis) -> Option<(i64, i64)> {
    let AxisKind::Thread { unit, within } = axis.kind() else { return None };
    let per = unit.fixed_threads()?;
    let total = match within {
        ExecScope::Warp | ExecScope::Warpgroup => within.fixed_threads()?,
        ExecScope::Cta => CTA_THREADS,
        _ => return None,
    };
    Some((per, total / per))
}

/// The register axis `reg`, if the build knows it.
fn reg_axis() -> Option<Axis> {
    Axis::named("reg").ok()
}

/// `layout` with the register axis `reg` written `m` (one register slot axis; iters kept, offsets added).
pub fn register_axis(layout: &Layout) -> crate::error::Result<Layout> {
    let Some(reg) = reg_axis() else { return Ok(layout.clone()) };
    if !layout.axes().contains(&reg) {
        return Ok(layout.clone());
    }
    let tile = layout.tile();
    let rename = |it: &Iter| Iter { axis: if it.axis == reg { Axis::M } else { it.axis }, ..*it };
    let shard = tile.shard().iter().map(rename).collect();
    let replica = tile.replica().iter().map(rename).collect();
    let mut offset = BTreeMap::new();
    for (&a, &v) in tile.offset() {
        let a = if a == reg { Axis::M } else { a };
        let sum = add(offset.get(&a).copied().unwrap_or(0), v, "an offset")?;
        offset.insert(a, sum);
    }
    layout.with_tile(TileLayout::new(shard, replica, offset)?)
}

/// Register slots per thread a register tensor's layout needs: its span on the register axis, `m` and `reg` being
/// one axis (at least 1; a layout whose `reg` offsets do not add up counts `m` alone).
pub fn register_span(layout: &Layout) -> i64 {
    register_axis(layout).as_ref().unwrap_or(layout).tile().span_on(Axis::M).max(1)
}

/// One iter of `threads` threads per step and `extent` digits as iters of the grain's digits (outermost first):
/// `(extent, stride in units of the digit, digit index)`.
fn split(
    extent: i64,
    threads: i64,
    digits: &[(i64, i64, &str)],
    what: &dyn Fn() -> String,
) -> Result<Vec<(i64, i64, usize)>, ThreadAxesError> {
    let a = threads.abs();
    let sign = threads.signum();
    if extent == 1 || a == 0 {
        return Ok(vec![(extent, 0, 0)]);
    }
    let level = (0..digits.len()).rev().find(|&i| a % digits[i].0 == 0).unwrap_or(0);
    let (unit, capacity, name) = digits[level];
    let step = a / unit;
    if capacity == i64::MAX || (extent - 1).saturating_mul(step) < capacity {
        return Ok(vec![(extent, sign * step, level)]);
    }
    if capacity % step == 0 {
        let k = capacity / step;
        if extent % k == 0 {
            let next = digits[level + 1].0;
            let mut out = split(extent / k, sign * next, digits, what)?;
            out.push((k, sign * step, level));
            return Ok(out);
        }
    }
    Err(fail(format!(
        "{} moves {a} threads a step over {extent} steps, which cross the {capacity}-{} boundary of '{name}' unevenly \
         (no iters of {} say it)",
        what(),
        if level == 0 { "lane" } else { "warp" },
        digits.iter().map(|d| d.2).collect::<Vec<_>>().join(", ")
    )))
}

/// `layout` with every CTA-level thread iter and offset written in the digits of `grain` and `reg` written `m`,
/// the same induced map on the hardware (see the module documentation), or the `thread-axes` refusal. A layout
/// already in the grain's digits comes back with the same map (its iters may be split or renamed, never moved).
pub fn to_hardware(layout: &Layout, grain: Grain) -> Result<Layout, ThreadAxesError> {
    let layout = register_axis(layout)?;
    let tile = layout.tile();
    if !tile.axes().into_iter().any(|a| cta_digit(a).is_some()) {
        return Ok(layout);
    }
    let digits = grain.digits();
    let digit_axes: Vec<Axis> = digits.iter().map(|d| Axis::named(d.2)).collect::<crate::error::Result<_>>()?;
    // Every source axis stays in its range.
    for axis in tile.axes() {
        let Some((_, units)) = cta_digit(axis) else { continue };
        let (lo, hi) = interval(tile, |a| a == axis, |it| it.stride, tile.offset().get(&axis).copied().unwrap_or(0))?;
        if lo < 0 || hi >= units {
            return Err(fail(format!(
                "'{axis}' takes values {lo}..={hi}, outside its {units} values 0..{units} (a {} within a {})",
                unit_name(axis),
                within_name(axis)
            )));
        }
    }
    let rewrite = |iters: &[Iter], part: &str| -> Result<Vec<Iter>, ThreadAxesError> {
        let mut out = Vec::with_capacity(iters.len());
        for (i, it) in iters.iter().enumerate() {
            let Some((per, _)) = cta_digit(it.axis) else {
                out.push(*it);
                continue;
            };
            let threads = mul(it.stride, per, "a thread stride")?;
            let what = || format!("{part} iter {i} ({}:{}@{})", it.extent, it.stride, it.axis);
            for (e, s, level) in split(it.extent, threads, digits, &what)? {
                out.push(Iter::new(e, s, digit_axes[level])?);
            }
        }
        Ok(out)
    };
    let shard = rewrite(tile.shard(), "shard")?;
    let replica = rewrite(tile.replica(), "replica")?;
    // The thread offset in the digits' mixed radix.
    let mut total = 0i64;
    let mut offset: BTreeMap<Axis, i64> = BTreeMap::new();
    for (&a, &v) in tile.offset() {
        match cta_digit(a) {
            Some((per, _)) => total = add(total, mul(v, per, "a thread offset")?, "a thread offset")?,
            None => {
                offset.insert(a, v);
            }
        }
    }
    let mut rest = total;
    for (level, &(unit, _, _)) in digits.iter().enumerate().rev() {
        let v = rest.div_euclid(unit);
        rest -= v * unit;
        if v != 0 {
            offset.insert(digit_axes[level], v);
        }
    }
    let out = TileLayout::new(shard, replica, offset)?;
    // Every digit stays in its capacity, so the digits are the mixed-radix digits of each point's thread.
    for (level, &(_, capacity, name)) in digits.iter().enumerate() {
        let axis = digit_axes[level];
        let (lo, hi) = interval(&out, |a| a == axis, |it| it.stride, out.offset().get(&axis).copied().unwrap_or(0))?;
        if lo < 0 || (capacity != i64::MAX && hi >= capacity) {
            let bound = if capacity == i64::MAX { "0..".to_owned() } else { format!("0..{capacity}") };
            return Err(fail(format!(
                "written in {}, the layout's '{name}' digit takes values {lo}..={hi}, outside {bound}: its threads \
                 cross a {} boundary in a way no iters of these digits say",
                digits.iter().map(|d| d.2).collect::<Vec<_>>().join(", "),
                if level == 0 { "warp" } else { "warpgroup" }
            )));
        }
    }
    Ok(layout.with_tile(out)?)
}

/// The smallest and largest value the iters on the axes `on` select, plus `base`.
fn interval(
    tile: &TileLayout,
    on: impl Fn(Axis) -> bool,
    stride: impl Fn(&Iter) -> i64,
    base: i64,
) -> crate::error::Result<(i64, i64)> {
    let (mut lo, mut hi) = (base, base);
    for it in tile.shard().iter().chain(tile.replica()).filter(|it| on(it.axis)) {
        let reach = mul(it.extent - 1, stride(it), "a thread reach")?;
        if reach < 0 {
            lo = add(lo, reach, "a thread reach")?;
        } else {
            hi = add(hi, reach, "a thread reach")?;
        }
    }
    Ok((lo, hi))
}

fn unit_name(axis: Axis) -> &'static str {
    match axis.kind() {
        AxisKind::Thread { unit, .. } => unit.name(),
        _ => "unit",
    }
}

fn within_name(axis: Axis) -> &'static str {
    match axis.kind() {
        AxisKind::Thread { within, .. } => within.name(),
        _ => "scope",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_layout;

    fn l(text: &str) -> Layout {
        parse_layout(text).unwrap()
    }

    fn hw(text: &str, grain: Grain) -> Result<String, String> {
        to_hardware(&l(text), grain).map(|x| x.to_string()).map_err(|e| e.to_string())
    }

    /// The reproducers, written out by hand: 32@tid is one warp (1@warpid), 4@tid and 1@tid stay in the
    /// warp (lanes), and the register axis is untouched.
    #[test]
    fn the_reproducers_become_lanes_and_warps() {
        assert_eq!(
            hw("S[(2,2,8,4,2):(32@tid,2,4@tid,1@tid,1)]", Grain::Warp).unwrap(),
            "S[(2,2,8,4,2):(1@warpid,2,4@laneid,1@laneid,1)]"
        );
        assert_eq!(
            hw("S[(4,2,8,16,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]", Grain::Warpgroup).unwrap(),
            "S[(4,2,8,16,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]"
        );
        // The register axis reg is m.
        assert_eq!(
            hw("S[(8,4,2):(4@laneid,1@laneid,1@reg)]", Grain::Warp).unwrap(),
            "S[(8,4,2):(4@laneid,1@laneid,1)]"
        );
        assert_eq!(hw("S[4:1@reg] + 2@reg + 1", Grain::Warp).unwrap(), "S[4:1] + 3");
    }

    /// Iters split at the digit boundaries: 64 threads are 2 warps of 32 lanes; 8 warps are 2 warpgroups of 4;
    /// offsets go to their digits (37 threads = warp 1, lane 5).
    #[test]
    fn iters_and_offsets_split_at_the_boundaries() {
        assert_eq!(hw("S[64:1@tid]", Grain::Warp).unwrap(), "S[(2,32):(1@warpid,1@laneid)]");
        assert_eq!(hw("S[8:1@warpid]", Grain::Warpgroup).unwrap(), "S[(2,4):(1@wgid,1@wid_in_wg)]");
        assert_eq!(hw("S[8:1@warpid]", Grain::Warp).unwrap(), "S[8:1@warpid]");
        assert_eq!(hw("S[(2,4):(1@wgid,1@wid_in_wg)]", Grain::Warp).unwrap(), "S[(2,4):(4@warpid,1@warpid)]");
        assert_eq!(hw("S[4:16@tid]", Grain::Warp).unwrap(), "S[(2,2):(1@warpid,16@laneid)]");
        assert_eq!(hw("S[2:1] + 37@tid", Grain::Warp).unwrap(), "S[2:1] + 5@laneid + 1@warpid");
        assert_eq!(hw("S[2:1] + 300@tid", Grain::Warpgroup).unwrap(), "S[2:1] + 12@laneid + 2@wgid + 1@wid_in_wg");
        // A negative stride with its offset: threads 63..0.
        assert_eq!(
            hw("S[64:-1@tid] + 63@tid", Grain::Warp).unwrap(),
            "S[(2,32):(-1@warpid,-1@laneid)] + 31@laneid + 1@warpid"
        );
        // Already in the digits: the same layout.
        let c = "S[(2,2,8,4,2):(1@warpid,2,4@laneid,1@laneid,1)]";
        assert_eq!(hw(c, Grain::Warp).unwrap(), c);
        // Axes outside the CTA stay.
        assert_eq!(hw("S[(2,32):(1@bx,1@tid)]", Grain::Warp).unwrap(), "S[(2,32):(1@bx,1@laneid)]");
    }

    /// What no iters of the digits can say, refused by rule with the numbers.
    #[test]
    fn refusals_name_the_rule() {
        // Threads 0, 16, 32: lanes 0, 16, 0 of warps 0, 0, 1.
        let e = hw("S[3:16@tid]", Grain::Warp).unwrap_err();
        assert!(e.starts_with("thread-axes rule: shard iter 0 (3:16@tid) moves 16 threads a step over 3 steps"), "{e}");
        // Threads 16, 32: lanes 16, 0.
        let e = hw("S[2:16@tid] + 16@tid", Grain::Warp).unwrap_err();
        assert!(e.contains("'laneid' digit takes values 16..=32, outside 0..32"), "{e}");
        // Warps 0..5 are not whole warpgroups.
        let e = hw("S[6:1@warpid]", Grain::Warpgroup).unwrap_err();
        assert!(e.contains("6 steps") && e.contains("'wid_in_wg'"), "{e}");
        assert!(hw("S[6:1@warpid]", Grain::Warp).is_ok());
        // Axes out of range.
        let e = hw("S[64:1@laneid]", Grain::Warp).unwrap_err();
        assert!(e.contains("'laneid' takes values 0..=63, outside its 32 values"), "{e}");
        let e = hw("S[2:1] + 5@wid_in_wg", Grain::Warp).unwrap_err();
        assert!(e.contains("'wid_in_wg' takes values 5..=5, outside its 4 values"), "{e}");
        assert!(hw("S[2:-1@tid]", Grain::Warp).unwrap_err().contains("-1..=0"));
    }
}
