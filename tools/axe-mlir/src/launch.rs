//! `axe-translate --emit=launch`: the launch contract of each kernel, as JSON (what Triton's compiled-kernel
//! metadata is): a runtime or a test launches the PTX from it without reading the compiler.
//!
//! Read from the lowered module (after `--lower-to-nvvm`, and `--axe-dynamic-shared` when used), per `llvm.func`
//! kernel of the selected `gpu.module`, in IR order:
//! - `name`: the kernel's symbol, which is the PTX entry's name ([`kernel_name`]: non-empty UTF-8 and a PTX
//!   identifier, the same rule `--emit=ptx` applies, so the record names only kernels the PTX has);
//! - `grid`: the kernel's `axe.launch = {grid = [...]}` expressions, over the parameter names of
//!   `axe.launch = {params = [...]}` (one per argument, each an identifier; `param<i>` without it);
//! - `block` from `gpu.known_block_size` (or `nvvm.maxntid`);
//! - `cluster`: the CTAs per cluster (x, y, z) the PTX requires (`nvvm.cluster_dim`, which `--lower-to-nvvm` makes
//!   of the kernel's `known_cluster_size` and PTX states as `.reqnctapercluster`); `[1, 1, 1]` without clusters. A
//!   launch's grid must be a multiple of it in each dimension;
//! - `dynamic_shared_bytes`: `axe.dynamic_shared_bytes` (0 without it);
//! - `params`, in PTX order: name, PTX name (`<kernel>_param_<i>`), PTX type, and `kind` (`tensor_map`: a
//!   pointer to the 128-byte `CUtensorMap` the host encodes, in device memory; `pointer`; `scalar`);
//! - `tensor_maps`: every map of `axe.tensor_maps` (written by `--lower-tma`), with every
//!   `cuTensorMapEncodeTiled` field (enums as the driver numbers them, arrays innermost first), `global_dims` and
//!   `global_strides_bytes` as expressions of the parameter names, `global_address` (the device pointer the
//!   parameter stood for, plus the offset) and the map's `preconditions`;
//! - `symmetric`: every buffer of `axe.symmetric` (written by `--lower-collectives`) that each rank allocates on
//!   the NVSHMEM symmetric heap (`nvshmem_malloc(bytes)`, the same size on every rank) and passes as that
//!   argument: `arg` (the kernel argument's index), `param` (its name), `bytes`, `local_shapes` (each rank's
//!   DTensor `to_local()` shape, row-major over the mesh, to check the tensor a rank is handed; null when the
//!   buffer's layout is no placement);
//! - `views`: the global tensor behind each pointer parameter that the kernel reads as a `row_major` view
//!   (`axe.views`, written by `--lower-copy`): `param`, `param_index`, `dtype` (MLIR's name) and `dims` (extents as
//!   expressions, outermost first); the tensor is row-major and densely packed, so a launch can check shape,
//!   dtype and packing where a bare pointer says nothing;
//! - `preconditions`: everything the kernel relies on about its arguments, which the launch must check: the
//!   kernel's `axe.preconditions` (the copy planner's alignment needs, written by `--lower-copy`) and every
//!   tensor map's, without repeats, in that order.
//!
//! Expressions are strings over parameter names and integers with `+`, `*`, `/` (exact), `%`, `ceildiv(a, b)`
//! and parentheses, and one comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`) in a precondition: the grammar of
//! `axe_layout::hw::expr`, whose parser reads what the passes wrote over `arg<i>` and whose printer writes it over
//! the parameter names (a grid, written by hand over the names, is checked by the same parser and kept as written).
//!
//! The record is a contract: typed structs serialized by serde_json (always valid JSON), every field read from
//! the attribute kind the passes write; anything else (an `array<i32>` where `array<i64>` belongs, a name that
//! is not UTF-8, an expression outside the grammar) is an error located at the kernel, never a guess. Output is
//! deterministic: keys in a fixed order, kernels in IR order.

use melior::ir::{
    attribute::{
        ArrayAttribute, DenseI32ArrayAttribute, DenseI64ArrayAttribute, DictionaryAttribute, IntegerAttribute,
        StringAttribute,
    },
    block::BlockLike,
    operation::OperationLike,
    Attribute, Location, OperationRef, RegionLike, ValueLike,
};
use serde::Serialize;

mod json;

use axe_layout::hw::expr::{is_name, rename_args_text, Expr, Precondition};
use axe_layout::tma::TensorMapDataType;

use axe_passes::lower_copy::PRECONDITIONS_ATTRIBUTE;

