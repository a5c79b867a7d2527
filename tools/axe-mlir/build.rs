//! Link axe-opt and axe-translate as position-dependent executables.
//!
//! Each binary carries all of LLVM and MLIR statically (~235 MB). As a position-independent executable it holds
//! about 285,000 relative relocations that the dynamic loader applies at every start, writing (and so faulting
//! in) every page of vtables and constant tables: about half of an empty run's time and most of its memory. A
//! fixed load address needs none of that. The objects stay PIC, so this changes only the final link.
fn main() {
    println!("cargo:rustc-link-arg-bins=-no-pie");
    println!("cargo:rustc-link-arg-bins=-Wl,-z,lazy");
}
