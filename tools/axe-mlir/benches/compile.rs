//! In-process compile time of the TMA copy example (parse, --lower-tma --lower-to-nvvm, PTX for sm_90a) with one
//! reused `Compiler`: the cost a host that compiles many kernels pays per kernel after the first.
//!
//!     cargo bench -p axe-mlir --bench compile -- --quick

use axe_mlir::{compile::Compiler, ptx::Chip};
use criterion::{criterion_group, criterion_main, Criterion};

const EXAMPLE: &str = include_str!("../../../examples/tma_copy.mlir");

fn compile(c: &mut Criterion) {
    let context = axe_dialect::create_context().expect("context");
    let mut compiler = Compiler::new(&context).expect("pipeline");
    c.bench_function("compile tma_copy sm_90a (reused compiler)", |b| {
        b.iter(|| compiler.compile_to_ptx(EXAMPLE, "tma_copy.mlir", Chip::Sm90a).expect("compiles"))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(std::time::Duration::from_millis(500));
    targets = compile
}
criterion_main!(benches);
