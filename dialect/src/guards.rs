//! Inputs the bundled MLIR cannot take safely, refused with a located diagnostic before it sees them.
//!
//! MLIR's C API and parser assume things no tool input guarantees: text without NUL bytes (melior turns the
//! source into a C string and panics on one), nesting shallow enough for a recursive-descent parser on the
//! thread's stack (the parser, verifier and printer all recurse per level), and constructs its own parser
//! handles. [`check_source`] scans the text once, in O(length), skipping string literals and comments, and
//! returns the first problem as a [`Diagnostic`] at its line and column.
//!
//! [`UPSTREAM_GUARDS`] is the one list of token guards for upstream bugs, each with its reference, so that each can
//! be removed when the toolchain carries the fix (toolchain.md names the pinned MLIR). One upstream bug needs a
//! scan of SSA names and regions instead: a use before a definition nested in a region that does not contain the
//! use, which MLIR 22's parser links and then frees on a parse error (`forward_refs.rs`, issue 22).

use crate::diagnostics::{Diagnostic, SourceLoc};

/// Deepest nesting of `( [ { <` accepted (real IR nests a few dozen levels; MLIR 22's parser overflows an
/// 8 MiB stack between 3,000 and 6,000 nested regions).
pub const MAX_NESTING_DEPTH: usize = 1000;

/// A construct that crashes the bundled MLIR, refused until the toolchain carries the fix.
#[derive(Clone, Copy, Debug)]
pub struct UpstreamGuard {
    /// The tokens that start the construct, whitespace between them ignored (`["array", "<", "index"]`). A
    /// single-token guard also matches the token in quotes followed by `(`: an op name in the generic form.
    pub tokens: &'static [&'static str],
    /// Whether this occurrence crashes, from the text after the tokens; `None`: every occurrence does.
    pub crashes: Option<fn(&[u8]) -> bool>,
    /// What is refused, as the diagnostic names it.
    pub what: &'static str,
    /// What goes wrong upstream, and where it is tracked.
    pub reason: &'static str,
}

/// The one reason both LLVM aggregate-position guards give.
const AGGREGATE_POSITION: &str = "MLIR 22 checks an llvm.insertvalue/extractvalue position against a struct's \
     field count truncated to 32 bits, then indexes the fields with the full value and crashes \
     (getInsertExtractValueElementType in LLVMDialect.cpp; not reported upstream yet, found by axe-fuzz); \
     positions must be below 2^32";

/// Every upstream guard. Remove an entry when the pinned MLIR has its fix, with its lit test.
pub const UPSTREAM_GUARDS: &[UpstreamGuard] = &[
    UpstreamGuard {
        tokens: &["array", "<", "index"],
        crashes: None,
        what: "array<index",
        reason: "MLIR 22's dense-array parser crashes on an index element type (llvm-project issue 179045, fixed \
                 by PR 179075 after the 22 release); use array<i64: ...>",
    },
    UpstreamGuard {
        tokens: &["llvm.insertvalue"],
        crashes: Some(position_from_2_pow_32),
        what: "llvm.insertvalue with a position of 2^32 or more",
        reason: AGGREGATE_POSITION,
    },
    UpstreamGuard {
        tokens: &["llvm.extractvalue"],
        crashes: Some(position_from_2_pow_32),
        what: "llvm.extractvalue with a position of 2^32 or more",
        reason: AGGREGATE_POSITION,
    },
    UpstreamGuard {
        tokens: &["addr_space"],
        crashes: Some(not_an_integer),
        what: "an addr_space that is not an integer",
        reason: "MLIR 22 drops an llvm.mlir.global's addr_space of another kind (a type, a string, a float) while \
                 parsing, leaving the property null, and GlobalOp::getAddrSpace dereferences it during translation \
                 to LLVM IR (mlir-translate-22 --mlir-to-llvmir crashes the same way; not reported upstream yet, \
                 found by axe-fuzz); write an integer, e.g. addr_space = 3 : i32",
    },
];

