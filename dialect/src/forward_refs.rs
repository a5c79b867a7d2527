//! Uses of an SSA value before a definition that lies in a region not containing the use, refused before MLIR
//! parses the text.
//!
//! MLIR 22's parser resolves a use of `%x` that comes before any definition of `%x` (a forward reference) by the
//! first definition of that name it meets later, even one inside a nested region that
//! does not contain the use. If the op owning that region then fails to parse, the parser frees the region with
//! the definition while the earlier use still points at it, and destroying the partial IR writes to the freed
//! memory (issue 22: `axe-opt` segfaulted or aborted with "unaligned tcache chunk detected"; valgrind shows the
//! same invalid write in mlir-opt-22, which happens to survive it). llvm-project PR 127778 fixed the case of an
//! op's own operand (`scf.for ... iter_args(%a = %x) { %x = ... }`) inside `scf.for`'s parser only; every custom
//! op that fails after parsing a region is still exposed.
//!
//! Such a text is never valid IR: a value defined in a region is visible only inside that region, so MLIR's
//! verifier rejects it when it parses. [`check`] finds the first such use by a scan of the text (O(length) plus
//! the forward references pending), so the parser never sees it:
//! - a region is a `{ ... }` (attribute dictionaries too: they hold no SSA names);
//! - definitions are an op's results (`%a, %b:2 = ...` at the start of a statement), a block's arguments
//!   (`^bb0(%a: i32):`), and the arguments of the region an op's header opens (`%i = ...` and `%a: T` in a line
//!   that ends with the region's `{`, or continues with `,` or `(` to it, or is followed by a line that goes on
//!   with the header (`attributes`, `iter_args`, `->`, `{`): `scf.for %i = ... iter_args(%a = %x)`,
//!   `func.func @f(%a: f32) {`, and the names of a list the header defines: `scf.parallel (%i, %j) = ...`,
//!   `axe.tile_loop (%m0, %n0) in ...`);
//! - every other `%name` is a use; a use before any visible definition is pending until a definition of its
//!   name resolves it, as MLIR does;
//! - there is one name scope: the parser starts a new one only for a region parsed with name shadowing, which no
//!   custom syntax axe reads asks for (a use in one `func.func` was resolved by a definition in a later
//!   `gpu.module`; axe-fuzz found it after the first version of this check kept functions apart).
//!
//! A pending use resolved by a definition in a region opened after the use is refused, at the use.

use crate::diagnostics::Diagnostic;
use crate::guards::skip_trivia;
use std::collections::HashMap;

/// Whether the `%name` ending at `after` is in a parenthesized list of names that a loop header defines:
/// `(%i, %j) = (...)` (`scf.parallel`) or `(%i, %j) in (...)` (`scf.forall`, `axe.tile_loop`).
fn induction_list(bytes: &[u8], mut after: usize) -> bool {
    loop {
        let at = skip_trivia(bytes, after);
        match bytes.get(at) {
            Some(b',') => {
                let name = skip_trivia(bytes, at + 1);
                if bytes.get(name) != Some(&b'%') {
                    return false;
                }
                after = ssa_name(bytes, name).1;
            }
            Some(b')') => {
                let next = skip_trivia(bytes, at + 1);
                let rest = &bytes[next.min(bytes.len())..];
                return (rest.first() == Some(&b'=') && rest.get(1) != Some(&b'='))
                    || (rest.starts_with(b"in") && rest.get(2).is_some_and(|b| b.is_ascii_whitespace() || *b == b'('));
            }
            _ => return false,
        }
    }
}

/// How a line that goes on with an op's header starts: a function's attributes after its signature, the carried
/// values of a loop (`scf.for`, `axe.tile_loop`), result types, the region's brace.
const CONTINUATIONS: [&str; 4] = ["attributes", "iter_args", "->", "{"];

/// One open `{`: where it opened and the names defined directly in it.
struct Frame {
    open: usize,
    defined: Vec<String>,
}

/// The scan's state: open regions, visible definitions, pending uses, and region arguments waiting for their
/// region.
struct Scan<'a> {
    bytes: &'a [u8],
    /// The file name diagnostics are located in.
    source_name: &'a str,
    frames: Vec<Frame>,
    /// Name -> indices into `frames` of the open regions that define it, innermost last.
    defs: HashMap<String, Vec<usize>>,
    /// Uses with no visible definition yet: name -> offsets.
    pending: HashMap<String, Vec<usize>>,
    /// `%name` offsets that define the arguments of the next region if the header opens one, else are uses.
    deferred: Vec<(String, usize)>,
}

