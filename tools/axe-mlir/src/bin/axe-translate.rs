//! `axe-translate`: MLIR (llvm/nvvm ops) to LLVM IR or PTX. See `axe-translate --help`.

fn main() -> ! {
    axe_mlir::translate::main(std::env::args_os().skip(1))
}