/// The launch record of one module.
#[derive(Clone, Debug, Serialize)]
pub struct LaunchRecord {
    /// The chip the PTX is for.
    pub chip: String,
    /// Every kernel, in IR order.
    pub kernels: Vec<KernelRecord>,
}

/// One kernel's launch contract.
#[derive(Clone, Debug, Serialize)]
pub struct KernelRecord {
    /// The PTX entry's name.
    pub name: String,
    /// Grid dimensions (x, y, z) as expressions of the parameters; `None` when the kernel states none.
    pub grid: Option<[String; 3]>,
    /// Block dimensions (x, y, z); `None` when the kernel states none.
    pub block: Option<[u32; 3]>,
    /// CTAs per cluster (x, y, z); `[1, 1, 1]` for a kernel without clusters.
    pub cluster: [u32; 3],
    /// Bytes of dynamic shared memory the launch must give.
    pub dynamic_shared_bytes: u64,
    /// The PTX parameters, in order.
    pub params: Vec<Param>,
    /// The tensor maps the host encodes.
    pub tensor_maps: Vec<TensorMap>,
    /// The NVSHMEM symmetric buffers the ranks allocate.
    pub symmetric: Vec<Symmetric>,
    /// The global tensors behind pointer parameters, for the launch to check the tensors it is handed.
    pub views: Vec<View>,
    /// What the launch must check about the arguments (the kernel's and every tensor map's).
    pub preconditions: Vec<String>,
}

/// What a parameter holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamKind {
    /// A device pointer to a 128-byte `CUtensorMap`.
    TensorMap,
    /// A device pointer.
    Pointer,
    /// A scalar.
    Scalar,
}

/// One PTX parameter.
#[derive(Clone, Debug, Serialize)]
pub struct Param {
    /// Its name in the expressions.
    pub name: String,
    /// `<kernel>_param_<i>`.
    pub ptx_name: String,
    /// The PTX type (`u64`, `u32`, ...).
    pub ptx_type: &'static str,
    /// What it holds.
    pub kind: ParamKind,
}

/// One `cuTensorMapEncodeTiled` call.
#[derive(Clone, Debug, Serialize)]
pub struct TensorMap {
    /// The parameter that holds the map.
    pub param: String,
    /// Its index.
    pub param_index: usize,
    /// `globalAddress`: the pointer the parameter stood for, plus the offset.
    pub global_address: String,
    /// `CUtensorMapDataType`.
    pub data_type: u32,
    /// Its cuda.h name.
    pub data_type_name: &'static str,
    /// `tensorRank`.
    pub rank: u32,
    /// `globalDim`, innermost first, as expressions.
    pub global_dims: Vec<String>,
    /// `globalStrides` in bytes (dimensions 1 and up), as expressions.
    pub global_strides_bytes: Vec<String>,
    /// `boxDim`.
    pub box_dims: Vec<u32>,
    /// `elementStrides`.
    pub element_strides: Vec<u32>,
    /// `CUtensorMapInterleave`.
    pub interleave: u32,
    /// `CUtensorMapSwizzle`.
    pub swizzle: u32,
    /// `CUtensorMapL2promotion`.
    pub l2_promotion: u32,
    /// `CUtensorMapFloatOOBfill`.
    pub oob_fill: u32,
    /// What the launch must check before encoding.
    pub preconditions: Vec<String>,
}

/// One NVSHMEM symmetric buffer.
#[derive(Clone, Debug, Serialize)]
pub struct Symmetric {
    /// The kernel argument's index.
    pub arg: usize,
    /// Its parameter name.
    pub param: String,
    /// `nvshmem_malloc` bytes, the same on every rank.
    pub bytes: u64,
    /// Each rank's DTensor local shape (`to_local()`), row-major over the mesh, for the run-time check that the
    /// tensor a rank is handed matches the declared layout; `None` when the buffer's layout is no placement.
    pub local_shapes: Option<Vec<Vec<u64>>>,
}

/// The global tensor a pointer parameter points at: a row-major (C-contiguous) tensor of `dtype` with extents
/// `dims` (expressions of the parameters, outermost first), from the kernel's `axe.views` (`--lower-copy`).
#[derive(Clone, Debug, Serialize)]
pub struct View {
    /// The parameter's name.
    pub param: String,
    /// Its index.
    pub param_index: usize,
    /// The element type, as MLIR names it (`f16`, `bf16`, `f32`, `i32`, ...).
    pub dtype: String,
    /// The extents, outermost first.
    pub dims: Vec<String>,
}

