//! The host side of `--lower-tma`: a kernel argument becomes a TMA descriptor pointer, and each launch of the
//! kernel passes `axe.tma_descriptor` of the memref it used to pass.
//!
//! The descriptor's fields are written twice, both times from the plan: on the host op (what the driver encodes)
//! and as the `axe.tma_descriptor` attribute of the kernel argument (what the kernel expects, so a module without
//! a launch, compiled for another host, still says which map to pass).

use super::descriptor::descriptor_attributes;
use crate::ir::build::Builder;
use crate::ir::ty::{AddressSpace, Ty};
use axe_dialect::{
    access, ffi,
    types::{parse_i64_array, split_top_level, unquote},
};
use axe_layout::{hw::expr::Expr, tma::TmaPlan};
use melior::ir::{
    attribute::TypeAttribute, operation::OperationLike, r#type::FunctionType, OperationRef, Type, ValueLike,
};
use std::collections::HashMap;

/// The name of the kernel argument attribute holding the descriptor's fields.
pub(super) const ARGUMENT_ATTRIBUTE: &str = "axe.tma_descriptor";

/// Adds `axe.tma_descriptor = {fields}` to the attributes of argument `index` of `kernel` (`arg_attrs`).
pub(super) fn annotate_argument(kernel: OperationRef, index: usize, plan: &TmaPlan) -> Result<(), String> {
    let fields: Vec<String> = descriptor_attributes(&plan.desc, plan.global_offset_bytes)
        .into_iter()
        .map(|(name, value)| format!("{name} = {value}"))
        .collect();
    let entry = format!("{ARGUMENT_ATTRIBUTE} = {{{}}}", fields.join(", "));
    let inputs = function_type(kernel)?.input_count();
    let existing = kernel.attribute("arg_attrs").ok().map(|a| a.to_string());
    let mut dicts: Vec<String> = match &existing {
        Some(text) => {
            let inner =
                text.strip_prefix('[').and_then(|t| t.strip_suffix(']')).ok_or("tma: arg_attrs is not an array")?;
            split_top_level(inner).into_iter().map(str::to_string).collect()
        }
        None => vec!["{}".to_string(); inputs],
    };
    let dict = dicts.get_mut(index).ok_or("tma: arg_attrs has no entry for the argument")?;
    *dict = match dict.strip_suffix('}') {
        Some("{") => format!("{{{entry}}}"),
        Some(body) => format!("{body}, {entry}}}"),
        None => return Err(format!("tma: argument attributes {dict} are not a dictionary")),
    };
    let text = format!("[{}]", dicts.join(", "));
    let attribute = ffi::parse_attribute(kernel, &text).ok_or("tma: internal: argument attributes do not parse")?;
    ffi::set_attribute(kernel, "arg_attrs", attribute);
    Ok(())
}

/// The kernel attribute listing every tensor map the host must encode (one dictionary per descriptor argument).
pub(crate) const TENSOR_MAPS_ATTRIBUTE: &str = "axe.tensor_maps";

/// Appends argument `index`'s map to the kernel's `axe.tensor_maps`: `arg`, every field of the plan,
/// `global_dims`/`global_strides_bytes` as strings, expressions of the kernel's arguments (`arg5 * 2`) for a
/// run-time-sized tensor, numbers otherwise, and the launch's `preconditions` (strings, empty when static); each
/// an `axe_layout::hw::expr` value printed here, which the launch record and the simulator parse back. The
/// map's `globalAddress` is the pointer the kernel argument held before it became the map's, plus
/// `global_offset_bytes`. A function attribute, so it survives `--lower-to-nvvm` (argument
/// attributes do not) and `axe-translate --emit=launch` reads it from the lowered module.
pub(super) fn record_tensor_map(
    kernel: OperationRef,
    index: usize,
    plan: &TmaPlan,
    runtime: Option<&crate::request::tma::RuntimeFields>,
) -> Result<(), String> {
    // Each expression is printed here, once, as an MLIR string (their grammar has no quote or backslash).
    fn quoted<T: std::fmt::Display>(items: &[T]) -> String {
        let items: Vec<String> = items.iter().map(|s| format!("\"{s}\"")).collect();
        format!("[{}]", items.join(", "))
    }
    let numbers = |values: &[u64]| -> Result<Vec<Expr>, String> {
        let number =
            |&v: &u64| i64::try_from(v).map(Expr::Int).map_err(|_| format!("tma: descriptor field {v} is past i64"));
        values.iter().map(number).collect()
    };
    let (dims, strides) = match runtime {
        Some(fields) => (fields.global_dims.clone(), fields.global_strides_bytes.clone()),
        None => (numbers(&plan.desc.global_dims)?, numbers(&plan.desc.global_strides_bytes)?),
    };
    let mut fields = vec![format!("arg = {index} : i64")];
    for (name, value) in descriptor_attributes(&plan.desc, plan.global_offset_bytes) {
        fields.push(match name {
            "global_dims" => format!("global_dims = {}", quoted(&dims)),
            "global_strides_bytes" => format!("global_strides_bytes = {}", quoted(&strides)),
            _ => format!("{name} = {value}"),
        });
    }
    let preconditions = runtime.map(|fields| fields.preconditions.as_slice()).unwrap_or_default();
    fields.push(format!("preconditions = {}", quoted(preconditions)));
    let entry = format!("{{{}}}", fields.join(", "));
    let text = match kernel.attribute(TENSOR_MAPS_ATTRIBUTE).ok().map(|a| a.to_string()) {
        Some(existing) => {
            let inner = existing
                .strip_prefix('[')
                .and_then(|t| t.strip_suffix(']'))
                .ok_or("tma: axe.tensor_maps is not an array")?;
            format!("[{inner}, {entry}]")
        }
        None => format!("[{entry}]"),
    };
    let attribute = ffi::parse_attribute(kernel, &text).ok_or("tma: internal: axe.tensor_maps does not parse")?;
    ffi::set_attribute(kernel, TENSOR_MAPS_ATTRIBUTE, attribute);
    Ok(())
}

