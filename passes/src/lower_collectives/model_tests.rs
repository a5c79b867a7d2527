//! Proof of `--lower-collectives` on a model of N ranks of T threads: the pass runs on a kernel, and a small
//! interpreter written here executes the lowered IR for every rank and thread (`nvshmem_my_pe` returns the rank,
//! `gpu.thread_id`/`block_dim` the thread and T; constants, integer arithmetic, casts, `scf.index_switch`,
//! `scf.for`, `llvm.load`/`store`, `arith.addf`/`maximumf`). Execution is phase by phase: a `gpu.barrier` or
//! `nvshmemx_barrier_all_block` ends a phase, every thread of every rank runs phase k before any runs phase k+1,
//! and two threads touching one element in a phase (a write and another access) is a race, an error. The
//! block-collective NVSHMEM calls are made once per CTA: `nvshmemx_getmem_block` copies from the peer's source at
//! once (sources are never written), `nvshmem_uintN_g` reads one peer element, `nvshmemx_putmem_nbi_block`s are
//! delivered at the end (after `nvshmem_quiet`; a put copies `nelems` bytes from the caller's source address to
//! the same address in the peer's symmetric buffer). Then every destination element of every rank is checked
//! against DTensor's definition of the placements, computed here from the global tensor (torch.chunk splits,
//! row-major local tiles; Partial: the sum or max of the ranks' contributions), independently of the layouts,
//! the planner and the pass. An element written twice by puts, or an access outside a buffer, fails; so does a
//! put whose peer or offset is changed.

use super::lower_collectives;
use crate::testing::run_pass;
use axe_dialect::{access, create_context, parse_module};
use melior::ir::{
    attribute::{DenseI64ArrayAttribute, FlatSymbolRefAttribute, IntegerAttribute},
    block::BlockLike,
    operation::OperationLike,
    BlockRef, RegionLike, Value, ValueLike,
};
use std::collections::HashMap;

/// Where the model puts each kernel argument's buffer: argument `i` at `i * SPACING`.
const SPACING: i64 = 1 << 40;
/// Bytes of an element (f32).
const BYTES: i64 = 4;
/// What the model adds to an address to make its NVLink multicast address.
const MULTICAST: i64 = 1 << 50;

/// Threads of the modelled CTA (odd, so slices do not split evenly), as `x, y, z` extents.
const BLOCK: [i64; 3] = [3, 1, 1];
/// A two-dimensional CTA of the same kind (the lowering's linear thread index covers every dimension).
const BLOCK_2D: [i64; 3] = [2, 3, 1];

/// A placement of one mesh dimension.
#[derive(Clone, Copy, Debug, PartialEq)]
enum P {
    Shard(usize),
    Replicate,
    /// Partial sum (`max: false`) or max.
    Partial(bool),
}

/// One case: mesh extents, tensor shape, source and destination placements, and the layouts as written in the
/// kernel (by hand, from the placements).
struct Case {
    mesh: &'static [i64],
    shape: &'static [i64],
    src: &'static [P],
    dst: &'static [P],
    src_layout: &'static str,
    dst_layout: &'static str,
}

impl Case {
    /// The reduction the source's Partial placements ask for: `Some(max)`.
    fn reduce(&self) -> Option<bool> {
        self.src.iter().find_map(|p| match p {
            P::Partial(max) => Some(*max),
            _ => None,
        })
    }
}

/// The mesh attribute's entries, outermost first.
fn mesh_axes(dims: usize) -> &'static [&'static str] {
    match dims {
        1 => &["gpuid"],
        _ => &["gpuid_x", "gpuid_y"],
    }
}

/// The kernel of a case: `axe.copy` from a view of argument 0 to a view of symmetric argument 1.
fn kernel(case: &Case) -> String {
    kernel_with(case, "")
}

