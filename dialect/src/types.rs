//! The axe attributes and types as plain Rust data, read from and printed to their MLIR text.
//!
//! These views read the printed form (`!axe.tensor<128x64xf16, shared, S[(128,64):(64,1)]>`, the syntax of
//! `cpp/AxeDialect.cpp`) with a small splitter that respects nesting and quotes, and build new ones by printing
//! text that MLIR parses back: the Rust side needs no C API per parameter, and the text is what users read and
//! diff. Nothing here panics: every reader returns `Err(message)` on text it does not understand.

use axe_layout::hw::{ElemType, Memory};
use axe_layout::{ExecScope, Layout, LayoutError};
use std::fmt;

/// Prefix of the printed tensor type.
const TENSOR_PREFIX: &str = "!axe.tensor<";
/// The tensor type's layout keyword for dense row-major over run-time extents.
pub const ROW_MAJOR: &str = "row_major";

/// A tensor's element type: a number of the hardware vocabulary ([`ElemType`], printed as MLIR spells it), or
/// any other MLIR type (`vector<2xf16>`, `!llvm.struct<...>`, `ui8`), kept as its text so it prints back unchanged.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Element {
    /// A number whose MLIR spelling is [`ElemType::mlir`]'s.
    Number(ElemType),
    /// Any other type, as MLIR printed it.
    Other(String),
}

impl Element {
    /// Reads an element type as MLIR prints it.
    pub fn read(text: &str) -> Element {
        ElemType::from_mlir(text).map_or_else(|| Element::Other(text.to_string()), Element::Number)
    }

    /// The number it holds: [`Element::Number`]'s, or another spelling [`ElemType::from_name`] reads (`ui8`,
    /// `si32`); `None` for vectors, structs and the like.
    pub fn number(&self) -> Option<ElemType> {
        match self {
            Element::Number(t) => Some(*t),
            Element::Other(text) => ElemType::from_name(text),
        }
    }

    /// True when it is exactly `t`.
    pub fn is(&self, t: ElemType) -> bool {
        *self == Element::Number(t)
    }
}

impl fmt::Display for Element {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Element::Number(t) => f.write_str(t.mlir()),
            Element::Other(text) => f.write_str(text),
        }
    }
}

/// The layout parameter of a tensor type: layout text, or deferred to `--axe-slice`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LayoutSpec {
    /// A layout in the notation.
    Text(String),
    /// No layout yet: a slice result `--axe-slice` has not computed (the type's layout left out).
    Deferred,
    /// `row_major`: dense row-major over a shape whose extents may be run-time values (docs/dialect.md,
    /// "Run-time sizes"); the layout notation cannot state run-time strides, so it has no [`Layout`].
    RowMajor,
}

impl LayoutSpec {
    /// The parsed layout (memoized per distinct text, [`crate::intern`]); `None` when deferred or row-major.
    pub fn parse(&self) -> Option<Result<Layout, LayoutError>> {
        match self {
            LayoutSpec::Text(text) => Some(crate::intern::layout(text)),
            LayoutSpec::Deferred | LayoutSpec::RowMajor => None,
        }
    }

    /// The layout as a message names it: the notation, `row_major`, or `no layout (deferred)`.
    pub fn describe(&self) -> &str {
        self.type_text().unwrap_or("no layout (deferred)")
    }

    /// The tensor type's layout parameter: the notation, `row_major`, or `None` when deferred (left out).
    pub fn type_text(&self) -> Option<&str> {
        match self {
            LayoutSpec::Text(text) => Some(text),
            LayoutSpec::Deferred => None,
            LayoutSpec::RowMajor => Some(ROW_MAJOR),
        }
    }
}

/// `!axe.tensor<128x?xf16, shared, layout>` as data.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorType {
    /// The logical shape.
    pub shape: Vec<i64>,
    /// The element type, as MLIR prints it (`f16`, `i8`, `vector<2xf16>`).
    pub dtype: Element,
    /// The layout (or deferred).
    pub layout: LayoutSpec,
    /// The memory scope.
    pub mem: Memory,
}

