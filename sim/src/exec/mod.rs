//! The interpreter: walks a `gpu.func` op by op with an active-thread mask, the threads of a mask in lockstep.
//!
//! This module holds the interpreter's state ([`State`]), the handle one strand runs it through ([`Exec`]),
//! value access, the registers' asynchronous origins ([`Origin`]), one step and the dispatch over op families;
//! each family is a submodule:
//! - `strand.rs`: strands, the divergent sides of a branch run concurrently (one at a time, under a baton), and
//!   the deadlock a wait no strand can complete is;
//! - `launch.rs`: finding the kernel, its block size, binding the launch's arguments, shared globals, and the
//!   ops that read the launch (`gpu.thread_id`, `block_id`, `block_dim`, `grid_dim`);
//! - `tensor_maps.rs`: the tensor maps of the kernel's attributes, evaluated on the launch's integer arguments;
//! - `control.rs`: blocks, regions and `scf.if`/`scf.for`/`scf.index_switch` under masks;
//! - `arith.rs`: `arith.*` and constants; `moves.rs`: register moves (struct and vector packing, bit casts,
//!   pointer casts) and the origin they carry;
//! - `memory.rs`: `memref.*` and `llvm.load`/`llvm.store` on shared, global and private memory;
//! - `sync.rs`: CTA barriers, mbarriers, `fence.mbarrier_init`, `fence.proxy.async`, `elect.sync`;
//!   `named.rs`: named barriers (`bar.sync id, count`) and `bar.warp.sync`; `registers.rs`: `setmaxnreg`
//!   (warpgroup register budgets and the CTA's pool);
//! - `tma.rs`: TMA loads and stores and their bulk groups; `cp_async.rs`: `cp.async` and its groups;
//! - `mma_sync.rs`: `ldmatrix`, `stmatrix`, `mma.sync`; `wgmma.rs`: `wgmma.*`; `tcgen05.rs`: `tcgen05.*`.

use crate::isa::TensorMap;
use crate::machine::Machine;
use crate::order::Clocks;
use crate::schedule::{Completion, Rng, Schedule, WarpOrder};
use crate::value::{MemRef, Space, Ty, V};
use crate::{Launch, Outcome, SimError};
use axe_dialect::access;
use launch::{block_size, find_kernel};
use melior::ir::operation::OperationLike;
use melior::ir::r#type::TypeLike;
use melior::ir::{Module, OperationRef, Value, ValueLike};
use moves::MOVES;
use std::collections::HashMap;
use std::ops::{Deref, DerefMut};
use strand::{Shared, Strands};

mod arith;
mod control;
mod cp_async;
mod launch;
mod memory;
mod mma_sync;
mod moves;
mod named;
mod registers;
mod strand;
mod sync;
mod tcgen05;
mod tensor_maps;
mod tma;
mod wgmma;

/// At most this many op steps per launch (a runaway loop is an error, not a hang).
const STEP_LIMIT: u64 = 20_000_000;

/// Executes one CTA of `launch.kernel` in `module` (the output of [`crate::lower`]) under the default schedule
/// (lazy completion, warps in order).
pub fn run(module: &Module, launch: &Launch) -> Result<Outcome, SimError> {
    run_with(module, launch, &Schedule::default())
}

/// [`run`] under `schedule`: when asynchronous operations land and in which order warps and divergent regions
/// execute ([`crate::schedule`]).
pub fn run_with(module: &Module, launch: &Launch, schedule: &Schedule) -> Result<Outcome, SimError> {
    let kernel = find_kernel(module, &launch.kernel)
        .ok_or_else(|| SimError::new(&launch.kernel, format!("no gpu.func @{} in the module", launch.kernel)))?;
    let loc = loc_of(kernel);
    let block_dim = block_size(kernel, &loc)?;
    let shared = Shared::new(State::new(launch, block_dim, schedule));
    let mut ex = Exec::root(&shared);
    ex.registers = registers::Registers::at_launch(kernel, ex.n);
    ex.alloc_globals(kernel)?;
    let entry = access::entry_block(kernel).ok_or_else(|| SimError::new(&loc, "kernel without a body"))?;
    let bound = ex.bind_args(kernel, entry, &loc)?;
    let all = vec![true; ex.n];
    ex.run_block(entry, &all)?;
    let end = ex.return_loc.clone().unwrap_or_else(|| loc.clone());
    ex.m.exit_check(&end)?;
    Ok(ex.outcome(&bound))
}