/// The first use in `source` that MLIR would resolve to a definition inside a region not containing it, as an
/// error at the use; `None` when there is none.
pub fn check(source: &str, source_name: &str) -> Option<Diagnostic> {
    let mut scan = Scan {
        bytes: source.as_bytes(),
        source_name,
        frames: vec![Frame { open: 0, defined: Vec::new() }],
        defs: HashMap::new(),
        pending: HashMap::new(),
        deferred: Vec::new(),
    };
    scan.run().err()
}

impl Scan<'_> {
    /// One pass over the text: strings and comments are skipped, braces open and close regions, and each `%name`
    /// is a definition or a use (one method per construct); the first refused use ends the scan.
    fn run(&mut self) -> Result<(), Diagnostic> {
        let bytes = self.bytes;
        let mut statement_start = true;
        let mut offset = 0;
        while offset < bytes.len() {
            match bytes[offset] {
                b'"' => {
                    let end = string_end(bytes, offset);
                    offset = if bytes.get(end) == Some(&b'"') { end + 1 } else { end };
                    statement_start = false;
                    continue;
                }
                b'/' if bytes.get(offset + 1) == Some(&b'/') => offset = line_end(bytes, offset) - 1,
                b'\n' => {
                    self.end_line(offset);
                    statement_start = true;
                }
                b'{' => {
                    self.open_region(offset)?;
                    statement_start = true;
                }
                b'}' => {
                    self.pop();
                    statement_start = true;
                }
                b'^' if statement_start => {
                    offset = self.block_label(offset)? - 1;
                    statement_start = false;
                }
                b'%' => {
                    offset = self.value(offset, statement_start)?;
                    statement_start = false;
                    continue;
                }
                byte if byte.is_ascii_whitespace() => {}
                _ => statement_start = false,
            }
            offset += 1;
        }
        Ok(())
    }

    /// The newline at `offset`: unless the header goes on (the line ends with `,` or `(`, or the next line starts
    /// with one of [`CONTINUATIONS`]), the names the header deferred opened no region, so they are uses.
    fn end_line(&mut self, offset: usize) {
        let trimmed = self.bytes[..offset].trim_ascii_end();
        let next = self.bytes[offset..].trim_ascii_start();
        let continues = CONTINUATIONS.iter().any(|word| next.starts_with(word.as_bytes()));
        if !matches!(trimmed.last(), Some(b',' | b'(')) && !continues {
            let deferred = std::mem::take(&mut self.deferred);
            for (name, at) in deferred {
                self.use_value(name, at);
            }
        }
    }

    /// The `{` at `offset` opens a region (or an attribute dictionary); when it ends its line it is the region
    /// of the header before it, whose deferred names are the region's arguments.
    fn open_region(&mut self, offset: usize) -> Result<(), Diagnostic> {
        let bytes = self.bytes;
        let opens_region = bytes[offset + 1..line_end(bytes, offset)].trim_ascii().is_empty();
        self.frames.push(Frame { open: offset, defined: Vec::new() });
        if opens_region {
            for (name, at) in std::mem::take(&mut self.deferred) {
                self.define(name, at)?;
            }
        }
        Ok(())
    }

    /// The block label at `offset` (`^bb0(%a: i32):`): the `%name`s followed by `:` in its parentheses are its
    /// arguments, any other a use. Returns the end of its line.
    fn block_label(&mut self, offset: usize) -> Result<usize, Diagnostic> {
        let bytes = self.bytes;
        let end = line_end(bytes, offset);
        let mut at = offset;
        while at < end {
            if bytes[at] == b'%' {
                let (name, after) = ssa_name(bytes, at);
                if next_byte(bytes, after) == Some(b':') {
                    self.define(name, at)?;
                } else {
                    self.use_value(name, at);
                }
                at = after;
            } else {
                at += 1;
            }
        }
        Ok(end)
    }

    /// The `%name` at `offset`: at a statement's start a result list defines its names; else a name followed by
    /// `=` or `:` is deferred (a region argument if the line opens a region), any other a use. Returns the offset
    /// after what was read.
    fn value(&mut self, offset: usize, statement_start: bool) -> Result<usize, Diagnostic> {
        let bytes = self.bytes;
        if statement_start {
            if let Some((names, after)) = results(bytes, offset) {
                for (name, at) in names {
                    self.define(name, at)?;
                }
                return Ok(after);
            }
        }
        let (name, after) = ssa_name(bytes, offset);
        let at_next = skip_trivia(bytes, after);
        let next = bytes.get(at_next).copied();
        let defines = (next == Some(b'=') && bytes.get(at_next + 1) != Some(&b'='))
            || (next == Some(b':') && bytes.get(at_next + 1) != Some(&b':'))
            || induction_list(bytes, after);
        if defines {
            self.deferred.push((name, offset));
        } else {
            self.use_value(name, offset);
        }
        Ok(after.max(offset + 1))
    }

    /// Closes the innermost region (never the root): its names are no longer visible.
    fn pop(&mut self) {
        if self.frames.len() == 1 {
            return;
        }
        let Some(frame) = self.frames.pop() else { return };
        for name in &frame.defined {
            if let Some(frames) = self.defs.get_mut(name) {
                frames.pop();
            }
        }
    }

    /// Whether `name` has a visible definition: in an open region.
    fn visible(&self, name: &str) -> bool {
        self.defs.get(name).is_some_and(|frames| !frames.is_empty())
    }

    /// A use at `at`: pending when nothing visible defines its name.
    fn use_value(&mut self, name: String, at: usize) {
        if !self.visible(&name) {
            self.pending.entry(name).or_default().push(at);
        }
    }

    /// A definition at `at` in the innermost open region; an error when it would resolve a pending use made before
    /// that region opened.
    fn define(&mut self, name: String, at: usize) -> Result<(), Diagnostic> {
        let index = self.frames.len() - 1;
        let region_open = self.frames[index].open;
        // MLIR resolves the pending uses to this definition.
        if let Some(offsets) = self.pending.remove(&name) {
            if let Some(&use_at) = offsets.iter().find(|&&use_at| use_at < region_open) {
                let def = crate::guards::locate(self.bytes, at, self.source_name);
                let message = format!(
                    "'{name}' is used before its definition at line {}, column {}, which is inside a region that \
                     does not contain this use: a value defined in a region is visible only inside it",
                    def.line, def.column
                );
                let location = crate::guards::locate(self.bytes, use_at, self.source_name);
                return Err(Diagnostic::error(Some(location), message));
            }
        }
        self.defs.entry(name.clone()).or_default().push(index);
        self.frames[index].defined.push(name);
        Ok(())
    }
}

