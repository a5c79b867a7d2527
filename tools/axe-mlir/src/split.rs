//! `--split-input-file`: cutting a buffer into chunks at `// -----` markers (or the marker the option names).
//!
//! As in mlir-opt, the marker is the text `// -----` wherever it appears (so
//! prose and CHECK lines must not spell it out); the text after a marker on
//! its line starts the next chunk. Each chunk keeps its position in the file:
//! its text is padded at the front with one newline per line before it and one
//! space per column before it, so diagnostics and `expected-*` annotations
//! read the same `file:line:col` as in the whole file.

/// The split marker.
pub const MARKER: &str = "// -----";

/// The text written between output chunks, as mlir-opt writes it.
pub const OUTPUT_MARKER: &str = "// -----\n";

/// One piece of a split buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// The chunk's text, padded at the front so positions are the file's.
    pub text: String,
    /// 1-based line of the chunk's first character in the whole file.
    pub first_line: usize,
}

/// Splits `source` at every [`MARKER`]. Without markers there is one chunk.
pub fn split_input(source: &str) -> Vec<Chunk> {
    split_input_at(source, MARKER)
}

/// Splits `source` at every occurrence of `marker` (`--split-input-file=<marker>`); an empty marker does not split.
pub fn split_input_at(source: &str, marker: &str) -> Vec<Chunk> {
    if marker.is_empty() {
        return whole(source);
    }
    let mut chunks = Vec::new();
    let mut start = 0;
    loop {
        let end = source[start..].find(marker).map(|offset| start + offset);
        chunks.push(chunk_at(source, start, end.unwrap_or(source.len())));
        match end {
            Some(end) => start = end + marker.len(),
            None => return chunks,
        }
    }
}

/// The chunk `source[start..end]`, padded to its position.
fn chunk_at(source: &str, start: usize, end: usize) -> Chunk {
    let before = &source[..start];
    let lines_before = before.matches('\n').count();
    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
    let columns_before = source[line_start..start].chars().count();
    let mut text = String::with_capacity(lines_before + columns_before + end - start);
    text.extend(std::iter::repeat_n('\n', lines_before));
    text.extend(std::iter::repeat_n(' ', columns_before));
    text.push_str(&source[start..end]);
    Chunk { text, first_line: lines_before + 1 }
}

/// The whole buffer as one chunk.
pub fn whole(source: &str) -> Vec<Chunk> {
    vec![Chunk { text: source.to_string(), first_line: 1 }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_at_markers_and_keeps_positions() {
        let chunks = split_input("a\n// -----\nb\nc\n// ----- d\ne");
        let texts: Vec<_> = chunks.iter().map(|c| (c.text.as_str(), c.first_line)).collect();
        assert_eq!(texts, vec![("a\n", 1), ("\n        \nb\nc\n", 2), ("\n\n\n\n         d\ne", 5)]);
        // "d" keeps line 5, column 10 (byte 9) of the whole file.
        assert_eq!(chunks[2].text.lines().nth(4).map(|l| l.find('d')), Some(Some(9)));
    }

    #[test]
    fn marker_is_found_anywhere() {
        assert_eq!(split_input("x // ----- y").len(), 2);
        assert_eq!(split_input("a\n// ----\nb\n").len(), 1);
        assert_eq!(split_input("a\n// ------\nb\n")[1].text, "\n        -\nb\n");
    }

    #[test]
    fn any_marker_splits() {
        let chunks = split_input_at("a\n// XX\nb\n", "// XX");
        let texts: Vec<_> = chunks.iter().map(|c| (c.text.as_str(), c.first_line)).collect();
        assert_eq!(texts, vec![("a\n", 1), ("\n     \nb\n", 2)]);
        assert_eq!(split_input_at("a\n// -----\nb\n", "// XX").len(), 1);
        assert_eq!(split_input_at("a\nb\n", ""), whole("a\nb\n"));
    }

    #[test]
    fn empty_and_trailing_marker() {
        assert_eq!(split_input(""), whole(""));
        let chunks = split_input("a\n// -----\n");
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[1].text, "\n        \n");
    }
}
