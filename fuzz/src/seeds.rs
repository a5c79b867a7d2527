//! The seed corpus, loaded at run time from the repository: the lit tests (`test/**/*.mlir`, `test/**/*.test`),
//! the examples (`examples/*.mlir`) and the harness's own regression seeds (`fuzz/seeds/<target>/*.txt|mlir`:
//! inputs that once failed, kept so every run replays them first).
//!
//! From those files it extracts: whole MLIR texts (axe-opt inputs), the layout texts of the IR (tensor types,
//! `#axe.layout<...>`, `layout(...)`: [`crate::mutate::layout_strings`]) and every quoted layout on a RUN line,
//! and the `axe-layout` command lines of RUN lines
//! (split into words, shell-style). Everything is sorted, so the corpus and hence the inputs depend only on the
//! files. The root is the workspace (found from this crate's manifest directory at build time) unless
//! [`set_root`] says otherwise before the first use.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The seeds every generator can draw from.
#[derive(Debug, Default)]
pub struct Corpus {
    /// `(relative path, text)` of every MLIR seed file.
    pub mlir: Vec<(String, String)>,
    /// Layout texts found in the seeds.
    pub layouts: Vec<String>,
    /// `axe-layout` command lines (arguments after the program name) from RUN lines.
    pub layout_commands: Vec<Vec<String>>,
    /// Regression seeds by target name: `(relative path, text)` of every file in `fuzz/seeds/<target>/`. The
    /// driver runs them first, as they are, before generating; generators also mutate them.
    pub regressions: BTreeMap<String, Vec<(String, String)>>,
}

static ROOT: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Sets the repository root to load from (call before the first [`corpus`]).
pub fn set_root(path: &Path) {
    *ROOT.lock().unwrap_or_else(|e| e.into_inner()) = Some(path.to_path_buf());
}

/// The repository root: [`set_root`]'s, else the workspace this crate was built in.
pub fn root() -> PathBuf {
    ROOT.lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
}

/// The regression seeds of `target` (texts only).
pub fn regressions(target: &str) -> Vec<&'static str> {
    corpus().regressions.get(target).map_or_else(Vec::new, |v| v.iter().map(|(_, t)| t.as_str()).collect())
}

/// The corpus, loaded once.
pub fn corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| load(&root()))
}

fn files_under(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "Output") {
                files_under(&path, exts, out);
            }
        } else if path.extension().and_then(|e| e.to_str()).is_some_and(|e| exts.contains(&e)) {
            out.push(path);
        }
    }
}

/// Loads the corpus from the repository at `root` (missing folders give an empty part).
pub fn load(root: &Path) -> Corpus {
    let mut paths = Vec::new();
    files_under(&root.join("test"), &["mlir", "test"], &mut paths);
    files_under(&root.join("examples"), &["mlir"], &mut paths);
    files_under(&root.join("fuzz/seeds/proc-axe-opt"), &["mlir"], &mut paths);
    paths.sort();
    let mut corpus = Corpus::default();
    for path in paths {
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let rel = path.strip_prefix(root).unwrap_or(&path).display().to_string();
        for (a, b) in crate::mutate::layout_strings(&text) {
            corpus.layouts.push(text[a..b].to_string());
        }
        for line in text.lines() {
            let Some(run) = line.split_once("RUN:").map(|(_, r)| r) else { continue };
            for cmd in run.split('|') {
                let words = shell_words(cmd);
                if let Some(at) = words.iter().position(|w| w == "axe-layout") {
                    let args: Vec<String> = words[at + 1..]
                        .iter()
                        .take_while(|w| !w.starts_with('>') && !w.starts_with('<') && !w.starts_with("2>"))
                        .cloned()
                        .collect();
                    for w in &args {
                        if w.contains("S[") || w.starts_with("Swizzle") {
                            corpus.layouts.push(w.clone());
                        }
                    }
                    corpus.layout_commands.push(args);
                }
            }
        }
        if path.extension().is_some_and(|e| e == "mlir") {
            corpus.mlir.push((rel, text));
        }
    }
    let mut regressions = Vec::new();
    files_under(&root.join("fuzz/seeds"), &["txt", "mlir"], &mut regressions);
    regressions.sort();
    for path in regressions {
        let target = path.parent().and_then(|p| p.file_name()).map(|n| n.to_string_lossy().to_string());
        if let (Some(target), Ok(text)) = (target, std::fs::read_to_string(&path)) {
            let rel = path.strip_prefix(root).unwrap_or(&path).display().to_string();
            corpus.regressions.entry(target).or_default().push((rel, text));
        }
    }
    corpus.layouts.sort();
    corpus.layouts.dedup();
    corpus
}

/// Splits a shell command into words: whitespace separates, single and double quotes group, `\` escapes
/// outside single quotes; `%s`-style lit substitutions are kept as words.
pub fn shell_words(cmd: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = cmd.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for d in chars.by_ref() {
                    if d == '\'' {
                        break;
                    }
                    cur.push(d);
                }
            }
            '"' => {
                in_word = true;
                while let Some(d) = chars.next() {
                    match d {
                        '"' => break,
                        '\\' => cur.extend(chars.next()),
                        _ => cur.push(d),
                    }
                }
            }
            '\\' => {
                in_word = true;
                cur.extend(chars.next());
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_group_quotes() {
        assert_eq!(
            shell_words(" axe-layout eval 'S[(8,4):(4@laneid, 1)]' --shape 8,4 \"a b\""),
            ["axe-layout", "eval", "S[(8,4):(4@laneid, 1)]", "--shape", "8,4", "a b"]
        );
    }

    #[test]
    fn the_repository_corpus_has_seeds() {
        let c = load(&root());
        assert!(c.mlir.iter().any(|(p, _)| p.ends_with("examples/tma_copy.mlir")), "{:?}", c.mlir.len());
        assert!(c.layouts.iter().any(|l| l.starts_with("Swizzle(3,3,3) o")));
        assert!(c.layout_commands.iter().any(|w| w.first().is_some_and(|s| s == "eval")));
    }
}
