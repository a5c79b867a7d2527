//! `axe-dynamic-shared`: move a kernel's shared memory into its dynamic shared memory.
//!
//! The lowerings give every shared buffer its own workgroup global (aligned as the TMA and MMA planners require).
//! Kernels relying on more than 48 KB of shared memory per block must use dynamic shared memory with an explicit
//! opt-in at launch, not static arrays (CUDA C++ Programming Guide, "Shared Memory"); a GEMM's rings and C tile
//! are 128 KB. This pass runs after `--lower-to-nvvm`, on the LLVM dialect: in each `gpu.module` it declares one
//! `llvm.mlir.global external @__axe_dynamic_smem` of `!llvm.array<0 x i8>` in address space 3 (PTX
//! `.extern .shared .b8 __axe_dynamic_smem[]`, the dynamic window; upstream's `gpu.dynamic_shared_memory` lowers
//! to an internal global that NVPTX demotes to a one-byte static array, so it is not used), and in each kernel
//! gives every shared global the kernel uses a static offset, a multiple of the global's alignment (`pack`:
//! largest first, each at the lowest offset free of the buffers it may be live with; globals whose epochs in the
//! kernel's `axe.shared_epochs` are disjoint, which `shared_lifetimes` proves are never live together, share
//! bytes). The base is rounded up at run time to 1024 bytes (the largest alignment a
//! swizzled TMA or wgmma buffer needs; the window is only 16-byte aligned), with 1024 bytes of slack. Each
//! `llvm.mlir.addressof` of a shared global becomes a `getelementptr` of the window at `pad + offset`, the shared
//! globals are erased, and the kernel records the bytes to launch with as `axe.dynamic_shared_bytes` (what
//! `axe-translate --emit=launch` reports).
//!
//! Refused (at the op): a shared global whose address is taken outside a kernel.
//!
//! ```mlir
//! %1 = llvm.mlir.addressof @__axe_smem_0 : !llvm.ptr<3>
//! // becomes, with the window's address rounded up once at the kernel's entry
//! %w = llvm.mlir.addressof @__axe_dynamic_smem : !llvm.ptr<3>
//! %1 = llvm.getelementptr %w[%pad_plus_offset] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
//! ```

use crate::{
    glue::{external_pass_creating, PassId},
    glue::{PassInfo, PassKind},
    ir::build::Builder,
    ir::ty::{AddressSpace, Ty},
    shared_lifetimes::{pack, parse_epochs, Buffer, SHARED_EPOCHS, WINDOW_ALIGNMENT},
};
use axe_dialect::{
    access::{self, OpKey},
    ffi,
    ops::walk_preorder,
};
use melior::{
    ir::{
        attribute::{FlatSymbolRefAttribute, IntegerAttribute, StringAttribute, TypeAttribute},
        operation::OperationLike,
        OperationRef, Region, RegionLike, Value,
    },
    IrRewriter,
};
use std::collections::HashMap;

/// `--axe-dynamic-shared` as `axe-opt` lists it: flag, summary, description, constructor (the registry's entry).
pub const PASS: PassInfo = PassInfo {
    flag: "axe-dynamic-shared",
    summary: "Move each kernel's shared memory into dynamic shared memory (after --lower-to-nvvm)",
    description: "Input: gpu.modules after --lower-to-nvvm. Every shared (address space 3) llvm global a\n\
kernel uses moves to an aligned static offset in the extern __axe_dynamic_smem window, from a base rounded\n\
up to 1024 bytes at run time; the kernel records axe.dynamic_shared_bytes (the bytes to launch with, 1024\n\
of slack included). Needed above 48 KB of shared memory.",
    kind: PassKind::Rust(create),
};

static ID: PassId = PassId::new();

/// The dialects whose ops the pass builds.
const CREATES: &[&str] = &["llvm"];

/// The base alignment the buffers get (the largest a TMA swizzle or wgmma descriptor needs).
pub const BASE_ALIGNMENT: i64 = WINDOW_ALIGNMENT;

/// The name of the extern dynamic shared memory window.
pub const WINDOW: &str = "__axe_dynamic_smem";

/// A shared llvm global: its op, byte size and alignment.
struct Global<'c, 'a> {
    op: OperationRef<'c, 'a>,
    bytes: i64,
    alignment: i64,
}

/// What one run did: per kernel (in IR order) its name and dynamic shared bytes.
pub type DynamicSharedStats = Vec<(String, i64)>;

