//! The library behind `axe-opt` and `axe-translate`.
//!
//! Both binaries are thin `main`s over [`opt::main`] and [`translate::main`],
//! so LLVM and MLIR are linked into exactly two executables and no code is
//! duplicated. Pure helpers (argument parsing, `// -----` splitting,
//! `expected-*` annotations) are separate modules with their own unit tests.
#![deny(missing_docs)]

pub mod args;
pub mod compile;
pub mod expectations;
pub mod io;
pub mod launch;
pub mod nvshmem;
pub mod opt;
pub mod ptx;
pub mod split;
pub mod translate;
