//! The copy planner (see the parent module's documentation).

use super::{CopyError, CopyPlan, CopyRequest, CopyRule};

/// Plans one `axe.copy` (see the module documentation). Errors name the rule and the numbers, e.g.
/// `copy: vector rule: ...`.
pub fn plan(req: &CopyRequest<'_>) -> Result<CopyPlan, CopyError> {
    Err(CopyError::new(
        CopyRule::Route,
        format!("copies from {} to {} are not planned yet", req.src.mem, req.dst.mem),
    ))
}