/// [`kernel`] with `extra` appended to the copy's attributes (`, multimem`).
fn kernel_with(case: &Case, extra: &str) -> String {
    let shape: Vec<String> = case.shape.iter().map(i64::to_string).collect();
    let mesh: Vec<String> =
        mesh_axes(case.mesh.len()).iter().zip(case.mesh).map(|(a, e)| format!("{a} = {e} : i64")).collect();
    let ty = |layout: &str| format!("!axe.tensor<{}xf32, global, {layout}>", shape.join("x"));
    let (src, dst) = (ty(case.src_layout), ty(case.dst_layout));
    let reduce = match case.reduce() {
        Some(true) => "reduce = \"max\"",
        Some(false) => "reduce = \"sum\"",
        None => "",
    };
    // The copy's attribute dictionary in the custom form: the reduction, then `extra` (which starts with ", ").
    let attrs = format!("{reduce}{extra}");
    let attrs = attrs.trim_start_matches(", ");
    let attrs = if attrs.is_empty() { String::new() } else { format!(" {{{attrs}}}") };
    format!(
        "module attributes {{axe.mesh = {{{}}}}} {{\n  gpu.module @kernels {{\n    gpu.func @k(%src: !llvm.ptr \
         {{axe.symmetric}}, %dst: !llvm.ptr {{axe.symmetric}}) kernel {{\n      %in = axe.view %src : \
         !llvm.ptr -> {src}\n      %out = axe.view %dst : !llvm.ptr -> {dst}\n      axe.copy cta %in to \
         %out{attrs} : {src} to {dst}\n      gpu.return\n    }}\n  }}\n}}\n",
        mesh.join(", ")
    )
}

/// One recorded put: destination and source addresses, bytes, peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Put {
    dst: i64,
    src: i64,
    bytes: i64,
    peer: i64,
}

/// The modelled machine: per rank, the source (argument 0) and destination (argument 1) buffers in elements.
struct World {
    src: Vec<Vec<i64>>,
    dst: Vec<Vec<Option<i64>>>,
    /// Per rank, the puts its CTA issued, in order.
    puts: Vec<Vec<Put>>,
    /// Per rank: a put issued and no `nvshmem_quiet` after it yet.
    pending: Vec<bool>,
    /// Per rank: the default case (a PE outside the mesh) was reached.
    trapped: Vec<bool>,
    /// This phase's accesses to destination elements: (rank, element) -> (writer threads, reader threads).
    touched: HashMap<(usize, i64), (Vec<i64>, Vec<i64>)>,
}

/// Which buffer and element an address names: argument 0 (source) or 1 (destination).
fn locate(address: i64) -> Result<(usize, i64), String> {
    let (buffer, byte) = (address / SPACING, address % SPACING);
    if !(0..2).contains(&buffer) || byte % BYTES != 0 {
        return Err(format!("address {address:#x} is not an element of an argument"));
    }
    Ok((buffer as usize, byte / BYTES))
}

impl World {
    fn read(&mut self, rank: usize, thread: i64, address: i64) -> Result<i64, String> {
        let (buffer, element) = locate(address)?;
        if buffer == 0 {
            return self.src[rank].get(element as usize).copied().ok_or(format!("rank {rank}: read past source"));
        }
        self.touched.entry((rank, element)).or_default().1.push(thread);
        self.dst[rank]
            .get(element as usize)
            .copied()
            .ok_or(format!("rank {rank}: read past destination"))?
            .ok_or(format!("rank {rank}: destination element {element} read before it is written"))
    }

    fn write(&mut self, rank: usize, thread: i64, address: i64, value: i64) -> Result<(), String> {
        let (buffer, element) = locate(address)?;
        if buffer != 1 {
            return Err(format!("rank {rank}: a store into the source"));
        }
        self.touched.entry((rank, element)).or_default().0.push(thread);
        *self.dst[rank].get_mut(element as usize).ok_or(format!("rank {rank}: write past destination"))? = Some(value);
        Ok(())
    }

    /// Ends a phase: no element written by one thread and touched by another in it.
    fn end_phase(&mut self) -> Result<(), String> {
        for ((rank, element), (writers, readers)) in self.touched.drain() {
            let mut threads: Vec<i64> = writers.iter().chain(&readers).copied().collect();
            threads.sort();
            threads.dedup();
            if !writers.is_empty() && threads.len() > 1 {
                return Err(format!("rank {rank}: race on destination element {element} between threads {threads:?}"));
            }
        }
        Ok(())
    }
}

