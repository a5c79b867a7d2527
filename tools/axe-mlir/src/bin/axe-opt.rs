//! `axe-opt`: the mlir-opt-style driver for Axe. See `axe-opt --help`.

fn main() -> ! {
    axe_mlir::opt::main(std::env::args_os().skip(1))
}
