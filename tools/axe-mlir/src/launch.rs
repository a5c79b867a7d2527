//! `axe-translate --emit=launch`: the launch contract of each kernel, as JSON (what Triton's compiled-kernel
//! metadata is): a runtime or a test launches the PTX from it without reading the compiler.
//!
//! Read from the lowered module (after `--lower-to-nvvm`, and `--axe-dynamic-shared` when used), per `llvm.func`
//! kernel of the selected `gpu.module`, in IR order:
//! - `name`; `block` from `gpu.known_block_size` (or `nvvm.maxntid`);
//! - `grid`: the kernel's `axe.launch = {grid = [...]}` expressions, over the parameter names of
//!   `axe.launch = {params = [...]}` (one per argument; `param<i>` without it);
//! - `dynamic_shared_bytes`: `axe.dynamic_shared_bytes` (0 without it);
//! - `params`, in PTX order: name, PTX name (`<kernel>_param_<i>`), PTX type, and `kind` (`tensor_map`: a
//!   pointer to the 128-byte `CUtensorMap` the host encodes, in device memory; `pointer`; `scalar`);
//! - `tensor_maps`: every map of `axe.tensor_maps` (written by `--lower-tma`), with every
//!   `cuTensorMapEncodeTiled` field (enums as the driver numbers them, arrays innermost first), `global_dims` and
//!   `global_strides_bytes` as expressions of the parameter names, `global_address` (the device pointer the
//!   parameter stood for, plus the offset) and the launch's `preconditions`;
//! - `symmetric`: every buffer of `axe.symmetric` (written by `--lower-collectives`) that each rank allocates on
//!   the NVSHMEM symmetric heap (`nvshmem_malloc(bytes)`, the same size on every rank) and passes as that
//!   argument: `arg` (the kernel argument's index), `param` (its name), `bytes`.
//!
//! Expressions are strings over parameter names and integers with `+`, `*`, `/` (exact), `%`, `ceildiv(a, b)`
//! and comparisons in preconditions. Output is deterministic: keys in a fixed order, kernels in IR order.

use anyhow::{anyhow, bail, Result};
use melior::ir::{
    attribute::{ArrayAttribute, DenseI32ArrayAttribute, DictionaryAttribute, IntegerAttribute, StringAttribute},
    operation::OperationLike,
    Attribute, OperationRef, RegionLike, ValueLike,
};

/// The JSON launch record of every kernel in `target` (a `gpu.module` of llvm ops), for `chip`.
pub fn launch_json(target: OperationRef, chip: &str) -> Result<String> {
    let mut kernels = Vec::new();
    let body = axe_dialect::access::region(target, 0).and_then(|r| r.first_block());
    let mut next = body.and_then(|b| b.first_operation());
    while let Some(op) = next {
        next = op.next_in_block();
        if op.name().as_string_ref().as_str() == Ok("llvm.func")
            && (op.has_attribute("gpu.kernel") || op.has_attribute("nvvm.kernel"))
        {
            kernels.push(kernel_json(op)?);
        }
    }
    if kernels.is_empty() {
        bail!("--emit=launch: no kernel (llvm.func with gpu.kernel) in the module; run axe-opt --lower-to-nvvm first");
    }
    Ok(format!("{{\n  \"chip\": {},\n  \"kernels\": [\n{}\n  ]\n}}\n", quote(chip), kernels.join(",\n")))
}

use melior::ir::block::BlockLike;