/// Interprets the lowered kernel for one thread of one rank, performing the memory effects of one phase.
struct Interpreter<'w> {
    rank: i64,
    thread: i64,
    /// The CTA's extents.
    block: [i64; 3],
    /// The phase whose effects are performed; the current one is `phase`.
    active: usize,
    phase: usize,
    values: HashMap<usize, i64>,
    world: &'w mut World,
}

fn key(value: Value) -> usize {
    value.to_raw().ptr as usize
}

impl Interpreter<'_> {
    fn get(&self, value: Value) -> i64 {
        *self.values.get(&key(value)).unwrap_or_else(|| panic!("value not computed: {value}"))
    }

    /// The thread's identity across ranks (for the race check: a multicast store writes every rank).
    fn who(&self) -> i64 {
        self.rank * self.block.iter().product::<i64>() + self.thread
    }

    /// Effects of this phase, by thread 0 only for the CTA's collective calls.
    fn acting(&self, collective: bool) -> bool {
        self.phase == self.active && (!collective || self.thread == 0)
    }

    /// Runs a block's ops in order. Long by design: one match over every op the model interprets, a table to read
    /// top to bottom (test code, not a planner).
    fn run_block(&mut self, block: BlockRef) -> Result<(), String> {
        let rank = self.rank as usize;
        let mut next = block.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            let name = op.name().as_string_ref().as_str().unwrap_or_default().to_string();
            let operand = |i: usize| access::operand(op, i).expect("operand");
            let result = access::result(op, 0);
            let value = match name.as_str() {
                "arith.constant" => {
                    Some(IntegerAttribute::try_from(op.attribute("value").expect("value")).expect("int").value())
                }
                "arith.addi" | "arith.addf" => Some(self.get(operand(0)) + self.get(operand(1))),
                "arith.maximumf" | "arith.maxsi" => Some(self.get(operand(0)).max(self.get(operand(1)))),
                "arith.muli" => Some(self.get(operand(0)) * self.get(operand(1))),
                "arith.andi" => Some(self.get(operand(0)) & self.get(operand(1))),
                // The model runs the grid's first CTA (the lowering's guard lets no other one act).
                "gpu.block_id" => Some(0),
                // The model holds numbers, not bits: a bit cast of a fetched element is the element.
                "arith.index_cast"
                | "arith.bitcast"
                | "llvm.inttoptr"
                | "llvm.ptrtoint"
                | "memref.extract_aligned_pointer_as_index" => Some(self.get(operand(0))),
                "arith.cmpi" => {
                    let predicate =
                        IntegerAttribute::try_from(op.attribute("predicate").expect("predicate")).expect("int");
                    assert_eq!(predicate.value(), 0, "only eq is modelled");
                    Some(i64::from(self.get(operand(0)) == self.get(operand(1))))
                }
                "scf.if" => {
                    if self.get(operand(0)) != 0 {
                        self.run_block(access::entry_block(op).expect("then"))?;
                    }
                    None
                }
                "llvm.inline_asm" => {
                    let text = op.attribute("asm_string").expect("asm").to_string();
                    if text.contains("multimem.ld_reduce.relaxed.sys.global.add.f32") {
                        let (buffer, element) = locate(self.get(operand(0)) - MULTICAST)?;
                        if buffer != 0 {
                            return Err(format!("rank {rank}: multimem.ld_reduce of a destination"));
                        }
                        let mut sum = 0;
                        for source in &self.world.src {
                            sum += *source.get(element as usize).ok_or("ld_reduce past a source")?;
                        }
                        Some(sum)
                    } else if text.contains("multimem.st.relaxed.sys.global.f32") {
                        if self.acting(false) {
                            let (address, value) = (self.get(operand(0)) - MULTICAST, self.get(operand(1)));
                            for r in 0..self.world.dst.len() {
                                self.world.write(r, self.who(), address, value)?;
                            }
                        }
                        None
                    } else {
                        panic!("unexpected inline asm {text}");
                    }
                }
                // Thread t of the block is (t % bx, t / bx % by, t / (bx * by)).
                "gpu.thread_id" | "gpu.block_dim" => {
                    let text = op.attribute("dimension").expect("dimension").to_string();
                    let d = ["dim x", "dim y", "dim z"].iter().position(|d| text.contains(d)).expect("dimension");
                    let [bx, by, _] = self.block;
                    let coord = [self.thread % bx, self.thread / bx % by, self.thread / (bx * by)];
                    Some(if name == "gpu.thread_id" { coord[d] } else { self.block[d] })
                }
                "llvm.load" => {
                    let address = self.get(operand(0));
                    Some(if self.acting(false) { self.world.read(rank, self.who(), address)? } else { 0 })
                }
                "llvm.store" => {
                    if self.acting(false) {
                        let (value, address) = (self.get(operand(0)), self.get(operand(1)));
                        self.world.write(rank, self.who(), address, value)?;
                    }
                    None
                }
                "gpu.barrier" => {
                    self.phase += 1;
                    None
                }
                "llvm.call" => {
                    let callee = FlatSymbolRefAttribute::try_from(op.attribute("callee").expect("callee"))
                        .expect("symbol")
                        .value()
                        .to_string();
                    let args: Vec<i64> = (0..op.operand_count()).map(|i| self.get(operand(i))).collect();
                    match callee.as_str() {
                        "nvshmem_my_pe" => Some(self.rank),
                        // The multicast address of an argument: the argument's model address plus MULTICAST.
                        "nvshmemx_mc_ptr" => {
                            assert_eq!(args[0], 0, "the team is NVSHMEM_TEAM_WORLD");
                            Some(args[1] + MULTICAST)
                        }
                        "nvshmemx_putmem_nbi_block" => {
                            if self.acting(true) {
                                let put = Put { dst: args[0], src: args[1], bytes: args[2], peer: args[3] };
                                self.world.puts[rank].push(put);
                                self.world.pending[rank] = true;
                            }
                            None
                        }
                        "nvshmemx_getmem_block" => {
                            if self.acting(true) {
                                let (peer, bytes) = (args[3] as usize, args[2]);
                                for e in 0..bytes / BYTES {
                                    let (buffer, element) = locate(args[1] + e * BYTES)?;
                                    if buffer != 0 {
                                        return Err(format!("rank {rank}: a get from a peer's destination"));
                                    }
                                    let value = *self
                                        .world
                                        .src
                                        .get(peer)
                                        .and_then(|s| s.get(element as usize))
                                        .ok_or(format!("rank {rank}: get past rank {peer}'s source"))?;
                                    self.world.write(rank, -1, args[0] + e * BYTES, value)?;
                                }
                            }
                            None
                        }
                        "nvshmem_uint32_g" => {
                            let (buffer, element) = locate(args[0])?;
                            let peer = args[1] as usize;
                            if buffer != 0 {
                                return Err(format!("rank {rank}: a get from a peer's destination"));
                            }
                            Some(if self.acting(false) {
                                *self
                                    .world
                                    .src
                                    .get(peer)
                                    .and_then(|s| s.get(element as usize))
                                    .ok_or(format!("rank {rank}: get past rank {peer}'s source"))?
                            } else {
                                0
                            })
                        }
                        "nvshmem_quiet" => {
                            if self.acting(true) {
                                self.world.pending[rank] = false;
                            }
                            None
                        }
                        "nvshmemx_barrier_all_block" => {
                            if self.acting(true) && self.world.pending[rank] {
                                return Err(format!("rank {rank}: barrier with puts not quieted"));
                            }
                            self.phase += 1;
                            None
                        }
                        other => panic!("unexpected call @{other}"),
                    }
                }
                "scf.index_switch" => {
                    let cases = DenseI64ArrayAttribute::try_from(op.attribute("cases").expect("cases")).expect("array");
                    let selector = self.get(operand(0));
                    let index =
                        (0..cases.len()).find(|&i| cases.element(i).ok() == Some(selector)).map_or(0, |i| i + 1);
                    let block = access::region(op, index).and_then(|r| r.first_block()).expect("case block");
                    self.run_block(block)?;
                    None
                }
                "scf.for" => {
                    let (lower, upper, step) = (self.get(operand(0)), self.get(operand(1)), self.get(operand(2)));
                    let body = access::entry_block(op).expect("body");
                    let iv = access::argument(body, 0).expect("iv");
                    let mut i = lower;
                    while i < upper {
                        self.values.insert(key(iv.into()), i);
                        self.run_block(body)?;
                        i += step;
                    }
                    None
                }
                "llvm.intr.trap" => {
                    self.world.trapped[rank] = true;
                    return Ok(());
                }
                "scf.yield" | "gpu.return" => None,
                other => panic!("unexpected op {other} in the lowered kernel"),
            };
            if let (Some(v), Some(r)) = (value, result) {
                self.values.insert(key(r), v);
            }
        }
        Ok(())
    }
}

