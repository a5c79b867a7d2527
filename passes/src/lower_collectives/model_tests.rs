//! Proof of `--lower-collectives` on a model of N ranks: the pass runs on a kernel, a small interpreter written
//! here executes the lowered IR once per rank (`nvshmem_my_pe` returns the rank; constants, `arith.addi`/`muli`,
//! casts, `scf.index_switch`, `scf.for`), and records the arguments of every `nvshmemx_putmem_nbi_block` it
//! reaches. The puts then run on N ranks' buffers (a put copies `nelems` bytes from the caller's source address
//! to the same address in the peer's symmetric buffer, NVSHMEM's one-sided put), and every destination element of
//! every rank is checked against DTensor's definition of the placements, computed here from the global tensor
//! (torch.chunk splits, row-major local tiles), independently of the layouts, the planner and the pass. A
//! destination element written twice, or a put outside a buffer, fails; so does a put whose peer is changed.

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

/// A placement of one mesh dimension.
#[derive(Clone, Copy, Debug)]
enum P {
    Shard(usize),
    Replicate,
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

/// The mesh attribute's entries, outermost first.
fn mesh_axes(dims: usize) -> &'static [&'static str] {
    match dims {
        1 => &["gpuid"],
        _ => &["gpuid_x", "gpuid_y"],
    }
}