impl TensorType {
    /// Reads a printed type: `Ok(None)` when it is not an `!axe.tensor`, `Err` when it is one that does not read.
    pub fn parse(text: &str) -> Result<Option<TensorType>, String> {
        let Some(body) = text.strip_prefix(TENSOR_PREFIX).and_then(|t| t.strip_suffix('>')) else {
            return Ok(None);
        };
        let parts = split_top_level(body);
        let (shaped, mem, layout) = match parts.as_slice() {
            [shaped, mem] => (*shaped, *mem, LayoutSpec::Deferred),
            [shaped, mem, ROW_MAJOR] => (*shaped, *mem, LayoutSpec::RowMajor),
            [shaped, mem, layout] => (*shaped, *mem, LayoutSpec::Text(layout.to_string())),
            _ => return Err(format!("tensor type must be <shape x type, memory[, layout]>, got {text}")),
        };
        let (shape, dtype) = parse_shaped(shaped)?;
        let mem = Memory::from_name(mem).ok_or_else(|| format!("unknown memory \"{mem}\""))?;
        Ok(Some(TensorType { shape, dtype: Element::read(dtype), layout, mem }))
    }

    /// True when some extent is a run-time value (a shape entry [`crate::ops::DYNAMIC`]).
    pub fn has_runtime_extents(&self) -> bool {
        self.shape.contains(&crate::ops::DYNAMIC)
    }

    /// The number of logical elements (saturating; `i64::MAX` when an extent is a run-time value).
    pub fn element_count(&self) -> i64 {
        if self.has_runtime_extents() {
            return i64::MAX;
        }
        self.shape.iter().fold(1i64, |acc, &e| acc.saturating_mul(e))
    }

    /// The type's text, which MLIR parses back to the same type.
    pub fn to_text(&self) -> String {
        let mut text = format!("{TENSOR_PREFIX}{}{}, {}", shape_prefix(&self.shape), self.dtype, self.mem);
        if let Some(layout) = self.layout.type_text() {
            text.push_str(", ");
            text.push_str(layout);
        }
        text.push('>');
        text
    }

    /// The same tensor with another layout.
    pub fn with_layout(&self, layout: LayoutSpec) -> TensorType {
        TensorType { layout, ..self.clone() }
    }
}

/// A thread subset (`#axe.threads<warpid[0:4]>`): units `[begin, end)` on a thread axis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Threads {
    /// The thread axis name.
    pub axis: String,
    /// First unit in the subset.
    pub begin: i64,
    /// One past the last unit.
    pub end: i64,
}

impl Threads {
    /// Reads `#axe.threads<axis[begin:end]>`.
    pub fn parse(text: &str) -> Result<Threads, String> {
        let bad = || format!("expected #axe.threads<axis[begin:end]>, got {text}");
        let body = text.strip_prefix("#axe.threads<").and_then(|t| t.strip_suffix("]>")).ok_or_else(bad)?;
        let (axis, range) = body.split_once('[').ok_or_else(bad)?;
        let (begin, end) = range.split_once(':').ok_or_else(bad)?;
        let number = |n: &str| n.trim().parse::<i64>().map_err(|_| bad());
        Ok(Threads { axis: axis.trim().to_string(), begin: number(begin)?, end: number(end)? })
    }
}

/// Reads `#axe.exec<cta>`.
pub fn parse_exec_attribute(text: &str) -> Result<ExecScope, String> {
    let name = text
        .strip_prefix("#axe.exec<")
        .and_then(|t| t.strip_suffix('>'))
        .ok_or_else(|| format!("expected #axe.exec<...>, got {text}"))?;
    ExecScope::from_name(name).ok_or_else(|| format!("unknown execution scope \"{name}\""))
}

/// Reads `#axe.layout<text>` and returns the text.
pub fn parse_layout_attribute(text: &str) -> Result<String, String> {
    text.strip_prefix("#axe.layout<")
        .and_then(|t| t.strip_suffix('>'))
        .map(str::to_string)
        .ok_or_else(|| format!("expected #axe.layout<...>, got {text}"))
}