/// Runs the lowered kernel phase by phase on every rank and thread, then delivers the puts; `mutate` may change
/// the recorded puts before delivery (to show the model notices).
fn run(case: &Case, mutate: &dyn Fn(&mut Vec<Vec<Put>>)) -> Result<World, String> {
    run_with(case, "", BLOCK, mutate)
}

/// [`run`] on [`kernel_with`]`(case, extra)`.
fn run_with(case: &Case, extra: &str, block: [i64; 3], mutate: &dyn Fn(&mut Vec<Vec<Put>>)) -> Result<World, String> {
    let (context, source) = (create_context().expect("context"), kernel_with(case, extra));
    let module = parse_module(&context, &source, "t.mlir").expect("parses");
    lower_collectives(module.as_operation()).unwrap_or_else(|_| panic!("{:?}", context.diagnostics().take()));
    let gpu_module = access::entry_block(module.as_operation()).and_then(|b| b.first_operation()).expect("gpu.module");
    let table = access::entry_block(gpu_module).expect("table");
    let mut kernel = table.first_operation();
    while let Some(op) = kernel.filter(|op| op.name().as_string_ref().as_str() != Ok("gpu.func")) {
        kernel = op.next_in_block();
    }
    let entry = access::entry_block(kernel.expect("kernel")).expect("entry");
    let ranks: i64 = case.mesh.iter().product();
    let mut world = initial_world(case);
    let mut phases = 1;
    let mut k = 0;
    while k < phases {
        for rank in 0..ranks {
            for thread in 0..block.iter().product() {
                let mut interpreter =
                    Interpreter { rank, thread, block, active: k, phase: 0, values: HashMap::new(), world: &mut world };
                for (i, argument) in access::arguments(entry).enumerate() {
                    interpreter.values.insert(key(argument.into()), i as i64 * SPACING);
                }
                interpreter.run_block(entry)?;
                phases = phases.max(interpreter.phase + 1);
            }
        }
        world.end_phase()?;
        k += 1;
    }
    if world.trapped.iter().any(|t| *t) || world.pending.iter().any(|p| *p) {
        return Err(format!("trapped {:?} or puts not completed {:?}", world.trapped, world.pending));
    }
    let mut puts = std::mem::take(&mut world.puts);
    mutate(&mut puts);
    let mut written = vec![vec![false; world.dst[0].len()]; ranks as usize];
    for (rank, issued) in puts.iter().enumerate() {
        for put in issued {
            if put.bytes % BYTES != 0 || !(0..ranks).contains(&put.peer) {
                return Err(format!("rank {rank}: misaligned or off-mesh put {put:?}"));
            }
            for e in 0..put.bytes / BYTES {
                let ((sb, se), (db, de)) = (locate(put.src + e * BYTES)?, locate(put.dst + e * BYTES)?);
                if (sb, db) != (0, 1) {
                    return Err(format!("rank {rank}: put not from source to destination {put:?}"));
                }
                let value = *world.src[rank].get(se as usize).ok_or(format!("rank {rank}: read past source"))?;
                let peer = put.peer as usize;
                let seen = written[peer].get_mut(de as usize).ok_or(format!("rank {rank}: put past destination"))?;
                if std::mem::replace(seen, true) {
                    return Err(format!("rank {peer}: destination element {de} written twice"));
                }
                world.dst[peer][de as usize] = Some(value);
            }
        }
    }
    Ok(world)
}