/// An op's name (`arith.addi`).
fn op_name(op: OperationRef) -> String {
    op.name().as_string_ref().as_str().unwrap_or("").to_string()
}

/// A value's identity, the key of the interpreter's maps.
fn key(v: Value) -> usize {
    v.to_raw().ptr as usize
}

/// `file:line:col` of an op.
fn loc_of(op: OperationRef) -> String {
    let s = op.location().to_string();
    let s = s.strip_prefix("loc(").and_then(|s| s.strip_suffix(')')).unwrap_or(&s);
    s.replacen('"', "", 2)
}

/// The elements of a printed `array<iN: ...>` attribute.
fn array_ints(text: &str) -> Vec<i64> {
    let body = text.split_once(':').map(|(_, b)| b).unwrap_or("");
    ints_in(body)
}

/// The integers in `text`, in order.
fn ints_in(text: &str) -> Vec<i64> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '-')).filter_map(|t| t.parse().ok()).collect()
}

/// How an op leaves its block: on to the next op, yielding the region's results, or returning from the kernel.
enum Flow {
    Next,
    Yield(Vec<V>),
    Return,
}

/// The interpreter's state for one CTA: the values of every thread, the machine, the bookkeeping of a run and
/// its strands. Strands share it under one lock ([`Shared`]); the one holding the baton runs on it.
struct State<'l> {
    /// Threads in the CTA.
    n: usize,
    block_dim: [i64; 3],
    launch: &'l Launch,
    /// Each SSA value (by [`key`]), one entry per thread.
    env: HashMap<usize, V>,
    m: Machine,
    /// Shared `memref.global` symbols and their addresses.
    globals: HashMap<String, (u64, u64)>,
    /// The tensor maps bound to the arguments (a descriptor argument holds its index here).
    descs: Vec<TensorMap>,
    /// Parsed MLIR types, by the type's address.
    types: HashMap<usize, Ty>,
    /// Ops executed so far.
    steps: u64,
    /// Where each value's registers come from (see [`Origin`]).
    origin: HashMap<usize, Origin>,
    /// The origin of private-memory cells (register arrays), by allocation and byte address.
    cells: HashMap<(usize, u64), Origin>,
    /// The order of warps and of divergent regions.
    warps: WarpOrder,
    /// The shuffled order's generator.
    rng: Rng,
    /// The kernel's `gpu.return`, once reached.
    return_loc: Option<String>,
    /// Each op's location as an index into the machine's `locs` (by the op's address).
    loc_ids: HashMap<usize, u32>,
    /// The strands and whose turn it is (`strand.rs`).
    strands: Strands,
    /// The warpgroups' register budgets (`registers.rs`).
    registers: registers::Registers,
    /// The 16 named barriers (`named.rs`; 0 is also `gpu.barrier`'s, which `sync.rs` models).
    named: Vec<named::Named>,
}

/// One strand's handle on the interpreter: the state, locked while the strand holds the baton (it lets go only
/// inside [`Exec::block_until`]), and which strand it is. Every op family is a method on it.
struct Exec<'s, 'l> {
    st: parking_lot::MutexGuard<'s, State<'l>>,
    sh: &'s Shared<'l>,
    /// This strand's index in [`Strands`].
    me: usize,
}

impl<'l> Deref for Exec<'_, 'l> {
    type Target = State<'l>;
    fn deref(&self) -> &State<'l> {
        &self.st
    }
}

impl<'l> DerefMut for Exec<'_, 'l> {
    fn deref_mut(&mut self) -> &mut State<'l> {
        &mut self.st
    }
}

/// Where a value's registers come from: the step of the last generic write (a computed value, or a register
/// array cell stored), and the asynchronous operations that write them (the wgmma group plus one, the
/// tcgen05.ld plus one; 0: none). Moves (struct and vector packing, register-array stores and loads, bit casts)
/// keep the origin; any other use of a value an asynchronous operation may still write is an error.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Origin {
    step: u64,
    wg: u64,
    ld: u64,
}

