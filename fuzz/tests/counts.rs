//! The counts the `axe-fuzz` binary prints: every target's row (the table on stdout and the "axe-fuzz: done"
//! line on stderr) says how many inputs were planned and how many refused, the counts add up to the runs, and
//! they are the same for the same seed and run count.

use std::collections::BTreeMap;
use std::process::Command;

/// (runs, planned, refused, failures) per target.
type Counts = BTreeMap<String, [u64; 4]>;

fn run(args: &[&str]) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_axe-fuzz"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("axe-fuzz runs");
    let (stdout, stderr) =
        (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned());
    assert!(out.status.success(), "axe-fuzz {args:?} failed:\n{stdout}\n{stderr}");
    (stdout, stderr)
}

/// The four counts of each line that starts with a target name (after `prefix`), read by column.
fn counts(text: &str, prefix: &str) -> Counts {
    text.lines()
        .filter_map(|l| l.strip_prefix(prefix))
        .filter_map(|l| {
            let cols: Vec<&str> = l.split_whitespace().collect();
            let n: Vec<u64> = cols.get(1..5)?.iter().map(|c| c.parse().ok()).collect::<Option<_>>()?;
            Some((cols[0].to_string(), [n[0], n[1], n[2], n[3]]))
        })
        .collect()
}

const ARGS: &[&str] =
    &["--runs", "12", "--seed", "3", "--jobs", "2", "--target", "layout-*", "--crash-dir", "target/fuzz-crashes-test"];

#[test]
fn planned_and_refused_add_up_in_the_table_and_the_done_lines() {
    let (stdout, stderr) = run(ARGS);
    let header: Vec<&str> = stdout.lines().next().unwrap_or("").split_whitespace().collect();
    assert_eq!(header[..5], ["target", "runs", "planned", "refused", "failures"], "{stdout}");
    let mut table = counts(&stdout, "");
    let total = table.remove("total").expect("a total row");
    table.remove("target");
    assert_eq!(table.len(), 16, "every layout target has a row:\n{stdout}");
    for (name, [runs, planned, refused, failures]) in &table {
        assert_eq!(*runs, 12, "{name}");
        assert_eq!(*failures, 0, "{name}:\n{stdout}\n{stderr}");
        assert_eq!(planned + refused + failures, *runs, "{name}");
    }
    for (i, what) in ["runs", "planned", "refused", "failures"].iter().enumerate() {
        assert_eq!(total[i], table.values().map(|c| c[i]).sum::<u64>(), "total {what}");
    }
    // Both kinds of outcome occur over the targets (a count stuck at zero everywhere would be a wiring bug).
    assert!(total[1] > 0 && total[2] > 0, "{stdout}");
    // Each target's "done" line, printed as it ends, carries the same counts as its table row.
    assert_eq!(counts(&stderr, "axe-fuzz: done "), table, "{stderr}");
    // The same seed and run count give the same counts.
    let (again, _) = run(ARGS);
    let mut again = counts(&again, "");
    again.remove("target");
    again.remove("total");
    assert_eq!(again, table);
}

/// One input replayed says whether it was planned or refused: the f16 `mma.sync` fragments plan on sm_80, the
/// same request on a chip name the planner does not know, or with B in tensor memory, is refused.
#[test]
fn a_replayed_input_says_planned_or_refused() {
    let dir = std::env::temp_dir().join(format!("axe-fuzz-counts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let request = |chip: &str, b_mem: &str| {
        format!(
            "chip: {chip}\ndtype: f16\nacc: f32\n\
             a: S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]\na_shape: 16,16\na_mem: reg\n\
             b: S[(2,4,2,8):(2,1@laneid,1,4@laneid)]\nb_shape: 16,8\nb_mem: {b_mem}\n\
             c: S[(2,8,4,2):(2,4@laneid,1@laneid,1)]\nc_shape: 16,8\nc_mem: reg\n"
        )
    };
    let cases = [
        ("planned", request("sm_80", "reg")),
        ("refused", request("sm_80", "tmem")),
        ("refused", request("sm_7", "reg")),
    ];
    for (i, (want, text)) in cases.iter().enumerate() {
        let path = dir.join(format!("input{i}"));
        std::fs::write(&path, text).expect("write");
        let (_, stderr) = run(&["--target", "layout-mma", "--replay", path.to_str().unwrap_or("")]);
        assert!(stderr.contains(&format!(": ok, {want} (")), "case {i} should be {want}:\n{stderr}");
    }
    let _ = std::fs::remove_dir_all(dir);
}