/// The offset of the first byte at or after `at` that MLIR's lexer does not skip: whitespace, newlines included,
/// and `//` comments are trivia between tokens anywhere (a scanner that reads tokens must skip exactly these, or
/// a construct split by a line break or a comment slips past it: issue 22's long fuzz run found both).
pub(crate) fn skip_trivia(bytes: &[u8], mut at: usize) -> usize {
    loop {
        while at < bytes.len() && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        if bytes[at..].starts_with(b"//") {
            at = line_end(bytes, at);
        } else {
            return at;
        }
    }
}

/// Whether the text after an attribute name is `= value` with a value other than an integer literal (an optional
/// sign, then decimal or `0x` hex digits not followed by a fraction or exponent, or `true`/`false`, which MLIR
/// parses as i1 integers).
fn not_an_integer(after: &[u8]) -> bool {
    let after = &after[skip_trivia(after, 0)..];
    let Some(value) = after.strip_prefix(b"=") else { return false };
    let value = &value[skip_trivia(value, 0)..];
    if value.starts_with(b"true") || value.starts_with(b"false") {
        return false;
    }
    let digits = value.strip_prefix(b"-").unwrap_or(value);
    let (digits, is_digit): (&[u8], fn(&u8) -> bool) = match digits.strip_prefix(b"0x") {
        Some(hex) => (hex, u8::is_ascii_hexdigit),
        None => (digits, u8::is_ascii_digit),
    };
    let count = digits.iter().take_while(|b| is_digit(b)).count();
    count == 0 || matches!(digits.get(count), Some(b'.' | b'e' | b'E'))
}

/// Whether the position of the `llvm.insertvalue`/`extractvalue` whose text follows holds a value of 2^32 or
/// more: the first `[...]` (custom form) or `array<i64: ...>` (generic form) after the op's name, comments
/// skipped and line breaks allowed (the operands before it hold neither).
fn position_from_2_pow_32(after: &[u8]) -> bool {
    let mut code = Vec::with_capacity(after.len().min(1 << 16));
    let mut at = 0;
    while at < after.len() && code.len() < 1 << 16 {
        if after[at..].starts_with(b"//") {
            at = line_end(after, at);
        } else {
            code.push(after[at]);
            at += 1;
        }
    }
    let text = String::from_utf8_lossy(&code);
    let list = match (text.find('['), text.find("array<i64:")) {
        (Some(open), generic) if generic.is_none_or(|g| open < g) => text[open + 1..].split(']').next(),
        (_, Some(g)) => text[g + "array<i64:".len()..].split('>').next(),
        _ => None,
    };
    list.is_some_and(|list| {
        list.split(|c: char| !c.is_ascii_digit())
            .any(|digits| !digits.is_empty() && digits.parse::<u64>().map_or(true, |v| v >= 1 << 32))
    })
}