/// `#axe.layout<text>`: the layout notation needs no quotes (it lexes as MLIR tokens).
pub fn layout_attribute_text(text: &str) -> String {
    format!("#axe.layout<{text}>")
}

/// `128x?x`: a shape as the prefix of a shaped type (`?` for a run-time extent, [`crate::ops::DYNAMIC`]).
pub fn shape_prefix(shape: &[i64]) -> String {
    shape.iter().map(|&e| if e == crate::ops::DYNAMIC { "?x".to_string() } else { format!("{e}x") }).collect()
}

/// Reads `128x?xf16` into the shape and the element type's text.
fn parse_shaped(text: &str) -> Result<(Vec<i64>, &str), String> {
    let mut shape = Vec::new();
    let mut rest = text;
    loop {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let (extent, after) = if let Some(after) = rest.strip_prefix("?x") {
            (crate::ops::DYNAMIC, after)
        } else if digits > 0 && rest[digits..].starts_with('x') {
            let extent = rest[..digits].parse::<i64>().map_err(|_| format!("tensor extent too large in {text}"))?;
            if extent < 1 {
                return Err(format!("tensor extents must be at least 1 (or ?), got {extent}"));
            }
            (extent, &rest[digits + 1..])
        } else {
            break;
        };
        shape.push(extent);
        rest = after;
    }
    if rest.is_empty() {
        return Err(format!("tensor type {text} has no element type"));
    }
    Ok((shape, rest))
}

/// Reads `array<i64: 1, 2>` / `array<i64>`.
pub fn parse_i64_array(text: &str) -> Result<Vec<i64>, String> {
    let body = text
        .strip_prefix("array<")
        .and_then(|t| t.strip_suffix('>'))
        .ok_or_else(|| format!("must be array<i64: ...>, got {text}"))?;
    let (element, values) = body.split_once(':').unwrap_or((body, ""));
    if element.trim() != "i64" {
        return Err(format!("must be array<i64: ...>, got {text}"));
    }
    values
        .split(',')
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(|v| v.parse::<i64>().map_err(|_| format!("has a value that is not an i64: {v}")))
        .collect()
}

/// Splits `a, b<c, d>, "e,f"` at the commas that are not nested in brackets or quotes; parts are trimmed.
pub fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut in_string, mut escaped, mut start) = (0i32, false, false, 0);
    for (i, c) in text.char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = text[start..].trim();
    if !last.is_empty() || !parts.is_empty() {
        parts.push(last);
    }
    parts
}

