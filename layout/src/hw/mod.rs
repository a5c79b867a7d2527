//! The hardware vocabulary every crate shares: the chip ([`Chip`]), the memory a tensor lives in ([`Memory`]),
//! the element type with its size and its MLIR and PTX names ([`ElemType`]), and the integer expressions over a
//! kernel's arguments that a launch evaluates ([`expr`]). The planners, the dialect, the passes, the launch record
//! and the simulator all speak these types; none keeps its own copy.

mod elem;
pub mod expr;

pub use elem::ElemType;

use std::fmt;

/// The GPU the code is for; it decides which instruction families exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Chip {
    /// `sm_80` (and the other sm_8x): `mma.sync` only.
    Sm80,
    /// `sm_90` without the arch-specific features: `mma.sync` only (wgmma needs `sm_90a`).
    Sm90,
    /// `sm_90a`: `mma.sync` and `wgmma.mma_async`.
    Sm90a,
    /// `sm_100a`: `mma.sync` and `tcgen05.mma` (no wgmma).
    Sm100a,
}

impl Chip {
    /// Parses `sm_80`, `sm_86`, `sm_89` (all [`Chip::Sm80`]), `sm_90`, `sm_90a`, `sm_100a`.
    pub fn from_name(name: &str) -> Option<Chip> {
        match name {
            "sm_80" | "sm_86" | "sm_87" | "sm_89" => Some(Chip::Sm80),
            "sm_90" => Some(Chip::Sm90),
            "sm_90a" => Some(Chip::Sm90a),
            "sm_100a" => Some(Chip::Sm100a),
            _ => None,
        }
    }

    /// The canonical name (`sm_80`, `sm_90`, `sm_90a`, `sm_100a`).
    pub fn name(self) -> &'static str {
        match self {
            Chip::Sm80 => "sm_80",
            Chip::Sm90 => "sm_90",
            Chip::Sm90a => "sm_90a",
            Chip::Sm100a => "sm_100a",
        }
    }
}

/// The memory a tensor lives in: the `axe.tensor` type's memory scope, one side of a copy, a GEMM operand.
/// Declared in the order the copy tables sort sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Memory {
    /// Device global memory: a layout on `m`, element offsets from the tensor's base.
    Global,
    /// Shared memory: a layout on `m` from the tensor's base, possibly swizzled.
    Shared,
    /// Registers: thread axes and the register axis `m` (or `reg`).
    Reg,
    /// Tensor memory (sm_100a): `TLane` and `TCol`.
    Tmem,
    /// Trainium device memory (HBM): flat, a layout on `m` like global memory's.
    Hbm,
    /// Trainium's state buffer (SBUF): partitions `P` by a free axis `F` ([`crate::trn`]).
    Sbuf,
    /// Trainium's partial-sum buffer (PSUM): `P` by `F`, in banks ([`crate::trn`]).
    Psum,
}

impl Memory {
    /// Parses `global`, `shared` (`smem`), `reg` (`regs`, `registers`), `tmem`, and Trainium's `hbm`, `sbuf`,
    /// `psum`.
    pub fn from_name(name: &str) -> Option<Memory> {
        match name {
            "global" | "gmem" => Some(Memory::Global),
            "shared" | "smem" => Some(Memory::Shared),
            "reg" | "regs" | "registers" => Some(Memory::Reg),
            "tmem" => Some(Memory::Tmem),
            "hbm" => Some(Memory::Hbm),
            "sbuf" => Some(Memory::Sbuf),
            "psum" => Some(Memory::Psum),
            _ => None,
        }
    }

    /// `global`, `shared`, `reg`, `tmem`, `hbm`, `sbuf` or `psum`.
    pub fn name(self) -> &'static str {
        match self {
            Memory::Global => "global",
            Memory::Shared => "shared",
            Memory::Reg => "reg",
            Memory::Tmem => "tmem",
            Memory::Hbm => "hbm",
            Memory::Sbuf => "sbuf",
            Memory::Psum => "psum",
        }
    }

    /// True for the memories of a Trainium NeuronCore (`hbm`, `sbuf`, `psum`), which only a `trn*` target has.
    pub fn is_trainium(self) -> bool {
        matches!(self, Memory::Hbm | Memory::Sbuf | Memory::Psum)
    }
}

impl fmt::Display for Memory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