/// The name of the SSA value at `at` (`%name`, without a `#N` result index) and the offset after it.
fn ssa_name(bytes: &[u8], at: usize) -> (String, usize) {
    let id = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'$' | b'.' | b'_' | b'-');
    let mut end = at + 1;
    while end < bytes.len() && id(&bytes[end]) {
        end += 1;
    }
    let name = String::from_utf8_lossy(&bytes[at..end]).into_owned();
    if bytes.get(end) == Some(&b'#') {
        end += 1 + bytes[end + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
    }
    (name, end)
}

/// The results an op at `at` defines (`%a, %b:2 = `) with their offsets, and the offset after the `=`; `None`
/// when the text there is not a result list.
fn results(bytes: &[u8], mut at: usize) -> Option<(Vec<(String, usize)>, usize)> {
    let mut names = Vec::new();
    loop {
        if bytes.get(at) != Some(&b'%') {
            return None;
        }
        let (name, mut after) = ssa_name(bytes, at);
        names.push((name, at));
        if bytes.get(after) == Some(&b':') {
            after += 1 + bytes[after + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
        }
        // The `=` and the names of a result list may be on later lines, after comments (`{ %v\n = ...`): the
        // lexer skips both, so a definition written that way is still one (issue 22's long fuzz run).
        let next = skip_trivia(bytes, after);
        match bytes.get(next) {
            Some(b',') => at = skip_trivia(bytes, next + 1),
            Some(b'=') if bytes.get(next + 1) != Some(&b'=') => return Some((names, next + 1)),
            _ => return None,
        }
    }
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() && matches!(bytes[at], b' ' | b'\t') {
        at += 1;
    }
    at
}

/// The first byte at or after `at` that is not a space or tab.
fn next_byte(bytes: &[u8], at: usize) -> Option<u8> {
    bytes.get(skip_space(bytes, at)).copied()
}

/// The offset of the closing quote of the string opening at `open` (the end of the text when unterminated).
fn string_end(bytes: &[u8], open: usize) -> usize {
    let mut at = open + 1;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b'"' | b'\n' => return at,
            _ => at += 1,
        }
    }
    bytes.len()
}