/// Reads a printed MLIR string literal (`"..."`, with `\\`, `\"`, `\n`, `\t` and `\XX` hex escapes).
pub fn unquote(text: &str) -> Result<String, String> {
    let inner = text
        .trim()
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .ok_or_else(|| format!("expected a string literal, got {text}"))?;
    let mut bytes = Vec::with_capacity(inner.len());
    let mut chars = inner.bytes().peekable();
    while let Some(b) = chars.next() {
        if b != b'\\' {
            bytes.push(b);
            continue;
        }
        match chars.next() {
            Some(b'n') => bytes.push(b'\n'),
            Some(b't') => bytes.push(b'\t'),
            Some(c @ (b'\\' | b'"')) => bytes.push(c),
            Some(h) => {
                let l = chars.next().unwrap_or(b'0');
                let hex = [h, l];
                let value = std::str::from_utf8(&hex)
                    .ok()
                    .and_then(|s| u8::from_str_radix(s, 16).ok())
                    .ok_or_else(|| format!("bad escape in string literal {text}"))?;
                bytes.push(value);
            }
            None => return Err(format!("unterminated escape in string literal {text}")),
        }
    }
    String::from_utf8(bytes).map_err(|_| format!("string literal is not utf-8: {text}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tensor_type_reads_and_prints() {
        let text = "!axe.tensor<128x64xf16, shared, S[(128,64):(64,1)]>";
        let t = TensorType::parse(text).expect("reads").expect("is a tensor");
        assert_eq!(t.shape, vec![128, 64]);
        assert_eq!(t.dtype, Element::Number(ElemType::F16));
        assert_eq!(t.layout, LayoutSpec::Text("S[(128,64):(64,1)]".into()));
        assert_eq!(t.mem, Memory::Shared);
        assert_eq!(t.to_text(), text);
        assert_eq!(t.element_count(), 8192);
    }

    #[test]
    fn deferred_row_major_and_nested_dtypes() {
        let text = "!axe.tensor<4x!llvm.struct<(i32, f32)>, reg>";
        let t = TensorType::parse(text).expect("reads").expect("is a tensor");
        assert_eq!(t.dtype, Element::Other("!llvm.struct<(i32, f32)>".into()));
        assert_eq!(t.dtype.number(), None);
        assert_eq!(t.layout, LayoutSpec::Deferred);
        assert_eq!(t.to_text(), text);
        let text = "!axe.tensor<?x64xf16, global, row_major>";
        let t = TensorType::parse(text).expect("reads").expect("is a tensor");
        assert_eq!((t.shape.clone(), t.layout.clone()), (vec![crate::ops::DYNAMIC, 64], LayoutSpec::RowMajor));
        assert_eq!(t.to_text(), text);
        let scalar = TensorType::parse("!axe.tensor<f32, reg, S[1:1]>").expect("reads").expect("is a tensor");
        assert_eq!((scalar.shape.len(), scalar.dtype.to_string().as_str()), (0, "f32"));
    }

    #[test]
    fn element_types_read_as_the_vocabulary_and_print_back() {
        // What passes size buffers with: bytes per element of MLIR's spellings; other types have no size here.
        for (text, bytes) in [("f32", Some(4)), ("bf16", Some(2)), ("f8E4M3FN", Some(1)), ("vector<2xf16>", None)] {
            let element = Element::read(text);
            assert_eq!((element.number().map(ElemType::bytes), element.to_string().as_str()), (bytes, text));
        }
        // A spelling the vocabulary prints differently stays as written (ui8 is not i8 in MLIR).
        assert_eq!(Element::read("ui8"), Element::Other("ui8".into()));
        assert_eq!(Element::read("ui8").number(), Some(ElemType::U8));
    }

    #[test]
    fn malformed_text_is_an_error_not_a_panic() {
        assert_eq!(TensorType::parse("f16"), Ok(None));
        for bad in [
            "!axe.tensor<>",
            "!axe.tensor<4xf16>",
            "!axe.tensor<0xf16, reg>",
            "!axe.tensor<4x, reg>",
            "!axe.tensor<99999999999999999999xf16, reg>",
            "!axe.tensor<4xf16, l2>",
            "!axe.tensor<4xf16, reg, S[4:1], x>",
        ] {
            assert!(TensorType::parse(bad).is_err(), "{bad}");
        }
        assert!(unquote("\"a\\").is_err());
        assert!(Threads::parse("#axe.threads<warpid[0]>").is_err());
        assert!(Threads::parse("#axe.threads<warpid 0:4>").is_err());
    }

    #[test]
    fn attributes_read() {
        assert_eq!(parse_exec_attribute("#axe.exec<warpgroup>"), Ok(ExecScope::Warpgroup));
        assert_eq!(
            Threads::parse("#axe.threads<warpid[4:8]>"),
            Ok(Threads { axis: "warpid".into(), begin: 4, end: 8 })
        );
        assert_eq!(parse_layout_attribute("#axe.layout<S[4:1] + 2@m>"), Ok("S[4:1] + 2@m".to_string()));
        assert_eq!(unquote("\"a\\22b\\\\c\""), Ok("a\"b\\c".to_string()));
        assert_eq!(split_top_level("a, b<c, d>, \"e,f\""), vec!["a", "b<c, d>", "\"e,f\""]);
    }
}
