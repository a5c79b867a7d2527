//! Link axe-opt and axe-translate for a fast start: position-dependent, with libstdc++ linked in.
//!
//! Each binary carries the LLVM and MLIR it uses statically. As a position-independent executable it held about
//! 285,000 relative relocations that the dynamic loader applied at every start, writing (and so faulting in)
//! every page of vtables and constant tables: about half of an empty run's time and most of its memory. A fixed
//! load address needs none of that. The objects stay PIC, so this changes only the final link.
//!
//! What remained were symbol relocations against the shared libstdc++: one per C++ type-info and pure-virtual
//! slot of LLVM/MLIR (about 6,000 in axe-translate, 18,000 before the tools linked only what they use), each
//! looked up by name and each copying a page of `.data.rel.ro` at start. Linking libstdc++'s archive resolves them at link time (about 0.5 ms and 160 page
//! faults of an axe-translate start). The archive must come before the `-lstdc++` that mlir-sys and llvm-sys
//! request, or the linker takes the shared library's definitions: a static native library of this crate is
//! placed with the crate's rlib, ahead of the dependencies' libraries.
fn main() {
    println!("cargo:rustc-link-arg-bins=-no-pie");
    println!("cargo:rustc-link-arg-bins=-Wl,-z,lazy");
    println!("cargo:rustc-link-lib=static:-bundle,+verbatim=libstdc++.a");
}
