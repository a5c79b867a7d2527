//! Step 6, the issues: the loop over the joint iters left out of the box, each issue's coordinates (a straddling
//! region's chunks by their mixed-radix start) and shared byte offset, and the terms run-time offsets add to the
//! coordinates, all in the descriptor's dimensions (merged, and re-viewed into rows where step 8 cut a run).

use super::build::Merged;
use super::{
    gcd, rule, stage, CoordinateTerm, Joint, Problem, TmaError, TmaIssue, TmaRule, TmaStage, SMEM_ALIGN_BYTES,
};

/// One issue per digit combination of the `loops` (outermost first), `count` in all; `row` is the re-view into
/// rows of the merged innermost run, if any.
pub(super) fn issues(
    prob: &Problem,
    merged: &Merged,
    loops: &[Joint],
    count: i64,
    row: Option<(i64, i64)>,
) -> Result<Vec<TmaIssue>, TmaError> {
    let mut issues = Vec::with_capacity(count as usize);
    for idx in 0..count {
        let (coords, smem) = static_issue(prob, merged, loops, idx);
        let smem_bytes = smem * prob.esize;
        if smem_bytes % SMEM_ALIGN_BYTES != 0 {
            return Err(rule(
                TmaRule::SmemAlignment,
                format!("issue {idx} writes shared byte offset {smem_bytes}, must be a multiple of {SMEM_ALIGN_BYTES}"),
            ));
        }
        let coords = match row {
            Some((r, shift)) => row_coordinates(&coords, r, shift).ok_or_else(|| {
                stage(
                    TmaStage::Box,
                    format!(
                        "issue {idx} starts the merged contiguous run at element {}, not at a row of {r} from \
                         element {shift}",
                        coords[0]
                    ),
                )
            })?,
            None => coords,
        };
        if let Some(c) = coords.iter().find(|&&c| i32::try_from(c).is_err()) {
            return Err(rule(
                TmaRule::CoordinateRange,
                format!("issue {idx} has coordinate {c}, beyond signed 32 bits"),
            ));
        }
        issues.push(TmaIssue { coordinates: coords, smem_offset_bytes: smem_bytes });
    }
    Ok(issues)
}

/// Issue `idx`'s coordinates in the merged descriptor dimensions and its shared offset in elements: the loop's
/// digits of `idx` added to the region's start, a straddling region's chunk replacing its start digits.
fn static_issue(prob: &Problem, merged: &Merged, loops: &[Joint], idx: i64) -> (Vec<i64>, i64) {
    let mut coords: Vec<i64> = merged.ddims.iter().map(|d| d.start).collect();
    let mut smem = prob.sbase;
    let mut rest = idx;
    let mut chunks = vec![0i64; prob.wraps.len()];
    for j in loops.iter().rev() {
        let digit = rest % j.extent;
        rest /= j.extent;
        match j.wrap {
            Some(w) => chunks[w] += digit * j.step,
            None => coords[merged.owner(j.dim)] += digit * j.step * merged.scale[j.dim],
        }
        smem += digit * j.sstride;
    }
    // A straddling region's chunk: its start position's digits replace the start digits.
    for (wrap, &k) in prob.wraps.iter().zip(&chunks) {
        let mut position = wrap.base + k * wrap.chunk;
        for &(t, extent) in &wrap.dims {
            coords[merged.owner(t)] += (position % extent - prob.dims[t].start) * merged.scale[t];
            position /= extent;
        }
    }
    (coords, smem)
}

/// The run-time offsets' coordinate terms on the descriptor dimensions (moved past the row cut, which they must
/// move by whole rows).
pub(super) fn coordinate_terms(
    prob: &Problem,
    merged: &Merged,
    row: Option<(i64, i64)>,
) -> Result<Vec<CoordinateTerm>, TmaError> {
    prob.terms
        .iter()
        .map(|term| {
            let t = CoordinateTerm {
                offset: term.offset,
                dim: merged.owner(term.dim),
                divisor: term.divisor,
                scale: merged.scale[term.dim],
            };
            match row {
                Some((r, _)) => row_term(t, term.multiple, r).ok_or_else(|| {
                    stage(
                        TmaStage::Box,
                        format!(
                            "a run-time offset moves the merged contiguous run in steps of {} elements, not whole \
                             rows of {r}",
                            t.scale * (term.multiple / term.divisor.max(1))
                        ),
                    )
                }),
                None => Ok(t),
            }
        })
        .collect()
}

/// An issue's coordinates with the first (on the merged run) cut into rows of `row` from element `shift`:
/// `[0, (c - shift) / row, ..]`, or `None` unless the issue starts at a row (`(c - shift) % row == 0`: the box's
/// first dimension is the whole row).
fn row_coordinates(coords: &[i64], row: i64, shift: i64) -> Option<Vec<i64>> {
    let c = coords[0] - shift;
    (c % row == 0).then(|| [0, c / row].into_iter().chain(coords[1..].iter().copied()).collect())
}

/// A run-time term after the cut into rows of `row`: on a later dimension it moves one index on; on the merged run
/// (coordinate `+= (value / divisor) * scale`, `value` a multiple of `multiple`) it must move whole rows, and then
/// moves the row coordinate by `(value / (divisor * g)) * (scale * g / row)` with `g = row / gcd(scale, row)`.
fn row_term(t: CoordinateTerm, multiple: i64, row: i64) -> Option<CoordinateTerm> {
    if t.dim > 0 {
        return Some(CoordinateTerm { dim: t.dim + 1, ..t });
    }
    let g = row / gcd(t.scale, row);
    let steps = multiple / t.divisor.max(1);
    (steps % g == 0).then(|| CoordinateTerm { dim: 1, divisor: t.divisor * g, scale: t.scale * g / row, ..t })
}
