//! Builds the C++ half of the dialect crate:
//! - the axe dialect from `cpp/axe/Axe.td`: `mlir-tblgen` writes the generated classes into `OUT_DIR/axe/`, and
//!   `cpp/AxeDialect.cpp` (the hand-written syntax) compiles with them, plus the C API handle Rust loads it by;
//! - `cpp/registration.cpp`: the dialect extensions, LLVM IR translations and upstream passes axe uses,
//!   registered one by one where the MLIR C API offers only register-all functions (see that file).
//!
//! Finds the MLIR headers and `mlir-tblgen` as `mlir-sys` finds the libraries: under `$MLIR_SYS_220_PREFIX` (set in
//! `.cargo/config.toml`), else through the `llvm-config` on `PATH`.
use std::{
    env,
    path::{Path, PathBuf},
    process::Command,
};

/// The generated files: (mlir-tblgen arguments, output name under `OUT_DIR/axe/`).
const GENERATED: &[(&[&str], &str)] = &[
    (&["-gen-enum-decls"], "AxeEnums.h.inc"),
    (&["-gen-enum-defs"], "AxeEnums.cpp.inc"),
    (&["-gen-dialect-decls", "-dialect=axe"], "AxeDialect.h.inc"),
    (&["-gen-dialect-defs", "-dialect=axe"], "AxeDialect.cpp.inc"),
    (&["-gen-attrdef-decls", "-attrdefs-dialect=axe"], "AxeAttrs.h.inc"),
    (&["-gen-attrdef-defs", "-attrdefs-dialect=axe"], "AxeAttrs.cpp.inc"),
    (&["-gen-typedef-decls", "-typedefs-dialect=axe"], "AxeTypes.h.inc"),
    (&["-gen-typedef-defs", "-typedefs-dialect=axe"], "AxeTypes.cpp.inc"),
    (&["-gen-op-decls"], "AxeOps.h.inc"),
    (&["-gen-op-defs"], "AxeOps.cpp.inc"),
];

fn main() {
    for file in ["cpp/registration.cpp", "cpp/AxeDialect.cpp", "cpp/axe/Axe.td", "cpp/axe/AxeDialect.h"] {
        println!("cargo:rerun-if-changed={file}");
    }
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    let bin_dir = match env::var_os("MLIR_SYS_220_PREFIX") {
        Some(prefix) => PathBuf::from(prefix).join("bin"),
        None => PathBuf::from(llvm_config("llvm-config".as_ref(), "--bindir")),
    };
    let include_dir = llvm_config(&bin_dir.join("llvm-config"), "--includedir");
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::create_dir_all(out_dir.join("axe")).expect("OUT_DIR is writable");
    let tblgen = bin_dir.join("mlir-tblgen");
    for (args, output) in GENERATED {
        let status = Command::new(&tblgen)
            .args(*args)
            .args(["-I", &include_dir, "-I", "cpp", "cpp/axe/Axe.td", "-o"])
            .arg(out_dir.join("axe").join(output))
            .status()
            .unwrap_or_else(|error| panic!("cannot run {} (apt: mlir-22-tools): {error}", tblgen.display()));
        assert!(status.success(), "{} {args:?} failed on cpp/axe/Axe.td", tblgen.display());
    }
    // LLVM and MLIR are built without exceptions and with NDEBUG; the headers are system headers, so their
    // warnings are not ours, and the generated code's unused parameters are not either.
    cc::Build::new()
        .cpp(true)
        .std("c++17")
        .flag("-isystem")
        .flag(&include_dir)
        .include("cpp")
        .include(&out_dir)
        .flag("-fno-rtti")
        .flag("-fno-exceptions")
        .flag("-Wno-unused-parameter")
        .define("NDEBUG", None)
        .define("AXE_CAPI", None)
        .file("cpp/AxeDialect.cpp")
        .file("cpp/registration.cpp")
        .compile("axe_dialect_cpp");
}

/// One line of `llvm-config` output.
fn llvm_config(llvm_config: &Path, flag: &str) -> String {
    let output = Command::new(llvm_config)
        .arg(flag)
        .output()
        .unwrap_or_else(|error| panic!("cannot run {}: {error}", llvm_config.display()));
    assert!(output.status.success(), "{} {flag} failed", llvm_config.display());
    String::from_utf8(output.stdout).expect("llvm-config prints a UTF-8 path").trim().to_string()
}
