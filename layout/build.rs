//! Generates the layout-notation parser from `src/notation/grammar.lalrpop` into `OUT_DIR` (never into the
//! source tree, so generated code stays out of git).

fn main() {
    println!("cargo:rerun-if-changed=src/notation/grammar.lalrpop");
    if let Err(e) = lalrpop::Configuration::new().set_in_dir("./src/notation").emit_rerun_directives(true).process() {
        eprintln!("lalrpop failed: {e}");
        std::process::exit(1);
    }
}
