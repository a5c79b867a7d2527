//! The one error type of the layout algebra.
//!
//! Every fallible operation returns [`LayoutError`]: it carries a message that says what failed and why (with the
//! numbers), and, for text that does not parse, the byte column where parsing stopped.

use std::fmt;

/// Why a layout operation or a parse failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutError {
    /// What went wrong, lowercase, rule first, then the values found.
    pub message: String,
    /// For parse errors: the 0-based byte offset in the input where the problem is.
    pub column: Option<usize>,
}

impl LayoutError {
    /// An error with a message and no source position.
    pub fn new(message: impl Into<String>) -> Self {
        LayoutError { message: message.into(), column: None }
    }

    /// An error at a byte offset of the parsed text.
    pub fn at(column: usize, message: impl Into<String>) -> Self {
        LayoutError { message: message.into(), column: Some(column) }
    }
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.column {
            Some(c) => write!(f, "column {}: {}", c + 1, self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for LayoutError {}

/// How many items a message lists before it abbreviates the rest to a count.
pub const MESSAGE_ITEMS: usize = 8;

/// `{a, b, c}` for a short point list; for a longer one its first [`MESSAGE_ITEMS`] items and the count,
/// `{0, 1, 2, 3, 4, 5, 6, 7, ... (4096 points)}`, so a refusal stays short whatever set it reports.
pub fn points_text<T: fmt::Display>(items: impl IntoIterator<Item = T>) -> String {
    let mut shown = Vec::with_capacity(MESSAGE_ITEMS);
    let mut count = 0usize;
    for item in items {
        if count < MESSAGE_ITEMS {
            shown.push(item.to_string());
        }
        count += 1;
    }
    if count > MESSAGE_ITEMS {
        shown.push(format!("... ({count} points)"));
    }
    format!("{{{}}}", shown.join(", "))
}

/// Result alias for the layout algebra.
pub type Result<T> = std::result::Result<T, LayoutError>;

/// Returns early with a [`LayoutError`] built from a format string.
#[macro_export]
macro_rules! bail {
    ($($arg:tt)*) => { return Err($crate::LayoutError::new(format!($($arg)*))) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lists_are_abbreviated_with_a_count() {
        assert_eq!(points_text([3, 1]), "{3, 1}");
        assert_eq!(points_text(0..8), "{0, 1, 2, 3, 4, 5, 6, 7}");
        assert_eq!(points_text(0..4096), "{0, 1, 2, 3, 4, 5, 6, 7, ... (4096 points)}");
    }
}
