//! `--split-input-file`: cutting a buffer into chunks at `// -----` lines.
//!
//! A marker is a line that holds `// -----` (five or more dashes) and nothing
//! else but whitespace. Each chunk keeps its original line numbers: its text
//! starts with one newline per line before it, so diagnostics and
//! `expected-*` annotations read the same `file:line:col` as in the whole file.

/// The marker written between output chunks, as mlir-opt writes it.
pub const OUTPUT_MARKER: &str = "// -----\n";

/// One piece of a split buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// The chunk's text, padded at the front so line numbers are the file's.
    pub text: String,
    /// 1-based line of the chunk's first line in the whole file.
    pub first_line: usize,
}

/// Whether `line` is a split marker.
fn is_marker(line: &str) -> bool {
    line.trim()
        .strip_prefix("//")
        .map(str::trim_start)
        .is_some_and(|rest| rest.len() >= 5 && rest.chars().all(|c| c == '-'))
}

/// Splits `source` at marker lines. Without markers there is one chunk.
pub fn split_input(source: &str) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut current = String::new();
    let mut first_line = 1;
    for (index, line) in source.split_inclusive('\n').enumerate() {
        if is_marker(line) {
            chunks.push(Chunk { text: std::mem::take(&mut current), first_line });
            first_line = index + 2;
            current = "\n".repeat(first_line - 1);
        } else {
            current.push_str(line);
        }
    }
    chunks.push(Chunk { text: current, first_line });
    chunks
}

/// The whole buffer as one chunk.
pub fn whole(source: &str) -> Vec<Chunk> {
    vec![Chunk { text: source.to_string(), first_line: 1 }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_at_marker_lines_and_keeps_line_numbers() {
        let chunks = split_input("a\n// -----\nb\nc\n  //   ------  \nd");
        assert_eq!(
            chunks,
            vec![
                Chunk { text: "a\n".into(), first_line: 1 },
                Chunk { text: "\n\nb\nc\n".into(), first_line: 3 },
                Chunk { text: "\n\n\n\n\nd".into(), first_line: 6 },
            ]
        );
        assert_eq!(chunks[2].text.lines().nth(5), Some("d"));
    }

    #[test]
    fn near_misses_are_not_markers() {
        for line in ["// ----", "// ----- x", "x // -----", "/ -----"] {
            assert!(!is_marker(line), "{line}");
        }
        assert_eq!(split_input("a\n// ----\nb\n").len(), 1);
    }

    #[test]
    fn empty_and_trailing_marker() {
        assert_eq!(split_input("").len(), 1);
        let chunks = split_input("a\n// -----\n");
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[1].text, "\n\n");
    }
}