/// The kernel of a case: `axe.copy` from a view of argument 0 to a view of symmetric argument 1.
fn kernel(case: &Case) -> String {
    let shape: Vec<String> = case.shape.iter().map(i64::to_string).collect();
    let mesh: Vec<String> =
        mesh_axes(case.mesh.len()).iter().zip(case.mesh).map(|(a, e)| format!("{a} = {e} : i64")).collect();
    let ty = |layout: &str| {
        format!("!axe.tensor<array<i64: {}>, f32, #axe.layout<\"{layout}\">, #axe.mem<\"global\">>", shape.join(", "))
    };
    let (src, dst) = (ty(case.src_layout), ty(case.dst_layout));
    format!(
        "module attributes {{axe.mesh = {{{}}}}} {{\n  gpu.module @kernels {{\n    gpu.func @k(%src: !llvm.ptr, %dst: \
         !llvm.ptr {{axe.symmetric}}) kernel {{\n      %in = \"axe.view\"(%src) : (!llvm.ptr) -> {src}\n      %out = \
         \"axe.view\"(%dst) : (!llvm.ptr) -> {dst}\n      \"axe.copy\"(%in, %out) {{scope = #axe.exec<\"cta\">}} : \
         ({src}, {dst}) -> ()\n      gpu.return\n    }}\n  }}\n}}\n",
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

/// What one rank's run of the kernel did.
#[derive(Debug, Default)]
struct Trace {
    puts: Vec<Put>,
    /// `nvshmem_quiet` then `nvshmemx_barrier_all_block` after the last put.
    completed: bool,
    trapped: bool,
}

/// Interprets the lowered kernel body for `rank`.
struct Interpreter {
    rank: i64,
    values: HashMap<usize, i64>,
    trace: Trace,
}

fn key(value: Value) -> usize {
    value.to_raw().ptr as usize
}

impl Interpreter {
    fn get(&self, value: Value) -> i64 {
        *self.values.get(&key(value)).unwrap_or_else(|| panic!("value not computed: {value}"))
    }

    fn run_block(&mut self, block: BlockRef) {
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
                "arith.addi" => Some(self.get(operand(0)) + self.get(operand(1))),
                "arith.muli" => Some(self.get(operand(0)) * self.get(operand(1))),
                "arith.index_cast" | "llvm.inttoptr" | "llvm.ptrtoint" | "memref.extract_aligned_pointer_as_index" => {
                    Some(self.get(operand(0)))
                }
                "llvm.call" => {
                    let callee = FlatSymbolRefAttribute::try_from(op.attribute("callee").expect("callee"))
                        .expect("symbol")
                        .value()
                        .to_string();
                    match callee.as_str() {
                        "nvshmem_my_pe" => Some(self.rank),
                        "nvshmemx_putmem_nbi_block" => {
                            let args: Vec<i64> = (0..4).map(|i| self.get(operand(i))).collect();
                            self.trace.puts.push(Put { dst: args[0], src: args[1], bytes: args[2], peer: args[3] });
                            self.trace.completed = false;
                            None
                        }
                        "nvshmem_quiet" => {
                            self.trace.completed = true;
                            None
                        }
                        "nvshmemx_barrier_all_block" => {
                            assert!(self.trace.completed, "barrier without a quiet after the last put");
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
                    self.run_block(block);
                    None
                }
                "scf.for" => {
                    let (lower, upper, step) = (self.get(operand(0)), self.get(operand(1)), self.get(operand(2)));
                    let body = access::entry_block(op).expect("body");
                    let iv = access::argument(body, 0).expect("iv");
                    let mut i = lower;
                    while i < upper {
                        self.values.insert(key(iv.into()), i);
                        self.run_block(body);
                        i += step;
                    }
                    None
                }
                "llvm.intr.trap" => {
                    self.trace.trapped = true;
                    return;
                }
                "scf.yield" | "gpu.return" => None,
                other => panic!("unexpected op {other} in the lowered kernel"),
            };
            if let (Some(v), Some(r)) = (value, result) {
                self.values.insert(key(r), v);
            }
        }
    }
}

/// Per rank, what the lowered kernel issues; the kernel's arguments are placed at `i * SPACING`.
fn traces(source: &str, ranks: i64) -> Vec<Trace> {
    let context = create_context().expect("context");
    let module = parse_module(&context, source, "t.mlir").expect("parses");
    lower_collectives(module.as_operation()).unwrap_or_else(|_| panic!("{:?}", context.diagnostics().take()));
    let gpu_module = access::entry_block(module.as_operation()).and_then(|b| b.first_operation()).expect("gpu.module");
    let table = access::entry_block(gpu_module).expect("table");
    let mut kernel = table.first_operation();
    while let Some(op) = kernel.filter(|op| op.name().as_string_ref().as_str() != Ok("gpu.func")) {
        kernel = op.next_in_block();
    }
    let entry = access::entry_block(kernel.expect("kernel")).expect("entry");
    (0..ranks)
        .map(|rank| {
            let mut interpreter = Interpreter { rank, values: HashMap::new(), trace: Trace::default() };
            for (i, argument) in access::arguments(entry).enumerate() {
                interpreter.values.insert(key(argument.into()), i as i64 * SPACING);
            }
            interpreter.run_block(entry);
            interpreter.trace
        })
        .collect()
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

/// Runs the puts on the ranks' buffers and checks every destination element; `Err` says what went wrong.
fn execute(case: &Case, traces: &[Trace]) -> Result<(), String> {
    let ranks = traces.len() as i64;
    let total: i64 = case.shape.iter().product();
    let (src_len, dst_len) = (local_elements(case, case.src), local_elements(case, case.dst));
    // Source buffers hold global value flat + 1 at DTensor's local index; destinations start empty.
    let mut src = vec![vec![0i64; src_len as usize]; ranks as usize];
    for (rank, buffer) in src.iter_mut().enumerate() {
        let coord = coord_of(case, rank as i64);
        for flat in 0..total {
            if let Some(i) = local_index(case, case.src, &coord, &unflatten(case.shape, flat)) {
                buffer[i as usize] = flat + 1;
            }
        }
    }
    let mut dst = vec![vec![None::<i64>; dst_len as usize]; ranks as usize];
    for (rank, trace) in traces.iter().enumerate() {
        if trace.trapped || !trace.completed {
            return Err(format!("rank {rank}: trapped {} or not completed", trace.trapped));
        }
        for put in &trace.puts {
            let (s, d) = (put.src, put.dst - SPACING);
            if put.bytes % BYTES != 0 || s % BYTES != 0 || d % BYTES != 0 || !(0..ranks).contains(&put.peer) {
                return Err(format!("rank {rank}: misaligned or off-mesh put {put:?}"));
            }
            for j in 0..put.bytes / BYTES {
                let (si, di) = (s / BYTES + j, d / BYTES + j);
                let value = *src[rank].get(si as usize).ok_or(format!("rank {rank}: read past source {put:?}"))?;
                let slot = dst[put.peer as usize]
                    .get_mut(di as usize)
                    .ok_or(format!("rank {rank}: write past destination {put:?}"))?;
                if slot.replace(value).is_some() {
                    return Err(format!("rank {}: element {di} written twice", put.peer));
                }
            }
        }
    }
    for (rank, buffer) in dst.iter().enumerate() {
        let coord = coord_of(case, rank as i64);
        for flat in 0..total {
            if let Some(i) = local_index(case, case.dst, &coord, &unflatten(case.shape, flat)) {
                if buffer[i as usize] != Some(flat + 1) {
                    return Err(format!("rank {rank}: element {i} holds {:?}, want {}", buffer[i as usize], flat + 1));
                }
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
];

#[test]
fn lowered_puts_deliver_every_destination_element() {
    for case in CASES {
        let ranks: i64 = case.mesh.iter().product();
        let source = kernel(case);
        let traces = traces(&source, ranks);
        execute(case, &traces).unwrap_or_else(|e| panic!("{source}\n{e}"));
    }
}

#[test]
fn the_model_catches_a_wrong_peer_offset_or_a_dropped_put() {
    let case = &CASES[0];
    let good = traces(&kernel(case), 4);
    assert!(execute(case, &good).is_ok());
    let mutations: [fn(&mut Put); 3] = [|p| p.peer = (p.peer + 1) % 4, |p| p.dst += BYTES, |p| p.src += BYTES];
    for mutate in mutations {
        let mut traces = traces(&kernel(case), 4);
        mutate(&mut traces[1].puts[2]);
        assert!(execute(case, &traces).is_err());
    }
    let mut traces = traces(&kernel(case), 4);
    traces[2].puts.pop();
    assert!(execute(case, &traces).is_err());
}

#[test]
fn the_lowered_module_still_verifies() {
    let (result, printed, messages) = run_pass(&kernel(&CASES[3]), lower_collectives);
    assert!(result.is_ok(), "{messages:?}");
    assert!(printed.contains("axe.symmetric = [{arg = 1 : i64, bytes = 32 : i64}]"), "{printed}");
}
