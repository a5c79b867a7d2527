//! Runs the `axe-layout` binary: the JSON contract of `eval`, exit codes, error carets, and that malformed input
//! never makes it panic.

use std::io::Write;
use std::process::{Command, Output, Stdio};

const TC: &str = "S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid";

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_axe-layout")).args(args).output().expect("the binary runs")
}

fn run_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_axe-layout"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write stdin");
    child.wait_with_output().expect("the binary finishes")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn eval_json_follows_the_contract() {
    let o = run(&["eval", TC, "--shape", "8,16", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("valid JSON");
    assert_eq!(v["layout"], TC);
    assert_eq!(v["shape"], serde_json::json!([8, 16]));
    let points = v["points"].as_array().expect("points is a list");
    assert_eq!(points.len(), 128);
    // The TIRx page's formulas: laneid = 4i + floor(j/2) mod 4, warpid = floor(j/8) + 5 + 4r, m = j mod 2.
    for i in 0..8i64 {
        for j in 0..16i64 {
            let set = points[(i * 16 + j) as usize].as_array().expect("a coordinate set");
            let want: Vec<serde_json::Value> = [0, 1]
                .iter()
                .map(|r| serde_json::json!({"laneid": 4 * i + (j / 2) % 4, "m": j % 2, "warpid": j / 8 + 5 + 4 * r}))
                .collect();
            assert_eq!(set, &want, "element ({i},{j})");
        }
    }
}

#[test]
fn eval_at_lists_one_index() {
    let o = run(&["eval", TC, "--shape", "8,16", "--at", "7,15", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o).trim(),
        format!(
            "{{\"layout\":\"{TC}\",\"shape\":[8,16],\"points\":[[{{\"laneid\":31,\"m\":1,\"warpid\":6}},\
             {{\"laneid\":31,\"m\":1,\"warpid\":10}}]]}}"
        )
    );
}

#[test]
fn swizzled_m_is_the_swizzled_address() {
    let o = run(&["eval", "Swizzle(3,3,3) o S[(8,64):(64,1)]", "--shape", "8,64", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("valid JSON");
    for i in 0..8i64 {
        for j in 0..64i64 {
            let want = 64 * i + 8 * ((j / 8) ^ i) + j % 8;
            assert_eq!(v["points"][(i * 64 + j) as usize][0]["m"], want, "({i},{j})");
        }
    }
}

#[test]
fn parse_errors_have_a_caret_and_exit_1() {
    let o = run(&["canon", "S[(8,2):(4@laneid,1@lanid)]"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    assert!(lines[0].starts_with("axe-layout: error: LAYOUT: column 21: unknown axis 'lanid'"), "{err}");
    assert_eq!(lines[1], "  S[(8,2):(4@laneid,1@lanid)]");
    assert_eq!(lines[2], "                      ^");
    assert!(stdout(&o).is_empty());
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &[][..],
        &["frobnicate"][..],
        &["eval"][..],
        &["eval", "S[4:1]", "--bogus"][..],
        &["eval", "S[4:1]", "--shape"][..],
        &["group", "S[4:1]"][..],
        &["tile-of", "S[4:1]", "--tiled-shape", "4"][..],
        &["eval", "S[4:1]", "extra"][..],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).starts_with("axe-layout: error: "), "{args:?}");
    }
}

#[test]
fn input_errors_exit_1() {
    for args in [
        &["eval", "S[(8,2):(1,1)]", "--shape", "4,8"][..],
        &["eval", "S[(8,2):(1,1)]", "--shape", "8,2", "--at", "8,0"][..],
        &["eval", "S[4:1]", "--shape", "x"][..],
        &["eval", "S[(65536,65536):(1,1)]"][..],
        &["show", "S[(2,2,2):(1,2,4)]", "--shape", "2,2,2"][..],
        &["span", "S[4:1]", "--axis", "nope"][..],
        &["slice", "S[8:1]", "--shape", "8", "--region", "2:9"][..],
        &["tile", "S[4:1]", "Swizzle(3,3,3)", "--inner-shape", "4", "--outer-shape", "512"][..],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).starts_with("axe-layout: error: "), "{args:?}");
    }
}

#[test]
fn malformed_layouts_never_panic() {
    let inputs = [
        "", "S", "S[", "S[(", "S[()", "S[(8,", "S[8:", "S[8:4@", "S[8:4@]", "R[", "Swizzle(", "Swizzle(1,2,",
        "Swizzle(99,99,99)", "S[-1:1]", "S[0:1]", "S[99999999999999999999999:1]", "S[4:1] ++ 3", "S[4:1] o S[4:1]",
        "o", "@", "é", "S[4:1]\u{1}", "S[4:1] + 9223372036854775807@m + 9223372036854775807@m", "\n\n]",
        "S[(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1)]",
    ];
    for text in inputs {
        for cmd in [&["eval", text][..], &["show", text][..], &["canon", text][..], &["span", text][..]] {
            let o = run(cmd);
            assert!(o.status.code().is_some_and(|c| c == 0 || c == 1), "{cmd:?}: {}", stderr(&o));
            assert!(!stderr(&o).contains("panicked"), "{cmd:?}: {}", stderr(&o));
        }
    }
}

#[test]
fn stdin_layouts_and_help() {
    let o = run_stdin(&["eval", "-", "--at", "3", "--json"], "S[4:2@laneid]\n");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), r#"{"layout":"S[4:2@laneid]","shape":[4],"points":[[{"laneid":6}]]}"#);
    let o = run(&["--help"]);
    assert!(o.status.success());
    for name in ["eval", "show", "canon", "group", "tile", "tile-of", "slice", "direct-sum", "span"] {
        assert!(stdout(&o).contains(name), "{name} missing from --help");
        let o = run(&[name, "--help"]);
        assert!(o.status.success(), "{name} --help");
        assert!(stdout(&o).starts_with(&format!("usage: axe-layout {name}")), "{name} --help");
    }
}

#[test]
fn show_fits_80_columns() {
    let o = run(&["show", TC, "--shape", "8,16"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    assert!(text.contains("0 |   0:5/9:0   0:5/9:1   1:5/9:0"), "{text}");
    assert!(text.contains("7 | 31:6/10:0 31:6/10:1"), "{text}");
}

#[test]
fn span_defaults_to_memory_axes() {
    let o = run(&["span", TC, "--json"]);
    assert_eq!(stdout(&o).trim(), format!("{{\"layout\":\"{TC}\",\"span\":2}}"));
    let o = run(&["span", TC, "--axis", "laneid"]);
    assert_eq!(stdout(&o).trim(), "32");
}