/// DTensor's local flat index of global index `x` on the rank at mesh coordinate `coord`, or `None` when that
/// rank does not hold it (torch.chunk splits, even here; mesh dimensions sharding one tensor dimension split it
/// outer first; local tiles row-major).
fn local_index(case: &Case, placements: &[P], coord: &[i64], x: &[i64]) -> Option<i64> {
    let mut local = 0;
    for (d, (&n, &xd)) in case.shape.iter().zip(x).enumerate() {
        let (mut start, mut size) = (0, n);
        for (m, p) in placements.iter().enumerate() {
            if let P::Shard(sd) = p {
                if *sd == d {
                    size /= case.mesh[m];
                    start += coord[m] * size;
                }
            }
        }
        if xd < start || xd >= start + size {
            return None;
        }
        local = local * size + (xd - start);
    }
    Some(local)
}

fn local_elements(case: &Case, placements: &[P]) -> i64 {
    let mut count: i64 = case.shape.iter().product();
    for (m, p) in placements.iter().enumerate() {
        if matches!(p, P::Shard(_)) {
            count /= case.mesh[m];
        }
    }
    count
}

fn coord_of(case: &Case, rank: i64) -> Vec<i64> {
    let mut coord = vec![0; case.mesh.len()];
    let mut r = rank;
    for m in (0..case.mesh.len()).rev() {
        coord[m] = r % case.mesh[m];
        r /= case.mesh[m];
    }
    coord
}

