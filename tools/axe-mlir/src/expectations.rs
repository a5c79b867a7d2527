//! `--verify-diagnostics`: mlir-opt's `expected-*` annotations and the check.
//!
//! Grammar (one directive per line, as in MLIR):
//! `expected-(error|warning|note|remark)(-re)? *(@(+N|-N|above|below|unknown))? *{{message}}`
//!
//! - no designator: the diagnostic is on the directive's own line;
//! - `@+N` / `@-N`: N lines below / above the directive;
//! - `@below` / `@above`: the next / previous line that holds no directive;
//! - `@unknown`: a diagnostic without a file location.
//!
//! `message` must be a substring of the diagnostic's message. With `-re`,
//! `{{regex}}` blocks inside it are regular expressions and the rest is
//! literal. Every expected diagnostic must be produced exactly once and every
//! produced diagnostic (notes included) must be expected; each mismatch is
//! reported as an error at the directive or at the diagnostic.

use axe_dialect::{Diagnostic, Severity, SourceLoc};
use regex::Regex;
use std::sync::OnceLock;

/// Notes that MLIR attaches to verifier errors when it prints ops on
/// diagnostics; mlir-opt turns that off under `--verify-diagnostics`.
const OP_DUMP_NOTE: &str = "see current operation:";

/// Where an expected diagnostic must appear.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// On this 1-based line of the buffer.
    Line(usize),
    /// At an unknown (non-file) location.
    Unknown,
}

/// How an expected message is compared with a produced one.
#[derive(Clone, Debug)]
pub enum Pattern {
    /// The produced message contains this text.
    Substring(String),
    /// The produced message matches this regex somewhere.
    Regex(Regex),
}

impl Pattern {
    fn matches(&self, message: &str) -> bool {
        match self {
            Pattern::Substring(text) => message.contains(text.as_str()),
            Pattern::Regex(regex) => regex.is_match(message),
        }
    }
}

/// One `expected-*` directive.
#[derive(Clone, Debug)]
pub struct Expectation {
    /// The severity it expects.
    pub severity: Severity,
    /// Where the diagnostic must be.
    pub target: Target,
    /// The message pattern.
    pub pattern: Pattern,
    /// The text between the outer `{{` and `}}`, for reports.
    pub text: String,
    /// Where the directive itself is written.
    pub directive: SourceLoc,
}

fn directive_regex() -> &'static Regex {
    static REGEX: OnceLock<Regex> = OnceLock::new();
    REGEX.get_or_init(|| {
        Regex::new(
            r"expected-(error|note|remark|warning)(-re)? *(@([+-][0-9]+|above|below|unknown))? *\{\{(.*)\}\}\s*$",
        )
        .expect("the directive regex is valid")
    })
}

/// Reads every directive in `text` (buffer `file`).
///
/// Returns the expectations and the errors found in malformed directives
/// (bad regex, `@-N` before line 1, `@above`/`@below` with no line to land on).
pub fn parse_expectations(file: &str, text: &str) -> (Vec<Expectation>, Vec<Diagnostic>) {
    let mut expectations = Vec::new();
    let mut errors = Vec::new();
    let mut pending_below: Vec<Expectation> = Vec::new();
    let mut last_plain_line = None;
    for (index, line) in text.lines().enumerate() {
        let line_no = index + 1;
        let Some(captures) = directive_regex().captures(line) else {
            for mut expectation in pending_below.drain(..) {
                expectation.target = Target::Line(line_no);
                expectations.push(expectation);
            }
            last_plain_line = Some(line_no);
            continue;
        };
        let whole = captures.get(0).map_or(0, |m| m.start());
        let directive = SourceLoc { file: file.to_string(), line: line_no, column: line[..whole].chars().count() + 1 };
        let severity = match &captures[1] {
            "error" => Severity::Error,
            "warning" => Severity::Warning,
            "note" => Severity::Note,
            _ => Severity::Remark,
        };
        let text = captures[5].to_string();
        let pattern = if captures.get(2).is_some() {
            match compile_regex(&text) {
                Ok(regex) => Pattern::Regex(regex),
                Err(message) => {
                    errors.push(Diagnostic::error(Some(directive), message));
                    continue;
                }
            }
        } else {
            Pattern::Substring(text.clone())
        };
        let mut expectation =
            Expectation { severity, target: Target::Line(line_no), pattern, text, directive: directive.clone() };
        match captures.get(4).map(|m| m.as_str()) {
            None => {}
            Some("unknown") => expectation.target = Target::Unknown,
            Some("below") => {
                pending_below.push(expectation);
                continue;
            }
            Some("above") => match last_plain_line {
                Some(line) => expectation.target = Target::Line(line),
                None => {
                    errors.push(Diagnostic::error(Some(directive), "expected a line above for '@above'"));
                    continue;
                }
            },
            Some(offset) => {
                let target = offset
                    .parse::<i64>()
                    .ok()
                    .and_then(|offset| (line_no as i64).checked_add(offset))
                    .and_then(|line| usize::try_from(line).ok())
                    .filter(|&line| line >= 1);
                match target {
                    Some(line) => expectation.target = Target::Line(line),
                    None => {
                        errors.push(Diagnostic::error(Some(directive), format!("'@{offset}' points outside the file")));
                        continue;
                    }
                }
            }
        }
        expectations.push(expectation);
    }
    for expectation in pending_below {
        errors.push(Diagnostic::error(Some(expectation.directive), "expected a line below for '@below'"));
    }
    (expectations, errors)
}

