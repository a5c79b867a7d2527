//! The rule every lowering follows, written once: plan everything, report every refusal at its op, rewrite only
//! if nothing was refused (so a failed pass leaves the module as it was, and the user sees every problem at once).
//!
//! A lowering's entry is then its decisions only:
//!
//! ```ignore
//! let mut run = Run::begin(root, "tma", CREATES)?;       // dialects loaded, axe ops in IR order
//! let copies = run.plan(|op| owned(op).then(|| plan(op)));   // refusals reported at their ops
//! run.refuse(cross_op_checks(&copies));                      // errors another check reported
//! run.rewrite(|ops| emit::rewrite(root, ops, &copies))       // only when nothing was refused
//! ```

use axe_dialect::{ffi, ops::walk_preorder, AxeOp, OpKind};
use melior::ir::{operation::OperationLike, Location, OperationRef};

/// One run of a lowering over `root`: its axe ops and how many refusals were reported.
pub(crate) struct Run<'c, 'a> {
    ops: Vec<AxeOp<'c, 'a>>,
    refused: usize,
}

/// The pass that lowers `kind` before the planned lowerings run, for the ops that have one.
fn earlier_pass(kind: OpKind) -> Option<&'static str> {
    match kind {
        OpKind::Roles => Some(crate::lower_roles::PASS.flag),
        OpKind::TileLoop => Some(crate::lower_tile_loops::PASS.flag),
        OpKind::CopyStaged => Some(crate::lower_staged_copies::PASS.flag),
        _ => None,
    }
}

impl<'c, 'a> Run<'c, 'a> {
    /// Loads the dialects the lowering builds (`creates`) and collects the axe ops under `root` in IR order;
    /// `prefix` (`tma`, `mma`, ...) starts the internal errors.
    pub(crate) fn begin(root: OperationRef<'c, 'a>, prefix: &'static str, creates: &[&str]) -> Result<Self, usize> {
        let missing = ffi::load_dialects(root, creates);
        if !missing.is_empty() {
            ffi::emit_error(root.location(), &format!("{prefix}: internal: dialects {missing:?} are not registered"));
            return Err(1);
        }
        let mut ops = Vec::new();
        walk_preorder(root, &mut |op| ops.extend(AxeOp::new(op)));
        // The structure ops are lowered by passes that run before every lowering; one left here would survive to
        // a translation error far from it.
        let mut early = 0;
        for op in &ops {
            if let Some(pass) = earlier_pass(op.kind()) {
                early += 1;
                let name = op.kind().name();
                ffi::emit_error(
                    op.operation().location(),
                    &format!("{prefix}: {name} is lowered by --{pass}, which runs first"),
                );
            }
        }
        if early > 0 {
            return Err(early);
        }
        // Shared allocs' lifetimes, read while every use is still an axe op (the first lowering to run).
        crate::shared_lifetimes::annotate(root);
        Ok(Run { ops, refused: 0 })
    }

    /// Plans every op `plan` answers for (`None`: not this lowering's op); each refusal is reported at its op.
    pub(crate) fn plan<P>(&mut self, mut plan: impl FnMut(AxeOp<'c, 'a>) -> Option<Result<P, String>>) -> Vec<P> {
        let mut planned = Vec::new();
        for op in &self.ops {
            match plan(*op) {
                Some(Ok(p)) => planned.push(p),
                Some(Err(message)) => {
                    self.refused += 1;
                    ffi::emit_error(op.operation().location(), &message);
                }
                None => {}
            }
        }
        planned
    }

    /// Counts `errors` that a check reported itself (a cross-op rule such as the barrier protocol).
    pub(crate) fn refuse(&mut self, errors: usize) {
        self.refused += errors;
    }

    /// Whether anything was refused so far.
    pub(crate) fn failed(&self) -> bool {
        self.refused > 0
    }

    /// Runs `rewrite` over the ops when nothing was refused; a rewrite error (an internal one: the plans were
    /// accepted) is reported at its location. `Err` is the number of errors reported.
    pub(crate) fn rewrite<S>(
        self,
        rewrite: impl FnOnce(&[AxeOp<'c, 'a>]) -> Result<S, (Location<'c>, String)>,
    ) -> Result<S, usize> {
        if self.refused > 0 {
            return Err(self.refused);
        }
        rewrite(&self.ops).map_err(|(location, message)| {
            ffi::emit_error(location, &message);
            1
        })
    }
}
