//! LLVM IR to PTX through inkwell's NVPTX target machine, in memory.
//!
//! **Invariant:** the PTX ISA version is a function of the chip alone
//! ([`isa`]), so the same input and chip give byte-identical PTX; a module that links NVSHMEM's
//! device bitcode takes the higher of the chip's and the library's ISA ([`target_machine_with_ptx`]: its inline
//! PTX needs `fence.acquire`, ISA 8.6), still a function of the chip and the library file.

use anyhow::{anyhow, bail, Result};
use inkwell::{
    module::Module,
    passes::PassBuilderOptions,
    targets::{CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple},
    OptimizationLevel,
};
use std::sync::Once;

/// The NVPTX target triple.
pub const TRIPLE: &str = "nvptx64-nvidia-cuda";

pub use axe_layout::hw::Chip;

/// The chips `axe-translate` emits PTX for, in `--help` order (plain `sm_90` has no wgmma or TMA multicast the
/// kernels use, so it is not offered).
pub const CHIPS: [Chip; 3] = [Chip::Sm80, Chip::Sm90a, Chip::Sm100a];

/// Parses `sm_80`, `sm_90a` or `sm_100a` (one of [`CHIPS`]).
pub fn parse_chip(name: &str) -> Result<Chip> {
    CHIPS
        .into_iter()
        .find(|chip| chip.name() == name)
        .ok_or_else(|| anyhow!("unsupported chip '{name}' (expected sm_80, sm_90a or sm_100a)"))
}

/// Whether PTX for `chip` can carry a kernel planned for `planned` (its `axe.target`): sm_80's instructions
/// run on every later chip, but an `a` target's (wgmma, tcgen05, setmaxnreg) exist only on that exact
/// architecture, and LLVM's NVPTX backend aborts the process when asked to select one for another chip.
pub fn runs(chip: Chip, planned: Chip) -> bool {
    planned == Chip::Sm80 || planned == chip
}

/// The lowest PTX ISA that supports the chip (the `.version` in the PTX), as an LLVM feature.
pub fn isa(chip: Chip) -> &'static str {
    match chip {
        Chip::Sm80 => "+ptx70",
        Chip::Sm90 => "+ptx78",
        Chip::Sm90a => "+ptx80",
        Chip::Sm100a => "+ptx86",
    }
}

/// Creates the NVPTX target machine for `chip` at LLVM optimization `level`.
pub fn target_machine(chip: Chip, level: OptimizationLevel) -> Result<TargetMachine> {
    target_machine_with_ptx(chip, isa(chip), level)
}

/// [`target_machine`] with the PTX ISA feature `ptx` (`+ptx88`) instead of the chip's.
pub fn target_machine_with_ptx(chip: Chip, ptx: &str, level: OptimizationLevel) -> Result<TargetMachine> {
    static INIT: Once = Once::new();
    INIT.call_once(|| Target::initialize_nvptx(&InitializationConfig::default()));
    let triple = TargetTriple::create(TRIPLE);
    let target = Target::from_triple(&triple).map_err(|e| anyhow!("NVPTX target: {e}"))?;
    target
        .create_target_machine(&triple, chip.name(), ptx, level, RelocMode::Default, CodeModel::Default)
        .ok_or_else(|| anyhow!("cannot create an NVPTX target machine for {}", chip.name()))
}

/// Sets the module's triple and data layout to the machine's, verifies it and
/// runs LLVM's `default<On>` pipeline (skipped at `-O0`).
pub fn prepare(module: &Module, machine: &TargetMachine, opt_level: u8) -> Result<()> {
    module.set_triple(&machine.get_triple());
    module.set_data_layout(&machine.get_target_data().get_data_layout());
    module.verify().map_err(|e| anyhow!("invalid LLVM IR after translation: {}", e.to_string()))?;
    if opt_level > 0 {
        let passes = format!("default<O{opt_level}>");
        module
            .run_passes(&passes, machine, PassBuilderOptions::create())
            .map_err(|e| anyhow!("LLVM {passes} failed: {}", e.to_string()))?;
    }
    Ok(())
}

/// Emits PTX assembly for `module`.
pub fn emit_ptx(module: &Module, machine: &TargetMachine) -> Result<Vec<u8>> {
    let buffer = machine
        .write_to_memory_buffer(module, FileType::Assembly)
        .map_err(|e| anyhow!("PTX code generation failed: {}", e.to_string()))?;
    Ok(buffer.as_slice().to_vec())
}

/// Maps `-O0`..`-O3` to LLVM's code generation level.
pub fn optimization_level(level: u8) -> Result<OptimizationLevel> {
    Ok(match level {
        0 => OptimizationLevel::None,
        1 => OptimizationLevel::Less,
        2 => OptimizationLevel::Default,
        3 => OptimizationLevel::Aggressive,
        _ => bail!("optimization level must be 0, 1, 2 or 3, got {level}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chips_round_trip_and_pick_their_isa() {
        for chip in CHIPS {
            assert_eq!(parse_chip(chip.name()).expect("known"), chip);
            assert!(target_machine(chip, OptimizationLevel::Default).is_ok());
        }
        assert_eq!(isa(Chip::Sm90a), "+ptx80");
        assert!(parse_chip("sm_75").is_err() && parse_chip("sm_90").is_err());
    }
}
