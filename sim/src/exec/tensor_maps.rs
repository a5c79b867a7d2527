//! The tensor maps of the kernel's attributes (`axe.tensor_maps` entries, `axe.tma_descriptor` arguments):
//! their `cuTensorMapEncodeTiled` fields and preconditions, evaluated on the launch's integer arguments.

use super::{array_ints, err};
use crate::isa::{self, TensorMap};
use crate::value::split_top;
use crate::SimError;

/// The items of `key = array<i64: ...>`, `key = ["expr", ...]` or `key = N : iW` in a printed dictionary.
fn dict_items(dict: &str, key: &str) -> Option<Vec<String>> {
    let at = dict.find(&format!("{key} = "))? + key.len() + 3;
    let rest = &dict[at..];
    if let Some(arr) = rest.strip_prefix("array<") {
        let end = arr.find('>')?;
        return Some(array_ints(&arr[..end]).iter().map(i64::to_string).collect());
    }
    if let Some(list) = rest.strip_prefix('[') {
        let end = list.find(']')?;
        return Some(split_top(&list[..end]).iter().map(|s| s.trim_matches('"').to_string()).collect());
    }
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    Some(vec![rest[..end].split(':').next()?.trim().to_string()])
}

/// Evaluates a tensor-map field as `--lower-tma` writes it: a number, or a product of kernel arguments (`argN`)
/// and numbers with an optional exact ` / divisor` (`arg5 * 2`).
fn eval_field(text: &str, ints: &[Option<i64>], loc: &str) -> Result<i64, SimError> {
    let bad = || SimError::new(loc, format!("tensor-map field `{text}` is not a product of arguments and numbers"));
    let (product, divisor) = match text.split_once('/') {
        Some((p, d)) => (p, d.trim().parse::<i64>().map_err(|_| bad())?),
        None => (text, 1),
    };
    let mut value: i64 = 1;
    for factor in product.split('*').map(str::trim) {
        let f = match factor.strip_prefix("arg") {
            Some(n) => {
                let i: usize = n.parse().map_err(|_| bad())?;
                ints.get(i).copied().flatten().ok_or_else(|| {
                    SimError::new(loc, format!("`{text}` reads argument {i}, which is not an integer"))
                })?
            }
            None => factor.parse().map_err(|_| bad())?,
        };
        value = value.checked_mul(f).ok_or_else(bad)?;
    }
    if divisor < 1 || value % divisor != 0 {
        return Err(bad());
    }
    Ok(value / divisor)
}

/// Checks a tensor map's `preconditions` (`"arg3 % 16 == 0"`, `"arg5 >= 1"`, ...) on the launch's arguments:
/// a launch that breaks one is refused, as the host would have to refuse it.
pub(super) fn check_preconditions(dict: &str, ints: &[Option<i64>], loc: &str) -> Result<(), SimError> {
    let Some(conds) = dict_items(dict, "preconditions") else { return Ok(()) };
    for cond in conds {
        let bad = || SimError::new(loc, format!("not modelled: precondition `{cond}`"));
        let (lhs, op, rhs) = ["==", ">=", "<=", "<", ">"]
            .iter()
            .find_map(|op| cond.split_once(op).map(|(l, r)| (l, *op, r)))
            .ok_or_else(bad)?;
        let l = match lhs.split_once('%') {
            Some((a, m)) => {
                let (a, m) = (eval_field(a.trim(), ints, loc)?, eval_field(m.trim(), ints, loc)?);
                a.checked_rem(m).ok_or_else(bad)?
            }
            None => eval_field(lhs.trim(), ints, loc)?,
        };
        let r = eval_field(rhs.trim(), ints, loc)?;
        let holds = match op {
            "==" => l == r,
            ">=" => l >= r,
            "<=" => l <= r,
            "<" => l < r,
            _ => l > r,
        };
        if !holds {
            return err(loc, format!("launch breaks the tensor map's precondition `{cond}` ({l} vs {r})"));
        }
    }
    Ok(())
}

/// The `cuTensorMapEncodeTiled` fields of a tensor-map dictionary (`axe.tensor_maps` entry or the argument's
/// `axe.tma_descriptor`), run-time fields evaluated on the launch's integer arguments.
pub(super) fn tensor_map(dict: &str, buffer: u64, ints: &[Option<i64>], loc: &str) -> Result<TensorMap, SimError> {
    let get = |k: &str| -> Result<Vec<i64>, SimError> {
        let items = dict_items(dict, k).ok_or_else(|| {
            SimError::new(loc, format!("tensor map without `{k}` (axe.tensor_maps / axe.tma_descriptor)"))
        })?;
        items.iter().map(|t| eval_field(t, ints, loc)).collect()
    };
    let one = |k: &str| get(k).map(|v| v.first().copied().unwrap_or(0));
    let data_type = one("data_type")? as u32;
    let elem_bytes = isa::tensor_map_elem_bytes(data_type)
        .ok_or_else(|| SimError::new(loc, format!("unknown CUtensorMapDataType {data_type}")))?;
    Ok(TensorMap {
        data_type,
        elem_bytes,
        base: buffer + one("global_offset_bytes")? as u64,
        dims: get("global_dims")?,
        strides: get("global_strides_bytes")?,
        box_dims: get("box_dims")?,
        elem_strides: get("element_strides")?,
        swizzle: one("swizzle")? as u32,
        interleave: one("interleave")? as u32,
        oob_fill: one("oob_fill")? as u32,
    })
}