/// Rewrites every kernel under `root`; on refusal reports at the op and returns how many it refused.
pub fn dynamic_shared(root: OperationRef) -> Result<DynamicSharedStats, usize> {
    let missing = ffi::load_dialects(root, CREATES);
    if !missing.is_empty() {
        ffi::emit_error(root.location(), &format!("dynamic-shared: internal: dialects {missing:?} not registered"));
        return Err(1);
    }
    let mut modules = Vec::new();
    walk_preorder(root, &mut |op| {
        if op.name().as_string_ref().as_str() == Ok("gpu.module") {
            modules.push(op);
        }
    });
    let mut stats = Vec::new();
    for module in modules {
        stats.extend(rewrite_module(module)?);
    }
    Ok(stats)
}

/// One `gpu.module`: its shared globals, the kernels' uses, the window and the rewrites.
fn rewrite_module(module: OperationRef) -> Result<DynamicSharedStats, usize> {
    let mut failed = 0;
    let (mut globals, mut kernels, mut uses) = (HashMap::new(), Vec::new(), Vec::new());
    walk_preorder(module, &mut |op| match op.name().as_string_ref().as_str() {
        Ok("llvm.mlir.global") => {
            if let Some((name, global)) = shared_global(op) {
                globals.insert(name, global);
            }
        }
        Ok("llvm.func") if op.has_attribute("gpu.kernel") || op.has_attribute("nvvm.kernel") => kernels.push(op),
        Ok("llvm.mlir.addressof") => uses.push(op),
        _ => {}
    });
    if globals.is_empty() {
        return Ok(Vec::new());
    }
    let mut kernel_of: HashMap<OpKey, usize> = HashMap::new();
    for (k, kernel) in kernels.iter().enumerate() {
        walk_preorder(*kernel, &mut |op| {
            kernel_of.insert(access::key(op), k);
        });
    }
    let mut per_kernel: Vec<Vec<(OperationRef, String)>> = vec![Vec::new(); kernels.len()];
    for op in uses {
        let Some(name) = symbol(op, "global_name") else { continue };
        if !globals.contains_key(&name) {
            continue;
        }
        match kernel_of.get(&access::key(op)) {
            Some(&k) => per_kernel[k].push((op, name)),
            None => {
                failed += 1;
                let message = format!("dynamic-shared: the address of shared global @{name} is taken outside a kernel");
                ffi::emit_error(op.location(), &message);
            }
        }
    }
    if failed > 0 {
        return Err(failed);
    }
    let fail = |op: OperationRef, message: String| {
        ffi::emit_error(op.location(), &message);
        1usize
    };
    let body = access::region(module, 0)
        .and_then(|r| r.first_block())
        .ok_or_else(|| fail(module, "dynamic-shared: gpu.module has no body".to_string()))?;
    let attributes = [
        ("sym_name", format!("\"{WINDOW}\"")),
        ("global_type", "!llvm.array<0 x i8>".to_string()),
        ("linkage", "#llvm.linkage<external>".to_string()),
        ("addr_space", "3 : i32".to_string()),
        ("alignment", "16 : i64".to_string()),
    ];
    Builder::at_start(module, body, module.location())
        .op_with_regions("llvm.mlir.global", &[], &[], &attributes, vec![Region::new()])
        .map_err(|e| fail(module, e))?;
    let rewriter = IrRewriter::from_op(module);
    let mut stats = Vec::new();
    for (kernel, used) in kernels.iter().zip(&per_kernel) {
        if used.is_empty() {
            continue;
        }
        let bytes = rewrite_kernel(*kernel, used, &globals).map_err(|(op, message)| fail(op, message))?;
        for (op, _) in used {
            rewriter.as_rewriter_base().erase_op(*op);
        }
        stats.push((symbol_name(*kernel), bytes));
    }
    let mut names: Vec<&String> = globals.keys().collect();
    names.sort();
    for name in names {
        rewriter.as_rewriter_base().erase_op(globals[name].op);
    }
    Ok(stats)
}