/// The first reason `source` cannot go to MLIR's parser, located in `source_name`; `None` when it can.
pub fn check_source(source: &str, source_name: &str) -> Option<Diagnostic> {
    let bytes = source.as_bytes();
    let at =
        |offset: usize, message: String| Some(Diagnostic::error(Some(locate(bytes, offset, source_name)), message));
    if let Some(offset) = bytes.iter().position(|&b| b == 0) {
        return at(offset, "input contains a NUL byte; MLIR source text cannot hold one".to_string());
    }
    let mut depth = 0usize;
    let mut offset = 0;
    while offset < bytes.len() {
        match bytes[offset] {
            b'"' => {
                let end = string_end(bytes, offset);
                if let Some(guard) = quoted_op_guard(bytes, offset, end) {
                    return at(offset, format!("{} is refused: {}", guard.what, guard.reason));
                }
                offset = end;
            }
            b'/' if bytes.get(offset + 1) == Some(&b'/') => offset = line_end(bytes, offset),
            b'-' if bytes.get(offset + 1) == Some(&b'>') => offset += 1,
            b'(' | b'[' | b'{' | b'<' => {
                depth += 1;
                if depth > MAX_NESTING_DEPTH {
                    return at(offset, format!("nesting deeper than {MAX_NESTING_DEPTH} levels is not supported"));
                }
            }
            b')' | b']' | b'}' | b'>' => depth = depth.saturating_sub(1),
            byte if byte.is_ascii_alphabetic() => {
                let trips = |guard: &&UpstreamGuard| {
                    starts_with_tokens(bytes, offset, guard)
                        && guard.crashes.is_none_or(|crashes| crashes(&bytes[offset + guard.tokens[0].len()..]))
                };
                if let Some(guard) = UPSTREAM_GUARDS.iter().find(trips) {
                    return at(offset, format!("{} is refused: {}", guard.what, guard.reason));
                }
            }
            _ => {}
        }
        offset += 1;
    }
    crate::forward_refs::check(source, source_name)
}

/// The offset of the closing quote of the string literal opening at `open`, or the end of the text when it is
/// unterminated (MLIR reports that).
fn string_end(bytes: &[u8], open: usize) -> usize {
    let mut offset = open + 1;
    while offset < bytes.len() {
        match bytes[offset] {
            b'\\' => offset += 2,
            b'"' => return offset,
            _ => offset += 1,
        }
    }
    bytes.len()
}

/// The single-token guard that trips on the quoted op name `"name"(` spanning `open..=close`, if any.
fn quoted_op_guard(bytes: &[u8], open: usize, close: usize) -> Option<&'static UpstreamGuard> {
    let name = bytes.get(open + 1..close)?;
    if bytes.get(close + 1) != Some(&b'(') {
        return None;
    }
    UPSTREAM_GUARDS.iter().find(|guard| {
        guard.tokens.len() == 1
            && guard.tokens[0].as_bytes() == name
            && guard.crashes.is_none_or(|crashes| crashes(&bytes[close + 1..]))
    })
}

/// The offset of the newline ending the line that contains `offset` (or the end of the text).
fn line_end(bytes: &[u8], offset: usize) -> usize {
    bytes[offset..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |i| offset + i)
}

/// Whether the word at `offset` begins `guard`'s token sequence (a whole word, trivia between tokens).
fn starts_with_tokens(bytes: &[u8], offset: usize, guard: &UpstreamGuard) -> bool {
    let word_char = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'.' || *b == b'$';
    if offset > 0 && word_char(&bytes[offset - 1]) {
        return false;
    }
    let mut at = offset;
    for (index, token) in guard.tokens.iter().enumerate() {
        if index > 0 {
            at = skip_trivia(bytes, at);
        }
        if !bytes[at..].starts_with(token.as_bytes()) {
            return false;
        }
        at += token.len();
    }
    !bytes.get(at).is_some_and(word_char)
}

/// The 1-based line and byte column of `offset`, as MLIR reports positions.
pub(crate) fn locate(bytes: &[u8], offset: usize, source_name: &str) -> SourceLoc {
    let line_start = bytes[..offset].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let line = 1 + bytes[..line_start].iter().filter(|&&b| b == b'\n').count();
    SourceLoc { file: source_name.to_string(), line, column: offset - line_start + 1 }
}

