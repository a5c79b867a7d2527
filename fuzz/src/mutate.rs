//! Token- and byte-level mutation of seed texts (lit tests, examples, layouts, generated inputs).
//!
//! A text is cut into tokens (identifiers, numbers, string literals, whitespace runs, single punctuation
//! characters); [`mutate`] applies one to eight edits: delete, duplicate or swap tokens, insert a token from
//! [`DICTIONARY`], splice a run of tokens from another seed, replace a number with an edge value, swap the
//! layout text of one `#axe.layout<...>`, tensor type or `layout(...)` ([`layout_strings`]) for a generated or
//! mutated one, or flip, insert or delete bytes
//! (keeping the text valid UTF-8, with the odd character the notation does not use).

use crate::driver::Rng;
use crate::gen_layout;
use rand::seq::IndexedRandom;
use rand::RngExt;

/// Tokens worth inserting: the notation's and MLIR's punctuation and keywords, axe op and attribute names,
/// split markers and diagnostic annotations, and odd characters.
pub const DICTIONARY: &[&str] = &[
    "S[",
    "R[",
    "]",
    "(",
    ")",
    ",",
    ":",
    "@",
    "+",
    "-",
    " o ",
    "Swizzle(3,3,3)",
    "@laneid",
    "@warpid",
    "@m",
    "@tx",
    "0",
    "1",
    "-1",
    "9223372036854775807",
    "-9223372036854775808",
    "281474976710656",
    "{",
    "}",
    "<",
    ">",
    "\"",
    "%0",
    "%arg0",
    "^bb0:",
    "=",
    "->",
    "!axe.tensor",
    "!axe.tensor<",
    "#axe.layout<S[8:1]>",
    "#axe.layout<",
    "layout(",
    "row_major",
    "?x",
    "x",
    "shared",
    "global",
    "tmem",
    "reg",
    "hbm",
    "sbuf",
    "psum",
    "1@P",
    "1@F",
    "cta",
    "warp",
    "warpgroup",
    "cta(warpid[0:4])",
    "#axe.exec<cta>",
    "#axe.exec<warp>",
    "#axe.threads<warpid[0:4]>",
    "!axe.mbarrier",
    "!axe.mbarrier<3>",
    "[%c0]",
    " to ",
    " by ",
    "count 1",
    "bytes 32768",
    "multiples [16, 16]",
    "operandSegmentSizes = array<i32: 1, 1, 1, 0>",
    "axe.copy",
    "axe.slice",
    "axe.copy_async",
    "axe.view",
    "axe.alloc",
    "axe.annotate",
    "axe.mbarrier_wait",
    "\"axe.copy\"",
    "\"axe.slice\"",
    "\"axe.copy_async\"",
    "\"axe.view\"",
    "\"axe.alloc\"",
    "\"axe.annotate\"",
    "array<i64: 0, 4>",
    "f16",
    "f32",
    "i1",
    "index",
    "memref<128x64xf16>",
    "gpu.module",
    "gpu.func",
    "func.func",
    "llvm.func",
    "return",
    "gpu.return",
    "// -----",
    "// expected-error @+1 {{",
    "}}",
    "\n",
    " ",
    "\u{0}",
    "é",
    "∘",
    "\u{202e}",
    "\t",
    "axe.axes",
    "{sbuf = \"memory\"}",
    "kernel",
    "nvvm.kernel",
    "attributes",
    "llvm.return",
    "llvm.ptr",
    "!llvm.ptr<1>",
];

/// One token of a text: its byte range.
fn tokens(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let c = bytes[i];
        if c.is_ascii_alphabetic() || c == b'_' || c == b'%' || c == b'#' || c == b'!' || c == b'^' {
            i += 1;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'_' | b'.' | b'$')) {
                i += 1;
            }
        } else if c.is_ascii_digit() {
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
        } else if c == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(bytes.len());
        } else if c.is_ascii_whitespace() {
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
        } else {
            i += 1;
            while i < bytes.len() && !text.is_char_boundary(i) {
                i += 1;
            }
        }
        out.push((start, i));
    }
    out
}

