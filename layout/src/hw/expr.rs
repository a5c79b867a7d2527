//! Integer expressions over a kernel's arguments, evaluated at launch ([`Expr`]), and the preconditions a launch
//! checks ([`Precondition`]: an expression, a comparison, an expression).
//!
//! The passes write them into kernel attributes as text (a run-time-sized tensor map's `global_dims` and
//! `global_strides_bytes` in `axe.tensor_maps`, `--lower-copy`'s alignment needs in `axe.preconditions`, the
//! extents of `axe.views`); the launch record (`axe-translate --emit=launch`) prints them over the parameter
//! names and the simulator evaluates them on a launch's arguments. All of them build, print, parse and evaluate
//! these types, so the text has one grammar and one printer:
//!
//! ```text
//! precondition := sum cmp sum          cmp := == | != | < | <= | > | >=
//! sum          := product (+ product)*
//! product      := atom ((* | / | %) atom)*
//! atom         := integer | name | sm_count | ceildiv(sum, sum) | min(sum, sum) | (sum)
//! ```
//!
//! A name is `arg<i>` (kernel argument `i`) in the IR's text, or a parameter name in the launch record's
//! ([`Expr::named`], [`Expr::parse_named`]). `sm_count` is the number of SMs of the device a launch runs on,
//! which only the launcher knows (a persistent kernel's grid: `min(tiles, sm_count)`); [`Expr::eval_on`] takes it. Integers are non-negative and fit `i64`; there is no minus sign.
//! Operators are left-associative; `/` is exact division (a remainder is an error), `%` and `ceildiv` round
//! toward minus infinity (Python's `%` and `-(-a // b)`, as `python/axe/record.py` evaluates the record). The
//! printer writes one space around each operator and parentheses only where the tree needs them, so
//! `print(parse(text)) == text` for every printed text, and evaluation uses checked `i64` arithmetic: an overflow,
//! a division by zero or an inexact division is an error, never a wrapped value.

use std::fmt;

/// An integer expression over a kernel's arguments.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    /// A non-negative integer (the grammar has no minus sign; a negative one prints but does not parse).
    Int(i64),
    /// Kernel argument `i`, printed `arg<i>` (or its parameter name, [`Expr::named`]).
    Arg(usize),
    /// `a + b`.
    Add(Box<Expr>, Box<Expr>),
    /// `a * b`.
    Mul(Box<Expr>, Box<Expr>),
    /// `a / b`, exact: a remainder is an evaluation error.
    Div(Box<Expr>, Box<Expr>),
    /// `a % b`, with the sign of `b` (floor division's remainder).
    Rem(Box<Expr>, Box<Expr>),
    /// `ceildiv(a, b)`: the quotient rounded up.
    CeilDiv(Box<Expr>, Box<Expr>),
    /// `min(a, b)`: the smaller.
    Min(Box<Expr>, Box<Expr>),
    /// `sm_count`: the SMs of the device the kernel is launched on.
    SmCount,
}

/// A comparison of two expressions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// What a launch must guarantee about its arguments: `lhs cmp rhs` (`arg5 % 16 == 0`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Precondition {
    /// The left side.
    pub lhs: Expr,
    /// The comparison.
    pub cmp: Cmp,
    /// The right side.
    pub rhs: Expr,
}

/// Why a text does not parse, or an expression does not evaluate: the rule, then the numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExprError(String);

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ExprError {}

fn error<T>(message: impl Into<String>) -> Result<T, ExprError> {
    Err(ExprError(message.into()))
}

impl Expr {
    /// The product of `factors`, left to right (`1` when there are none).
    pub fn product(factors: impl IntoIterator<Item = Expr>) -> Expr {
        let mut factors = factors.into_iter();
        let first = factors.next().unwrap_or(Expr::Int(1));
        factors.fold(first, |acc, f| Expr::Mul(Box::new(acc), Box::new(f)))
    }

    /// `self / divisor`, exact.
    pub fn exact_div(self, divisor: Expr) -> Expr {
        Expr::Div(Box::new(self), Box::new(divisor))
    }