/// The offset of the newline ending the line that holds `at` (or the end of the text).
fn line_end(bytes: &[u8], at: usize) -> usize {
    bytes[at..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |i| at + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(source: &str) -> Option<(usize, usize, String)> {
        check(source, "t.mlir").map(|d| {
            let at = d.location.expect("located");
            (at.line, at.column, d.message)
        })
    }

    #[test]
    fn the_issue_22_reproducer_is_refused_at_the_use() {
        let source = "!ring = !axe.tensor<192x64xf16, shared>\n\
                      \x20   %san = axe.slice %ring_a[%row, 0] [192, 64] : !ring to !ring\n\
                      \x20   scf.index_switch %next\n\
                      \x20   case 0 {\n\
                      \x20   %ring_a = axe.alloc cta : !ring\n\
                      \x20   }\n";
        let (line, column, message) = refused(source).expect("refused");
        // `    %san = axe.slice ` is 21 characters: the use of %ring_a starts at column 22.
        assert_eq!((line, column), (2, 22));
        assert!(message.starts_with("'%ring_a' is used before its definition at line 5, column 5"), "{message}");
    }

    #[test]
    fn an_operand_defined_in_the_ops_own_region_is_refused() {
        // llvm-project PR 127778's example, in the generic and the custom form.
        let custom =
            "%r = scf.for %i = %a to %b step %c iter_args(%v = %x) -> (f32) {\n  %x = \"t.d\"() : () -> f32\n  \
                      scf.yield %v : f32\n}\n";
        assert_eq!(refused(custom).map(|p| (p.0, p.1)), Some((1, 51)));
        let generic = "\"t.op\"(%x) ({\n  %x = \"t.d\"() : () -> f32\n}) : (f32) -> ()\n";
        assert_eq!(refused(generic).map(|p| (p.0, p.1)), Some((1, 8)));
        // A sibling region of the same op.
        let sibling = "scf.if %c {\n  \"t.use\"(%y) : (i32) -> ()\n} else {\n  %y = \"t.d\"() : () -> i32\n}\n";
        assert_eq!(refused(sibling).map(|p| (p.0, p.1)), Some((2, 11)));
    }

    #[test]
    fn valid_forward_references_and_scopes_pass() {
        for source in [
            // A block used before the block defining the value (dominance from the branch order).
            "func.func @f() {\n  cf.br ^bb2\n^bb1:\n  \"t.use\"(%x) : (i32) -> ()\n  return\n^bb2:\n  \
             %x = \"t.d\"() : () -> i32\n  cf.br ^bb1\n}\n",
            // A use inside a region of a value defined later outside it (a graph region may hold this).
            "\"t.graph\"() ({\n  \"t.op\"() ({\n    \"t.use\"(%x) : (i32) -> ()\n  }) : () -> ()\n  \
             %x = \"t.d\"() : () -> i32\n}) : () -> ()\n",
            // Names reused in other functions, in nested regions, and as region arguments.
            "func.func @a() {\n  %0 = arith.constant 0 : index\n  \"t.use\"(%0) : (index) -> ()\n  return\n}\n\
             func.func @b(%n: index) {\n  scf.for %i = %n to %n step %n {\n    %0 = arith.addi %i, %n : index\n  }\n  \
             return\n}\n",
            // Block arguments, results with counts, result indices, uses followed by a colon.
            "func.func @c(%m: memref<4xf32>) {\n  %a:2 = \"t.two\"() : () -> (i32, i32)\n  cf.br ^bb1(%a#1 : i32)\n\
             ^bb1(%z: i32):\n  %v = memref.load %m[%z] : memref<4xf32>\n  llvm.store %v, %m : f32, memref<4xf32>\n  \
             return\n}\n",
            // A header continued on the next line.
            "func.func @d(%x: i32,\n    %y: i32) {\n  %s = scf.for %i = %x to %y step %x iter_args(%acc = %x) -> (i32) {\n    \
             %t = arith.addi %acc, %i : i32\n    scf.yield %t : i32\n  }\n  return\n}\n",
            // Arguments written without a space before the colon, their names defined again in a later region.
            "func.func @c(%g: i32, %s: i32) {\n  \"t.use\"(%g, %s) : (i32, i32) -> ()\n  return\n}\n\
             func.func @t() {\n  scf.execute_region {\n    %s = \"t.d\"() : () -> i32\n  }\n  return\n}\n",
            // A signature whose attributes go on the next line, and a loop whose carried values do, their names
            // defined again in a later region (the arguments are definitions, not uses a later region resolves).
            "func.func @e(%v: i32, %a: i32)\n    attributes {n = 1} {\n  \"t.use\"(%v, %a) : (i32, i32) -> ()\n  \
             %r = axe.tile_loop (%m0, %n0) in (%v, %v) : i32 tile [8, 8]\n      iter_args(%s = %a) -> (i32) {\n    \
             axe.yield %s : i32\n  }\n  scf.execute_region {\n    %a = \"t.d\"() : () -> i32\n    \
             %m0 = \"t.d\"() : () -> index\n  }\n  return\n}\n",
            // Strings and comments hold no names.
            "// \"t.use\"(%q) {\n\"t.op\"() {s = \"%q = {\"} : () -> ()\n",
        ] {
            assert_eq!(refused(source), None, "{source}");
        }
    }

    #[test]
    fn upstream_region_syntax_passes() {
        // Shapes from mlir/test/Dialect/SCF/ops.mlir: parallel loops with reductions, while with a `do` region and
        // block arguments, results used by index, a signature over two lines.
        let source = "func.func @p(%arg0 : index, %arg1 : index,\n    %arg2 : index) {\n  \
                      %step = arith.constant 1 : index\n  \
                      scf.parallel (%i0, %i1) = (%arg0, %arg1) to (%arg2, %arg2)\n      step (%arg2, %step) {\n    \
                      %zero = arith.constant 0.0 : f32\n    \
                      %red:2 = scf.parallel (%i2) = (%i0) to (%i1) step (%i1)\n        init (%zero, %zero) -> (f32, f32) {\n      \
                      %one = arith.constant 1.0 : f32\n      scf.reduce(%one, %one) : f32, f32 {\n      \
                      ^bb0(%lhs : f32, %rhs: f32):\n        %res = arith.addf %lhs, %rhs : f32\n        \
                      scf.reduce.return %res : f32\n      }, {\n      ^bb0(%lhs : f32, %rhs: f32):\n        \
                      scf.reduce.return %lhs : f32\n      }\n    }\n  }\n  \
                      %2:2 = scf.while (%a0 = %step, %a1 = %step) : (index, index) -> (index, index) {\n    \
                      %c = \"test.cond\"(%a0, %a1) : (index, index) -> i1\n    scf.condition(%c) %a0, %a1 : index, index\n  \
                      } do {\n  ^bb0(%b2: index, %b3: index):\n    scf.yield %b2, %b3 : index, index\n  \
                      } attributes {foo=\"bar\"}\n  \"t.use\"(%2#0, %2#1) : (index, index) -> ()\n  return\n}\n";
        assert_eq!(refused(source), None);
    }

    #[test]
    fn a_use_in_one_function_and_a_definition_in_another_are_refused() {
        // MLIR links @a's undeclared %x to @b's: custom-syntax regions share one name scope in its parser (axe-fuzz,
        // seed 22: `gpu.launch_func` in @launch using %c1 defined in the gpu.module, which then failed to parse).
        let source =
            "func.func @a() {\n  \"t.use\"(%x) : (i32) -> ()\n  return\n}\nfunc.func @b() {\n  scf.if %c {\n    \
                      %x = \"t.d\"() : () -> i32\n  }\n  return\n}\n";
        assert_eq!(refused(source).map(|p| (p.0, p.1)), Some((2, 11)));
        let launch =
            "func.func @launch() {\n  gpu.launch_func @k::@f blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)\n  \
                      return\n}\ngpu.module @k {\n  %c1 = arith.constant 1 : index\n}\n";
        let (line, column, message) = refused(launch).expect("refused");
        assert_eq!((line, column), (2, 37));
        assert!(message.contains("at line 6, column 3"), "{message}");
    }
}