/// Byte ranges of the layout texts (the notation, unquoted since issue 23) in IR: inside `#axe.layout<...>`,
/// after the memory of a tensor type (`!axe.tensor<8xf16, global, S[8:1]>`; none when the layout is left out,
/// and not the run-time `row_major`), and inside an annotation's `layout(...)` (not `layout(#alias)`). In order.
pub fn layout_strings(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (open, end) in [("#axe.layout<", b'>'), ("layout(", b')')] {
        let mut from = 0;
        while let Some(at) = text[from..].find(open) {
            let start = from + at + open.len();
            out.extend(layout_at(text, start, end));
            from = start;
        }
    }
    const TENSOR: &str = "!axe.tensor<";
    let mut from = 0;
    while let Some(at) = text[from..].find(TENSOR) {
        let start = from + at + TENSOR.len();
        from = start;
        // The layout follows the second comma at depth 0 (after the shape and element type, then the memory).
        let mut depth = 0usize;
        let mut commas = 0;
        for (i, &c) in text.as_bytes()[start..].iter().enumerate() {
            match c {
                b'<' | b'(' | b'[' => depth += 1,
                b'>' | b')' | b']' if depth > 0 => depth -= 1,
                b'>' | b'\n' => break,
                b',' if depth == 0 => {
                    commas += 1;
                    if commas == 2 {
                        out.extend(layout_at(text, start + i + 1, b'>'));
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    out.retain(|&(a, b)| &text[a..b] != "row_major");
    out.sort_unstable();
    out
}

/// The layout text starting at `start` and ending before the `end` byte at bracket depth 0 (blanks around it
/// left out), or `None` when the line, a quote or a brace comes first, or the text is empty or an attribute.
fn layout_at(text: &str, start: usize, end: u8) -> Option<(usize, usize)> {
    let mut depth = 0usize;
    let bytes = text.as_bytes();
    for (i, &c) in bytes[start..].iter().enumerate() {
        match c {
            _ if c == end && depth == 0 => {
                let raw = &text[start..start + i];
                let a = start + (raw.len() - raw.trim_start().len());
                let b = start + raw.trim_end().len();
                return (a < b && bytes[a] != b'#').then_some((a, b));
            }
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth = depth.checked_sub(1)?,
            b'\n' | b'"' | b'{' | b'}' | b'<' | b'>' => return None,
            _ => {}
        }
    }
    None
}

fn char_floor(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Applies one random edit to `text`; `others` are texts to splice from.
pub fn mutate_once(rng: &mut Rng, text: &mut String, others: &[&str]) {
    let toks = tokens(text);
    let pick = |rng: &mut Rng| toks.choose(rng).copied().unwrap_or((0, 0));
    match rng.random_range(0..12) {
        0 => {
            let (a, b) = pick(rng);
            text.replace_range(a..b, "");
        }
        1 => {
            let (a, b) = pick(rng);
            let t = text[a..b].to_string();
            text.insert_str(b, &t);
        }
        2 | 3 => {
            let (a, _) = pick(rng);
            let t = DICTIONARY.choose(rng).copied().unwrap_or(" ");
            text.insert_str(a, t);
        }
        4 => {
            let (x, y) = (pick(rng), pick(rng));
            let (first, second) = if x.0 <= y.0 { (x, y) } else { (y, x) };
            if first.1 <= second.0 {
                let (s1, s2) = (text[first.0..first.1].to_string(), text[second.0..second.1].to_string());
                text.replace_range(second.0..second.1, &s1);
                text.replace_range(first.0..first.1, &s2);
            }
        }
        5 => {
            // Splice a run of tokens from another seed.
            if let Some(other) = others.choose(rng) {
                let ot = tokens(other);
                if !ot.is_empty() {
                    let i = rng.random_range(0..ot.len());
                    let j = (i + rng.random_range(1..=16)).min(ot.len());
                    let run = &other[ot[i].0..ot[j - 1].1];
                    let (a, _) = pick(rng);
                    text.insert_str(a, run);
                }
            }
        }
        6 | 7 => {
            // Replace a number with an edge value.
            let nums: Vec<(usize, usize)> =
                toks.iter().copied().filter(|&(a, _)| text.as_bytes()[a].is_ascii_digit()).collect();
            if let Some(&(a, b)) = nums.choose(rng) {
                let n = gen_layout::wild_number(rng);
                text.replace_range(a..b, &n);
            }
        }
        8 | 9 => {
            // Swap a layout string for a generated one, or mutate it in place.
            let spots = layout_strings(text);
            if let Some(&(a, b)) = spots.choose(rng) {
                let new = if rng.random_bool(0.5) {
                    gen_layout::layout(rng)
                } else {
                    let mut l = text[a..b].to_string();
                    mutate_once(rng, &mut l, &[]);
                    l
                };
                let new: String = new.chars().filter(|c| *c != '"' && *c != '\n').collect();
                text.replace_range(a..b, &new);
            }
        }
        10 => {
            // Byte-level: delete a short range.
            if !text.is_empty() {
                let a = char_floor(text, rng.random_range(0..text.len()));
                let b = char_floor(text, a + rng.random_range(1..=8));
                text.replace_range(a..b.max(a), "");
            }
        }
        _ => {
            // Byte-level: insert or overwrite one character.
            let a = char_floor(text, rng.random_range(0..=text.len()));
            let c = *['\0', '\u{7f}', '(', ')', '[', ']', '"', '\\', '{', '}', '<', '>', 'é', '∘', ' ', '\n', '9', '-']
                .choose(rng)
                .unwrap_or(&' ');
            if rng.random_bool(0.5) && a < text.len() {
                let b = char_floor(text, a + 1).max(a + text[a..].chars().next().map_or(0, char::len_utf8));
                text.replace_range(a..b, &c.to_string());
            } else {
                text.insert(a, c);
            }
        }
    }
}

/// Applies 1 to 8 random edits (fewer more often).
pub fn mutate(rng: &mut Rng, text: &str, others: &[&str]) -> String {
    let mut out = text.to_string();
    let n = 1 + (rng.random_range(0..64u32)).trailing_zeros().min(7) as usize;
    for _ in 0..n {
        mutate_once(rng, &mut out, others);
    }
    out
}

/// A seed text mutated for the IR targets: token edits ([`mutate`]) half the time, line edits
/// ([`crate::lines::mutate_lines`]: use before definition, unbalanced regions, ops outside modules) 30% of the
/// time, and line edits then token edits otherwise.
pub fn mutate_seed(rng: &mut Rng, text: &str, others: &[&str]) -> String {
    match rng.random_range(0..10) {
        0..=4 => mutate(rng, text, others),
        5..=7 => crate::lines::mutate_lines(rng, text, others),
        _ => {
            let lines = crate::lines::mutate_lines(rng, text, others);
            mutate(rng, &lines, others)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_cover_the_text_in_order() {
        let text = "%0 = \"axe.view\"(%m) : (memref<128x64xf16>) -> !gA // é";
        let toks = tokens(text);
        assert_eq!(toks.first().map(|t| t.0), Some(0));
        assert_eq!(toks.last().map(|t| t.1), Some(text.len()));
        assert!(toks.windows(2).all(|w| w[0].1 == w[1].0));
        assert!(toks.iter().any(|&(a, b)| &text[a..b] == "\"axe.view\""));
    }

    #[test]
    fn layout_strings_are_found() {
        let text = "!t = !axe.tensor<8xf16, global, S[8:1]>\n\
                    !d = !axe.tensor<4x2xvector<2xf16>, shared>\n\
                    !r = !axe.tensor<?x64xf16, global, row_major>\n\
                    !s = !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)] + 1@m>\n\
                    #l = #axe.layout<S[]>\n\
                    axe.annotate %v layout( R[(2,4):(4,1)] ) : f32\n\
                    axe.annotate %v layout(#l) : f32\n\
                    \"axe.annotate\"(%v) {layout = #axe.layout<S[2:1]>} : (f32) -> ()";
        let spots: Vec<&str> = layout_strings(text).into_iter().map(|(a, b)| &text[a..b]).collect();
        assert_eq!(spots, ["S[8:1]", "Swizzle(3,3,3) o S[(128,64):(64,1)] + 1@m", "S[]", "R[(2,4):(4,1)]", "S[2:1]"]);
    }
}
