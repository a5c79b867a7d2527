//! The hardware vocabulary every crate shares: the chip ([`Chip`]), the memory a tensor lives in ([`Memory`]),
//! the element type with its size and its MLIR and PTX names ([`ElemType`]), and the integer expressions over a
//! kernel's arguments that a launch evaluates ([`expr`]). The planners, the dialect, the passes, the launch record
//! and the simulator all speak these types; none keeps its own copy.

mod elem;

pub use elem::ElemType;

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
