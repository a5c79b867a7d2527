//! axe-layout: STUB.
fn main() {}
