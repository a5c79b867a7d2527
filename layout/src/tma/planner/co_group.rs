//! Step 4, co-grouping: the global box iters (copy order) and the shared iters refined to one list of joint
//! iters, each with a shared stride, a candidate descriptor dimension and a coordinate step.

use super::{stage, GIter, Joint, TmaError, TmaStage};

/// The common refinement of the global box iters and the shared iters (both outermost first, same product).
pub(super) fn co_group(g: &[GIter], s: &[(i64, i64)]) -> Result<Vec<Joint>, TmaError> {
    let mut out = Vec::new();
    let (mut gi, mut si) = (g.len(), s.len());
    let mut cur_g: Option<GIter> = None;
    let mut cur_s: Option<(i64, i64)> = None;
    loop {
        if cur_g.is_none() && gi > 0 {
            gi -= 1;
            cur_g = Some(g[gi]);
        }
        if cur_s.is_none() && si > 0 {
            si -= 1;
            cur_s = Some(s[si]);
        }
        let (mut a, mut b) = match (cur_g, cur_s) {
            (Some(a), Some(b)) => (a, b),
            (None, None) => break,
            _ => {
                return Err(stage(
                    TmaStage::CoGroup,
                    "the global and shared regions enumerate different element counts",
                ))
            }
        };
        let m = a.extent.min(b.0);
        if a.extent % m != 0 || b.0 % m != 0 {
            return Err(stage(
                TmaStage::CoGroup,
                format!(
                    "the global iter of extent {} (coordinate step {}) and the shared iter {}:{} have no common \
                     refinement ({} and {} do not divide one another)",
                    a.extent, a.step, b.0, b.1, a.extent, b.0
                ),
            ));
        }
        out.push(Joint { extent: m, sstride: b.1, dim: a.dim, step: a.step, wrap: a.wrap });
        a.extent /= m;
        a.step *= m;
        b.0 /= m;
        b.1 *= m;
        cur_g = (a.extent > 1).then_some(a);
        cur_s = (b.0 > 1).then_some(b);
    }
    out.reverse();
    let mut strides: Vec<i64> = out.iter().map(|j| j.sstride).collect();
    if let Some(bad) = strides.iter().find(|&&s| s <= 0) {
        return Err(stage(
            TmaStage::SharedChain,
            format!(
                "the shared region has an iter of stride {bad}; a TMA box is written densely with positive strides"
            ),
        ));
    }
    strides.sort_unstable();
    if let Some(w) = strides.windows(2).find(|w| w[0] == w[1]) {
        return Err(stage(
            TmaStage::SharedChain,
            format!("two shared iters share the stride {}; the layout is not injective", w[0]),
        ));
    }
    Ok(out)
}
