//! The tensor maps of the kernel's attributes (`axe.tensor_maps` entries, `axe.tma_descriptor` arguments):
//! their `cuTensorMapEncodeTiled` fields and preconditions, evaluated on the launch's integer arguments.

use super::{array_ints, err};
use crate::isa::{self, TensorMap};
use crate::value::split_top;
use crate::SimError;
use axe_layout::hw::expr::{Expr, Precondition};

/// One entry of a dictionary field: a number (`array<i64: ...>`, `N : iW`) or the text of a string (`"arg5 * 2"`).
enum Item<'d> {
    Int(i64),
    Text(&'d str),
}

/// The items of `key = array<i64: ...>`, `key = ["expr", ...]` or `key = N : iW` in a printed dictionary.
fn dict_items<'d>(dict: &'d str, key: &str) -> Option<Vec<Item<'d>>> {
    let at = dict.find(&format!("{key} = "))? + key.len() + 3;
    let rest = &dict[at..];
    if let Some(arr) = rest.strip_prefix("array<") {
        let end = arr.find('>')?;
        return Some(array_ints(&arr[..end]).into_iter().map(Item::Int).collect());
    }
    if let Some(list) = rest.strip_prefix('[') {
        let end = list.find(']')?;
        return Some(split_top(&list[..end]).into_iter().map(|s| Item::Text(s.trim().trim_matches('"'))).collect());
    }
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    let text = rest[..end].split(':').next()?.trim();
    Some(vec![text.parse().map_or(Item::Text(text), Item::Int)])
}

/// A launch's integer argument `i`, when it is one.
fn argument(ints: &[Option<i64>]) -> impl Fn(usize) -> Option<i64> + '_ {
    |i| ints.get(i).copied().flatten()
}

/// Evaluates a tensor-map field: a number, or an expression of the kernel's arguments as `--lower-tma` prints it
/// (`arg5 * 2`, `axe_layout::hw::expr`).
fn eval_field(item: &Item, ints: &[Option<i64>], loc: &str) -> Result<i64, SimError> {
    let text = match item {
        Item::Int(v) => return Ok(*v),
        Item::Text(text) => text,
    };
    Expr::parse(text)
        .and_then(|expr| expr.eval_with(&argument(ints)))
        .map_err(|e| SimError::new(loc, format!("tensor-map field `{text}`: {e}")))
}

/// Checks a tensor map's `preconditions` (`"arg3 % 16 == 0"`, `"arg5 >= 1"`, ...) on the launch's arguments:
/// a launch that breaks one is refused, as the host would have to refuse it.
pub(super) fn check_preconditions(dict: &str, ints: &[Option<i64>], loc: &str) -> Result<(), SimError> {
    let Some(conds) = dict_items(dict, "preconditions") else { return Ok(()) };
    for cond in conds {
        let cond = match cond {
            Item::Text(text) => text.to_string(),
            Item::Int(v) => v.to_string(),
        };
        let bad = |e| SimError::new(loc, format!("tensor-map precondition `{cond}`: {e}"));
        let precondition = Precondition::parse(&cond).map_err(bad)?;
        let (l, r) = precondition.sides_with(&argument(ints)).map_err(bad)?;
        if !precondition.cmp.holds(l, r) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An `axe.tensor_maps` entry as `--lower-tma` writes it for a run-time-sized `[arg1, arg2]` f16 tensor.
    const MAP: &str = "{arg = 0 : i64, data_type = 6 : i32, rank = 2 : i32, global_dims = [\"arg2\", \"arg1\"], \
        global_strides_bytes = [\"arg2 * 2\"], box_dims = array<i64: 64, 128>, element_strides = array<i64: 1, 1>, \
        interleave = 0 : i32, swizzle = 3 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, \
        global_offset_bytes = 0 : i64, preconditions = [\"arg1 >= 1\", \"arg2 % 16 == 0\", \
        \"arg2 * 2 < 1099511627776\"]}";

    /// The fields evaluate on the launch's integers (dims innermost first: K = 64 then M = 256; the row stride
    /// 64 * 2 bytes), and the preconditions are checked on them.
    #[test]
    fn fields_and_preconditions_evaluate_on_the_arguments() {
        let ints = [None, Some(256), Some(64)];
        let map = tensor_map(MAP, 0x1000, &ints, "k").unwrap();
        assert_eq!((map.dims, map.strides, map.box_dims), (vec![64, 256], vec![128], vec![64, 128]));
        assert!(check_preconditions(MAP, &ints, "k").is_ok());
        // K = 40 is not a multiple of 16: 40 % 16 is 8.
        let broken = check_preconditions(MAP, &[None, Some(256), Some(40)], "k").unwrap_err();
        assert_eq!(broken.message, "launch breaks the tensor map's precondition `arg2 % 16 == 0` (8 vs 0)");
    }

    /// A field that overflows or reads an argument that is no integer is refused, with the reason.
    #[test]
    fn fields_without_a_value_are_refused() {
        let overflow = tensor_map(MAP, 0, &[None, Some(1), Some(i64::MAX)], "k").unwrap_err();
        assert_eq!(overflow.message, "tensor-map field `arg2 * 2`: overflow: 9223372036854775807 * 2 is past 64 bits");
        let pointer = tensor_map(MAP, 0, &[None, None, Some(64)], "k").unwrap_err();
        assert_eq!(pointer.message, "tensor-map field `arg1`: argument 1 is not an integer of the launch");
        let bad = MAP.replace("\"arg1 >= 1\"", "\"arg1 => 1\"");
        let refused = check_preconditions(&bad, &[None, Some(256), Some(64)], "k").unwrap_err();
        assert_eq!(refused.message, "tensor-map precondition `arg1 => 1`: unexpected '='");
    }
}
