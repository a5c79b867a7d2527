//! The Python side of the NKI emitter: indented lines, index expressions printed with the fewest parentheses,
//! names taken from the source where they are valid Python, and NKI's spelling of element types.

use axe_layout::hw::ElemType;
use std::collections::HashSet;
use std::fmt;

/// Lines of Python at an indentation level.
#[derive(Default)]
pub(super) struct Lines {
    text: String,
    depth: usize,
}

impl Lines {
    /// Appends one line at the current depth (an empty `line` is a blank line).
    pub(super) fn line(&mut self, line: impl AsRef<str>) {
        let line = line.as_ref();
        if !line.is_empty() {
            self.text.extend(std::iter::repeat_n("    ", self.depth));
            self.text.push_str(line);
        }
        self.text.push('\n');
    }

    /// One level deeper (a block's body follows).
    pub(super) fn indent(&mut self) {
        self.depth += 1;
    }

    /// One level out.
    pub(super) fn dedent(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// The text so far.
    pub(super) fn finish(self) -> String {
        self.text
    }
}

/// An integer expression of loop variables: what an `index` value of the IR is in the kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Expr {
    /// A constant.
    Int(i64),
    /// A loop variable.
    Name(String),
    /// `lhs op rhs`.
    Binary(BinOp, Box<Expr>, Box<Expr>),
}

/// The integer operators `arith` has on `index` that Python writes as one operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BinOp {
    Add,
    Sub,
    Mul,
    /// Floor division (`arith.divui` and `arith.floordivsi`; the emitter only divides non-negative values).
    Div,
    /// Remainder of non-negative values.
    Rem,
}

impl BinOp {
    fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "//",
            BinOp::Rem => "%",
        }
    }

    fn precedence(self) -> u8 {
        match self {
            BinOp::Add | BinOp::Sub => 1,
            BinOp::Mul | BinOp::Div | BinOp::Rem => 2,
        }
    }

    fn fold(self, a: i64, b: i64) -> Option<i64> {
        match self {
            BinOp::Add => a.checked_add(b),
            BinOp::Sub => a.checked_sub(b),
            BinOp::Mul => a.checked_mul(b),
            BinOp::Div => (b > 0 && a >= 0).then(|| a / b),
            BinOp::Rem => (b > 0 && a >= 0).then(|| a % b),
        }
    }
}

impl Expr {
    /// `lhs op rhs`, folded when both are constants and simplified when one is the operation's identity.
    pub(super) fn binary(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
        // (x * c) // d = x * (c / d) when d divides c: a run-time offset counted back in steps.
        if let (BinOp::Div, Expr::Binary(BinOp::Mul, x, c), Expr::Int(d)) = (op, &lhs, &rhs) {
            if let Expr::Int(c) = **c {
                if *d > 0 && c % d == 0 {
                    return Expr::binary(BinOp::Mul, (**x).clone(), Expr::Int(c / d));
                }
            }
        }
        match (op, &lhs, &rhs) {
            (_, Expr::Int(a), Expr::Int(b)) if op.fold(*a, *b).is_some() => Expr::Int(op.fold(*a, *b).unwrap_or(0)),
            (BinOp::Add | BinOp::Sub, _, Expr::Int(0)) | (BinOp::Mul | BinOp::Div, _, Expr::Int(1)) => lhs,
            (BinOp::Add, Expr::Int(0), _) | (BinOp::Mul, Expr::Int(1), _) => rhs,
            (BinOp::Mul, Expr::Int(0), _) | (BinOp::Mul, _, Expr::Int(0)) => Expr::Int(0),

            _ => Expr::Binary(op, Box::new(lhs), Box::new(rhs)),
        }
    }

    /// `self + n`.
    pub(super) fn plus(&self, n: i64) -> Expr {
        Expr::binary(BinOp::Add, self.clone(), Expr::Int(n))
    }

    fn precedence(&self) -> u8 {
        match self {
            Expr::Binary(op, ..) => op.precedence(),
            _ => 3,
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Int(n) => write!(f, "{n}"),
            Expr::Name(name) => f.write_str(name),
            Expr::Binary(op, lhs, rhs) => {
                // Left-associative: the right operand needs parentheses at equal precedence too.
                let wrap = |e: &Expr, tight: bool| {
                    if e.precedence() < op.precedence() || (tight && e.precedence() == op.precedence()) {
                        format!("({e})")
                    } else {
                        e.to_string()
                    }
                };
                write!(f, "{} {} {}", wrap(lhs, false), op.symbol(), wrap(rhs, true))
            }
        }
    }
}

