//! Token- and byte-level mutation of seed texts (lit tests, examples, layouts, generated inputs).
//!
//! A text is cut into tokens (identifiers, numbers, string literals, whitespace runs, single punctuation
//! characters); [`mutate`] applies one to eight edits: delete, duplicate or swap tokens, insert a token from
//! [`DICTIONARY`], splice a run of tokens from another seed, replace a number with an edge value, swap the
//! layout string of one `#axe.layout<"...">` for a generated or mutated one, or flip, insert or delete bytes
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
    "#axe.layout<\"S[8:1]\">",
    "#axe.deferred",
    "#axe.mem<\"shared\">",
    "#axe.mem<\"global\">",
    "#axe.exec<\"cta\">",
    "#axe.exec<\"warp\">",
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

/// Byte ranges of the layout texts inside `#axe.layout<"...">` attributes.
pub fn layout_strings(text: &str) -> Vec<(usize, usize)> {
    const OPEN: &str = "#axe.layout<\"";
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(OPEN) {
        let start = from + at + OPEN.len();
        let Some(len) = text[start..].find('"') else { break };
        out.push((start, start + len));
        from = start + len;
    }
    out
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
        let text =
            r#"!t = !axe.tensor<array<i64: 8>, f16, #axe.layout<"S[8:1]">, #axe.mem<"global">> #axe.layout<"S[]">"#;
        let spots: Vec<&str> = layout_strings(text).into_iter().map(|(a, b)| &text[a..b]).collect();
        assert_eq!(spots, ["S[8:1]", "S[]"]);
    }
}
