//! Diagnostics as plain data: what MLIR reported, where, and the sink that collects them.
//!
//! The handler attached by [`create_context`](crate::create_context) converts every
//! MLIR diagnostic into a [`Diagnostic`] (severity, resolved `file:line:col`,
//! message, notes) and pushes it into the context's [`DiagnosticSink`]. Drivers
//! then print them ([`Diagnostic::render`]) or check them against
//! `expected-*` annotations. Nothing here prints.

use crate::ffi::RawDiagnostic;
use melior::{diagnostic::DiagnosticSeverity, ir::Location};
use std::{cell::RefCell, fmt, rc::Rc};

/// How serious a diagnostic is, as MLIR grades it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// The input or a pass failed.
    Error,
    /// Something suspicious that does not stop processing.
    Warning,
    /// Extra information attached to another diagnostic.
    Note,
    /// Information a pass chose to report.
    Remark,
}

impl Severity {
    /// The lowercase word mlir-opt prints (`error`, `warning`, `note`, `remark`).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
            Severity::Remark => "remark",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<DiagnosticSeverity> for Severity {
    fn from(severity: DiagnosticSeverity) -> Self {
        match severity {
            DiagnosticSeverity::Error => Severity::Error,
            DiagnosticSeverity::Warning => Severity::Warning,
            DiagnosticSeverity::Note => Severity::Note,
            DiagnosticSeverity::Remark => Severity::Remark,
        }
    }
}

/// A position in a source buffer: file name, 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceLoc {
    /// The buffer name (a path, `<stdin>`, or whatever the parser was given).
    pub file: String,
    /// 1-based line (0 for a whole-file location).
    pub line: usize,
    /// 1-based column (0 for a whole-file location).
    pub column: usize,
}

impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

impl SourceLoc {
    /// Resolves an MLIR location to the file position a user should look at.
    ///
    /// Follows MLIR's choice for printing: a file location is itself, a name
    /// location shows its child, a call site shows its callee (then its
    /// caller), a fused location shows its first resolvable member. Returns
    /// `None` for unknown and opaque locations.
    pub fn resolve(location: Location) -> Option<SourceLoc> {
        if location.is_file_line_col_range() {
            let file = location.file_line_col_range_filename();
            return Some(SourceLoc {
                file: file.as_string_ref().as_str().unwrap_or("<invalid utf-8>").to_string(),
                line: location.file_line_col_range_start_line(),
                column: location.file_line_col_range_start_column(),
            });
        }
        if location.is_name() {
            return Self::resolve(location.name_child_location());
        }
        if location.is_call_site() {
            return Self::resolve(location.call_site_callee()).or_else(|| Self::resolve(location.call_site_caller()));
        }
        if location.is_fused() {
            return (0..location.fused_num_locations()).find_map(|index| Self::resolve(location.fused_location(index)));
        }
        None
    }
}

/// One diagnostic with its notes, detached from MLIR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error, warning, note or remark.
    pub severity: Severity,
    /// Where it points, when the location resolves to a file position.
    pub location: Option<SourceLoc>,
    /// The message text, without location or severity.
    pub message: String,
    /// Notes attached to this diagnostic, in emission order.
    pub notes: Vec<Diagnostic>,
}

impl fmt::Display for Diagnostic {
    /// `file:line:col: error: message` (no source line; [`Diagnostic::render`] adds it).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(location) = &self.location {
            write!(f, "{location}: ")?;
        }
        write!(f, "{}: {}", self.severity, self.message)
    }
}

impl std::error::Error for Diagnostic {}