    /// `self % modulus`.
    pub fn modulo(self, modulus: Expr) -> Expr {
        Expr::Rem(Box::new(self), Box::new(modulus))
    }

    /// The kernel arguments the expression reads, in the order they are printed (repeats included).
    pub fn args(&self) -> Vec<usize> {
        let mut out = Vec::new();
        self.collect_args(&mut out);
        out
    }

    fn collect_args(&self, out: &mut Vec<usize>) {
        match self {
            Expr::Int(_) | Expr::SmCount => {}
            Expr::Arg(i) => out.push(*i),
            Expr::Add(a, b)
            | Expr::Mul(a, b)
            | Expr::Div(a, b)
            | Expr::Rem(a, b)
            | Expr::CeilDiv(a, b)
            | Expr::Min(a, b) => {
                a.collect_args(out);
                b.collect_args(out);
            }
        }
    }

    /// The expression printed with argument `i` as `names[i]` (`arg<i>` past the end of `names`).
    pub fn named<'a>(&'a self, names: &'a [String]) -> Named<'a, Expr> {
        Named { item: self, names }
    }

    /// Parses the IR's text (arguments as `arg<i>`), the inverse of `Display`.
    pub fn parse(text: &str) -> Result<Expr, ExprError> {
        Parser::new(text, Idents::Args)?.expression()
    }

    /// Parses text over parameter names: `names[i]` is argument `i`, the inverse of [`Expr::named`].
    pub fn parse_named(text: &str, names: &[String]) -> Result<Expr, ExprError> {
        Parser::new(text, Idents::Names(names))?.expression()
    }

    /// The value for the launch's arguments `args` (argument `i` is `args[i]`).
    pub fn eval(&self, args: &[i64]) -> Result<i64, ExprError> {
        self.eval_with(&|i| args.get(i).copied())
    }

    /// The value with argument `i` given by `arg(i)`; `None` there (no such argument, or not an integer) is an
    /// error, as are an overflow, a division by zero, an inexact `/` and `sm_count` (only a launch knows it).
    pub fn eval_with(&self, arg: &dyn Fn(usize) -> Option<i64>) -> Result<i64, ExprError> {
        self.eval_on(arg, None)
    }

    /// The value on a device of `sm_count` SMs (`None`: not known, so `sm_count` is an error), argument `i` given
    /// by `arg(i)` as in [`Expr::eval_with`].
    pub fn eval_on(&self, arg: &dyn Fn(usize) -> Option<i64>, sm_count: Option<i64>) -> Result<i64, ExprError> {
        let (a, b) = match self {
            Expr::Int(v) => return Ok(*v),
            Expr::Arg(i) => {
                return arg(*i).map_or_else(|| error(format!("argument {i} is not an integer of the launch")), Ok)
            }
            Expr::SmCount => {
                return sm_count.map_or_else(|| error("sm_count is known only at launch (the device's SMs)"), Ok)
            }
            Expr::Add(a, b)
            | Expr::Mul(a, b)
            | Expr::Div(a, b)
            | Expr::Rem(a, b)
            | Expr::CeilDiv(a, b)
            | Expr::Min(a, b) => (a.eval_on(arg, sm_count)?, b.eval_on(arg, sm_count)?),
        };
        if matches!(self, Expr::Min(..)) {
            return Ok(a.min(b));
        }
        let overflow = |op: &str| ExprError(format!("overflow: {a} {op} {b} is past 64 bits"));
        if b == 0 && matches!(self, Expr::Div(..) | Expr::Rem(..) | Expr::CeilDiv(..)) {
            return error(format!("division by zero: {self} with {a} / 0"));
        }
        match self {
            Expr::Add(..) => a.checked_add(b).ok_or_else(|| overflow("+")),
            Expr::Mul(..) => a.checked_mul(b).ok_or_else(|| overflow("*")),
            Expr::Div(..) => {
                if a.wrapping_rem(b) != 0 {
                    return error(format!("inexact division: {a} / {b} leaves {}", a.wrapping_rem(b)));
                }
                a.checked_div(b).ok_or_else(|| overflow("/"))
            }
            Expr::Rem(..) => {
                let r = a.wrapping_rem(b);
                Ok(if r != 0 && (r < 0) != (b < 0) { r + b } else { r })
            }
            _ => {
                let q = a.checked_div(b).ok_or_else(|| overflow("/"))?;
                let r = a.wrapping_rem(b);
                Ok(if r != 0 && (r > 0) == (b > 0) { q + 1 } else { q })
            }
        }
    }

