//! axe-fuzz: the fuzz harness of Axe, on the stable toolchain.
//!
//! One target per entry point: the layout parser, each algebra operation, the evaluator, the TMA planner and its
//! validator (in process, [`targets::layout`]); `axe-layout`, `axe-opt` and `axe-translate` as child processes
//! under memory, CPU and wall-clock limits ([`targets::process`]); and, behind the `mlir` feature, the dialect
//! parser and verifier, every registered pass and the translation in process (`targets::mlir`). Inputs come
//! from a grammar of layouts ([`gen_layout`]) and of IR ([`gen_ir`]), and from mutating the lit tests and the
//! examples ([`seeds`]) by token edits ([`mutate`]) and line edits ([`lines`]: uses before definitions,
//! unbalanced regions, ops outside modules). [`driver`] runs each input under `catch_unwind`, a time bound, a
//! memory bound (the counting allocator of [`alloc`]) and a watchdog, saves failing inputs and prints a
//! reproducer; the `axe-fuzz` binary prints a table of runs, planned and refused inputs ([`driver::Outcome`]) and
//! failures per target.
//!
//! # Why a hand-written generator on a seeded RNG
//!
//! The generation is a small grammar generator driven by `rand`'s `Xoshiro256PlusPlus`, a generator whose
//! output `rand` documents as portable and reproducible, seeded per input from (run seed, target, index).
//! - **Stable toolchain.** `cargo-fuzz`/libFuzzer needs nightly (sanitizer flags), and `bolero`'s coverage-guided
//!   engines do too; on stable they fall back to plain random generation, which is what this is, without the
//!   extra machinery. `proptest` (already a dev-dependency of the layout crate) has no time budget, no
//!   process-level runs and shrinks by rerunning, which a minute of CI cannot afford.
//! - **Deterministic replay by seed.** Any input is regenerated alone (`--seed S --index I`) without running the
//!   ones before it, so failures reproduce from one line, and worker threads change no input.
//! - **Structure.** Layout text and IR have grammars; generating text from them directly (and mutating real
//!   seeds) reaches the algebra and the passes, where random bytes (`arbitrary` over a byte stream) would mostly
//!   stop at the parser. The generator can still emit the malformed text a byte fuzzer would (wild numbers,
//!   broken nesting, byte edits of seeds).
//!
//! The cost is that generation is not coverage-guided; the grammars and seeds carry that load instead.

#![warn(missing_docs)]

pub mod alloc;
pub mod driver;
pub mod gen_ir;
pub mod gen_layout;
pub mod lines;
pub mod mutate;
pub mod seeds;
pub mod targets;

/// The unit tests count allocations too, so the driver's memory bound can be tested.
#[cfg(test)]
#[global_allocator]
static ALLOC: alloc::CountingAlloc = alloc::CountingAlloc;
