//! The layout text notation. STUB: being implemented (lalrpop grammar + pretty printer).

/// `[8,16]`-style text of a shape, for messages.
pub fn shape_text(shape: &[i64]) -> String {
    format!("[{}]", shape.iter().map(|e| e.to_string()).collect::<Vec<_>>().join(","))
}