impl Origin {
    fn join(self, o: Origin) -> Origin {
        Origin { step: self.step.max(o.step), wg: self.wg.max(o.wg), ld: self.ld.max(o.ld) }
    }

    fn is_async(self) -> bool {
        self.wg != 0 || self.ld != 0
    }
}

/// An error at `loc`.
fn err<T>(loc: &str, m: impl Into<String>) -> Result<T, SimError> {
    Err(SimError::new(loc, m))
}

impl<'l> State<'l> {
    /// A fresh CTA of `block_dim` threads for `launch` under `schedule`.
    fn new(launch: &'l Launch, block_dim: [i64; 3], schedule: &Schedule) -> State<'l> {
        let n = (block_dim[0] * block_dim[1] * block_dim[2]) as usize;
        let mut ex = State {
            n,
            block_dim,
            launch,
            env: HashMap::new(),
            m: Machine::default(),
            globals: HashMap::new(),
            descs: Vec::new(),
            types: HashMap::new(),
            steps: 0,
            origin: HashMap::new(),
            cells: HashMap::new(),
            warps: schedule.warps,
            rng: Rng::new(match schedule.warps {
                WarpOrder::Shuffled(seed) => seed,
                _ => 0,
            }),
            return_loc: None,
            loc_ids: HashMap::new(),
            strands: Strands::new(n),
            registers: Default::default(),
            named: vec![Default::default(); 16],
        };
        ex.m.flight.completion = schedule.completion;
        if let Completion::Random(seed) = schedule.completion {
            ex.m.flight.rng = Rng::new(seed);
        }
        ex.m.proxy_fence = vec![0; n];
        ex.m.clocks = Clocks::new(n.div_ceil(32));
        ex.m.named_epochs = vec![0; n.div_ceil(32)];
        ex
    }
}

impl Exec<'_, '_> {
    /// A value's type (parsed once per type).
    fn ty(&mut self, v: Value) -> Ty {
        let k = v.r#type().to_raw().ptr as usize;
        self.types.entry(k).or_insert_with(|| Ty::parse(&v.r#type().to_string())).clone()
    }

    fn get(&self, v: Value, loc: &str) -> Result<&V, SimError> {
        self.env.get(&key(v)).ok_or_else(|| SimError::new(loc, "use of a value the interpreter never defined"))
    }

    fn operand(&self, op: OperationRef, i: usize, loc: &str) -> Result<V, SimError> {
        let v = access::operand(op, i).ok_or_else(|| SimError::new(loc, format!("missing operand {i}")))?;
        self.get(v, loc).cloned()
    }

    fn scalars(&self, op: OperationRef, i: usize, loc: &str) -> Result<Vec<u64>, SimError> {
        match self.operand(op, i, loc)? {
            V::S(s) => Ok(s),
            _ => err(loc, format!("operand {i} is not a scalar")),
        }
    }

    fn operand_ty(&mut self, op: OperationRef, i: usize, loc: &str) -> Result<Ty, SimError> {
        let v = access::operand(op, i).ok_or_else(|| SimError::new(loc, format!("missing operand {i}")))?;
        Ok(self.ty(v))
    }

    fn result_ty(&mut self, op: OperationRef, loc: &str) -> Result<Ty, SimError> {
        let v = access::result(op, 0).ok_or_else(|| SimError::new(loc, "missing result"))?;
        Ok(self.ty(v))
    }

    fn set(&mut self, op: OperationRef, i: usize, v: V) {
        if let Some(r) = access::result(op, i) {
            self.env.insert(key(r), v);
            let step = self.steps;
            self.origin.insert(key(r), Origin { step, wg: 0, ld: 0 });
        }
    }

    fn origin_of(&self, op: OperationRef, i: usize) -> Origin {
        access::operand(op, i).and_then(|v| self.origin.get(&key(v)).copied()).unwrap_or_default()
    }

    fn set_origin(&mut self, op: OperationRef, i: usize, o: Origin) {
        if let Some(r) = access::result(op, i) {
            self.origin.insert(key(r), o);
        }
    }

    /// What an asynchronous operation still writes of registers of origin `o`, if anything.
    fn pending_registers(&self, o: Origin) -> Option<&'static str> {
        if o.wg != 0 && self.m.flight.wgmma_pending(o.wg - 1) {
            return Some(if o.wg > self.m.flight.wg_committed {
                "the accumulator of a wgmma.mma_async whose group was never committed (wgmma.commit_group)"
            } else {
                "the accumulator of a wgmma.mma_async no wgmma.wait_group retired"
            });
        }
        if o.ld != 0 && o.ld > self.m.flight.lds.1 {
            return Some("the registers of a tcgen05.ld not yet waited for (tcgen05.wait::ld)");
        }
        None
    }

    /// Faults when `op` reads (not just moves) a value an asynchronous operation may still write.
    fn check_operands(&self, op: OperationRef, name: &str) -> Result<(), SimError> {
        if MOVES.contains(&name) && name != "nvvm.wgmma.mma_async" {
            return Ok(());
        }
        let first = match name {
            // A register-array store or load moves the value.
            "memref.store" | "memref.load" => {
                let m = usize::from(name == "memref.store");
                if let Ok(V::Mem(MemRef { space: Space::Private(_), .. })) = self.operand(op, m, "") {
                    return Ok(());
                }
                0
            }
            // wgmma chains on its accumulator (operand 0) without waiting.
            "nvvm.wgmma.mma_async" => 1,
            _ => 0,
        };
        for i in first..op.operand_count() {
            if let Some(what) = self.pending_registers(self.origin_of(op, i)) {
                return err(
                    &loc_of(op),
                    format!("{name} reads {what}: registers an asynchronous operation may still write"),
                );
            }
        }
        Ok(())
    }

    /// The value all active threads share.
    fn uniform(&self, s: &[u64], mask: &[bool], what: &str, loc: &str) -> Result<u64, SimError> {
        let mut it = s.iter().zip(mask).filter(|(_, m)| **m).map(|(x, _)| *x);
        let first = it.next().unwrap_or(0);
        if it.any(|x| x != first) {
            return err(loc, format!("not modelled: {what} differs between active threads"));
        }
        Ok(first)
    }

    /// The active threads, warp by warp in the schedule's warp order.
    fn active(&mut self, mask: &[bool]) -> Vec<usize> {
        let mut warps: Vec<usize> = (0..self.n.div_ceil(32)).collect();
        match self.warps {
            WarpOrder::Forward => {}
            WarpOrder::Reverse => warps.reverse(),
            WarpOrder::Shuffled(_) => self.rng.shuffle(&mut warps),
        }
        warps.into_iter().flat_map(|w| w * 32..((w + 1) * 32).min(self.n)).filter(|t| mask[*t]).collect()
    }

    /// Whether a divergent `scf.if` runs its `else` side first.
    fn reversed(&mut self) -> bool {
        match self.warps {
            WarpOrder::Forward => false,
            WarpOrder::Reverse => true,
            WarpOrder::Shuffled(_) => self.rng.below(2) == 1,
        }
    }

    /// Checks that the active threads are whole groups of `size` (warps, warpgroups), as `.sync.aligned`
    /// instructions require; returns the groups.
    fn whole_groups(&self, mask: &[bool], size: usize, what: &str, loc: &str) -> Result<Vec<usize>, SimError> {
        let mut groups = Vec::new();
        for g in 0..self.n.div_ceil(size) {
            let members = &mask[g * size..((g + 1) * size).min(self.n)];
            let on = members.iter().filter(|x| **x).count();
            if on == size {
                groups.push(g);
            } else if on != 0 {
                return err(loc, format!("{what} executed by {on} of the {size} threads of group {g}: it must be executed by all of them"));
            }
        }
        Ok(groups)
    }

    /// One step: counts it, lands what the schedule lands before it, checks the op reads no register still in
    /// flight, runs it, and carries its registers' origin.
    fn exec(&mut self, op: OperationRef, mask: &[bool]) -> Result<Flow, SimError> {
        self.steps += 1;
        let name = op_name(op);
        if self.steps > STEP_LIMIT {
            return err(&loc_of(op), format!("step limit of {STEP_LIMIT} ops reached (a loop that does not end?)"));
        }
        self.m.step = self.steps;
        let ptr = op.to_raw().ptr as usize;
        self.m.cur_loc = match self.loc_ids.get(&ptr) {
            Some(id) => *id,
            None => {
                let id = self.m.intern(&loc_of(op));
                self.loc_ids.insert(ptr, id);
                id
            }
        };
        self.m.tick().map_err(|e| SimError::new(&loc_of(op), format!("{} (landing at this op)", e.message)))?;
        self.check_operands(op, &name)?;
        let flow = self.exec_op(op, &name, mask)?;
        self.carry_origin(op, &name);
        Ok(flow)
    }

    /// One op, by family (each in its submodule).
    fn exec_op(&mut self, op: OperationRef, name: &str, mask: &[bool]) -> Result<Flow, SimError> {
        match name {
            "gpu.return" | "llvm.return" => {
                self.return_loc = Some(loc_of(op));
                return Ok(Flow::Return);
            }
            "scf.yield" => return self.scf_yield(op),
            "scf.if" => self.scf_if(op, mask)?,
            "scf.for" => self.scf_for(op, mask)?,
            "scf.index_switch" => self.scf_switch(op, mask)?,
            "gpu.thread_id" | "gpu.block_id" | "gpu.block_dim" | "gpu.grid_dim" => self.geometry(op, name),
            "gpu.barrier" => self.cta_barrier(op, mask)?,
            "arith.constant" | "llvm.mlir.constant" => self.constant_op(op)?,
            "builtin.unrealized_conversion_cast"
            | "llvm.addrspacecast"
            | "llvm.inttoptr"
            | "llvm.ptrtoint"
            | "llvm.mlir.undef"
            | "llvm.mlir.poison"
            | "llvm.mlir.zero"
            | "llvm.insertvalue"
            | "llvm.extractvalue"
            | "llvm.insertelement"
            | "llvm.extractelement"
            | "llvm.bitcast"
            | "arith.bitcast" => self.move_op(op, name, mask)?,
            "llvm.store" | "llvm.load" => self.llvm_mem(op, mask, name)?,
            _ if name.starts_with("arith.") || name == "llvm.intr.fma" => self.arith(op, name, mask)?,
            _ if name.starts_with("memref.") => self.memref(op, name, mask)?,
            _ if name.starts_with("nvgpu.") || name.starts_with("nvvm.") => self.nv(op, name, mask)?,
            _ => return err(&loc_of(op), format!("not modelled: {name}")),
        }
        Ok(Flow::Next)
    }

    /// The nvvm and nvgpu ops, by instruction family.
    fn nv(&mut self, op: OperationRef, name: &str, mask: &[bool]) -> Result<(), SimError> {
        let loc = loc_of(op);
        // Every one of them orders its active threads here (a shuffled warp order draws from its generator).
        let act = self.active(mask);
        if name.starts_with("nvvm.tcgen05.") {
            self.tcgen05_op(op, name, mask, act, &loc)
        } else if name.starts_with("nvvm.wgmma.") {
            self.wgmma_op(op, name, mask, &loc)
        } else if name.starts_with("nvvm.cp.async.bulk.") || name.starts_with("nvgpu.tma.") {
            self.tma_op(op, name, mask, &loc)
        } else if name.starts_with("nvvm.cp.async.") {
            self.cp_async_op(op, name, act, &loc)
        } else if matches!(name, "nvvm.ldmatrix" | "nvvm.stmatrix" | "nvvm.mma.sync") {
            self.mma_sync_op(op, name, mask, &loc)
        } else if name.contains(".mbarrier.") || name.starts_with("nvvm.fence.") || name == "nvvm.elect.sync" {
            self.sync_op(op, name, mask, act, &loc)
        } else if name == "nvvm.setmaxregister" {
            self.setmaxnreg(op, mask, &loc)
        } else if name == "nvvm.barrier" {
            self.named_barrier(op, mask, &loc)
        } else if name == "nvvm.convert.f32x2.to.f8x2" {
            self.cvt_f8x2(op, mask, &loc)
        } else if name == "nvvm.bar.warp.sync" {
            self.warp_sync(op, mask, &loc)
        } else {
            err(&loc, format!("not modelled: {name}"))
        }
    }
}
