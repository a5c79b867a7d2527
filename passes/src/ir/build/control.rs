//! Typed control, synchronisation and thread-index ops: `gpu.barrier`, the `gpu` thread and block ids and sizes
//! along a dimension, `scf.yield`, `llvm.intr.trap`, and the `nvvm` fences, waits and
//! elections more than one lowering emits.

use std::fmt;

use melior::{dialect::scf, ir::Value};

use super::Builder;
use crate::ir::ty::Ty;

/// A dimension of the thread block or grid (`#gpu<dim x>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dim {
    /// `x`.
    X,
    /// `y`.
    Y,
    /// `z`.
    Z,
}

impl Dim {
    /// `x`, `y`, `z`.
    pub(crate) const ALL: [Dim; 3] = [Dim::X, Dim::Y, Dim::Z];
}

impl fmt::Display for Dim {
    /// The attribute: `#gpu<dim x>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Dim::X => "x",
            Dim::Y => "y",
            Dim::Z => "z",
        };
        write!(f, "#gpu<dim {name}>")
    }
}

/// Which side of a thread synchronisation (a barrier, an mbarrier wait) a `tcgen05.fence` orders tcgen05 ops
/// against: `before_thread_sync` (ops before it complete first) or `after_thread_sync` (ops after it start later).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ThreadSync {
    /// `tcgen05.fence::before_thread_sync`.
    Before,
    /// `tcgen05.fence::after_thread_sync`.
    After,
}

/// The tensor-memory accesses a `tcgen05.wait` waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tcgen05Access {
    /// `tcgen05.wait::ld`.
    Load,
    /// `tcgen05.wait::st`.
    Store,
}

impl<'c, 'a> Builder<'c, 'a> {
    /// `gpu.barrier`: every thread of the CTA waits, and shared-memory writes before it are visible after it.
    pub(crate) fn barrier(&self) -> Result<(), String> {
        self.build("gpu.barrier", &[], &[], &[], Vec::new()).map(drop)
    }

    /// `gpu.thread_id dim`: the thread's index in the CTA along `dim`.
    pub(crate) fn thread_id(&self, dim: Dim) -> Result<Value<'c, 'a>, String> {
        self.gpu_index("gpu.thread_id", dim)
    }

    /// The thread's index in a block of `block` (its `known_block_size`): `tid.x` for a flat block (or an unknown
    /// one), else `tid.x + X * (tid.y + Y * tid.z)`.
    pub(crate) fn linear_thread_id(&self, block: &[i64]) -> Result<Value<'c, 'a>, String> {
        let x = self.thread_id(Dim::X)?;
        let (extent_x, extent_y) = match block {
            [x, y, z] if (*y, *z) != (1, 1) => (*x, *y),
            _ => return Ok(x),
        };
        let z_scaled = self.muli(self.thread_id(Dim::Z)?, self.index(extent_y)?)?;
        let row = self.addi(self.thread_id(Dim::Y)?, z_scaled)?;
        self.addi(x, self.muli(row, self.index(extent_x)?)?)
    }

    /// `gpu.block_id dim`: the CTA's index in the grid along `dim`.
    pub(crate) fn block_id(&self, dim: Dim) -> Result<Value<'c, 'a>, String> {
        self.gpu_index("gpu.block_id", dim)
    }

    /// `gpu.block_dim dim`: the CTA's thread count along `dim`.
    pub(crate) fn block_dim(&self, dim: Dim) -> Result<Value<'c, 'a>, String> {
        self.gpu_index("gpu.block_dim", dim)
    }

    /// `gpu.grid_dim dim`: the grid's CTA count along `dim`.
    pub(crate) fn grid_dim(&self, dim: Dim) -> Result<Value<'c, 'a>, String> {
        self.gpu_index("gpu.grid_dim", dim)
    }

    /// A `gpu` index op `name` along `dim` (an `index`).
    fn gpu_index(&self, name: &str, dim: Dim) -> Result<Value<'c, 'a>, String> {
        self.typed(name, &[], Ty::Index, &[("dimension", dim.to_string())])
    }

    /// `llvm.intr.trap`: the kernel aborts.
    pub(crate) fn trap(&self) -> Result<(), String> {
        self.build("llvm.intr.trap", &[], &[], &[], Vec::new()).map(drop)
    }

    /// `nvvm.fence.mbarrier.init`: makes mbarrier initialisations visible to the async proxy (TMA, tcgen05).
    pub(crate) fn fence_mbarrier_init(&self) -> Result<(), String> {
        self.build("nvvm.fence.mbarrier.init", &[], &[], &[], Vec::new()).map(drop)
    }

    /// `nvvm.tcgen05.fence`: orders tcgen05 ops against a thread synchronisation on the given side of it.
    pub(crate) fn tcgen05_fence(&self, side: ThreadSync) -> Result<(), String> {
        let kind = match side {
            ThreadSync::Before => "before",
            ThreadSync::After => "after",
        };
        self.build("nvvm.tcgen05.fence", &[], &[], &[("kind", format!("#nvvm.tcgen05_fence<{kind}>"))], Vec::new())
            .map(drop)
    }

    /// `nvvm.tcgen05.wait`: waits for this thread's earlier `tcgen05.ld`s or `tcgen05.st`s.
    pub(crate) fn tcgen05_wait(&self, of: Tcgen05Access) -> Result<(), String> {
        let kind = match of {
            Tcgen05Access::Load => "load",
            Tcgen05Access::Store => "store",
        };
        self.build("nvvm.tcgen05.wait", &[], &[], &[("kind", format!("#nvvm.tcgen05_wait<{kind}>"))], Vec::new())
            .map(drop)
    }

    /// `nvvm.elect.sync`: true in one lane of the (whole, converged) warp (an `i1`; sm_90+).
    pub(crate) fn elect_sync(&self) -> Result<Value<'c, 'a>, String> {
        self.typed("nvvm.elect.sync", &[], Ty::I1, &[])
    }

    /// `scf.yield values`: the terminator of an `scf` region.
    pub(crate) fn r#yield(&self, values: &[Value<'c, 'a>]) -> Result<(), String> {
        self.insert(scf::r#yield(values, self.location));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dimensions_print_as_gpu_attributes() {
        let printed: Vec<String> = Dim::ALL.iter().map(Dim::to_string).collect();
        assert_eq!(printed, ["#gpu<dim x>", "#gpu<dim y>", "#gpu<dim z>"]);
    }
}
