//! Per-thread memo tables: facts that are pure functions of IR text are computed once per distinct text.
//!
//! A module of thousands of ops names a handful of layouts and tensor types; parsing a layout (the notation's
//! parser), reading a tensor type, canonicalizing a layout and checking a slice's layout element by element are
//! each done once per distinct text, not once per use, so passes and the verifier cost a hash lookup per op.
//!
//! The tables are thread-local (contexts are single-threaded) and bounded: a table that reaches
//! [`MAX_ENTRIES`] is cleared, so a fuzzer or a generated module with millions of distinct texts costs at most
//! that much memory. Layout parses are memoized only when they succeed: an axis declared later
//! (`axe.axes`) can make a failing text parse, never the reverse.

use crate::types::TensorType;
use axe_layout::{notation::parse_layout, Layout, LayoutError};
use std::{cell::RefCell, collections::HashMap, hash::Hash, thread::LocalKey};

/// Entries per table before it is cleared.
pub const MAX_ENTRIES: usize = 1 << 14;

/// A thread-local memo table.
type Table<K, V> = RefCell<HashMap<K, V>>;

thread_local! {
    static LAYOUTS: Table<String, Layout> = RefCell::default();
    static CANONICAL: Table<String, Option<String>> = RefCell::default();
    static TENSOR_TYPES: Table<String, Result<Option<TensorType>, String>> = RefCell::default();
    static TENSOR_HANDLES: Table<(usize, usize), Result<Option<TensorType>, String>> = RefCell::default();
    static SLICE_CHECKS: Table<SliceKey, Option<String>> = RefCell::default();
}

/// A slice-layout check: source type, result type, region bounds.
pub type SliceKey = (TensorType, TensorType, Vec<(i64, i64)>);

/// The value memoized under `key` in `table`, computing it (outside the table's borrow) on a miss.
fn memoized<K: Eq + Hash, V: Clone>(
    table: &'static LocalKey<Table<K, V>>,
    key: K,
    compute: impl FnOnce() -> V,
    keep: impl FnOnce(&V) -> bool,
) -> V {
    if let Some(value) = table.with(|t| t.borrow().get(&key).cloned()) {
        return value;
    }
    let value = compute();
    if keep(&value) {
        table.with(|t| {
            let mut t = t.borrow_mut();
            if t.len() >= MAX_ENTRIES {
                t.clear();
            }
            t.insert(key, value.clone());
        });
    }
    value
}

/// `axe_layout::notation::parse_layout`, once per distinct text that parses.
pub fn layout(text: &str) -> Result<Layout, LayoutError> {
    if let Some(layout) = LAYOUTS.with(|t| t.borrow().get(text).cloned()) {
        return Ok(layout);
    }
    let layout = parse_layout(text)?;
    memoized(&LAYOUTS, text.to_string(), || layout.clone(), |_| true);
    Ok(layout)
}

/// The canonical text of a layout text (paper App. A, printed canonically); `None` when it does not parse.
pub fn canonical_text(text: &str) -> Option<String> {
    memoized(&CANONICAL, text.to_string(), || layout(text).ok().map(|l| l.canonical().to_string()), Option::is_some)
}

/// [`TensorType::parse`], once per distinct type text.
pub fn tensor_type(text: &str) -> Result<Option<TensorType>, String> {
    memoized(&TENSOR_TYPES, text.to_string(), || TensorType::parse(text), |_| true)
}

/// [`TensorType::parse`] of a type in a live context, once per distinct type: keyed by the type's identity
/// ([`crate::ffi::type_key`]), so a hit neither prints the type nor hashes its text.
pub fn tensor_type_of(ty: melior::ir::Type) -> Result<Option<TensorType>, String> {
    memoized(&TENSOR_HANDLES, crate::ffi::type_key(ty), || tensor_type(&ty.to_string()), |_| true)
}

/// Forgets every entry keyed by a context's handles. `create_context` calls it: a new context may reuse a
/// dropped one's addresses, and its types must not hit the old entries.
pub(crate) fn forget_handles() {
    TENSOR_HANDLES.with(|t| t.borrow_mut().clear());
}

/// The outcome of a slice-layout check (`None`: it holds; `Some(message)`: the violation), once per key.
pub fn slice_check(key: SliceKey, check: impl FnOnce() -> Option<String>) -> Option<String> {
    memoized(&SLICE_CHECKS, key, check, |_| true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memoized_answers_equal_fresh_ones() {
        for text in ["S[(8,4):(4@laneid,1@laneid)]", "Swizzle(3,3,3) o S[(8,64):(64,1)]", "S[(2,4):(4,1)] + 0"] {
            for _ in 0..2 {
                assert_eq!(layout(text).map(|l| l.to_string()), parse_layout(text).map(|l| l.to_string()));
                assert_eq!(canonical_text(text), parse_layout(text).ok().map(|l| l.canonical().to_string()));
            }
        }
        assert!(layout("S[(8:").is_err() && layout("S[(8:").is_err());
        assert_eq!(canonical_text("S[(8:"), None);
        let ty = "!axe.tensor<8xf16, shared, S[8:1]>";
        assert_eq!(tensor_type(ty), TensorType::parse(ty));
        assert_eq!(tensor_type(ty), TensorType::parse(ty));
        assert_eq!(tensor_type("f16"), Ok(None));
    }

    #[test]
    fn a_full_table_is_cleared_not_grown() {
        let ty = "!axe.tensor<8xf16, shared, S[8:1]>";
        for i in 0..MAX_ENTRIES + 10 {
            let _ = tensor_type(&format!("t{i}"));
        }
        assert!(TENSOR_TYPES.with(|t| t.borrow().len()) <= MAX_ENTRIES);
        let t = TensorType::parse(ty).ok().flatten().expect("a tensor");
        let key = (t.clone(), t, Vec::new());
        assert_eq!(slice_check(key.clone(), || Some("bad".into())), Some("bad".into()));
        assert_eq!(slice_check(key, || None), Some("bad".into()), "the second call is answered from the table");
    }
}