/// One kernel's record.
fn kernel_json(op: OperationRef) -> Result<String> {
    let name = string_attr(op.attribute("sym_name").ok()).ok_or_else(|| anyhow!("kernel without sym_name"))?;
    let entry = axe_dialect::access::region(op, 0)
        .and_then(|r| r.first_block())
        .ok_or_else(|| anyhow!("kernel @{name} has no body"))?;
    let types: Vec<String> = axe_dialect::access::arguments(entry).map(|a| a.r#type().to_string()).collect();
    let launch = op.attribute("axe.launch").ok().and_then(|a| DictionaryAttribute::try_from(a).ok());
    let names: Vec<String> = match launch.and_then(|d| d.element_by_name("params")) {
        Some(params) => strings(params).ok_or_else(|| anyhow!("@{name}: axe.launch params must be strings"))?,
        None => (0..types.len()).map(|i| format!("param{i}")).collect(),
    };
    if names.len() != types.len() {
        bail!(
            "@{name}: axe.launch names {} parameters but the lowered kernel has {} (memref arguments expand into \
             several PTX parameters: use pointers and scalars)",
            names.len(),
            types.len()
        );
    }
    let rename = |text: &str| rename_args(text, &names);
    let grid = match launch.and_then(|d| d.element_by_name("grid")) {
        Some(grid) => {
            let grid = strings(grid).ok_or_else(|| anyhow!("@{name}: axe.launch grid must be strings"))?;
            if grid.len() != 3 {
                bail!("@{name}: axe.launch grid must have 3 entries (x, y, z), got {}", grid.len());
            }
            for g in &grid {
                check_expression(g, &names).map_err(|e| anyhow!("@{name}: grid expression '{g}': {e}"))?;
            }
            format!("[{}]", grid.iter().map(|g| quote(g)).collect::<Vec<_>>().join(", "))
        }
        None => "null".to_string(),
    };
    let block = ["gpu.known_block_size", "nvvm.maxntid"]
        .iter()
        .find_map(|key| op.attribute(key).ok().and_then(|a| DenseI32ArrayAttribute::try_from(a).ok()))
        .map(|a| {
            let values: Vec<String> = (0..a.len()).filter_map(|i| a.element(i).ok()).map(|v| v.to_string()).collect();
            format!("[{}]", values.join(", "))
        })
        .unwrap_or_else(|| "null".to_string());
    let shared = op
        .attribute("axe.dynamic_shared_bytes")
        .ok()
        .and_then(|a| IntegerAttribute::try_from(a).ok())
        .map_or(0, |a| a.value());
    let maps: Vec<Attribute> = match op.attribute("axe.tensor_maps").ok() {
        Some(a) => {
            let array = ArrayAttribute::try_from(a).map_err(|_| anyhow!("@{name}: axe.tensor_maps is not an array"))?;
            (0..array.len()).filter_map(|i| array.element(i).ok()).collect()
        }
        None => Vec::new(),
    };
    let mut map_args = Vec::new();
    let mut map_json = Vec::new();
    for map in maps {
        let dict =
            DictionaryAttribute::try_from(map).map_err(|_| anyhow!("@{name}: a tensor map is not a dictionary"))?;
        let (arg, text) = map_record(dict, &names, &rename).map_err(|e| anyhow!("@{name}: {e}"))?;
        map_args.push(arg);
        map_json.push(text);
    }
    let params: Vec<String> = types
        .iter()
        .enumerate()
        .map(|(i, ty)| {
            let kind = if map_args.contains(&i) {
                "tensor_map"
            } else if ty.starts_with("!llvm.ptr") {
                "pointer"
            } else {
                "scalar"
            };
            format!(
                "        {{\"name\": {}, \"ptx_name\": {}, \"ptx_type\": {}, \"kind\": {}}}",
                quote(&names[i]),
                quote(&format!("{name}_param_{i}")),
                quote(ptx_type(ty)),
                quote(kind)
            )
        })
        .collect();
    let symmetric = symmetric_json(op, &names).map_err(|e| anyhow!("@{name}: {e}"))?;
    Ok(format!(
        "    {{\n      \"name\": {},\n      \"grid\": {grid},\n      \"block\": {block},\n      \
         \"dynamic_shared_bytes\": {shared},\n      \"params\": [\n{}\n      ],\n      \"tensor_maps\": [{}],\n      \
         \"symmetric\": [{symmetric}]\n    }}",
        quote(&name),
        params.join(",\n"),
        if map_json.is_empty() { String::new() } else { format!("\n{}\n      ", map_json.join(",\n")) }
    ))
}

/// The kernel's `axe.symmetric = [{arg = i, bytes = n}]` as JSON records (empty without it).
fn symmetric_json(op: OperationRef, names: &[String]) -> Result<String> {
    let Ok(attribute) = op.attribute("axe.symmetric") else { return Ok(String::new()) };
    let array = ArrayAttribute::try_from(attribute).map_err(|_| anyhow!("axe.symmetric is not an array"))?;
    let mut records = Vec::new();
    for entry in (0..array.len()).filter_map(|i| array.element(i).ok()) {
        let dict =
            DictionaryAttribute::try_from(entry).map_err(|_| anyhow!("an axe.symmetric entry is not a dictionary"))?;
        let field = |key: &str| {
            dict.element_by_name(key)
                .and_then(|a| IntegerAttribute::try_from(a).ok())
                .map(|a| a.value())
                .ok_or_else(|| anyhow!("an axe.symmetric entry has no integer {key}"))
        };
        let (arg, bytes) = (field("arg")?, field("bytes")?);
        let param = usize::try_from(arg).ok().and_then(|i| names.get(i)).map_or("null".to_string(), |n| quote(n));
        records.push(format!("\n        {{\"arg\": {arg}, \"param\": {param}, \"bytes\": {bytes}}}"));
    }
    Ok(if records.is_empty() { String::new() } else { format!("{}\n      ", records.join(",")) })
}

/// One tensor map: its argument index and its JSON.
fn map_record(dict: DictionaryAttribute, names: &[String], rename: &dyn Fn(&str) -> String) -> Result<(usize, String)> {
    let int = |key: &str| -> Result<i64> {
        dict.element_by_name(key)
            .and_then(|a| IntegerAttribute::try_from(a).ok())
            .map(|a| a.value())
            .ok_or_else(|| anyhow!("tensor map without {key}"))
    };
    let list = |key: &str| -> Result<Vec<String>> {
        dict.element_by_name(key).and_then(strings).ok_or_else(|| anyhow!("tensor map without {key} strings"))
    };
    let ints = |key: &str| -> Result<String> {
        let text = dict.element_by_name(key).ok_or_else(|| anyhow!("tensor map without {key}"))?.to_string();
        let values = text.trim_start_matches("array<i64").trim_start_matches(':').trim_end_matches('>').trim();
        let values: Vec<&str> = values.split(',').map(str::trim).filter(|v| !v.is_empty()).collect();
        Ok(format!("[{}]", values.join(", ")))
    };
    let arg = usize::try_from(int("arg")?).map_err(|_| anyhow!("tensor map arg"))?;
    let param = names.get(arg).ok_or_else(|| anyhow!("tensor map of argument {arg}, past the parameters"))?;
    let exprs = |key: &str| -> Result<String> {
        let items: Vec<String> = list(key)?.iter().map(|e| quote(&rename(e))).collect();
        Ok(format!("[{}]", items.join(", ")))
    };
    let data_type = int("data_type")?;
    let text = format!(
        "        {{\"param\": {}, \"param_index\": {arg}, \"global_address\": {}, \"data_type\": {data_type}, \
         \"data_type_name\": {}, \"rank\": {}, \"global_dims\": {}, \"global_strides_bytes\": {}, \"box_dims\": {}, \
         \"element_strides\": {}, \"interleave\": {}, \"swizzle\": {}, \"l2_promotion\": {}, \"oob_fill\": {}, \
         \"preconditions\": {}}}",
        quote(param),
        quote(&format!("{param} + {}", int("global_offset_bytes")?)),
        quote(data_type_name(data_type)),
        int("rank")?,
        exprs("global_dims")?,
        exprs("global_strides_bytes")?,
        ints("box_dims")?,
        ints("element_strides")?,
        int("interleave")?,
        int("swizzle")?,
        int("l2_promotion")?,
        int("oob_fill")?,
        exprs("preconditions")?,
    );
    Ok((arg, text))
}

/// `CUtensorMapDataType` names by the driver's numbers (cuda.h).
fn data_type_name(code: i64) -> &'static str {
    match code {
        0 => "UINT8",
        1 => "UINT16",
        2 => "UINT32",
        3 => "INT32",
        4 => "UINT64",
        5 => "INT64",
        6 => "FLOAT16",
        7 => "FLOAT32",
        8 => "FLOAT64",
        9 => "BFLOAT16",
        10 => "FLOAT32_FTZ",
        11 => "TFLOAT32",
        12 => "TFLOAT32_FTZ",
        _ => "UNKNOWN",
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

/// `argN` tokens replaced by the parameter names.
fn rename_args(text: &str, names: &[String]) -> String {
    let mut out = String::new();
    let mut token = String::new();
    let flush = |token: &mut String, out: &mut String| {
        let renamed = token
            .strip_prefix("arg")
            .and_then(|n| n.parse::<usize>().ok())
            .and_then(|i| names.get(i))
            .cloned()
            .unwrap_or_else(|| token.clone());
        out.push_str(&renamed);
        token.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            token.push(c);
        } else {
            flush(&mut token, &mut out);
            out.push(c);
        }
    }
    flush(&mut token, &mut out);
    out
}

/// Checks a grid expression: integers, parameter names, `+`, `*`, parentheses and `ceildiv(a, b)`.
fn check_expression(text: &str, names: &[String]) -> Result<(), String> {
    let mut depth = 0i32;
    let mut token = String::new();
    let check = |token: &str| -> Result<(), String> {
        if token.is_empty() || token == "ceildiv" || token.parse::<i64>().is_ok() || names.iter().any(|n| n == token) {
            Ok(())
        } else {
            Err(format!("'{token}' is neither an integer nor a parameter name"))
        }
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            token.push(c);
            continue;
        }
        check(&token)?;
        token.clear();
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            '+' | '*' | ',' | ' ' => {}
            other => return Err(format!("unexpected '{other}'")),
        }
        if depth < 0 {
            return Err("unbalanced parentheses".to_string());
        }
    }
    check(&token)?;
    if depth != 0 {
        return Err("unbalanced parentheses".to_string());
    }
    Ok(())
}

