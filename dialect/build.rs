//! Compiles `cpp/registration.cpp`: the dialect extensions, LLVM IR translations and upstream passes axe uses,
//! registered one by one where the MLIR C API offers only register-all functions (see that file).
//!
//! Finds the MLIR headers as `mlir-sys` finds the libraries: under `$MLIR_SYS_220_PREFIX` (set in
//! `.cargo/config.toml`), else through the `llvm-config` on `PATH`.
use std::{env, path::PathBuf, process::Command};

fn main() {
    println!("cargo:rerun-if-changed=cpp/registration.cpp");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    let llvm_config = match env::var_os("MLIR_SYS_220_PREFIX") {
        Some(prefix) => PathBuf::from(prefix).join("bin").join("llvm-config"),
        None => PathBuf::from("llvm-config"),
    };
    let output = Command::new(&llvm_config)
        .arg("--includedir")
        .output()
        .unwrap_or_else(|error| panic!("cannot run {}: {error}", llvm_config.display()));
    assert!(output.status.success(), "{} --includedir failed", llvm_config.display());
    let include_dir = String::from_utf8(output.stdout).expect("llvm-config prints a UTF-8 path");
    // LLVM and MLIR are built without RTTI and exceptions and with NDEBUG; the headers are system headers, so
    // their warnings are not ours.
    cc::Build::new()
        .cpp(true)
        .std("c++17")
        .flag("-isystem")
        .flag(include_dir.trim())
        .flag("-fno-rtti")
        .flag("-fno-exceptions")
        .define("NDEBUG", None)
        .file("cpp/registration.cpp")
        .compile("axe_registration");
}