/// Lays out `used` (the kernel's `llvm.mlir.addressof`s of shared globals, IR order) in the window and replaces
/// each by a `getelementptr` of it; returns the bytes to launch with.
fn rewrite_kernel<'c, 'a>(
    kernel: OperationRef<'c, 'a>,
    used: &[(OperationRef<'c, 'a>, String)],
    globals: &HashMap<String, Global<'c, 'a>>,
) -> Result<i64, (OperationRef<'c, 'a>, String)> {
    let fail = |message: String| (kernel, message);
    let entry = access::entry_block(kernel).ok_or_else(|| fail("dynamic-shared: kernel has no body".into()))?;
    let b = Builder::at_start(kernel, entry, kernel.location());
    let constant = |value: i64| b.value("llvm.mlir.constant", &[], Ty::I64, &[("value", format!("{value} : i64"))]);
    let window = b
        .value("llvm.mlir.addressof", &[], Ty::Ptr(AddressSpace::Shared), &[("global_name", format!("@{WINDOW}"))])
        .map_err(fail)?;
    // pad = (-address) & 1023: the window's address rounded up to BASE_ALIGNMENT.
    let address = b.ptrtoint(window, Ty::I64).map_err(fail)?;
    let zero = constant(0).map_err(fail)?;
    let mask = constant(BASE_ALIGNMENT - 1).map_err(fail)?;
    let negated = b.value("llvm.sub", &[zero, address], Ty::I64, &[]).map_err(fail)?;
    let pad = b.value("llvm.and", &[negated, mask], Ty::I64, &[]).map_err(fail)?;
    // The kernel's globals in the order it first takes their addresses, laid out by lifetime.
    let mut names: Vec<&str> = Vec::new();
    for (_, name) in used {
        if !names.contains(&name.as_str()) {
            names.push(name);
        }
    }
    let epochs = kernel.attribute(SHARED_EPOCHS).map(|a| parse_epochs(&a.to_string())).unwrap_or_default();
    let buffers: Vec<Buffer> = names
        .iter()
        .map(|name| Buffer {
            name: name.to_string(),
            bytes: globals[*name].bytes,
            alignment: globals[*name].alignment,
            epochs: epochs.get(*name).copied(),
        })
        .collect();
    let (offsets, end) = pack(&buffers);
    let mut pointers: HashMap<&str, Value> = HashMap::new();
    for (name, start) in names.iter().zip(&offsets) {
        let offset = constant(*start).map_err(fail)?;
        let index = b.value("llvm.add", &[pad, offset], Ty::I64, &[]).map_err(fail)?;
        let gep = [("elem_type", "i8".to_string()), ("rawConstantIndices", format!("array<i32: {}>", i32::MIN))];
        let pointer =
            b.value("llvm.getelementptr", &[window, index], Ty::Ptr(AddressSpace::Shared), &gep).map_err(fail)?;
        pointers.insert(name, pointer);
    }
    for (op, name) in used {
        let result = access::result(*op, 0).ok_or_else(|| (*op, "dynamic-shared: addressof has no result".into()))?;
        IrRewriter::from_op(kernel).as_rewriter_base().replace_all_uses_with(result, pointers[name.as_str()]);
    }
    let bytes = end + BASE_ALIGNMENT;
    let attribute = ffi::parse_attribute(kernel, &format!("{bytes} : i64"))
        .ok_or_else(|| fail("dynamic-shared: internal: attribute".into()))?;
    ffi::set_attribute(kernel, "axe.dynamic_shared_bytes", attribute);
    Ok(bytes)
}

/// A symbol reference attribute's name.
fn symbol(op: OperationRef, attribute: &str) -> Option<String> {
    let attribute = op.attribute(attribute).ok()?;
    Some(FlatSymbolRefAttribute::try_from(attribute).ok()?.value().to_string())
}

/// A function's `sym_name`.
fn symbol_name(op: OperationRef) -> String {
    op.attribute("sym_name")
        .ok()
        .and_then(|a| StringAttribute::try_from(a).ok())
        .map(|s| s.value().to_string())
        .unwrap_or_default()
}

/// `Some((name, global))` for an `llvm.mlir.global` in address space 3 with a static array type and no value.
fn shared_global<'c, 'a>(op: OperationRef<'c, 'a>) -> Option<(String, Global<'c, 'a>)> {
    let space = op.attribute("addr_space").ok().and_then(|a| IntegerAttribute::try_from(a).ok())?.value();
    if space != 3 || op.has_attribute("value") {
        return None;
    }
    let ty = op.attribute("global_type").ok().and_then(|a| TypeAttribute::try_from(a).ok())?.value();
    let bytes = type_bytes(&ty.to_string())?;
    let alignment =
        op.attribute("alignment").ok().and_then(|a| IntegerAttribute::try_from(a).ok()).map_or(1, |a| a.value());
    let name = symbol_name(op);
    (!name.is_empty() && name != WINDOW && bytes > 0).then_some((name, Global { op, bytes, alignment }))
}

/// The size in bytes of `!llvm.array<N x T>` (nested arrays included) of i8/i16/i32/i64/f16/f32/f64 elements.
fn type_bytes(text: &str) -> Option<i64> {
    if let Some(inner) = text.strip_prefix("!llvm.array<").and_then(|t| t.strip_suffix('>')) {
        let (count, element) = inner.split_once(" x ")?;
        return count.trim().parse::<i64>().ok()?.checked_mul(type_bytes(element.trim())?);
    }
    match text {
        "i8" => Some(1),
        "i16" | "f16" | "bf16" => Some(2),
        "i32" | "f32" => Some(4),
        "i64" | "f64" => Some(8),
        _ => None,
    }
}

/// The melior pass behind `--axe-dynamic-shared`.
pub fn create() -> melior::pass::Pass {
    external_pass_creating(&ID, "AxeDynamicShared", &PASS, CREATES, |operation| dynamic_shared(operation).is_ok())
}
