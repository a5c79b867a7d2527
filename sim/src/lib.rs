//! `axe-sim`: proof of lowered kernels without a GPU, by executing the IR the compiler produces.
//!
//! [`lower`] runs `--lower-roles --lower-tile-loops --lower-staged-copies --lower-tma --lower-mma --lower-copy` in
//! process; [`run`] executes one CTA of a `gpu.func` in that IR on a software model of the hardware: the threads
//! of the CTA in lockstep (each SSA value holds one entry per thread, `scf.if`/`scf.index_switch` on
//! thread-dependent values run their regions under a mask, warp- and warpgroup-collective instructions take all
//! their threads' operands at once) until control diverges (an `scf.if` or `scf.index_switch` whose threads take
//! different sides, an `scf.for` whose bounds differ between threads, each group of equal bounds a side): then
//! each side is a strand, and the strands run concurrently, one at a time under a baton, handing it over where a
//! warp can stall (`exec/strand.rs`), so producer and consumer warps can wait on each other and a
//! wait none of them can complete is a located deadlock. Global buffers are
//! bound by the caller, shared memory as bytes, private memory per thread, tensor memory (128 lanes x 512
//! columns) and mbarriers with phase, pending count and tx-count (`machine.rs`). The instructions follow the PTX
//! ISA and the CUDA driver's tensor-map rules, transcribed in `isa.rs` independently of the planners.
//!
//! Asynchronous operations complete as the PTX ISA defines it (`inflight.rs`): TMA and `cp.async` loads at the
//! wait that observes them, wgmma at its `wait_group`, tcgen05.mma through its commit's mbarrier, `tcgen05.ld` at
//! `wait::ld`, TMA stores at their bulk-group waits; when each lands in between is a [`Schedule`]
//! ([`run_with`]; [`run`] uses the default, lazy one).
//!
//! Warps of a strand run in lockstep here but not on the hardware, so accesses of different warps count as ordered only
//! through synchronization: CTA barriers and mbarrier arrive -> wait edges, tracked as one vector clock per warp
//! (`order.rs`) and checked per shared byte (`machine.rs`).
//!
//! Faults are [`SimError`]s at the op's location: mbarrier use before init, or by another thread with no
//! `fence.mbarrier_init` or no CTA barrier after the init, an arrival past the expected count, a parity wait
//! that can never succeed (deadlock), a phase completing with no arrival ordered after a wait for the previous
//! phase (phase overrun: warps may drift two phases apart), a read or write of shared bytes a pending load has
//! not delivered, a read of registers or tensor memory an asynchronous operation may still write, a write of
//! shared bytes one may still read, a missing `wgmma.fence`, `fence.proxy.async` or `tcgen05.fence`, a shared
//! read of another thread's write (read-after-write race) and a write, a TMA load or a `cp.async` over another
//! warp's read, including an MMA's or TMA store's operand reads once retired (write-after-read race), with no
//! synchronization ordering them, a kernel exiting with operations in flight, out-of-bounds memory, tensor
//! memory outside the allocation, collectives under partial masks, and every op or form the model does not
//! cover ("not modelled: ...").

mod exec;
pub mod fp8;
pub mod inflight;
pub mod isa;
pub mod machine;
pub mod order;
pub mod schedule;
pub mod value;

use axe_dialect::AxeContext;
use melior::ir::Module;
use melior::pass::PassManager;
use std::fmt;

pub use exec::{run, run_with};
pub use schedule::{Completion, Schedule, WarpOrder};
pub use value::Scalar;

/// A fault or refusal, at the op's location (`file:line:col`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimError {
    /// Where (the op's location as MLIR prints it, or the kernel's name).
    pub loc: String,
    /// What went wrong, with the numbers.
    pub message: String,
}

impl SimError {
    /// A new error.
    pub fn new(loc: &str, message: impl Into<String>) -> SimError {
        SimError { loc: loc.to_string(), message: message.into() }
    }
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: error: {}", self.loc, self.message)
    }
}

impl std::error::Error for SimError {}

/// A buffer of typed elements, stored as the bytes the GPU would see (little-endian).
#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    /// Element type.
    pub elem: Scalar,
    /// The bytes.
    pub bytes: Vec<u8>,
}

impl Buffer {
    /// A buffer of `values` encoded as `elem` (floats rounded to nearest even).
    pub fn from_f64(elem: Scalar, values: &[f64]) -> Buffer {
        let n = elem.bytes();
        let mut bytes = Vec::with_capacity(values.len() * n);
        for v in values {
            let bits = if elem.is_float() { elem.from_f64(*v) } else { *v as i64 as u64 };
            bytes.extend_from_slice(&bits.to_le_bytes()[..n]);
        }
        Buffer { elem, bytes }
    }

    /// `n` zeros.
    pub fn zeros(elem: Scalar, n: usize) -> Buffer {
        Buffer { elem, bytes: vec![0; n * elem.bytes()] }
    }

    /// The elements as `f64`.
    pub fn to_f64(&self) -> Vec<f64> {
        let n = self.elem.bytes();
        self.bytes
            .chunks(n)
            .map(|c| {
                let mut b = [0u8; 8];
                b[..n].copy_from_slice(c);
                self.elem.to_f64(u64::from_le_bytes(b))
            })
            .collect()
    }
}

/// A kernel argument.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// A global buffer: a memref argument, or the tensor a TMA descriptor argument (`axe.tma_descriptor`) maps.
    Buffer(Buffer),
    /// An integer or index argument.
    Int(i64),
    /// A float argument (rounded to the parameter's type).
    Float(f64),
}

/// What a launch did: the buffers after the kernel (by argument position; `None` for scalars) and the number
/// of ops executed.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Buffers after the kernel.
    pub buffers: Vec<Option<Buffer>>,
    /// Ops executed (one per op per lockstep step, not per thread).
    pub steps: u64,
}

/// One CTA of one kernel.
#[derive(Clone, Debug)]
pub struct Launch {
    /// The `gpu.func`'s name.
    pub kernel: String,
    /// `blockIdx`.
    pub block_id: [i64; 3],
    /// `gridDim` (read by `gpu.grid_dim`).
    pub grid: [i64; 3],
    /// The arguments, in the kernel's order.
    pub args: Vec<Arg>,
}

/// Parses `source` and runs `--lower-roles --lower-tile-loops --lower-staged-copies --lower-tma --lower-mma --lower-copy` on it (the IR [`run`] executes).
pub fn lower<'c>(context: &'c AxeContext, source: &str, name: &str) -> Result<Module<'c>, String> {
    let render =
        |context: &AxeContext| context.diagnostics().take().iter().map(|d| d.render(None)).collect::<Vec<_>>().join("");
    let mut module = axe_dialect::parse_module(context, source, name).ok_or_else(|| render(context))?;
    let manager = PassManager::new(context.context());
    let passes = [
        axe_passes::lower_roles::create,
        axe_passes::lower_tile_loops::create,
        axe_passes::lower_staged_copies::create,
        axe_passes::lower_tma::create,
        axe_passes::lower_mma::create,
        axe_passes::lower_copy::create,
    ];
    for pass in passes {
        manager.add_pass(pass());
    }
    manager.run(&mut module).map_err(|_| render(context))?;
    Ok(module)
}