/// A record error: where, and what.
pub type Located<'c> = (Location<'c>, String);

/// The launch record of every kernel in `target` (a `gpu.module` of llvm ops), for `chip`; every error found,
/// located at its kernel (at `target` when there is no kernel).
pub fn launch_record<'c>(target: OperationRef<'c, '_>, chip: &str) -> Result<LaunchRecord, Vec<Located<'c>>> {
    let mut kernels = Vec::new();
    let mut errors = Vec::new();
    for op in kernels_of(target) {
        match kernel_record(op) {
            Ok(record) => kernels.push(record),
            Err(message) => errors.push((op.location(), message)),
        }
    }
    if kernels.is_empty() && errors.is_empty() {
        errors.push((
            target.location(),
            "--emit=launch: no kernel (llvm.func with gpu.kernel) in the module; run axe-opt --lower-to-nvvm first"
                .to_string(),
        ));
    }
    if errors.is_empty() {
        Ok(LaunchRecord { chip: chip.to_string(), kernels })
    } else {
        Err(errors)
    }
}

/// [`launch_record`] as the JSON text `--emit=launch` prints.
pub fn launch_json<'c>(target: OperationRef<'c, '_>, chip: &str) -> Result<String, Vec<Located<'c>>> {
    let record = launch_record(target, chip)?;
    record.to_json().map_err(|e| vec![(target.location(), format!("launch: internal: {e}"))])
}

/// The `llvm.func` kernels (`gpu.kernel` or `nvvm.kernel`) directly in `target`, in IR order.
pub fn kernels_of<'c, 'a>(target: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut kernels = Vec::new();
    let body = axe_dialect::access::region(target, 0).and_then(|r| r.first_block());
    let mut next = body.and_then(|b| b.first_operation());
    while let Some(op) = next {
        next = op.next_in_block();
        if op.name().as_string_ref().as_str() == Ok("llvm.func")
            && (op.has_attribute("gpu.kernel") || op.has_attribute("nvvm.kernel"))
        {
            kernels.push(op);
        }
    }
    kernels
}

/// Every kernel name of `target` that PTX cannot hold as an entry (see [`kernel_name`]), located.
pub fn check_kernel_names<'c>(target: OperationRef<'c, '_>) -> Vec<Located<'c>> {
    kernels_of(target).into_iter().filter_map(|op| kernel_name(op).err().map(|e| (op.location(), e))).collect()
}

/// A kernel's name, when it can be a PTX entry's: its `sym_name` is non-empty UTF-8 and a PTX identifier
/// (PTX ISA 4.4: `[a-zA-Z][a-zA-Z0-9_$]*` or `[_$%][a-zA-Z0-9_$]+`; LLVM renames only local symbols, so a kernel
/// keeps its name in the PTX and ptxas would refuse it).
pub fn kernel_name(op: OperationRef) -> Result<String, String> {
    let attribute = op.attribute("sym_name").map_err(|_| "kernel: an llvm.func kernel without sym_name".to_string())?;
    let printed = attribute.to_string();
    let bytes = string_bytes(attribute).ok_or_else(|| format!("kernel: sym_name {printed} is not a string"))?;
    let name = String::from_utf8(bytes).map_err(|_| {
        format!("kernel: the kernel name {printed} is not UTF-8; a PTX entry is named by an identifier")
    })?;
    if name.is_empty() {
        return Err("kernel: a kernel named \"\" has no PTX entry name (name it with an identifier)".to_string());
    }
    if !is_ptx_identifier(&name) {
        return Err(format!(
            "kernel: the kernel name {printed} is not a PTX identifier ([a-zA-Z][a-zA-Z0-9_$]* or \
             [_$%][a-zA-Z0-9_$]+), so it cannot name a PTX entry"
        ));
    }
    Ok(name)
}

/// PTX ISA 4.4 identifiers.
fn is_ptx_identifier(name: &str) -> bool {
    let follows = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() => chars.all(follows),
        Some('_' | '$' | '%') => name.len() > 1 && chars.all(follows),
        _ => false,
    }
}