/// Turns `literal {{regex}} literal` into one regex.
fn compile_regex(text: &str) -> Result<Regex, String> {
    let mut pattern = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        pattern.push_str(&regex::escape(&rest[..start]));
        let after = &rest[start + 2..];
        let end = after.find("}}").ok_or_else(|| "found start of regex '{{' with no end '}}'".to_string())?;
        pattern.push_str(&format!("(?:{})", &after[..end]));
        rest = &after[end + 2..];
    }
    pattern.push_str(&regex::escape(rest));
    Regex::new(&pattern).map_err(|error| format!("invalid regex '{text}': {error}"))
}

/// The diagnostics to match: each diagnostic and each of its notes, in order,
/// minus MLIR's "see current operation" notes.
fn flatten(diagnostics: &[Diagnostic]) -> Vec<&Diagnostic> {
    fn visit<'d>(diagnostic: &'d Diagnostic, out: &mut Vec<&'d Diagnostic>) {
        if diagnostic.severity == Severity::Note && diagnostic.message.starts_with(OP_DUMP_NOTE) {
            return;
        }
        out.push(diagnostic);
        diagnostic.notes.iter().for_each(|note| visit(note, out));
    }
    let mut out = Vec::new();
    diagnostics.iter().for_each(|d| visit(d, &mut out));
    out
}

/// How the failure for a diagnostic nothing expected begins (`--verify-diagnostics=only-expected` drops those).
pub const UNEXPECTED: &str = "unexpected ";