impl Diagnostic {
    /// An error diagnostic with no notes.
    pub fn error(location: Option<SourceLoc>, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Error, location, message: message.into(), notes: Vec::new() }
    }

    /// Copies an MLIR diagnostic (and its notes) into plain data.
    pub fn from_mlir(diagnostic: RawDiagnostic) -> Self {
        Diagnostic {
            // MLIR 22 defines only these four severities; an unknown one is reported as an error.
            severity: diagnostic.severity.map_or(Severity::Error, Severity::from),
            location: SourceLoc::resolve(diagnostic.location),
            message: diagnostic.message,
            notes: diagnostic.notes.into_iter().map(Self::from_mlir).collect(),
        }
    }

    /// Renders the diagnostic and its notes the way mlir-opt does:
    /// `file:line:col: error: message`, then the source line and a caret when
    /// `source` (buffer name, full text) holds the line. A note without a
    /// location borrows its parent's; as in mlir-opt, a note shows the source
    /// line only when its location differs from the one printed before it.
    pub fn render(&self, source: Option<(&str, &str)>) -> String {
        let mut out = String::new();
        self.render_into(&mut out, None, None, source);
        out
    }

    /// Renders into `out`; `inherited` is the parent's location, `previous` the location printed just before
    /// (the parent's or the previous note's).
    fn render_into(
        &self,
        out: &mut String,
        inherited: Option<&SourceLoc>,
        previous: Option<&SourceLoc>,
        source: Option<(&str, &str)>,
    ) {
        let location = self.location.as_ref().or(inherited);
        match location {
            Some(location) if location.line > 0 => {
                out.push_str(&format!("{location}: {}: {}\n", self.severity, self.message));
                if previous != Some(location) {
                    if let Some(snippet) = snippet(location, source) {
                        out.push_str(&snippet);
                    }
                }
            }
            Some(location) => out.push_str(&format!("{}: {}: {}\n", location.file, self.severity, self.message)),
            None => out.push_str(&format!("{}: {}\n", self.severity, self.message)),
        }
        let mut previous = location;
        for note in &self.notes {
            note.render_into(out, location, previous, source);
            previous = note.location.as_ref().or(location);
        }
    }
}

/// Longest source line shown whole under a diagnostic; a longer one shows a window around the column.
const SNIPPET_WIDTH: usize = 160;

/// The source line of `location` and a caret under its column, when known (a window of [`SNIPPET_WIDTH`]
/// characters around the column, marked with `...`, when the line is longer).
fn snippet(location: &SourceLoc, source: Option<(&str, &str)>) -> Option<String> {
    let (name, text) = source?;
    if name != location.file {
        return None;
    }
    let line: Vec<char> = text.lines().nth(location.line.checked_sub(1)?)?.chars().collect();
    let column = location.column.saturating_sub(1).min(line.len());
    let (start, end) = if line.len() <= SNIPPET_WIDTH {
        (0, line.len())
    } else {
        let start = column.saturating_sub(SNIPPET_WIDTH / 2).min(line.len() - SNIPPET_WIDTH);
        (start, start + SNIPPET_WIDTH)
    };
    let (before, after) = (if start > 0 { "..." } else { "" }, if end < line.len() { "..." } else { "" });
    let shown: String = line[start..end].iter().collect();
    let pad: String =
        before.chars().chain(line[start..column].iter().copied()).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
    Some(format!("{before}{shown}{after}\n{pad}^\n"))
}

/// Shared, append-only list of the diagnostics a context has emitted.
///
/// Cloning shares the list. The handler pushes; drivers [`take`](Self::take).
/// Contexts are created single-threaded, so the `Rc` is never shared across
/// threads.
#[derive(Clone, Debug, Default)]
pub struct DiagnosticSink(Rc<RefCell<Vec<Diagnostic>>>);

impl DiagnosticSink {
    /// Appends a diagnostic.
    pub fn push(&self, diagnostic: Diagnostic) {
        self.0.borrow_mut().push(diagnostic);
    }

    /// Number of diagnostics collected and not yet taken.
    pub fn len(&self) -> usize {
        self.0.borrow().len()
    }

    /// Whether no diagnostics are waiting.
    pub fn is_empty(&self) -> bool {
        self.0.borrow().is_empty()
    }

    /// Removes and returns everything collected so far.
    pub fn take(&self) -> Vec<Diagnostic> {
        std::mem::take(&mut *self.0.borrow_mut())
    }