fn unflatten(shape: &[i64], mut flat: i64) -> Vec<i64> {
    let mut x = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        x[d] = flat % shape[d];
        flat /= shape[d];
    }
    x
}

/// What rank `rank` contributes at global index `flat` (Partial sources: different on every rank).
fn contribution(case: &Case, rank: i64, flat: i64) -> i64 {
    match case.reduce() {
        Some(_) => (flat + 1) * 10 + (rank * 7) % 5,
        None => flat + 1,
    }
}

/// Source buffers hold each rank's contribution at DTensor's local index; destinations start empty.
fn initial_world(case: &Case) -> World {
    let ranks: i64 = case.mesh.iter().product();
    let total: i64 = case.shape.iter().product();
    let (src_len, dst_len) = (local_elements(case, case.src), local_elements(case, case.dst));
    let mut src = vec![vec![0i64; src_len as usize]; ranks as usize];
    for (rank, buffer) in src.iter_mut().enumerate() {
        let coord = coord_of(case, rank as i64);
        for flat in 0..total {
            if let Some(i) = local_index(case, case.src, &coord, &unflatten(case.shape, flat)) {
                buffer[i as usize] = contribution(case, rank as i64, flat);
            }
        }
    }
    World {
        src,
        dst: vec![vec![None; dst_len as usize]; ranks as usize],
        puts: vec![Vec::new(); ranks as usize],
        pending: vec![false; ranks as usize],
        trapped: vec![false; ranks as usize],
        touched: HashMap::new(),
    }
}

/// Checks every destination element of every rank against the placements' definition: the global value, or
/// the sum (max) of the contributions of the ranks that differ from it only along Partial mesh dimensions.
fn check(case: &Case, world: &World) -> Result<(), String> {
    let ranks: i64 = case.mesh.iter().product();
    let total: i64 = case.shape.iter().product();
    for (rank, buffer) in world.dst.iter().enumerate() {
        let coord = coord_of(case, rank as i64);
        for flat in 0..total {
            let Some(i) = local_index(case, case.dst, &coord, &unflatten(case.shape, flat)) else { continue };
            let group: Vec<i64> = (0..ranks)
                .filter(|&r| {
                    let other = coord_of(case, r);
                    (0..case.mesh.len()).all(|m| matches!(case.src[m], P::Partial(_)) || other[m] == coord[m])
                })
                .collect();
            let values = group.iter().map(|&r| contribution(case, r, flat));
            let want = match case.reduce() {
                Some(true) => values.max(),
                Some(false) => Some(values.sum()),
                None => Some(contribution(case, rank as i64, flat)),
            };
            if buffer[i as usize] != want {
                return Err(format!("rank {rank}: element {i} holds {:?}, want {want:?}", buffer[i as usize]));
            }
        }
    }
    Ok(())
}