/// Matches produced `diagnostics` against `expectations` for buffer `file`.
///
/// Returns one error per unexpected diagnostic (at its location) and per
/// expectation that was not produced (at its directive); empty means success.
pub fn check(file: &str, expectations: &[Expectation], diagnostics: &[Diagnostic]) -> Vec<Diagnostic> {
    let mut matched = vec![false; expectations.len()];
    let mut failures = Vec::new();
    for diagnostic in flatten(diagnostics) {
        let target = match &diagnostic.location {
            Some(location) if location.file == file => Some(Target::Line(location.line)),
            Some(_) => None,
            None => Some(Target::Unknown),
        };
        let found = expectations.iter().enumerate().position(|(index, expected)| {
            !matched[index]
                && Some(expected.target) == target
                && expected.severity == diagnostic.severity
                && expected.pattern.matches(&diagnostic.message)
        });
        match found {
            Some(index) => matched[index] = true,
            None => failures.push(Diagnostic::error(
                diagnostic.location.clone(),
                format!("{UNEXPECTED}{}: {}", diagnostic.severity, diagnostic.message),
            )),
        }
    }
    for (expected, _) in expectations.iter().zip(&matched).filter(|(_, &m)| !m) {
        failures.push(Diagnostic::error(
            Some(expected.directive.clone()),
            format!("expected {} \"{}\" was not produced", expected.severity, expected.text),
        ));
    }
    failures
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: usize, column: usize) -> Option<SourceLoc> {
        Some(SourceLoc { file: "t.mlir".into(), line, column })
    }

    fn diag(severity: Severity, line: usize, message: &str) -> Diagnostic {
        Diagnostic { severity, location: at(line, 3), message: message.into(), notes: vec![] }
    }

    fn targets(text: &str) -> Vec<(Severity, Target, String)> {
        let (expectations, errors) = parse_expectations("t.mlir", text);
        assert!(errors.is_empty(), "{errors:?}");
        expectations.into_iter().map(|e| (e.severity, e.target, e.text)).collect()
    }

    #[test]
    fn designators_resolve_to_lines() {
        let text = "\
op // expected-error {{same line}}
// expected-warning@+2 {{two below}}
// expected-note@below {{next plain line}}
// expected-remark@-3 {{three above}}
plain
// expected-error@above {{previous plain line}}
// expected-error @unknown {{nowhere}}
";
        assert_eq!(
            targets(text),
            vec![
                (Severity::Error, Target::Line(1), "same line".into()),
                (Severity::Warning, Target::Line(4), "two below".into()),
                (Severity::Remark, Target::Line(1), "three above".into()),
                (Severity::Note, Target::Line(5), "next plain line".into()),
                (Severity::Error, Target::Line(5), "previous plain line".into()),
                (Severity::Error, Target::Unknown, "nowhere".into()),
            ]
        );
    }

    #[test]
    fn malformed_directives_are_errors() {
        let (_, errors) = parse_expectations(
            "t.mlir",
            "// expected-error@-5 {{x}}\n// expected-error-re {{a{{(}}b}}\n// expected-error@below {{x}}\n",
        );
        let messages: Vec<_> = errors.iter().map(|e| e.message.as_str()).collect();
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert!(messages[0].contains("'@-5' points outside the file"), "{messages:?}");
        assert!(messages[1].starts_with("invalid regex"));
        assert!(messages[2].contains("'@below'"));
        assert_eq!(errors[0].location, at(1, 4));
    }

    #[test]
    fn substring_and_regex_matching() {
        let (expectations, _) = parse_expectations(
            "t.mlir",
            "x // expected-error {{has 0 operands}}\ny // expected-error-re {{enclosing function (@{{[a-z]+}}) returns 1}}\n",
        );
        let diagnostics = [
            diag(Severity::Error, 1, "'func.return' op has 0 operands, but..."),
            diag(Severity::Error, 2, "x enclosing function (@foo) returns 1"),
        ];
        assert!(check("t.mlir", &expectations, &diagnostics).is_empty());
        let wrong = [diag(Severity::Error, 2, "enclosing function (@F00) returns 1")];
        assert_eq!(check("t.mlir", &expectations[1..], &wrong).len(), 2);
    }

    #[test]
    fn reports_unexpected_and_missing() {
        let (expectations, _) = parse_expectations("t.mlir", "a // expected-error {{boom}}\nb\n");
        let mut produced = diag(Severity::Error, 2, "boom");
        produced.notes.push(diag(Severity::Note, 1, "see current operation: x"));
        let failures = check("t.mlir", &expectations, &[produced]);
        let rendered: Vec<_> = failures.iter().map(|f| f.render(None)).collect();
        assert_eq!(
            rendered,
            vec![
                "t.mlir:2:3: error: unexpected error: boom\n",
                "t.mlir:1:6: error: expected error \"boom\" was not produced\n",
            ]
        );
    }

    #[test]
    fn each_expectation_matches_once_and_notes_count() {
        let (expectations, _) =
            parse_expectations("t.mlir", "a // expected-error {{boom}}\n// expected-note@-1 {{because}}\n");
        let mut produced = diag(Severity::Error, 1, "boom");
        produced.notes.push(diag(Severity::Note, 1, "because of x"));
        assert!(check("t.mlir", &expectations, &[produced.clone()]).is_empty());
        let twice = check("t.mlir", &expectations, &[produced.clone(), produced]);
        assert_eq!(twice.len(), 2, "{twice:?}");
    }
}