    /// Binding strength: 1 for a sum, 2 for a product, 3 for an atom.
    fn precedence(&self) -> u8 {
        match self {
            Expr::Add(..) => 1,
            Expr::Mul(..) | Expr::Div(..) | Expr::Rem(..) => 2,
            Expr::Int(_) | Expr::Arg(_) | Expr::SmCount | Expr::CeilDiv(..) | Expr::Min(..) => 3,
        }
    }

    /// Writes the expression, parenthesized when it binds weaker than `at`.
    fn write(&self, f: &mut fmt::Formatter<'_>, names: &[String], at: u8) -> fmt::Result {
        if self.precedence() < at {
            f.write_str("(")?;
            self.write(f, names, 1)?;
            return f.write_str(")");
        }
        let (a, op, b) = match self {
            Expr::Int(v) => return write!(f, "{v}"),
            Expr::Arg(i) => {
                return match names.get(*i) {
                    Some(name) => f.write_str(name),
                    None => write!(f, "arg{i}"),
                }
            }
            Expr::SmCount => return f.write_str(SM_COUNT),
            Expr::CeilDiv(a, b) | Expr::Min(a, b) => {
                f.write_str(if matches!(self, Expr::Min(..)) { "min(" } else { "ceildiv(" })?;
                a.write(f, names, 1)?;
                f.write_str(", ")?;
                b.write(f, names, 1)?;
                return f.write_str(")");
            }
            Expr::Add(a, b) => (a, "+", b),
            Expr::Mul(a, b) => (a, "*", b),
            Expr::Div(a, b) => (a, "/", b),
            Expr::Rem(a, b) => (a, "%", b),
        };
        // Left-associative: the left operand may bind as strongly as this one, the right must bind stronger.
        let level = self.precedence();
        a.write(f, names, level)?;
        write!(f, " {op} ")?;
        b.write(f, names, level + 1)
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, &[], 1)
    }
}

impl Cmp {
    /// The comparison's text (`==`, `<=`, ...).
    pub fn symbol(self) -> &'static str {
        match self {
            Cmp::Eq => "==",
            Cmp::Ne => "!=",
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
        }
    }

    /// Whether `lhs self rhs` holds.
    pub fn holds(self, lhs: i64, rhs: i64) -> bool {
        match self {
            Cmp::Eq => lhs == rhs,
            Cmp::Ne => lhs != rhs,
            Cmp::Lt => lhs < rhs,
            Cmp::Le => lhs <= rhs,
            Cmp::Gt => lhs > rhs,
            Cmp::Ge => lhs >= rhs,
        }
    }
}

impl Precondition {
    /// `lhs cmp rhs`.
    pub fn new(lhs: Expr, cmp: Cmp, rhs: Expr) -> Precondition {
        Precondition { lhs, cmp, rhs }
    }

    /// The precondition printed with argument `i` as `names[i]` (`arg<i>` past the end of `names`).
    pub fn named<'a>(&'a self, names: &'a [String]) -> Named<'a, Precondition> {
        Named { item: self, names }
    }

    /// The kernel arguments both sides read, left side first.
    pub fn args(&self) -> Vec<usize> {
        let mut out = self.lhs.args();
        out.extend(self.rhs.args());
        out
    }

    /// Parses the IR's text (arguments as `arg<i>`), the inverse of `Display`.
    pub fn parse(text: &str) -> Result<Precondition, ExprError> {
        Parser::new(text, Idents::Args)?.precondition()
    }

    /// Parses text over parameter names (`names[i]` is argument `i`), the inverse of [`Precondition::named`].
    pub fn parse_named(text: &str, names: &[String]) -> Result<Precondition, ExprError> {
        Parser::new(text, Idents::Names(names))?.precondition()
    }