/// The strings of an array attribute of string attributes.
fn strings(attribute: Attribute) -> Option<Vec<String>> {
    let array = ArrayAttribute::try_from(attribute).ok()?;
    (0..array.len()).map(|i| string_attr(array.element(i).ok())).collect()
}

/// A string attribute's value.
fn string_attr(attribute: Option<Attribute>) -> Option<String> {
    Some(StringAttribute::try_from(attribute?).ok()?.value().to_string())
}

/// A JSON string literal.
fn quote(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_argument_tokens_only() {
        let names = ["A".to_string(), "M".to_string(), "K".to_string()];
        assert_eq!(rename_args("arg2 * 2", &names), "K * 2");
        assert_eq!(rename_args("arg1 % 16 == 0", &names), "M % 16 == 0");
        assert_eq!(rename_args("arg9 + argx", &names), "arg9 + argx");
    }

    #[test]
    fn grid_expressions() {
        let names = ["M".to_string(), "N".to_string()];
        assert!(check_expression("ceildiv(N, 128)", &names).is_ok());
        assert!(check_expression("1", &names).is_ok());
        assert!(check_expression("ceildiv(Q, 128)", &names).unwrap_err().contains("'Q'"));
        assert!(check_expression("ceildiv(N, 128", &names).is_err());
        assert!(check_expression("N - 1", &names).is_err());
    }

    #[test]
    fn json_strings_escape() {
        assert_eq!(quote("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
    }
}