/// `start:start + len` as a Python slice, spaced as black spaces it: around the colon when a bound is an
/// expression (`i * 128 : i * 128 + 128`), not between plain numbers or names (`0:64`).
pub(super) fn slice(start: &Expr, len: i64) -> String {
    let end = start.plus(len);
    if matches!(start, Expr::Binary(..)) || matches!(end, Expr::Binary(..)) {
        format!("{start} : {end}")
    } else {
        format!("{start}:{end}")
    }
}

/// Python names, one per IR value, from the names the source gives (`%acc` -> `acc`) where they are free.
#[derive(Default)]
pub(super) struct Names {
    taken: HashSet<String>,
}

/// Names the kernel's module binds or Python reserves.
const RESERVED: &[&str] = &[
    "nki", "nl", "nisa", "np", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "False", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
    "None", "nonlocal", "not", "or", "pass", "raise", "return", "True", "try", "while", "with", "yield", "range",
    "print", "len", "tuple", "list", "min", "max", "sum", "abs",
];

/// True for the names the kernel's module binds or Python reserves.
pub(super) fn is_reserved(name: &str) -> bool {
    RESERVED.contains(&name)
}

impl Names {
    /// A fresh Python name like `wanted` (an SSA name without `%`, or a fallback): invalid characters become `_`,
    /// a leading digit or a reserved word gets a prefix, a taken name a numeric suffix.
    pub(super) fn fresh(&mut self, wanted: &str, fallback: &str) -> String {
        let mut base: String =
            wanted.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
        if base.is_empty() {
            base = fallback.to_string();
        }
        if base.starts_with(|c: char| c.is_ascii_digit()) {
            base = format!("{fallback}{base}");
        }
        if RESERVED.contains(&base.as_str()) {
            base.push('_');
        }
        let mut name = base.clone();
        let mut n = 1;
        while !self.taken.insert(name.clone()) {
            name = format!("{base}_{n}");
            n += 1;
        }
        name
    }
}

/// `(a, b)` as Python writes a tuple.
pub(super) fn shape_tuple(shape: &[i64]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => format!("({})", shape.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")),
    }
}

/// NKI's name of an element type (`nl.float16`), for the types the Tensor Engine and the DMA move.
pub(super) fn dtype(t: ElemType) -> Option<&'static str> {
    Some(match t {
        ElemType::F32 => "nl.float32",
        ElemType::F16 => "nl.float16",
        ElemType::BF16 => "nl.bfloat16",
        ElemType::TF32 => "nl.tfloat32",
        ElemType::F8E4M3 => "nl.float8_e4m3",
        ElemType::F8E5M2 => "nl.float8_e5m2",
        ElemType::I32 => "nl.int32",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(n: &str) -> Expr {
        Expr::Name(n.to_string())
    }

    #[test]
    fn expressions_print_with_the_parentheses_they_need() {
        let m0 = Expr::binary(BinOp::Mul, name("i"), Expr::Int(128));
        assert_eq!(m0.to_string(), "i * 128");
        assert_eq!(slice(&m0, 128), "i * 128 : i * 128 + 128");
        let sum = Expr::binary(BinOp::Add, name("i"), name("j"));
        assert_eq!(Expr::binary(BinOp::Mul, sum.clone(), Expr::Int(4)).to_string(), "(i + j) * 4");
        assert_eq!(Expr::binary(BinOp::Sub, name("k"), sum).to_string(), "k - (i + j)");
        assert_eq!(Expr::binary(BinOp::Mul, Expr::Int(3), Expr::Int(5)), Expr::Int(15));
        assert_eq!(Expr::binary(BinOp::Add, name("i"), Expr::Int(0)), name("i"));
        assert_eq!(slice(&Expr::Int(0), 64), "0:64");
        let offset = Expr::binary(BinOp::Mul, name("j"), Expr::Int(128));
        assert_eq!(Expr::binary(BinOp::Div, offset.clone(), Expr::Int(128)), name("j"));
        assert_eq!(Expr::binary(BinOp::Div, offset.clone(), Expr::Int(64)).to_string(), "j * 2");
        assert_eq!(Expr::binary(BinOp::Div, offset, Expr::Int(256)).to_string(), "j * 128 // 256");
    }

    #[test]
    fn names_are_python_and_unique() {
        let mut names = Names::default();
        assert_eq!(names.fresh("acc", "t"), "acc");
        assert_eq!(names.fresh("acc", "t"), "acc_1");
        assert_eq!(names.fresh("0", "v"), "v0");
        assert_eq!(names.fresh("nl", "t"), "nl_");
        assert_eq!(names.fresh("a.b", "t"), "a_b");
    }
}