    /// The two sides' values, argument `i` given by `arg(i)` ([`Expr::eval_with`]).
    pub fn sides_with(&self, arg: &dyn Fn(usize) -> Option<i64>) -> Result<(i64, i64), ExprError> {
        Ok((self.lhs.eval_with(arg)?, self.rhs.eval_with(arg)?))
    }

    /// Whether the launch's arguments `args` satisfy it (an error where a side does not evaluate).
    pub fn holds(&self, args: &[i64]) -> Result<bool, ExprError> {
        let (l, r) = self.sides_with(&|i| args.get(i).copied())?;
        Ok(self.cmp.holds(l, r))
    }

    fn write(&self, f: &mut fmt::Formatter<'_>, names: &[String]) -> fmt::Result {
        self.lhs.write(f, names, 1)?;
        write!(f, " {} ", self.cmp.symbol())?;
        self.rhs.write(f, names, 1)
    }
}

impl fmt::Display for Precondition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, &[])
    }
}

/// An [`Expr`] or [`Precondition`] printed over parameter names (`Expr::named`, `Precondition::named`).
pub struct Named<'a, T> {
    item: &'a T,
    names: &'a [String],
}

impl fmt::Display for Named<'_, Expr> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.item.write(f, self.names, 1)
    }
}

impl fmt::Display for Named<'_, Precondition> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.item.write(f, self.names)
    }
}

/// The name of the device's SM count in the grammar.
const SM_COUNT: &str = "sm_count";
/// The words the grammar reserves: no parameter may take them.
const RESERVED: [&str; 3] = ["ceildiv", "min", SM_COUNT];

/// Whether `text` can name a parameter in the record's text: an identifier (`[A-Za-z_][A-Za-z0-9_]*`) other than
/// `ceildiv`, `min` and `sm_count`, so that [`Expr::parse_named`] reads it as the parameter.
pub fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !RESERVED.contains(&text)
}

/// `text` with every `arg<i>` word replaced by `names[i]` (where there is one), the rest as written: for a message
/// that quotes IR text which did not parse, over the names its reader knows.
pub fn rename_args_text(text: &str, names: &[String]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        match word.strip_prefix("arg").and_then(|n| n.parse::<usize>().ok()).and_then(|i| names.get(i)) {
            Some(name) => out.push_str(name),
            None => out.push_str(word),
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// How the parser reads a name.
#[derive(Clone, Copy)]
enum Idents<'a> {
    /// `arg<i>`.
    Args,
    /// Parameter names, argument `i` named `names[i]`.
    Names(&'a [String]),
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Int(i64),
    Word(String),
    Op(char),
    Compare(Cmp),
    Open,
    Close,
    Comma,
}

impl Token {
    fn describe(&self) -> String {
        match self {
            Token::Int(_) => "a number".to_string(),
            Token::Word(w) => format!("'{w}'"),
            Token::Op(c) => format!("'{c}'"),
            Token::Compare(_) => "a comparison".to_string(),
            Token::Open => "'('".to_string(),
            Token::Close => "')'".to_string(),
            Token::Comma => "','".to_string(),
        }
    }
}

fn tokenize(text: &str) -> Result<Vec<Token>, ExprError> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            if word.chars().all(|c| c.is_ascii_digit()) {
                let value = word.parse::<i64>().or_else(|_| error(format!("the number {word} is past 64 bits")))?;
                tokens.push(Token::Int(value));
            } else {
                tokens.push(Token::Word(word));
            }
            continue;
        }
        let next = chars.get(i + 1).copied();
        let compare = match (c, next) {
            ('=', Some('=')) => Some((Cmp::Eq, 2)),
            ('!', Some('=')) => Some((Cmp::Ne, 2)),
            ('<', Some('=')) => Some((Cmp::Le, 2)),
            ('>', Some('=')) => Some((Cmp::Ge, 2)),
            ('<', _) => Some((Cmp::Lt, 1)),
            ('>', _) => Some((Cmp::Gt, 1)),
            _ => None,
        };
        if let Some((cmp, width)) = compare {
            tokens.push(Token::Compare(cmp));
            i += width;
            continue;
        }
        tokens.push(match c {
            '+' | '*' | '/' | '%' => Token::Op(c),
            '(' => Token::Open,
            ')' => Token::Close,
            ',' => Token::Comma,
            other => return error(format!("unexpected '{other}'")),
        });
        i += 1;
    }
    Ok(tokens)
}