/// Decodes `bytes` as UTF-8, or locates the first invalid byte: MLIR's text is UTF-8 only.
pub fn decode_utf8(bytes: Vec<u8>, source_name: &str) -> Result<String, Diagnostic> {
    String::from_utf8(bytes).map_err(|error| {
        let offset = error.utf8_error().valid_up_to();
        let bytes = error.as_bytes();
        let message = format!("input is not valid UTF-8 (byte 0x{:02x})", bytes[offset]);
        Diagnostic::error(Some(locate(bytes, offset, source_name)), message)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(source: &str) -> Option<(usize, usize, String)> {
        check_source(source, "t.mlir").map(|d| {
            let location = d.location.expect("located");
            (location.line, location.column, d.message)
        })
    }

    #[test]
    fn nul_bytes_are_located() {
        let (line, column, message) = problem("// x\0y\n").expect("refused");
        assert_eq!((line, column), (1, 5));
        assert!(message.contains("NUL byte"), "{message}");
        assert_eq!(problem("module {}\n\"a\0\"").map(|p| (p.0, p.1)), Some((2, 3)));
        assert_eq!(problem("\"abc\0").map(|p| (p.0, p.1)), Some((1, 5)));
    }

    #[test]
    fn nesting_is_bounded_outside_strings_and_comments() {
        let deep = "[".repeat(MAX_NESTING_DEPTH + 1);
        let (line, column, message) = problem(&format!("\n  {deep}")).expect("refused");
        assert_eq!((line, column), (2, MAX_NESTING_DEPTH + 3));
        assert!(message.contains("nesting deeper than 1000"), "{message}");
        assert_eq!(problem(&"[".repeat(MAX_NESTING_DEPTH)), None);
        assert_eq!(problem(&format!("\"{deep}\"")), None);
        assert_eq!(problem(&format!("// {deep}\n")), None);
        // `->` closes nothing, and closers never make the depth negative.
        let arrows = format!("{}{}", "(i32) -> i32 ".repeat(3000), "(".repeat(MAX_NESTING_DEPTH));
        assert_eq!(problem(&arrows), None);
        assert_eq!(problem(&format!("{}{}", ">".repeat(5000), "(".repeat(MAX_NESTING_DEPTH))), None);
    }

    #[test]
    fn upstream_guards_match_whole_tokens() {
        for source in [
            "%x = array<index: 32>",
            "{a = array < index>}",
            "array<\n  index: 1>",
            "a = array <\n// a comment\n    index: 1, 2>",
            "array // c\n < // d\n index>",
        ] {
            let (_, _, message) = problem(source).unwrap_or_else(|| panic!("refused: {source}"));
            assert!(message.contains("179045"), "{message}");
        }
        for source in ["array<i64: 3>", "myarray<index>", "array<indexes>", "\"array<index: 3>\"", "// array<index"] {
            assert_eq!(problem(source), None, "{source}");
        }
    }

    #[test]
    fn aggregate_positions_from_2_pow_32_are_refused_in_both_forms() {
        // Each of these crashed axe-opt, axe-translate and mlir-opt-22 with SIGSEGV (axe-fuzz, seed 11).
        for source in [
            "%1 = llvm.insertvalue %p, %0[4294967296] : !llvm.struct<(i64, i64)>",
            "%1 = llvm.insertvalue %42, %35[140737488355328] : !llvm.struct<(ptr<3>, i64)>",
            "%2 = llvm.extractvalue %0[0, 4294967297] : !llvm.struct<(struct<(i64)>)>",
            "%1 = \"llvm.extractvalue\"(%0) <{position = array<i64: 4294967296>}> : (!llvm.struct<(i64)>) -> i64",
            "%1 = llvm.extractvalue %0[99999999999999999999999] : !llvm.struct<(i64)>",
            // MLIR's lexer skips line breaks and comments between the operands and the position.
            "%1 = llvm.insertvalue %p, %0\n    [4294967296] : !llvm.struct<(i64, i64)>",
            "%1 = llvm.extractvalue %0 // the position:\n[4294967296] : !llvm.struct<(i64)>",
        ] {
            let (_, column, message) = problem(source).unwrap_or_else(|| panic!("refused: {source}"));
            assert!(message.contains("position of 2^32 or more"), "{message}");
            assert_eq!(column, source.find("llvm.").expect("op") + 1 - usize::from(source.contains('"')), "{source}");
        }
        for source in [
            "%1 = llvm.insertvalue %p, %0[4294967295] : !llvm.struct<(i64, i64)>",
            "%1 = llvm.extractvalue %0[1] : !llvm.array<4294967296 x i64>",
            "%1 = \"llvm.extractvalue\"(%0) <{position = array<i64: 1>}> : (!llvm.struct<(i64)>) -> i64",
            "%1 = \"llvm.extractvalue 4294967296\"",
            "// llvm.insertvalue %p, %0[4294967296]",
        ] {
            assert_eq!(problem(source), None, "{source}");
        }
    }

    #[test]
    fn addr_space_of_another_kind_is_refused() {
        // Each of these crashed axe-translate and mlir-translate-22 with SIGSEGV (axe-fuzz, seed 11).
        for source in [
            "llvm.mlir.global private @g() {addr_space = i32, alignment = 8 : i64} : !llvm.array<1 x i64>",
            "llvm.mlir.global private @g() {addr_space = \"x\"} : i64",
            "llvm.mlir.global private @g() {addr_space=1.0} : i64",
            "\"llvm.mlir.global\"() <{addr_space = unit, global_type = i64}> ({}) : () -> ()",
        ] {
            let (_, column, message) = problem(source).unwrap_or_else(|| panic!("refused: {source}"));
            assert!(message.contains("addr_space that is not an integer"), "{message}");
            assert_eq!(column, source.find("addr_space").expect("attr") + 1, "{source}");
        }
        for source in [
            "llvm.mlir.global private @g() {addr_space = 3 : i32} : i64",
            "llvm.mlir.global private @g() {addr_space = 1 : i64} : i64",
            "llvm.mlir.global private @g() {addr_space = 0x3 : i32, alignment = 8} : i64",
            "llvm.mlir.global private @g() {addr_space = -1} : i64",
            "\"llvm.mlir.global\"() <{addr_space = 0 : i32, global_type = i64}> ({}) : () -> ()",
            "%0 = memref.alloca() : memref<4xf32, #gpu.address_space<private>>",
            "// addr_space = i32",
        ] {
            assert_eq!(problem(source), None, "{source}");
        }
    }

    #[test]
    fn a_use_before_a_definition_in_another_region_is_refused() {
        // Issue 22: MLIR 22 frees the case region (and the definition the use points to) when the switch fails.
        let source = "\"t.use\"(%v) : (i32) -> ()\nscf.index_switch %c\ncase 0 {\n  %v = arith.constant 1 : i32\n}\n";
        let (line, column, message) = problem(source).expect("refused");
        assert_eq!((line, column), (1, 9));
        assert!(message.contains("before its definition at line 4, column 3"), "{message}");
        // The same text with the definition first is left to MLIR.
        let source = "%v = arith.constant 1 : i32\n\"t.use\"(%v) : (i32) -> ()\n";
        assert_eq!(problem(source), None);
        // The definition's `=` on the next line, or after a comment, is still a definition (the long fuzz run found
        // the first: axe-opt aborted with heap corruption).
        for definition in ["%v\n  = arith.constant 1 : i32", "%v // the value\n = arith.constant 1 : i32"] {
            let source = format!("\"t.use\"(%v) : (i32) -> ()\nscf.index_switch %c\ncase 0 {{ {definition}\n}}\n");
            let (line, column, message) = problem(&source).unwrap_or_else(|| panic!("refused: {source}"));
            assert_eq!((line, column), (1, 9), "{message}");
        }
    }

    #[test]
    fn invalid_utf8_is_located() {
        let error = decode_utf8(b"ok\nab\xffc".to_vec(), "t.mlir").expect_err("invalid");
        assert_eq!(error.location, Some(SourceLoc { file: "t.mlir".into(), line: 2, column: 3 }));
        assert!(error.message.contains("0xff"), "{}", error.message);
        assert_eq!(decode_utf8(b"fine".to_vec(), "t.mlir"), Ok("fine".to_string()));
    }
}
