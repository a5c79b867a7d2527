//! What MLIR 22's translation to LLVM IR can take without crashing, checked before it runs.
//!
//! `mlirTranslateModuleToLLVMIR` translates the ops of the module it is given (a `gpu.module`, or the whole
//! module) that are not functions or globals with an `llvm::IRBuilder` that has no insertion point, and the ops
//! of a global's initializer region with one that folds constants but has no block either. An op whose
//! translation emits an instruction or calls an intrinsic there dereferences the missing block: a stray
//! `nvvm.cp.async.wait.group 1` before a module, or `nvvm.read.ptx.sreg.tid.x` in a global's initializer, ended
//! `axe-translate` and `mlir-translate-22 --mlir-to-llvmir` alike with a segfault (issue 22).
//! [`check`] refuses them at their location:
//! - at the top level of the translated op, only the module-level LLVM ops ([`MODULE_LEVEL`]);
//! - in the initializer regions of those, only LLVM ops that are not intrinsic calls (the constant expressions
//!   MLIR folds; anything else there is MLIR's own error, "unemittable constant value" or "ops with side effects
//!   not allowed in global initializers").

use crate::{access, ops::walk_preorder};
use melior::ir::{block::BlockLike, operation::OperationLike, Location, OperationRef};

/// The ops MLIR 22 translates at the top level of a module: functions, globals, aliases, ifuncs, comdats,
/// constructors and destructors, linker options and module flags.
pub const MODULE_LEVEL: &[&str] = &[
    "llvm.func",
    "llvm.mlir.global",
    "llvm.mlir.alias",
    "llvm.mlir.ifunc",
    "llvm.comdat",
    "llvm.mlir.global_ctors",
    "llvm.mlir.global_dtors",
    "llvm.linker_options",
    "llvm.module_flags",
];

/// Every op in `target` that MLIR 22 would translate with no insertion point, with its location and why it is
/// refused; empty when the translation can run.
pub fn check<'c>(target: OperationRef<'c, '_>) -> Vec<(Location<'c>, String)> {
    let mut problems = Vec::new();
    for block in access::blocks(target) {
        for op in std::iter::successors(block.first_operation(), |op| op.next_in_block()) {
            let name = op_name(op);
            if !MODULE_LEVEL.contains(&name.as_str()) {
                problems.push((
                    op.location(),
                    format!(
                        "'{name}' cannot be translated at the top level of a module: only functions, globals and \
                         the other module-level llvm ops ({}) can be there (MLIR 22's LLVM IR export crashes on an \
                         instruction there)",
                        MODULE_LEVEL.join(", ")
                    ),
                ));
                continue;
            }
            if name == "llvm.func" {
                continue;
            }
            // A global's (or alias's) initializer: constant expressions only.
            for inner in access::blocks(op) {
                for first in std::iter::successors(inner.first_operation(), |op| op.next_in_block()) {
                    walk_preorder(first, &mut |nested| {
                        let nested_name = op_name(nested);
                        if !in_initializer(&nested_name) {
                            problems.push((
                                nested.location(),
                                format!(
                                    "'{nested_name}' cannot be translated in the initializer of '{name}': only llvm \
                                     constant expressions can be there (MLIR 22's LLVM IR export crashes on an \
                                     intrinsic or another dialect's op there)"
                                ),
                            ));
                        }
                    });
                }
            }
        }
    }
    problems
}

/// Whether an op named `name` can be in a global initializer: an llvm op that is not an intrinsic call.
fn in_initializer(name: &str) -> bool {
    name.starts_with("llvm.") && !name.starts_with("llvm.intr.") && name != "llvm.call_intrinsic"
}

fn op_name(op: OperationRef) -> String {
    op.name().as_string_ref().as_str().unwrap_or("<invalid utf-8>").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{create_context, parse_module};

    fn refused(source: &str) -> Vec<(usize, String)> {
        let context = create_context().expect("context");
        let module = parse_module(&context, source, "t.mlir").expect("parses");
        check(module.as_operation())
            .into_iter()
            .map(|(location, message)| {
                let line = crate::SourceLoc::resolve(location).map_or(0, |l| l.line);
                (line, message)
            })
            .collect()
    }

    #[test]
    fn an_op_at_the_top_level_is_refused_at_its_line() {
        // Issue 22: a stray line before the module.
        let problems =
            refused("nvvm.cp.async.wait.group 1\nllvm.func @f() {\n  nvvm.cp.async.wait.group 1\n  llvm.return\n}\n");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].0, 1);
        assert!(problems[0].1.starts_with("'nvvm.cp.async.wait.group' cannot be translated at the top level"));
    }

    #[test]
    fn intrinsics_and_other_dialects_are_refused_in_initializers() {
        let source = "llvm.mlir.global internal @g() : i32 {\n  %0 = nvvm.read.ptx.sreg.tid.x : i32\n  \
                      %1 = llvm.intr.smax(%0, %0) : (i32, i32) -> i32\n  llvm.return %1 : i32\n}\n";
        let problems = refused(source);
        assert_eq!(problems.iter().map(|p| p.0).collect::<Vec<_>>(), [2, 3], "{problems:?}");
        assert!(problems[0].1.contains("in the initializer of 'llvm.mlir.global'"), "{problems:?}");
    }

    #[test]
    fn lowered_modules_pass() {
        let source = "llvm.mlir.global internal @g() {addr_space = 3 : i32} : !llvm.array<4 x i32> {\n  \
                      %0 = llvm.mlir.zero : !llvm.array<4 x i32>\n  llvm.return %0 : !llvm.array<4 x i32>\n}\n\
                      llvm.func @k() attributes {nvvm.kernel} {\n  %0 = nvvm.read.ptx.sreg.tid.x : i32\n  \
                      llvm.return\n}\n";
        assert_eq!(refused(source), Vec::new());
    }
}