const CASES: &[Case] = &[
    // All-gather, 4 ranks (examples/allgather.mlir).
    Case {
        mesh: &[4],
        shape: &[8, 4],
        src: &[P::Shard(0)],
        dst: &[P::Replicate],
        src_layout: "S[(4,8):(1@gpuid,1)]",
        dst_layout: "S[32:1] + R[4:1@gpuid]",
    },
    // All-gather of columns: strided slices.
    Case {
        mesh: &[2],
        shape: &[4, 8],
        src: &[P::Shard(1)],
        dst: &[P::Replicate],
        src_layout: "S[(4,2,4):(4,1@gpuid,1)]",
        dst_layout: "S[32:1] + R[2:1@gpuid]",
    },
    // All-gather on 8 ranks.
    Case {
        mesh: &[8],
        shape: &[16, 2],
        src: &[P::Shard(0)],
        dst: &[P::Replicate],
        src_layout: "S[(8,4):(1@gpuid,1)]",
        dst_layout: "S[32:1] + R[8:1@gpuid]",
    },
    // 2-D mesh: all-gather over gpuid_x within each column of the mesh (paper Figure 2B's sharding).
    Case {
        mesh: &[2, 2],
        shape: &[4, 4],
        src: &[P::Shard(0), P::Shard(1)],
        dst: &[P::Replicate, P::Shard(1)],
        src_layout: "S[(2,2,2,2):(1@gpuid_x,2,1@gpuid_y,1)]",
        dst_layout: "S[(4,2,2):(2,1@gpuid_y,1)] + R[2:1@gpuid_x]",
    },
    // All-to-all: rows to columns.
    Case {
        mesh: &[2],
        shape: &[4, 4],
        src: &[P::Shard(0)],
        dst: &[P::Shard(1)],
        src_layout: "S[(2,8):(1@gpuid,1)]",
        dst_layout: "S[(4,2,2):(2,1@gpuid,1)]",
    },
    // All-reduce (sum) on 4 ranks: the plan's local copy and gets with accumulation.
    Case {
        mesh: &[4],
        shape: &[2, 4],
        src: &[P::Partial(false)],
        dst: &[P::Replicate],
        src_layout: "S[8:1] + R[4:1@gpuid]",
        dst_layout: "S[8:1] + R[4:1@gpuid]",
    },
    // Reduce-scatter (sum) on 2 ranks.
    Case {
        mesh: &[2],
        shape: &[4, 2],
        src: &[P::Partial(false)],
        dst: &[P::Shard(0)],
        src_layout: "S[8:1] + R[2:1@gpuid]",
        dst_layout: "S[(2,4):(1@gpuid,1)]",
    },
    // All-reduce (max) on 4 ranks.
    Case {
        mesh: &[4],
        shape: &[2, 4],
        src: &[P::Partial(true)],
        dst: &[P::Replicate],
        src_layout: "S[8:1] + R[4:1@gpuid]",
        dst_layout: "S[8:1] + R[4:1@gpuid]",
    },
    // 2-D mesh: Partial(sum) over gpuid_x, Shard(1) over gpuid_y -> Replicate(), Shard(1): within mesh columns.
    Case {
        mesh: &[2, 2],
        shape: &[2, 4],
        src: &[P::Partial(false), P::Shard(1)],
        dst: &[P::Replicate, P::Shard(1)],
        src_layout: "S[(2,2,2):(2,1@gpuid_y,1)] + R[2:1@gpuid_x]",
        dst_layout: "S[(2,2,2):(2,1@gpuid_y,1)] + R[2:1@gpuid_x]",
    },
    // All-reduce (sum) over both axes of a 2x2 mesh, 3x5 elements (odd, to split unevenly over ranks x threads).
    Case {
        mesh: &[2, 2],
        shape: &[3, 5],
        src: &[P::Partial(false), P::Partial(false)],
        dst: &[P::Replicate, P::Replicate],
        src_layout: "S[15:1] + R[(2,2):(1@gpuid_x,1@gpuid_y)]",
        dst_layout: "S[15:1] + R[(2,2):(1@gpuid_x,1@gpuid_y)]",
    },
];

#[test]
fn lowered_collectives_deliver_every_destination_element() {
    for case in CASES {
        let world = run(case, &|_| {}).unwrap_or_else(|e| panic!("{}\n{e}", kernel(case)));
        check(case, &world).unwrap_or_else(|e| panic!("{}\n{e}", kernel(case)));
    }
}

