//! The chip an op is compiled for: the nearest `axe.target` on it or an op enclosing it (`"sm_80"`, `"sm_90a"`,
//! `"sm_100a"`; a module may name none).

use axe_layout::hw::Chip;
use melior::ir::{operation::OperationLike, OperationRef};

/// The attribute naming the chip, on a `gpu.module` or the module.
pub const TARGET_ATTRIBUTE: &str = "axe.target";

/// The text of the nearest `axe.target` on `op` or an op enclosing it, unquoted (`None` when there is none).
pub(crate) fn target_name(op: OperationRef) -> Option<String> {
    let mut current = Some(op);
    while let Some(o) = current {
        if let Ok(attribute) = o.attribute(TARGET_ATTRIBUTE) {
            return Some(attribute.to_string().trim_matches('"').to_string());
        }
        current = o.parent_operation();
    }
    None
}

/// The chip of `op` for pass `pass` lowering an `op_name`: an error naming the fix when no `axe.target` names one,
/// or when it names an unknown chip.
pub(crate) fn chip(op: OperationRef, pass: &str, op_name: &str) -> Result<Chip, String> {
    let Some(name) = target_name(op) else {
        return Err(format!(
            "{pass}: target: no chip for {op_name}: put {TARGET_ATTRIBUTE} = \"sm_80\" (or sm_90a, sm_100a) on the \
             gpu.module or the module"
        ));
    };
    Chip::from_name(&name).ok_or_else(|| {
        format!("{pass}: target: unknown chip \"{name}\", expected \"sm_80\", \"sm_90\", \"sm_90a\" or \"sm_100a\"")
    })
}