/// The bytes of a string attribute, read from its printed form (MLIR prints `\\` for a backslash and `\XX` for a
/// quote and every byte that is not printable ASCII): melior's `StringAttribute::value` panics on an empty string
/// and on invalid UTF-8, which a kernel's name can be. `None` when `attribute` is not a string.
pub fn string_bytes(attribute: Attribute) -> Option<Vec<u8>> {
    StringAttribute::try_from(attribute).ok()?;
    let printed = attribute.to_string();
    let inner = printed.strip_prefix('"')?.strip_suffix('"')?.as_bytes();
    let mut out = Vec::with_capacity(inner.len());
    let mut i = 0;
    while i < inner.len() {
        if inner[i] != b'\\' {
            out.push(inner[i]);
            i += 1;
            continue;
        }
        if inner.get(i + 1) == Some(&b'\\') {
            out.push(b'\\');
            i += 2;
            continue;
        }
        let hex = std::str::from_utf8(inner.get(i + 1..i + 3)?).ok()?;
        out.push(u8::from_str_radix(hex, 16).ok()?);
        i += 3;
    }
    Some(out)
}

/// A string attribute's value when it is UTF-8.
fn string_value(attribute: Attribute) -> Option<String> {
    String::from_utf8(string_bytes(attribute)?).ok()
}

/// The strings of an array attribute of UTF-8 string attributes.
fn strings(attribute: Attribute) -> Option<Vec<String>> {
    let array = ArrayAttribute::try_from(attribute).ok()?;
    (0..array.len()).map(|i| array.element(i).ok().and_then(string_value)).collect()
}

/// One kernel's record, or the first thing wrong with it (prefixed `@name:` once the name is known).
fn kernel_record(op: OperationRef) -> Result<KernelRecord, String> {
    let name = kernel_name(op)?;
    kernel_fields(op, &name).map_err(|e| format!("@{name}: {e}"))
}

