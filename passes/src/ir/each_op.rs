//! The loop of the passes that rewrite one axe op kind in place (`--lower-roles`, `--lower-tile-loops`,
//! `--lower-staged-copies`): find every op of the kind, lower each, report each failure at its op.

use axe_dialect::{ffi, ops::walk_preorder, OpKind};
use melior::ir::{operation::OperationLike, OperationRef};

/// Lowers every `kind` op under `root` with `lower` (collected first: `lower` may erase or move ops). Each error
/// `lower` returns is emitted at the op it names, prefixed `flag: ` unless it already is. Returns the number of
/// ops lowered, or of errors reported.
pub(crate) fn lower_each<'c, 'a>(
    root: OperationRef<'c, 'a>,
    kind: OpKind,
    flag: &str,
    mut lower: impl FnMut(OperationRef<'c, 'a>) -> Result<(), Vec<(OperationRef<'c, 'a>, String)>>,
) -> Result<usize, usize> {
    let mut found = Vec::new();
    walk_preorder(root, &mut |op| {
        if op.name().as_string_ref().as_str() == Ok(kind.name()) {
            found.push(op);
        }
    });
    let prefix = format!("{flag}:");
    let mut errors = 0;
    for &op in &found {
        if let Err(messages) = lower(op) {
            errors += messages.len();
            for (at, message) in messages {
                let message = if message.starts_with(&prefix) { message } else { format!("{prefix} {message}") };
                ffi::emit_error(at.location(), &message);
            }
        }
    }
    if errors > 0 {
        Err(errors)
    } else {
        Ok(found.len())
    }
}