/// The `function_type` of a function op.
fn function_type<'c>(func: OperationRef<'c, '_>) -> Result<FunctionType<'c>, String> {
    let attribute = func.attribute("function_type").map_err(|_| "tma: kernel has no function_type")?;
    TypeAttribute::try_from(attribute)
        .ok()
        .and_then(|a| FunctionType::try_from(a.value()).ok())
        .ok_or_else(|| "tma: kernel function_type is not a function type".to_string())
}

/// Replaces input `index` of a function's `function_type` with `ty`.
pub(super) fn retype_function<'c>(func: OperationRef<'c, '_>, index: usize, ty: Type<'c>) -> Result<(), String> {
    let function = function_type(func)?;
    let mut inputs: Vec<Type> = (0..function.input_count()).filter_map(|i| function.input(i).ok()).collect();
    let results: Vec<Type> = (0..function.result_count()).filter_map(|i| function.result(i).ok()).collect();
    *inputs.get_mut(index).ok_or("tma: kernel argument out of range")? = ty;
    let new = ffi::function_type(func, &inputs, &results);
    ffi::set_attribute(func, "function_type", TypeAttribute::new(new).into());
    Ok(())
}

/// Every `gpu.launch_func` under `root`, by the kernel symbol it names (`@module::@kernel`), in IR order.
///
/// Built once per run, so finding a kernel's launches costs a lookup, not a walk of the module.
pub(super) fn launch_index<'c, 'a>(root: OperationRef<'c, 'a>) -> HashMap<String, Vec<OperationRef<'c, 'a>>> {
    let mut index: HashMap<String, Vec<OperationRef<'c, 'a>>> = HashMap::new();
    axe_dialect::ops::walk_preorder(root, &mut |op| {
        if op.name().as_string_ref().as_str() == Ok("gpu.launch_func") {
            if let Ok(kernel) = op.attribute("kernel") {
                index.entry(kernel.to_string()).or_default().push(op);
            }
        }
    });
    index
}

/// The symbol text (`@module::@kernel`) launches use for the `gpu.func` `kernel`.
pub(super) fn kernel_symbol(kernel: OperationRef) -> Result<String, String> {
    let symbol = |op: OperationRef| op.attribute("sym_name").ok().and_then(|a| unquote(&a.to_string()).ok());
    let module = kernel.parent_operation().and_then(symbol).ok_or("tma: kernel is not in a named gpu.module")?;
    let name = symbol(kernel).ok_or("tma: kernel has no name")?;
    Ok(format!("@{module}::@{name}"))
}

/// Before `launch`: `axe.tma_descriptor` of its kernel operand `index`, which then replaces that operand.
pub(super) fn host_descriptor<'c>(
    launch: OperationRef<'c, '_>,
    index: usize,
    global_type: Type<'c>,
    plan: &TmaPlan,
) -> Result<(), String> {
    let sizes = launch.attribute("operandSegmentSizes").map_err(|_| "tma: launch has no operandSegmentSizes")?;
    let sizes = parse_i64_array(&sizes.to_string().replace("i32", "i64")).map_err(|e| format!("tma: launch {e}"))?;
    let [.., kernel_operands, async_object] = sizes.as_slice() else { return Err("tma: launch segments".into()) };
    let first = sizes.iter().sum::<i64>() - kernel_operands - async_object;
    let position = usize::try_from(first).unwrap_or(0) + index;
    let global =
        access::operand(launch, position).ok_or_else(|| format!("tma: launch has no kernel operand {index}"))?;
    if global.r#type() != global_type {
        return Err(format!(
            "tma: launch passes {} for kernel argument {index}, expected {global_type}",
            global.r#type()
        ));
    }
    let b = Builder::before(launch)?;
    let attributes = descriptor_attributes(&plan.desc, plan.global_offset_bytes);
    let desc = b.value("axe.tma_descriptor", &[global], Ty::Ptr(AddressSpace::Generic), &attributes)?;
    ffi::set_operand(launch, position, desc);
    Ok(())
}
