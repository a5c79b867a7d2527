//! The launch record's expression grammar (module docs of `launch`): integers, parameter names, `+`, `*`, `/`,
//! `%`, `ceildiv(a, b)`, parentheses, and one comparison in a precondition; and `arg<i>` renamed to parameter names.

/// A parameter name: an identifier, not a number and not `ceildiv`.
pub(super) fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && text != "ceildiv"
}

/// `argN` tokens replaced by the parameter names.
pub(super) fn rename_args(text: &str, names: &[String]) -> String {
    let mut out = String::new();
    let mut token = String::new();
    let flush = |token: &mut String, out: &mut String| {
        let renamed = token
            .strip_prefix("arg")
            .and_then(|n| n.parse::<usize>().ok())
            .and_then(|i| names.get(i))
            .cloned()
            .unwrap_or_else(|| token.clone());
        out.push_str(&renamed);
        token.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            token.push(c);
        } else {
            flush(&mut token, &mut out);
            out.push(c);
        }
    }
    flush(&mut token, &mut out);
    out
}

/// Checks an expression against the record's grammar (module docs): a sum of products of integers, parameter
/// names, `ceildiv(a, b)` and parenthesized sums; with `comparison`, exactly one comparison of two sums.
pub(super) fn check_expression(text: &str, names: &[String], comparison: bool) -> Result<(), String> {
    let tokens = tokenize(text)?;
    let mut parser = Parser { tokens: &tokens, at: 0, names };
    parser.sum()?;
    if comparison {
        match parser.peek() {
            Some(Token::Compare) => {
                parser.at += 1;
                parser.sum()?;
            }
            _ => return Err("a precondition must compare two expressions".to_string()),
        }
    }
    match parser.peek() {
        None => Ok(()),
        Some(Token::Compare) => Err("a comparison belongs only in a precondition".to_string()),
        Some(token) => Err(format!("unexpected {}", token.describe())),
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Number,
    Name(String),
    Op(char),
    Compare,
    Open,
    Close,
    Comma,
}

impl Token {
    fn describe(&self) -> String {
        match self {
            Token::Number => "a number".to_string(),
            Token::Name(n) => format!("'{n}'"),
            Token::Op(c) => format!("'{c}'"),
            Token::Compare => "a comparison".to_string(),
            Token::Open => "'('".to_string(),
            Token::Close => "')'".to_string(),
            Token::Comma => "','".to_string(),
        }
    }
}

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == ' ' {
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
                word.parse::<i64>().map_err(|_| format!("the number {word} is past 64 bits"))?;
                tokens.push(Token::Number);
            } else {
                tokens.push(Token::Name(word));
            }
            continue;
        }
        let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
        if ["==", "!=", "<=", ">="].contains(&two.as_str()) {
            tokens.push(Token::Compare);
            i += 2;
            continue;
        }
        tokens.push(match c {
            '+' | '*' | '/' | '%' => Token::Op(c),
            '<' | '>' => Token::Compare,
            '(' => Token::Open,
            ')' => Token::Close,
            ',' => Token::Comma,
            other => return Err(format!("unexpected '{other}'")),
        });
        i += 1;
    }
    Ok(tokens)
}

struct Parser<'t> {
    tokens: &'t [Token],
    at: usize,
    names: &'t [String],
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn advance(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        token
    }

    fn expect(&mut self, want: Token) -> Result<(), String> {
        match self.advance() {
            Some(t) if t == want => Ok(()),
            Some(t) => Err(format!("expected {}, got {}", want.describe(), t.describe())),
            None => Err(format!("expected {} at the end", want.describe())),
        }
    }

    fn sum(&mut self) -> Result<(), String> {
        self.product()?;
        while self.peek() == Some(&Token::Op('+')) {
            self.at += 1;
            self.product()?;
        }
        Ok(())
    }

    fn product(&mut self) -> Result<(), String> {
        self.atom()?;
        while matches!(self.peek(), Some(Token::Op('*' | '/' | '%'))) {
            self.at += 1;
            self.atom()?;
        }
        Ok(())
    }

    fn atom(&mut self) -> Result<(), String> {
        match self.advance() {
            Some(Token::Number) => Ok(()),
            Some(Token::Name(n)) if n == "ceildiv" => {
                self.expect(Token::Open)?;
                self.sum()?;
                self.expect(Token::Comma)?;
                self.sum()?;
                self.expect(Token::Close)
            }
            Some(Token::Name(n)) if self.names.contains(&n) => Ok(()),
            Some(Token::Name(n)) => Err(format!("'{n}' is neither an integer nor a parameter name")),
            Some(Token::Open) => {
                self.sum()?;
                self.expect(Token::Close)
            }
            Some(t) => Err(format!("unexpected {}", t.describe())),
            None => Err("the expression ends early".to_string()),
        }
    }
}