fn kernel_fields(op: OperationRef, name: &str) -> Result<KernelRecord, String> {
    let entry = axe_dialect::access::region(op, 0).and_then(|r| r.first_block()).ok_or("the kernel has no body")?;
    let types: Vec<String> = axe_dialect::access::arguments(entry).map(|a| a.r#type().to_string()).collect();
    let launch = match op.attribute("axe.launch").ok() {
        Some(a) => {
            Some(DictionaryAttribute::try_from(a).map_err(|_| format!("axe.launch must be a dictionary, got {a}"))?)
        }
        None => None,
    };
    let names = param_names(launch, types.len())?;
    let tensor_maps = tensor_map_records(op, &names)?;
    let params = types
        .iter()
        .enumerate()
        .map(|(i, ty)| Param {
            name: names[i].clone(),
            ptx_name: format!("{name}_param_{i}"),
            ptx_type: ptx_type(ty),
            kind: if tensor_maps.iter().any(|m| m.param_index == i) {
                ParamKind::TensorMap
            } else if ty.starts_with("!llvm.ptr") {
                ParamKind::Pointer
            } else {
                ParamKind::Scalar
            },
        })
        .collect();
    Ok(KernelRecord {
        name: name.to_string(),
        grid: grid(launch, &names)?,
        block: block_dims(op)?,
        cluster: i32_triple(op, "nvvm.cluster_dim")?.unwrap_or([1, 1, 1]),
        dynamic_shared_bytes: dynamic_shared_bytes(op)?,
        params,
        symmetric: symmetric_records(op, &names)?,
        views: view_records(op, &names)?,
        preconditions: preconditions(op, &names, &tensor_maps)?,
        tensor_maps,
    })
}

/// `axe.launch = {params = [...]}`: one identifier per argument, all different (`param<i>` without it).
fn param_names(launch: Option<DictionaryAttribute>, count: usize) -> Result<Vec<String>, String> {
    let names: Vec<String> = match launch.and_then(|d| d.element_by_name("params")) {
        Some(params) => {
            strings(params).ok_or_else(|| format!("axe.launch params must be UTF-8 strings, got {params}"))?
        }
        None => (0..count).map(|i| format!("param{i}")).collect(),
    };
    if names.len() != count {
        return Err(format!(
            "axe.launch names {} parameters but the lowered kernel has {count} (memref arguments expand into several \
             PTX parameters: use pointers and scalars)",
            names.len()
        ));
    }
    for (i, n) in names.iter().enumerate() {
        if !is_name(n) {
            return Err(format!("axe.launch parameter {i} is named '{n}', not an identifier ([A-Za-z_][A-Za-z0-9_]*)"));
        }
        if names[..i].contains(n) {
            return Err(format!("axe.launch names two parameters '{n}'"));
        }
    }
    Ok(names)
}

/// `axe.launch = {grid = [x, y, z]}`: three expressions of the parameters, when present.
fn grid(launch: Option<DictionaryAttribute>, names: &[String]) -> Result<Option<[String; 3]>, String> {
    let Some(grid) = launch.and_then(|d| d.element_by_name("grid")) else { return Ok(None) };
    let grid = strings(grid).ok_or_else(|| format!("axe.launch grid must be UTF-8 strings, got {grid}"))?;
    let grid: [String; 3] = grid
        .try_into()
        .map_err(|g: Vec<String>| format!("axe.launch grid must have 3 entries (x, y, z), got {}", g.len()))?;
    for g in &grid {
        Expr::parse_named(g, names).map_err(|e| format!("grid expression '{g}': {e}"))?;
    }
    Ok(Some(grid))
}

/// `axe.dynamic_shared_bytes` (0 without it).
fn dynamic_shared_bytes(op: OperationRef) -> Result<u64, String> {
    match op.attribute("axe.dynamic_shared_bytes").ok() {
        Some(a) => IntegerAttribute::try_from(a)
            .ok()
            .and_then(|i| u64::try_from(i.value()).ok())
            .ok_or_else(|| format!("axe.dynamic_shared_bytes must be a non-negative integer, got {a}")),
        None => Ok(0),
    }
}

/// Every map of `axe.tensor_maps`, in order.
fn tensor_map_records(op: OperationRef, names: &[String]) -> Result<Vec<TensorMap>, String> {
    let maps: Vec<Attribute> = match op.attribute("axe.tensor_maps").ok() {
        Some(a) => {
            let array =
                ArrayAttribute::try_from(a).map_err(|_| format!("axe.tensor_maps must be an array, got {a}"))?;
            (0..array.len()).filter_map(|i| array.element(i).ok()).collect()
        }
        None => Vec::new(),
    };
    let mut tensor_maps = Vec::new();
    for (i, map) in maps.into_iter().enumerate() {
        let dict = DictionaryAttribute::try_from(map)
            .map_err(|_| format!("tensor map {i} must be a dictionary, got {map}"))?;
        tensor_maps.push(map_record(dict, names).map_err(|e| format!("tensor map {i}: {e}"))?);
    }
    Ok(tensor_maps)
}

/// The kernel's own `axe.preconditions` (over `arg<i>`, renamed), then every tensor map's, without repeats.
fn preconditions(op: OperationRef, names: &[String], tensor_maps: &[TensorMap]) -> Result<Vec<String>, String> {
    let mut preconditions = Vec::new();
    if let Ok(a) = op.attribute(PRECONDITIONS_ATTRIBUTE) {
        let own = strings(a).ok_or_else(|| format!("{PRECONDITIONS_ATTRIBUTE} must be UTF-8 strings, got {a}"))?;
        for p in own {
            preconditions.push(record_text(&p, names, true).map_err(|e| format!("precondition {e}"))?);
        }
    }
    for map in tensor_maps {
        preconditions.extend(map.preconditions.iter().cloned());
    }
    let mut seen = std::collections::HashSet::new();
    preconditions.retain(|p| seen.insert(p.clone()));
    Ok(preconditions)
}

/// `gpu.known_block_size` (or `nvvm.maxntid`): three positive dimensions when present.
fn block_dims(op: OperationRef) -> Result<Option<[u32; 3]>, String> {
    for key in ["gpu.known_block_size", "nvvm.maxntid"] {
        if let Some(dims) = i32_triple(op, key)? {
            return Ok(Some(dims));
        }
    }
    Ok(None)
}

/// The kernel attribute `key` as `array<i32: x, y, z>` with every entry at least 1; `None` when absent.
fn i32_triple(op: OperationRef, key: &str) -> Result<Option<[u32; 3]>, String> {
    let Ok(a) = op.attribute(key) else { return Ok(None) };
    let dims = DenseI32ArrayAttribute::try_from(a)
        .ok()
        .map(|d| (0..d.len()).filter_map(|i| d.element(i).ok()).collect::<Vec<i32>>())
        .ok_or_else(|| format!("{key} must be array<i32: x, y, z>, got {a}"))?;
    let dims: [i32; 3] =
        dims.try_into().map_err(|d: Vec<i32>| format!("{key} must have 3 entries (x, y, z), got {}", d.len()))?;
    if dims.iter().any(|&d| d < 1) {
        return Err(format!("{key} entries must be at least 1, got {a}"));
    }
    Ok(Some(dims.map(|d| d as u32)))
}

/// `local_shapes = [array<i64: 8, 4>, ...]` of an `axe.symmetric` entry: one shape per rank.
fn symmetric_shapes(attribute: Attribute) -> Option<Vec<Vec<u64>>> {
    let array = ArrayAttribute::try_from(attribute).ok()?;
    (0..array.len())
        .map(|r| {
            let shape = DenseI64ArrayAttribute::try_from(array.element(r).ok()?).ok()?;
            (0..shape.len()).map(|d| shape.element(d).ok().and_then(|e| u64::try_from(e).ok())).collect()
        })
        .collect()
}

/// The kernel's `axe.symmetric = [{arg = i, bytes = n, local_shapes = [...]}]` (empty without it).
/// The kernel's `axe.views` (written by `--lower-copy`), one per parameter (the first of equal entries).
fn view_records(op: OperationRef, names: &[String]) -> Result<Vec<View>, String> {
    let key = axe_passes::lower_copy::VIEWS_ATTRIBUTE;
    let Ok(attribute) = op.attribute(key) else { return Ok(Vec::new()) };
    let array = ArrayAttribute::try_from(attribute).map_err(|_| format!("{key} must be an array, got {attribute}"))?;
    let mut records: Vec<View> = Vec::new();
    for i in 0..array.len() {
        let Ok(entry) = array.element(i) else { continue };
        let dict = DictionaryAttribute::try_from(entry)
            .map_err(|_| format!("{key} entry {i} must be a dictionary, got {entry}"))?;
        let arg = dict
            .element_by_name("arg")
            .and_then(|a| IntegerAttribute::try_from(a).ok())
            .and_then(|a| usize::try_from(a.value()).ok())
            .filter(|a| *a < names.len())
            .ok_or_else(|| format!("{key} entry {i} needs an argument index below {}", names.len()))?;
        let dtype = dict
            .element_by_name("dtype")
            .and_then(string_bytes)
            .and_then(|b| String::from_utf8(b).ok())
            .ok_or_else(|| format!("{key} entry {i} needs a dtype string"))?;
        let dims = dict
            .element_by_name("dims")
            .and_then(strings)
            .ok_or_else(|| format!("{key} entry {i} needs dims, an array of strings"))?;
        let dims = dims
            .iter()
            .map(|d| record_text(d, names, false).map_err(|e| format!("{key} entry {i}: extent {e}")))
            .collect::<Result<Vec<String>, String>>()?;
        let view = View { param: names[arg].clone(), param_index: arg, dtype, dims };
        match records.iter().find(|r| r.param_index == arg) {
            Some(seen) if seen.dtype != view.dtype || seen.dims != view.dims => {
                return Err(format!(
                    "{key}: parameter {} is viewed both as {}[{}] and as {}[{}]",
                    view.param,
                    seen.dtype,
                    seen.dims.join(", "),
                    view.dtype,
                    view.dims.join(", ")
                ))
            }
            Some(_) => {}
            None => records.push(view),
        }
    }
    Ok(records)
}

fn symmetric_records(op: OperationRef, names: &[String]) -> Result<Vec<Symmetric>, String> {
    let Ok(attribute) = op.attribute("axe.symmetric") else { return Ok(Vec::new()) };
    let array =
        ArrayAttribute::try_from(attribute).map_err(|_| format!("axe.symmetric must be an array, got {attribute}"))?;
    let mut records = Vec::new();
    for i in 0..array.len() {
        let Ok(entry) = array.element(i) else { continue };
        let dict = DictionaryAttribute::try_from(entry)
            .map_err(|_| format!("axe.symmetric entry {i} must be a dictionary, got {entry}"))?;
        let field = |key: &str| {
            dict.element_by_name(key)
                .and_then(|a| IntegerAttribute::try_from(a).ok())
                .and_then(|a| u64::try_from(a.value()).ok())
                .ok_or_else(|| format!("axe.symmetric entry {i} needs a non-negative integer {key}"))
        };
        let (arg, bytes) = (field("arg")?, field("bytes")?);
        let param = usize::try_from(arg).ok().and_then(|a| names.get(a)).ok_or_else(|| {
            format!("axe.symmetric entry {i} names argument {arg}, past the {} parameters", names.len())
        })?;
        let local_shapes = match dict.element_by_name("local_shapes") {
            None => None,
            Some(a) => Some(symmetric_shapes(a).ok_or_else(|| {
                format!("axe.symmetric entry {i}: local_shapes must be [array<i64: ...>, ...] (non-negative), got {a}")
            })?),
        };
        records.push(Symmetric { arg: arg as usize, param: param.clone(), bytes, local_shapes });
    }
    Ok(records)
}

/// One tensor map, every field of the kind `--lower-tma` writes and within the driver's ranges.
fn map_record(dict: DictionaryAttribute, names: &[String]) -> Result<TensorMap, String> {
    let field = |key: &str| dict.element_by_name(key).ok_or_else(|| format!("{key} is missing"));
    let int = |key: &str, max: i64| -> Result<i64, String> {
        let a = field(key)?;
        let value = IntegerAttribute::try_from(a).map_err(|_| format!("{key} must be an integer, got {a}"))?.value();
        if !(0..=max).contains(&value) {
            return Err(format!("{key} is {value}, must be in 0..={max}"));
        }
        Ok(value)
    };
    let ints = |key: &str, range: std::ops::RangeInclusive<i64>| -> Result<Vec<u32>, String> {
        let a = field(key)?;
        let array = DenseI64ArrayAttribute::try_from(a)
            .map_err(|_| format!("{key} must be array<i64: ...> (what --lower-tma writes), got {a}"))?;
        let values: Vec<i64> = (0..array.len()).filter_map(|i| array.element(i).ok()).collect();
        match values.iter().find(|v| !range.contains(*v)) {
            Some(v) => Err(format!("{key} holds {v}, each entry must be in {}..={}", range.start(), range.end())),
            None => Ok(values.iter().map(|&v| v as u32).collect()),
        }
    };
    let exprs = |key: &str, comparison: bool| -> Result<Vec<String>, String> {
        let a = field(key)?;
        let items = strings(a).ok_or_else(|| format!("{key} must be an array of UTF-8 strings, got {a}"))?;
        items.iter().map(|e| record_text(e, names, comparison).map_err(|err| format!("{key} {err}"))).collect()
    };
    let arg = int("arg", i64::from(u32::MAX))? as usize;
    let param = names.get(arg).ok_or_else(|| format!("arg {arg} is past the {} parameters", names.len()))?;
    let data_type = int("data_type", 12)? as u32;
    let rank = int("rank", 5)? as u32;
    if rank < 1 {
        return Err("rank is 0, must be in 1..=5".to_string());
    }
    let offset = int("global_offset_bytes", i64::MAX)?;
    let map = TensorMap {
        param: param.clone(),
        param_index: arg,
        global_address: format!("{param} + {offset}"),
        data_type,
        data_type_name: TensorMapDataType::from_code(data_type).map_or("UNKNOWN", TensorMapDataType::name),
        rank,
        global_dims: exprs("global_dims", false)?,
        global_strides_bytes: exprs("global_strides_bytes", false)?,
        box_dims: ints("box_dims", 1..=256)?,
        element_strides: ints("element_strides", 1..=8)?,
        interleave: int("interleave", 2)? as u32,
        swizzle: int("swizzle", 3)? as u32,
        l2_promotion: int("l2_promotion", 3)? as u32,
        oob_fill: int("oob_fill", 1)? as u32,
        preconditions: exprs("preconditions", true)?,
    };
    let rank = rank as usize;
    for (key, len, want) in [
        ("global_dims", map.global_dims.len(), rank),
        ("global_strides_bytes", map.global_strides_bytes.len(), rank - 1),
        ("box_dims", map.box_dims.len(), rank),
        ("element_strides", map.element_strides.len(), rank),
    ] {
        if len != want {
            return Err(format!("{key} has {len} entries, the rank {rank} needs {want}"));
        }
    }
    Ok(map)
}

/// An expression (a precondition with `comparison`) the passes wrote over `arg<i>`, as the record states it: parsed
/// and printed over the parameter names (`axe_layout::hw::expr`), every argument it reads a parameter. An error
/// quotes the text over the names, then the rule (`'N - 1': unexpected '-'`).
fn record_text(text: &str, names: &[String], comparison: bool) -> Result<String, String> {
    let parsed = if comparison {
        Precondition::parse(text).map(|p| (p.args(), p.named(names).to_string()))
    } else {
        Expr::parse(text).map(|e| (e.args(), e.named(names).to_string()))
    };
    let quoted = || rename_args_text(text, names);
    let (args, printed) = parsed.map_err(|e| format!("'{}': {e}", quoted()))?;
    match args.iter().find(|&&i| i >= names.len()) {
        Some(i) => Err(format!("'{}': 'arg{i}' is neither an integer nor a parameter name", quoted())),
        None => Ok(printed),
    }
}

/// The PTX parameter type of an LLVM dialect argument type.
fn ptx_type(ty: &str) -> &'static str {
    match ty {
        t if t.starts_with("!llvm.ptr") => "u64",
        "i1" | "i8" => "u8",
        "i16" => "u16",
        "i32" => "u32",
        "i64" => "u64",
        "f16" => "b16",
        "f32" => "f32",
        "f64" => "f64",
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_argument_tokens_only() {
        let names = ["A".to_string(), "M".to_string(), "K".to_string()];
        assert_eq!(record_text("arg2 * 2", &names, false).unwrap(), "K * 2");
        assert_eq!(record_text("arg1 % 16 == 0", &names, true).unwrap(), "M % 16 == 0");
        assert_eq!(rename_args_text("arg9 + argx", &names), "arg9 + argx");
        assert!(record_text("arg9 + arg1", &names, false).unwrap_err().starts_with("'arg9 + M': 'arg9' is neither"));
    }

    #[test]
    fn expressions_follow_the_grammar() {
        let names = ["M".to_string(), "N".to_string()];
        let check_expression = |text: &str, names: &[String], comparison: bool| {
            let names = names.to_vec();
            if comparison {
                Precondition::parse_named(text, &names).map(|_| ()).map_err(|e| e.to_string())
            } else {
                Expr::parse_named(text, &names).map(|_| ()).map_err(|e| e.to_string())
            }
        };
        assert!(check_expression("ceildiv(N, 128)", &names, false).is_ok());
        assert!(check_expression("1", &names, false).is_ok());
        assert!(check_expression("(M + 1) * N / 2 % 3", &names, false).is_ok());
        assert!(check_expression("ceildiv(Q, 128)", &names, false).unwrap_err().contains("'Q'"));
        assert!(check_expression("ceildiv(N, 128", &names, false).is_err());
        assert!(check_expression("N - 1", &names, false).is_err());
        assert!(check_expression("N +", &names, false).is_err());
        assert!(check_expression("N == 1", &names, false).unwrap_err().contains("only in a precondition"));
        assert!(check_expression("N % 8 == 0", &names, true).is_ok());
        assert!(check_expression("M * 2 <= 4294967296", &names, true).is_ok());
        assert!(check_expression("N % 8", &names, true).is_err());
        assert!(check_expression("N < M < 3", &names, true).is_err());
        assert!(check_expression("99999999999999999999", &names, false).is_err());
    }

    #[test]
    fn ptx_identifiers() {
        for good in ["k", "gemm_sm80", "_k", "$k", "%k1", "K$2"] {
            assert!(is_ptx_identifier(good), "{good}");
        }
        for bad in ["", "_", "$", "1k", "k.1", "k-1", "ké"] {
            assert!(!is_ptx_identifier(bad), "{bad}");
        }
    }

    #[test]
    fn the_record_is_json_with_one_object_a_line() {
        let record = LaunchRecord {
            chip: "sm_80".into(),
            kernels: vec![KernelRecord {
                name: "k".into(),
                grid: Some(["ceildiv(M, 128)".into(), "1".into(), "1".into()]),
                block: Some([128, 1, 1]),
                cluster: [2, 1, 1],
                dynamic_shared_bytes: 0,
                params: vec![
                    Param { name: "A".into(), ptx_name: "k_param_0".into(), ptx_type: "u64", kind: ParamKind::Pointer },
                    Param { name: "M".into(), ptx_name: "k_param_1".into(), ptx_type: "u32", kind: ParamKind::Scalar },
                ],
                tensor_maps: Vec::new(),
                symmetric: vec![Symmetric {
                    arg: 0,
                    param: "A".into(),
                    bytes: 64,
                    local_shapes: Some(vec![vec![8, 4], vec![8, 4]]),
                }],
                views: vec![View {
                    param: "A".into(),
                    param_index: 0,
                    dtype: "f16".into(),
                    dims: vec!["M".into(), "8".into()],
                }],
                preconditions: vec!["A % 16 == 0".into(), "M % 8 == 0".into()],
            }],
        };
        let text = record.to_json().unwrap();
        let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed["kernels"][0]["params"][1]["kind"], "scalar");
        assert_eq!(parsed["kernels"][0]["preconditions"][0], "A % 16 == 0");
        assert_eq!(parsed["kernels"][0]["symmetric"][0]["bytes"], 64);
        assert_eq!(parsed["kernels"][0]["symmetric"][0]["local_shapes"][1], serde_json::json!([8, 4]));
        assert_eq!(parsed["kernels"][0]["views"][0]["dims"], serde_json::json!(["M", "8"]));
        assert_eq!(parsed["kernels"][0]["cluster"], serde_json::json!([2, 1, 1]));
        assert!(text.contains(
            "\n        {\"name\": \"A\", \"ptx_name\": \"k_param_0\", \"ptx_type\": \"u64\", \"kind\": \"pointer\"},\n"
        ));
        assert!(text.contains("\"tensor_maps\": [],\n"));
    }
}
