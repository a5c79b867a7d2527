//! Trainium (issue 30): the NeuronCore's on-chip memories as layout axes, and the Tensor Engine's matmul planner.
//!
//! SBUF and PSUM are 2-D memories: 128 partitions (axis `P`) by a contiguous free dimension (axis `F`, counted in
//! elements of the tensor's type here, as `m` is) (the paper's Appendix H; AWS NKI documentation, "Trainium
//! architecture" and `nki.language.tile_size`). On trn1 a partition holds 192 KiB of SBUF and 16 KiB of PSUM, the
//! latter in 8 banks of 2 KiB; the Tensor Engine's `nc_matmul(stationary, moving)` computes
//! `stationary^T @ moving` from two SBUF tiles that share their partition axis (the contraction, at most 128) into
//! a PSUM tile (f32), the stationary tile at most 128 wide on its free axis and the moving one at most 512.
//! [`matmul`] plans a whole GEMM onto it.

pub mod matmul;
pub mod nki;

/// The memories of a NeuronCore a layout may place a tensor in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TrnMemory {
    /// Device memory (HBM): flat, addressed on `m`.
    Hbm,
    /// The state buffer: `P` x `F`, the Tensor Engine's inputs.
    Sbuf,
    /// The partial-sum buffer: `P` x `F`, the Tensor Engine's output, in banks.
    Psum,
}

impl TrnMemory {
    /// `hbm`, `sbuf` or `psum`.
    pub fn name(self) -> &'static str {
        match self {
            TrnMemory::Hbm => "hbm",
            TrnMemory::Sbuf => "sbuf",
            TrnMemory::Psum => "psum",
        }
    }
}

/// What a NeuronCore generation provides (the numbers the NKI documentation gives for it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chip {
    /// The chip's name (`trn1`).
    pub name: &'static str,
    /// Partitions of SBUF and PSUM (`nki.language.tile_size.pmax`).
    pub partitions: i64,
    /// SBUF bytes per partition.
    pub sbuf_bytes: i64,
    /// PSUM bytes per partition.
    pub psum_bytes: i64,
    /// PSUM bank bytes per partition (`psum_fmax` f32 elements of 4 bytes).
    pub psum_bank_bytes: i64,
    /// The stationary operand's largest free extent (`gemm_stationary_fmax`).
    pub stationary_fmax: i64,
    /// The moving operand's largest free extent (`gemm_moving_fmax`).
    pub moving_fmax: i64,
}

/// Trainium 1: 128 partitions, 192 KiB of SBUF and 16 KiB of PSUM (8 banks of 2 KiB) per partition; matmul
/// stationary tiles at most 128 x 128, moving tiles at most 128 x 512.
pub const TRN1: Chip = Chip {
    name: "trn1",
    partitions: 128,
    sbuf_bytes: 192 * 1024,
    psum_bytes: 16 * 1024,
    psum_bank_bytes: 2048,
    stationary_fmax: 128,
    moving_fmax: 512,
};

/// The chip named `name` (`trn1`).
pub fn chip(name: &str) -> Option<Chip> {
    (name == TRN1.name).then_some(TRN1)
}
