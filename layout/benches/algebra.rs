//! Criterion benchmarks of the layout algebra. STUB.
fn main() {}