struct Parser<'a> {
    tokens: Vec<Token>,
    at: usize,
    idents: Idents<'a>,
}

impl<'a> Parser<'a> {
    fn new(text: &str, idents: Idents<'a>) -> Result<Parser<'a>, ExprError> {
        Ok(Parser { tokens: tokenize(text)?, at: 0, idents })
    }

    /// A whole text that is one expression.
    fn expression(mut self) -> Result<Expr, ExprError> {
        let expr = self.sum()?;
        self.end()?;
        Ok(expr)
    }

    /// A whole text that is one precondition.
    fn precondition(mut self) -> Result<Precondition, ExprError> {
        let lhs = self.sum()?;
        let Some(Token::Compare(cmp)) = self.peek().cloned() else {
            return error("a precondition must compare two expressions");
        };
        self.at += 1;
        let rhs = self.sum()?;
        self.end()?;
        Ok(Precondition { lhs, cmp, rhs })
    }

    fn end(&self) -> Result<(), ExprError> {
        match self.peek() {
            None => Ok(()),
            Some(Token::Compare(_)) => error("a comparison belongs only in a precondition, once"),
            Some(token) => error(format!("unexpected {}", token.describe())),
        }
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn advance(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        token
    }

    fn expect(&mut self, want: Token) -> Result<(), ExprError> {
        match self.advance() {
            Some(t) if t == want => Ok(()),
            Some(t) => error(format!("expected {}, got {}", want.describe(), t.describe())),
            None => error(format!("expected {} at the end", want.describe())),
        }
    }

    fn sum(&mut self) -> Result<Expr, ExprError> {
        let mut expr = self.product()?;
        while self.peek() == Some(&Token::Op('+')) {
            self.at += 1;
            expr = Expr::Add(Box::new(expr), Box::new(self.product()?));
        }
        Ok(expr)
    }

    fn product(&mut self) -> Result<Expr, ExprError> {
        let mut expr = self.atom()?;
        while let Some(Token::Op(op @ ('*' | '/' | '%'))) = self.peek().cloned() {
            self.at += 1;
            let (a, b) = (Box::new(expr), Box::new(self.atom()?));
            expr = match op {
                '*' => Expr::Mul(a, b),
                '/' => Expr::Div(a, b),
                _ => Expr::Rem(a, b),
            };
        }
        Ok(expr)
    }

    fn atom(&mut self) -> Result<Expr, ExprError> {
        match self.advance() {
            Some(Token::Int(v)) => Ok(Expr::Int(v)),
            Some(Token::Word(w)) if w == "ceildiv" || w == "min" => {
                self.expect(Token::Open)?;
                let a = Box::new(self.sum()?);
                self.expect(Token::Comma)?;
                let b = Box::new(self.sum()?);
                self.expect(Token::Close)?;
                Ok(if w == "min" { Expr::Min(a, b) } else { Expr::CeilDiv(a, b) })
            }
            Some(Token::Word(w)) if w == SM_COUNT => Ok(Expr::SmCount),
            Some(Token::Word(w)) => self.name(&w),
            Some(Token::Open) => {
                let expr = self.sum()?;
                self.expect(Token::Close)?;
                Ok(expr)
            }
            Some(t) => error(format!("unexpected {}", t.describe())),
            None => error("the expression ends early"),
        }
    }

    /// The argument a name stands for.
    fn name(&self, word: &str) -> Result<Expr, ExprError> {
        match self.idents {
            Idents::Args => match word.strip_prefix("arg").map(|n| (n, n.parse::<usize>())) {
                Some((n, Ok(i))) if n.bytes().all(|b| b.is_ascii_digit()) => Ok(Expr::Arg(i)),
                _ => error(format!("'{word}' is neither an integer nor a kernel argument (arg<i>)")),
            },
            Idents::Names(names) => match names.iter().position(|n| n == word) {
                Some(i) => Ok(Expr::Arg(i)),
                None => error(format!("'{word}' is neither an integer nor a parameter name")),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn arg(i: usize) -> Expr {
        Expr::Arg(i)
    }

    fn int(v: i64) -> Expr {
        Expr::Int(v)
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    /// The texts the passes write (`--lower-tma`'s dims, strides and preconditions, `--lower-copy`'s alignment
    /// needs), built by hand, print as written and parse back to the same tree.
    #[test]
    fn printed_texts_round_trip() {
        let cases: Vec<(Expr, &str)> = vec![
            (int(128), "128"),
            (arg(5), "arg5"),
            (Expr::product([arg(5), int(2)]), "arg5 * 2"),
            (Expr::product([arg(3), arg(5), int(4)]), "arg3 * arg5 * 4"),
            (arg(5).exact_div(int(2)), "arg5 / 2"),
            (Expr::product([arg(1), int(2)]).exact_div(int(4)), "arg1 * 2 / 4"),
            (arg(5).modulo(int(16)), "arg5 % 16"),
            (Expr::CeilDiv(Box::new(arg(0)), Box::new(int(128))), "ceildiv(arg0, 128)"),
            (
                Expr::Min(Box::new(Expr::product([arg(0), arg(1)])), Box::new(Expr::SmCount)),
                "min(arg0 * arg1, sm_count)",
            ),
            // Parentheses only where the tree needs them: a sum inside a product, a right operand of equal rank.
            (Expr::Mul(Box::new(Expr::Add(Box::new(arg(0)), Box::new(int(1)))), Box::new(arg(1))), "(arg0 + 1) * arg1"),
            (Expr::Mul(Box::new(arg(0)), Box::new(Expr::Mul(Box::new(arg(1)), Box::new(int(2))))), "arg0 * (arg1 * 2)"),
            (Expr::Add(Box::new(arg(0)), Box::new(Expr::Mul(Box::new(arg(1)), Box::new(int(2))))), "arg0 + arg1 * 2"),
            (Expr::Add(Box::new(int(1)), Box::new(Expr::Add(Box::new(int(2)), Box::new(int(3))))), "1 + (2 + 3)"),
        ];
        for (expr, text) in cases {
            assert_eq!(expr.to_string(), text);
            assert_eq!(Expr::parse(text), Ok(expr), "{text}");
        }
        let conditions = [
            (Precondition::new(arg(5), Cmp::Ge, int(1)), "arg5 >= 1"),
            (Precondition::new(arg(5).modulo(int(16)), Cmp::Eq, int(0)), "arg5 % 16 == 0"),
            (Precondition::new(arg(5).exact_div(int(2)), Cmp::Le, int(4294967296)), "arg5 / 2 <= 4294967296"),
            (
                Precondition::new(Expr::product([arg(2), int(2)]), Cmp::Lt, int(1099511627776)),
                "arg2 * 2 < 1099511627776",
            ),
            (Precondition::new(arg(0), Cmp::Ne, arg(1)), "arg0 != arg1"),
            (Precondition::new(arg(0), Cmp::Gt, int(0)), "arg0 > 0"),
        ];
        for (condition, text) in conditions {
            assert_eq!(condition.to_string(), text);
            assert_eq!(Precondition::parse(text), Ok(condition), "{text}");
        }
    }

    /// The launch record's form: the same trees over parameter names, and back.
    #[test]
    fn named_printing_and_parsing() {
        let names = names(&["A", "M", "K"]);
        let dim = Expr::product([arg(2), int(2)]);
        assert_eq!(dim.named(&names).to_string(), "K * 2");
        assert_eq!(Expr::parse_named("K * 2", &names), Ok(dim));
        let condition = Precondition::new(arg(1).modulo(int(16)), Cmp::Eq, int(0));
        assert_eq!(condition.named(&names).to_string(), "M % 16 == 0");
        assert_eq!(Precondition::parse_named("M % 16 == 0", &names), Ok(condition));
        // An argument without a name keeps its IR spelling.
        assert_eq!(arg(9).named(&names).to_string(), "arg9");
        assert_eq!(
            Expr::parse_named("(M + 1) * K / 2 % 3", &names).unwrap().named(&names).to_string(),
            "(M + 1) * K / 2 % 3"
        );
        assert_eq!(rename_args_text("arg1 - 1 + arg9 + argx", &names), "M - 1 + arg9 + argx");
        for good in ["M", "_k", "K2", "param0"] {
            assert!(is_name(good), "{good}");
        }
        for bad in ["", "2K", "ceildiv", "min", "sm_count", "k-1", "k.1"] {
            assert!(!is_name(bad), "{bad}");
        }
    }

    /// Text outside the grammar is an error that says what is wrong, never a panic.
    #[test]
    fn bad_text_is_refused_with_the_reason() {
        let names = names(&["M", "N"]);
        let refuse = |text: &str| Expr::parse_named(text, &names).unwrap_err().to_string();
        assert_eq!(refuse("ceildiv(Q, 128)"), "'Q' is neither an integer nor a parameter name");
        assert_eq!(refuse("N - 1"), "unexpected '-'");
        assert_eq!(refuse("N +"), "the expression ends early");
        assert_eq!(refuse("ceildiv(N, 128"), "expected ')' at the end");
        assert_eq!(refuse("ceildiv N"), "expected '(', got 'N'");
        assert_eq!(refuse("99999999999999999999"), "the number 99999999999999999999 is past 64 bits");
        assert_eq!(refuse("N == 1"), "a comparison belongs only in a precondition, once");
        assert_eq!(refuse("M N"), "unexpected 'N'");
        assert_eq!(refuse(""), "the expression ends early");
        let precondition = |text: &str| Precondition::parse_named(text, &names).unwrap_err().to_string();
        assert_eq!(precondition("N % 8"), "a precondition must compare two expressions");
        assert_eq!(precondition("N < M < 3"), "a comparison belongs only in a precondition, once");
        assert_eq!(precondition("N = 3"), "unexpected '='");
        assert_eq!(
            Expr::parse("M * 2").unwrap_err().to_string(),
            "'M' is neither an integer nor a kernel argument (arg<i>)"
        );
        assert!(Expr::parse("arg").is_err());
        assert!(Expr::parse("arg+1").is_err());
        assert!(Expr::parse("arg99999999999999999999999").is_err());
        assert!(Expr::parse("-3").is_err());
    }

    #[test]
    fn evaluation() {
        let args = [4096, 144, 7];
        let eval = |text: &str| Expr::parse(text).unwrap().eval(&args);
        assert_eq!(eval("arg0 * 2"), Ok(8192));
        assert_eq!(eval("arg0 * arg1 * 2 / 4"), Ok(294912)); // 4096 * 144 * 2 / 4
        assert_eq!(eval("ceildiv(arg1, 128)"), Ok(2));
        assert_eq!(eval("ceildiv(arg0, 128)"), Ok(32));
        assert_eq!(eval("arg2 % 4 + 1"), Ok(4));
        // `%` and `ceildiv` round toward minus infinity, as Python does.
        let neg = |a: i64, b: i64| {
            (arg(0).modulo(arg(1)).eval(&[a, b]), Expr::CeilDiv(Box::new(arg(0)), Box::new(arg(1))).eval(&[a, b]))
        };
        assert_eq!(neg(-7, 2), (Ok(1), Ok(-3)));
        assert_eq!(neg(7, -2), (Ok(-1), Ok(-3)));
        assert_eq!(neg(-7, -2), (Ok(-1), Ok(4)));
        assert_eq!(
            neg(i64::MIN, -1),
            (Ok(0), Err(ExprError("overflow: -9223372036854775808 / -1 is past 64 bits".into())))
        );
        let holds = |text: &str| Precondition::parse(text).unwrap().holds(&args);
        assert_eq!(holds("arg0 % 16 == 0"), Ok(true));
        assert_eq!(holds("arg2 % 16 == 0"), Ok(false));
        assert_eq!(holds("arg1 >= 1"), Ok(true));
        assert_eq!(holds("arg0 * 2 < 8192"), Ok(false));
        assert_eq!(holds("arg0 * 2 <= 8192"), Ok(true));
        assert_eq!(holds("arg0 != 4096"), Ok(false));
        assert_eq!(holds("arg0 > arg1"), Ok(true));
        // A persistent grid: the tiles, or the device's SMs when there are more tiles.
        let grid = Expr::parse("min(ceildiv(arg0, 128) * ceildiv(arg1, 256), sm_count)").unwrap();
        let on = |sms: i64| grid.eval_on(&|i| args.get(i).copied(), Some(sms));
        assert_eq!((on(132), on(16)), (Ok(32), Ok(16)));
        assert_eq!(grid.eval(&args).unwrap_err().to_string(), "sm_count is known only at launch (the device's SMs)");
    }

    /// Overflow, division by zero, an inexact `/` and a missing argument are errors, not values.
    #[test]
    fn evaluation_refuses_what_has_no_value() {
        let args = [i64::MAX, 3, 0];
        let eval = |text: &str| Expr::parse(text).unwrap().eval(&args).unwrap_err().to_string();
        assert_eq!(eval("arg0 * 2"), "overflow: 9223372036854775807 * 2 is past 64 bits");
        assert_eq!(eval("arg0 + 1"), "overflow: 9223372036854775807 + 1 is past 64 bits");
        assert_eq!(eval("arg1 / 2"), "inexact division: 3 / 2 leaves 1");
        assert_eq!(eval("arg1 / arg2"), "division by zero: arg1 / arg2 with 3 / 0");
        assert_eq!(eval("arg1 % arg2"), "division by zero: arg1 % arg2 with 3 / 0");
        assert_eq!(eval("ceildiv(arg1, 0)"), "division by zero: ceildiv(arg1, 0) with 3 / 0");
        assert_eq!(eval("arg7"), "argument 7 is not an integer of the launch");
        let precondition = Precondition::parse("arg0 * 4 <= 4294967296").unwrap();
        assert!(precondition.holds(&args).is_err());
        assert_eq!(Expr::parse("arg1 * 5").unwrap().eval_with(&|i| (i == 1).then_some(3)), Ok(15));
    }

    fn exprs() -> impl Strategy<Value = Expr> {
        let leaf =
            prop_oneof![(0i64..=i64::MAX).prop_map(Expr::Int), (0usize..12).prop_map(Expr::Arg), Just(Expr::SmCount)];
        leaf.prop_recursive(4, 24, 2, |inner| {
            (0u8..6, inner.clone(), inner).prop_map(|(kind, a, b)| {
                let (a, b) = (Box::new(a), Box::new(b));
                match kind {
                    0 => Expr::Add(a, b),
                    1 => Expr::Mul(a, b),
                    2 => Expr::Div(a, b),
                    3 => Expr::Rem(a, b),
                    4 => Expr::Min(a, b),
                    _ => Expr::CeilDiv(a, b),
                }
            })
        })
    }

    proptest! {
        /// Parsing is the printer's inverse, over `arg<i>` and over parameter names.
        #[test]
        fn print_parse_round_trip(lhs in exprs(), rhs in exprs(), cmp in 0usize..6) {
            prop_assert_eq!(Expr::parse(&lhs.to_string()), Ok(lhs.clone()));
            let names: Vec<String> = (0..12).map(|i| format!("p{i}")).collect();
            prop_assert_eq!(Expr::parse_named(&lhs.named(&names).to_string(), &names), Ok(lhs.clone()));
            let cmp = [Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge][cmp];
            let condition = Precondition::new(lhs, cmp, rhs);
            prop_assert_eq!(Precondition::parse(&condition.to_string()), Ok(condition.clone()));
            prop_assert_eq!(Precondition::parse_named(&condition.named(&names).to_string(), &names), Ok(condition));
        }

        /// Evaluation never panics: a value or an error.
        #[test]
        fn evaluation_never_panics(expr in exprs(), args in proptest::collection::vec(any::<i64>(), 12), sms in any::<i64>()) {
            let _ = expr.eval(&args);
            let _ = expr.eval_on(&|i| args.get(i).copied(), Some(sms));
        }
    }
}
