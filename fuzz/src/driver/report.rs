//! What a run prints and saves: failing inputs written to the crash directory, the reproducer command, a
//! failure's description, and the counts table.

use super::{fnv1a, Failure, Stats};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Writes `input` to `<dir>/<target>/<hash>` (if not there yet) and returns the path.
pub fn save_input(dir: &Path, target: &str, input: &str) -> std::io::Result<PathBuf> {
    let folder = dir.join(target);
    std::fs::create_dir_all(&folder)?;
    let path = folder.join(format!("{:016x}", fnv1a(input.as_bytes())));
    if !path.exists() {
        std::fs::write(&path, input)?;
    }
    Ok(path)
}

/// The command that reruns a failure: by file when saved, else by seed and index.
pub fn reproducer(target: &str, seed_index: Option<(u64, u64)>, path: Option<&Path>) -> String {
    let mut out = String::new();
    if let Some(p) = path {
        let _ = write!(out, "axe-fuzz --target {target} --replay {}", p.display());
    }
    if let Some((seed, index)) = seed_index {
        if !out.is_empty() {
            out.push_str("   or   ");
        }
        let _ = write!(out, "axe-fuzz --target {target} --seed {seed} --index {index}");
    }
    out
}

/// The first `max` bytes of `text` (cut at a character boundary), with a note when cut.
pub fn excerpt(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n... ({} more bytes)", &text[..end], text.len() - end)
}

/// A failure as printed: kind, message, reproducer and the input.
pub fn describe(target: &str, f: &Failure, seed: u64, path: Option<&Path>) -> String {
    let mut out = format!("axe-fuzz: FAILURE in {target} ({:?}): {}\n", f.kind, f.message.trim_end());
    let _ = writeln!(out, "  reproduce: {}", reproducer(target, f.index.map(|i| (seed, i)), path));
    let _ = write!(out, "  input:\n{}", excerpt(&f.input, 2048));
    out
}

/// One line of the counts table.
pub(super) fn row(s: &Stats) -> String {
    format!(
        "{:<32} {:>10} {:>10} {:>10} {:>9} {:>9.1} {:>11.1} {:>10}\n",
        s.target,
        s.runs,
        s.planned,
        s.refused,
        s.failures,
        s.elapsed.as_secs_f64(),
        s.slowest.as_secs_f64() * 1e3,
        s.max_memory / 1024
    )
}

/// The counts table: target, runs, planned, refused, failures, time, slowest input, largest memory peak; then
/// the totals of the four counts.
pub fn table(stats: &[Stats]) -> String {
    let mut out = format!(
        "{:<32} {:>10} {:>10} {:>10} {:>9} {:>9} {:>11} {:>10}\n",
        "target", "runs", "planned", "refused", "failures", "time(s)", "slowest(ms)", "peak(KiB)"
    );
    for s in stats {
        out.push_str(&row(s));
    }
    let sum = |f: fn(&Stats) -> u64| stats.iter().map(f).sum::<u64>();
    let _ = writeln!(
        out,
        "{:<32} {:>10} {:>10} {:>10} {:>9}",
        "total",
        sum(|s| s.runs),
        sum(|s| s.planned),
        sum(|s| s.refused),
        sum(|s| s.failures)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::{config, runs, target};
    use super::super::{run_all, Limits, Outcome};
    use super::table;

    #[test]
    fn the_table_lists_every_target() {
        let t = target("listed", |_| Ok(Outcome::Planned), Limits::IN_PROCESS);
        let stats = run_all(&[(t, runs(5)), (t, runs(7))], 2, &config(None));
        let text = table(&stats);
        assert_eq!(stats.iter().map(|s| s.runs).collect::<Vec<_>>(), [5, 7]);
        let header: Vec<&str> = text.lines().next().unwrap_or("").split_whitespace().collect();
        assert_eq!(header[..5], ["target", "runs", "planned", "refused", "failures"], "{text}");
        let total: Vec<&str> = text.lines().last().unwrap_or("").split_whitespace().collect();
        assert_eq!(total, ["total", "12", "12", "0", "0"], "{text}");
    }
}