    /// Removes and returns the diagnostics after the first `keep`.
    pub fn split_off(&self, keep: usize) -> Vec<Diagnostic> {
        let mut all = self.0.borrow_mut();
        let keep = keep.min(all.len());
        all.split_off(keep)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(line: usize, column: usize) -> Option<SourceLoc> {
        Some(SourceLoc { file: "k.mlir".into(), line, column })
    }

    #[test]
    fn render_shows_location_line_and_caret() {
        let mut diagnostic = Diagnostic::error(loc(2, 5), "expected SSA operand");
        diagnostic.notes.push(Diagnostic {
            severity: Severity::Note,
            location: None,
            message: "see current operation".into(),
            notes: vec![],
        });
        let text = "func.func @f() {\n  %x = arith.addi\n}\n";
        // As in mlir-opt, a note at the location just printed does not repeat the source line.
        assert_eq!(
            diagnostic.render(Some(("k.mlir", text))),
            "k.mlir:2:5: error: expected SSA operand\n  %x = arith.addi\n    ^\n\
             k.mlir:2:5: note: see current operation\n"
        );
    }

    #[test]
    fn notes_elsewhere_show_their_source_line() {
        let mut diagnostic = Diagnostic::error(loc(2, 5), "redefinition");
        let note = |line, column| Diagnostic {
            severity: Severity::Note,
            location: loc(line, column),
            message: "here".into(),
            notes: vec![],
        };
        diagnostic.notes.extend([note(1, 1), note(1, 1), note(2, 5)]);
        let text = "func.func @f() {\n  %x = arith.addi\n}\n";
        assert_eq!(
            diagnostic.render(Some(("k.mlir", text))),
            "k.mlir:2:5: error: redefinition\n  %x = arith.addi\n    ^\n\
             k.mlir:1:1: note: here\nfunc.func @f() {\n^\n\
             k.mlir:1:1: note: here\n\
             k.mlir:2:5: note: here\n  %x = arith.addi\n    ^\n"
        );
    }

    #[test]
    fn render_without_source_or_location() {
        assert_eq!(Diagnostic::error(loc(3, 1), "boom").render(None), "k.mlir:3:1: error: boom\n");
        assert_eq!(Diagnostic::error(None, "boom").render(None), "error: boom\n");
        assert_eq!(Diagnostic::error(loc(0, 0), "boom").render(None), "k.mlir: error: boom\n");
    }

    #[test]
    fn sink_split_off_keeps_prefix() {
        let sink = DiagnosticSink::default();
        sink.push(Diagnostic::error(None, "a"));
        sink.push(Diagnostic::error(None, "b"));
        let tail = sink.split_off(1);
        assert_eq!(tail.len(), 1);
        assert_eq!(tail[0].message, "b");
        assert_eq!(sink.take()[0].message, "a");
        assert!(sink.is_empty());
    }

    #[test]
    fn long_lines_show_a_window_around_the_column() {
        let line = format!("{}X{}", "a".repeat(1000), "b".repeat(1000));
        let rendered = Diagnostic::error(loc(1, 1001), "here").render(Some(("k.mlir", &line)));
        let lines: Vec<&str> = rendered.lines().collect();
        assert_eq!(lines.len(), 3, "{rendered}");
        assert!(lines[1].starts_with("...") && lines[1].ends_with("...") && lines[1].len() == SNIPPET_WIDTH + 6);
        let caret = lines[2].find('^').expect("caret");
        assert_eq!(lines[1].as_bytes()[caret], b'X', "{rendered}");
        // At the start of a long line: no leading marker, caret in place.
        let rendered = Diagnostic::error(loc(1, 2), "here").render(Some(("k.mlir", &line)));
        assert!(rendered.lines().nth(1).is_some_and(|l| l.starts_with("aaa") && l.ends_with("...")));
        assert_eq!(rendered.lines().nth(2), Some(" ^"));
    }
}