#[test]
fn the_model_catches_a_wrong_peer_offset_or_a_dropped_put() {
    let case = &CASES[0];
    let ok = |mutate: &dyn Fn(&mut Vec<Vec<Put>>)| run(case, mutate).and_then(|world| check(case, &world)).is_ok();
    assert!(ok(&|_| {}));
    assert!(!ok(&|puts| puts[1][2].peer = (puts[1][2].peer + 1) % 4));
    assert!(!ok(&|puts| puts[1][2].dst += BYTES));
    assert!(!ok(&|puts| puts[1][2].src += BYTES));
    assert!(!ok(&|puts| {
        puts[2].pop();
    }));
}

#[test]
fn the_lowered_module_still_verifies() {
    // Replicate(), Shard(1) of 4x4 on 2x2: every rank's to_local() is 4x2 (8 f32, 32 bytes).
    let (result, printed, messages) = run_pass(&kernel(&CASES[3]), lower_collectives);
    assert!(result.is_ok(), "{messages:?}");
    let shapes = ["array<i64: 4, 2>"; 4].join(", ");
    let record = format!("axe.symmetric = [{{arg = 1 : i64, bytes = 32 : i64, local_shapes = [{shapes}]}}]");
    assert!(printed.contains(&record), "{printed}");
    // The all-reduce's source: every rank holds a full 2x4 contribution.
    let (result, printed, messages) = run_pass(&kernel(&CASES[5]), lower_collectives);
    assert!(result.is_ok(), "{messages:?}");
    let shapes = ["array<i64: 2, 4>"; 4].join(", ");
    let record = format!("axe.symmetric = [{{arg = 0 : i64, bytes = 32 : i64, local_shapes = [{shapes}]}}]");
    assert!(printed.contains(&record), "{printed}");
}

#[test]
fn a_symmetric_buffer_that_is_no_placement_records_no_local_shapes() {
    // Rows dealt cyclically (row 4a + b on rank b at local row a): no DTensor placement, so no shapes to check a
    // DTensor against; the buffer is still 2x4 f32 = 32 bytes on every rank.
    let cyclic = Case {
        mesh: &[4],
        shape: &[8, 4],
        src: &[P::Shard(0)],
        dst: &[P::Replicate],
        src_layout: "S[(4,8):(1@gpuid,1)]",
        dst_layout: "S[(2,4,4):(4,1@gpuid,1)]",
    };
    let (result, printed, messages) = run_pass(&kernel(&cyclic), lower_collectives);
    assert!(result.is_ok(), "{messages:?}");
    assert!(printed.contains("axe.symmetric = [{arg = 1 : i64, bytes = 32 : i64}]"), "{printed}");
}

#[test]
fn multimem_all_reduce_sums_every_element_once() {
    for case in [&CASES[5], &CASES[9]] {
        for block in [BLOCK, BLOCK_2D] {
            let world =
                run_with(case, ", multimem", block, &|_| {}).unwrap_or_else(|e| panic!("{}\n{e}", kernel(case)));
            check(case, &world).unwrap_or_else(|e| panic!("{}\n{e}", kernel_with(case, ", multimem")));
        }
    }
}

#[test]
fn reductions_cover_every_thread_of_a_two_dimensional_block() {
    for case in &CASES[5..] {
        let world = run_with(case, "", BLOCK_2D, &|_| {}).unwrap_or_else(|e| panic!("{}\n{e}", kernel(case)));
        check(case, &world).unwrap_or_else(|e| panic!("{}\n{e}", kernel(case)));
    }
}

#[test]
fn the_model_reports_races_and_reads_of_unwritten_elements() {
    let mut world = initial_world(&CASES[5]);
    world.write(0, 0, SPACING, 1).expect("write");
    world.write(0, 1, SPACING + BYTES, 2).expect("write");
    assert!(world.end_phase().is_ok());
    world.write(0, 0, SPACING, 1).expect("write");
    world.read(0, 2, SPACING).expect("read");
    assert!(world.end_phase().unwrap_err().contains("race on destination element 0"));
    assert!(world.read(0, 0, SPACING + 2 * BYTES).unwrap_err().contains("read before it is written"));
    assert!(world.write(0, 0, 0, 1).unwrap_err().contains("a store into the source"));
}
