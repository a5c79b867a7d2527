//! Line-level mutation of IR texts: the structural mistakes that token edits seldom make.
//!
//! Token and byte edits ([`crate::mutate`]) keep a text's lines in place, so they rarely produce a value used
//! before its definition, a region left open or closed twice, or an op outside any module, which are the
//! inputs the parser's error paths run on (issue 22: a use before its definition across a region, and a stray
//! top-level op before a module, each once ended a tool with a segfault). [`mutate_lines`] applies one to four
//! edits to whole lines:
//! - delete, duplicate or move a line;
//! - splice a run of lines from another seed, or put one of its lines at the top level;
//! - keep only a run of lines (a split at line boundaries), or insert a `// -----` split marker;
//! - move a line that uses `%x` before the line that defines `%x`;
//! - unbalance braces: drop a line that opens or closes a region, or add a lone `{` or `}` line;
//! - put an op outside its module: move a line from inside a region to the top or the end of the text, or
//!   drop a region's opening line and its closing brace (`module {` ... `}`), leaving its ops at the top level.

use crate::driver::Rng;
use rand::seq::IndexedRandom;
use rand::RngExt;

/// Applies 1 to 4 line edits (fewer more often) to `text`; `others` are texts to splice lines from.
pub fn mutate_lines(rng: &mut Rng, text: &str, others: &[&str]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let n = 1 + (rng.random_range(0..16u32)).trailing_zeros().min(3) as usize;
    for _ in 0..n {
        edit_once(rng, &mut lines, others);
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// One line edit, chosen uniformly among the kinds the module documentation lists.
fn edit_once(rng: &mut Rng, lines: &mut Vec<String>, others: &[&str]) {
    let at = |rng: &mut Rng, len: usize| rng.random_range(0..=len);
    match rng.random_range(0..10) {
        0 if !lines.is_empty() => {
            let i = rng.random_range(0..lines.len());
            lines.remove(i);
        }
        1 if !lines.is_empty() => {
            let line = lines[rng.random_range(0..lines.len())].clone();
            let j = at(rng, lines.len());
            lines.insert(j, line);
        }
        2 if !lines.is_empty() => {
            let line = lines.remove(rng.random_range(0..lines.len()));
            let j = at(rng, lines.len());
            lines.insert(j, line);
        }
        3 => {
            let Some(other) = others.choose(rng) else { return };
            let theirs: Vec<&str> = other.lines().collect();
            if theirs.is_empty() {
                return;
            }
            let i = rng.random_range(0..theirs.len());
            let run = &theirs[i..(i + rng.random_range(1..=8)).min(theirs.len())];
            let j = at(rng, lines.len());
            lines.splice(j..j, run.iter().map(|l| l.to_string()));
        }
        4 if lines.len() >= 2 => {
            let a = rng.random_range(0..lines.len() - 1);
            let b = rng.random_range(a + 1..=lines.len());
            lines.truncate(b);
            lines.drain(..a);
        }
        5 => {
            let j = at(rng, lines.len());
            lines.insert(j, "// -----".to_string());
        }
        6 => use_before_def(rng, lines),
        7 => unbalance(rng, lines),
        8 => hoist(rng, lines, others),
        _ => drop_region_header(rng, lines),
    }
}

/// The SSA names a line defines: the `%name`s before its ` = ` (`%a, %b:2 = ...` defines `%a` and `%b`).
fn defined_names(line: &str) -> Vec<&str> {
    let Some((lhs, _)) = line.split_once(" = ") else { return Vec::new() };
    let lhs = lhs.trim();
    if !lhs.starts_with('%') {
        return Vec::new();
    }
    lhs.split(',').filter_map(|part| part.trim().split(':').next()).filter(|name| name.starts_with('%')).collect()
}

/// Whether `line` names `%name` as a whole token (not a prefix of `%name2`).
fn mentions(line: &str, name: &str) -> bool {
    line.match_indices(name).any(|(at, _)| {
        line[at + name.len()..].chars().next().is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
    })
}

/// Moves a line that uses a value right before the line that defines it; a random move when no line defines a
/// value that a later line uses.
fn use_before_def(rng: &mut Rng, lines: &mut Vec<String>) {
    let mut pairs = Vec::new();
    for (d, line) in lines.iter().enumerate() {
        for name in defined_names(line) {
            pairs.extend((d + 1..lines.len()).filter(|&u| mentions(&lines[u], name)).map(|u| (d, u)));
        }
    }
    match pairs.choose(rng).copied() {
        Some((def, user)) => {
            let line = lines.remove(user);
            lines.insert(def, line);
        }
        None if lines.len() >= 2 => {
            let line = lines.remove(rng.random_range(1..lines.len()));
            let j = rng.random_range(0..lines.len());
            lines.insert(j, line);
        }
        None => {}
    }
}

/// Whether a line opens a region (ends with `{`) or closes one (starts with `}`).
fn opens(line: &str) -> bool {
    line.trim_end().ends_with('{')
}

fn closes(line: &str) -> bool {
    line.trim_start().starts_with('}')
}

/// Drops a line that opens or closes a region, or inserts a lone `{` or `}` line.
fn unbalance(rng: &mut Rng, lines: &mut Vec<String>) {
    let braces: Vec<usize> = (0..lines.len()).filter(|&i| opens(&lines[i]) || closes(&lines[i])).collect();
    match braces.choose(rng) {
        Some(&i) if rng.random_bool(0.7) => {
            lines.remove(i);
        }
        _ => {
            let j = rng.random_range(0..=lines.len());
            lines.insert(j, if rng.random_bool(0.5) { "}" } else { "{" }.to_string());
        }
    }
}

/// Puts an op at the top level: an indented line (inside a region) of this text or of another seed, moved or
/// copied to the start or the end of the text, unindented.
fn hoist(rng: &mut Rng, lines: &mut Vec<String>, others: &[&str]) {
    let inner = |ls: &[&str]| -> Vec<String> {
        ls.iter().filter(|l| l.starts_with(' ') && !l.trim().is_empty()).map(|l| l.trim().to_string()).collect()
    };
    let line = if rng.random_bool(0.5) || others.is_empty() {
        let own: Vec<usize> =
            (0..lines.len()).filter(|&i| lines[i].starts_with(' ') && !lines[i].trim().is_empty()).collect();
        let Some(&i) = own.choose(rng) else { return };
        lines.remove(i).trim().to_string()
    } else {
        let other = others.choose(rng).copied().unwrap_or("");
        let Some(line) = inner(&other.lines().collect::<Vec<_>>()).choose(rng).cloned() else { return };
        line
    };
    if rng.random_bool(0.7) {
        lines.insert(0, line);
    } else {
        lines.push(line);
    }
}

/// Removes a line that opens a region (`module {`, `gpu.module @k {`, `scf.for ... {`) and the line that closes
/// it, leaving the region's ops one level up (at the top level for a module).
fn drop_region_header(rng: &mut Rng, lines: &mut Vec<String>) {
    let headers: Vec<usize> = (0..lines.len()).filter(|&i| opens(&lines[i])).collect();
    let Some(&open) = headers.choose(rng) else { return };
    let mut depth = 0i64;
    let mut close = None;
    for (i, line) in lines.iter().enumerate().skip(open) {
        for c in line.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
        }
        if depth <= 0 && i > open {
            close = Some(i);
            break;
        }
    }
    if let Some(close) = close.filter(|&c| lines[c].trim() == "}") {
        lines.remove(close);
    }
    lines.remove(open);
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    const KERNEL: &str = "module {\n  func.func @f(%a: i32) -> i32 {\n    %0 = arith.addi %a, %a : i32\n    \
                          %1 = arith.muli %0, %0 : i32\n    return %1 : i32\n  }\n}\n";

    fn lines_of(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn defined_names_read_the_results() {
        assert_eq!(defined_names("    %0 = arith.addi %a, %a : i32"), ["%0"]);
        assert_eq!(defined_names("%a, %b:2 = \"x.y\"() : () -> (i32, i32, i32)"), ["%a", "%b"]);
        assert!(defined_names("    return %1 : i32").is_empty());
        assert!(defined_names("  func.func @f() attributes {a = 1}").is_empty());
        assert!(mentions("%1 = arith.muli %0, %0 : i32", "%0"));
        assert!(!mentions("%10 = arith.muli %a, %a : i32", "%1"));
    }

    #[test]
    fn use_before_def_puts_a_user_above_its_definition() {
        for seed in 0..20 {
            let mut lines = lines_of(KERNEL);
            use_before_def(&mut Rng::seed_from_u64(seed), &mut lines);
            // Some line now uses a value defined further down.
            let bad = (0..lines.len()).any(|u| {
                (u + 1..lines.len()).any(|d| defined_names(&lines[d]).iter().any(|name| mentions(&lines[u], name)))
            });
            assert!(bad, "seed {seed}: {lines:#?}");
        }
    }

    #[test]
    fn drop_region_header_removes_the_module_and_its_brace() {
        let mut lines = lines_of(KERNEL);
        // Only three lines open a region here; try seeds until the module's is picked.
        let module_dropped = (0..50).any(|seed| {
            let mut l = lines.clone();
            drop_region_header(&mut Rng::seed_from_u64(seed), &mut l);
            l.first().is_some_and(|f| f.trim_start().starts_with("func.func")) && l.len() == lines.len() - 2
        });
        assert!(module_dropped);
        drop_region_header(&mut Rng::seed_from_u64(0), &mut lines);
        assert_eq!(lines.len(), lines_of(KERNEL).len() - 2);
    }

    #[test]
    fn hoist_puts_an_inner_op_at_the_top_level() {
        for seed in 0..20 {
            let mut lines = lines_of(KERNEL);
            hoist(&mut Rng::seed_from_u64(seed), &mut lines, &[]);
            // One more line at the top level ("module {" and its "}" were the only ones).
            let top_level = lines.iter().filter(|l| !l.starts_with(' ')).count();
            assert_eq!(top_level, 3, "seed {seed}: {lines:#?}");
            assert_eq!(lines.len(), lines_of(KERNEL).len());
        }
    }

    #[test]
    fn unbalance_changes_the_brace_count() {
        let count = |lines: &[String]| {
            lines.iter().flat_map(|l| l.chars()).fold(0i64, |d, c| match c {
                '{' => d + 1,
                '}' => d - 1,
                _ => d,
            })
        };
        for seed in 0..20 {
            let mut lines = lines_of(KERNEL);
            unbalance(&mut Rng::seed_from_u64(seed), &mut lines);
            assert_ne!(count(&lines), 0, "seed {seed}: {lines:#?}");
        }
    }

    #[test]
    fn mutate_lines_is_deterministic_and_changes_the_text() {
        let others = ["gpu.module @k {\n  nvvm.barrier0\n}\n"];
        let mut changed = 0;
        for seed in 0..50 {
            let a = mutate_lines(&mut Rng::seed_from_u64(seed), KERNEL, &others);
            let b = mutate_lines(&mut Rng::seed_from_u64(seed), KERNEL, &others);
            assert_eq!(a, b);
            changed += usize::from(a != KERNEL);
        }
        assert!(changed >= 45, "{changed} of 50 changed");
    }
}
