//! The lockstep interpreter: walks a `gpu.func` op by op with an active-thread mask.

use crate::inflight::{ranges_of, BulkStore, ReadKind, Reader, TcMma};
use crate::isa::{self, TensorMap};
use crate::machine::{GlobalBuf, Machine, PendingLoad, GLOBAL_BASE, TMEM_COLS};
use crate::order::Clocks;
use crate::schedule::{Completion, Rng, Schedule, WarpOrder};
use crate::value::{sext, split_top, wrap, MemRef, MemSpace, Scalar, Space, Ty, V};
use crate::{Arg, Buffer, Launch, Outcome, SimError};
use axe_dialect::access;
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::r#type::TypeLike;
use melior::ir::{BlockRef, Module, OperationRef, RegionLike, Value, ValueLike};
use std::collections::HashMap;

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
    let n = (block_dim[0] * block_dim[1] * block_dim[2]) as usize;
    let mut ex = Exec {
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
    };
    ex.m.flight.completion = schedule.completion;
    if let Completion::Random(seed) = schedule.completion {
        ex.m.flight.rng = Rng::new(seed);
    }
    ex.m.proxy_fence = vec![0; n];
    ex.m.clocks = Clocks::new(n.div_ceil(32));
    ex.alloc_globals(kernel)?;
    let entry = access::entry_block(kernel).ok_or_else(|| SimError::new(&loc, "kernel without a body"))?;
    let arg_attrs = kernel.attribute("arg_attrs").map(|a| a.to_string()).unwrap_or_default();
    let arg_dicts = arg_attrs.strip_prefix('[').and_then(|s| s.strip_suffix(']')).map(split_top).unwrap_or_default();
    let maps_attr = kernel.attribute("axe.tensor_maps").map(|a| a.to_string()).unwrap_or_default();
    let maps = maps_attr.strip_prefix('[').and_then(|s| s.strip_suffix(']')).map(split_top).unwrap_or_default();
    let ints: Vec<Option<i64>> =
        launch.args.iter().map(|a| if let Arg::Int(x) = a { Some(*x) } else { None }).collect();
    let args: Vec<_> = access::arguments(entry).collect();
    if args.len() != launch.args.len() {
        return Err(SimError::new(&loc, format!("kernel takes {} arguments, {} given", args.len(), launch.args.len())));
    }
    let mut buffer_of_arg = Vec::new();
    for (i, (arg, given)) in args.iter().zip(&launch.args).enumerate() {
        let value: Value = (*arg).into();
        let ty = ex.ty(value);
        let v = match (given, &ty) {
            (Arg::Int(x), Ty::Sc(Scalar::I(w))) => V::S(vec![wrap(*w, *x as u64); n]),
            (Arg::Float(x), Ty::Sc(s)) if s.is_float() => V::S(vec![s.from_f64(*x); n]),
            (Arg::Buffer(b), _) => {
                let base = GLOBAL_BASE + ((ex.m.globals.len() as u64) << 32);
                ex.m.globals.push(GlobalBuf { base, bytes: b.bytes.clone() });
                buffer_of_arg.push((i, ex.m.globals.len() - 1));
                match &ty {
                    Ty::Mem { shape, elem, space: MemSpace::Global } => {
                        let need = shape.iter().product::<i64>() as usize * elem.bytes();
                        if b.bytes.len() < need {
                            return Err(SimError::new(
                                &loc,
                                format!("argument {i}: {} bytes bound, {need} needed", b.bytes.len()),
                            ));
                        }
                        V::Mem(MemRef { space: Space::Global, addr: base, shape: shape.clone(), elem: *elem })
                    }
                    Ty::Ptr(0) | Ty::Ptr(1) => {
                        let want = format!("arg = {i} : i64");
                        let dict = maps
                            .iter()
                            .find(|d| d.contains(&want))
                            .or_else(|| arg_dicts.get(i).filter(|d| d.contains("axe.tma_descriptor")))
                            .copied();
                        match dict {
                            Some(dict) => {
                                let map = tensor_map(dict, base, &ints, &loc)?;
                                map.validate(&loc)?;
                                check_preconditions(dict, &ints, &loc)?;
                                ex.descs.push(map);
                                V::S(vec![(ex.descs.len() - 1) as u64; n])
                            }
                            // A raw global pointer: the buffer's address.
                            None => V::S(vec![base; n]),
                        }
                    }
                    _ => return Err(SimError::new(&loc, format!("argument {i}: a buffer bound to a {ty:?}"))),
                }
            }
            _ => return Err(SimError::new(&loc, format!("argument {i}: {given:?} does not fit type {ty:?}"))),
        };
        ex.env.insert(key(value), v);
    }
    let all = vec![true; n];
    ex.run_block(entry, &all)?;
    let end = ex.return_loc.clone().unwrap_or_else(|| loc.clone());
    ex.m.exit_check(&end)?;
    let mut buffers: Vec<Option<Buffer>> = vec![None; launch.args.len()];
    for (i, g) in buffer_of_arg {
        if let Arg::Buffer(b) = &launch.args[i] {
            buffers[i] = Some(Buffer { elem: b.elem, bytes: ex.m.globals[g].bytes.clone() });
        }
    }
    Ok(Outcome { buffers, steps: ex.steps })
}

fn find_kernel<'c, 'a>(module: &'a Module<'c>, name: &str) -> Option<OperationRef<'c, 'a>> {
    let want = format!("\"{name}\"");
    let mut found = None;
    walk_ops(module.body(), &mut |op| {
        if found.is_none()
            && op_name(op) == "gpu.func"
            && op.attribute("sym_name").map(|a| a.to_string() == want).unwrap_or(false)
        {
            found = Some(op);
        }
    });
    found
}

fn walk_ops<'c, 'a>(block: BlockRef<'c, 'a>, f: &mut dyn FnMut(OperationRef<'c, 'a>)) {
    let mut cursor = block.first_operation();
    while let Some(op) = cursor {
        f(op);
        if op_name(op) == "gpu.module" || op_name(op) == "builtin.module" {
            for b in access::blocks(op) {
                walk_ops(b, f);
            }
        }
        cursor = op.next_in_block();
    }
}

fn op_name(op: OperationRef) -> String {
    op.name().as_string_ref().as_str().unwrap_or("").to_string()
}

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

fn ints_in(text: &str) -> Vec<i64> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '-')).filter_map(|t| t.parse().ok()).collect()
}

/// The items of `key = array<i64: ...>`, `key = ["expr", ...]` or `key = N : iW` in a printed dictionary.
fn dict_items(dict: &str, key: &str) -> Option<Vec<String>> {
    let at = dict.find(&format!("{key} = "))? + key.len() + 3;
    let rest = &dict[at..];
    if let Some(arr) = rest.strip_prefix("array<") {
        let end = arr.find('>')?;
        return Some(array_ints(&arr[..end]).iter().map(i64::to_string).collect());
    }
    if let Some(list) = rest.strip_prefix('[') {
        let end = list.find(']')?;
        return Some(split_top(&list[..end]).iter().map(|s| s.trim_matches('"').to_string()).collect());
    }
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    Some(vec![rest[..end].split(':').next()?.trim().to_string()])
}

/// Evaluates a tensor-map field as `--lower-tma` writes it: a number, or a product of kernel arguments (`argN`)
/// and numbers with an optional exact ` / divisor` (`arg5 * 2`).
fn eval_field(text: &str, ints: &[Option<i64>], loc: &str) -> Result<i64, SimError> {
    let bad = || SimError::new(loc, format!("tensor-map field `{text}` is not a product of arguments and numbers"));
    let (product, divisor) = match text.split_once('/') {
        Some((p, d)) => (p, d.trim().parse::<i64>().map_err(|_| bad())?),
        None => (text, 1),
    };
    let mut value: i64 = 1;
    for factor in product.split('*').map(str::trim) {
        let f = match factor.strip_prefix("arg") {
            Some(n) => {
                let i: usize = n.parse().map_err(|_| bad())?;
                ints.get(i).copied().flatten().ok_or_else(|| {
                    SimError::new(loc, format!("`{text}` reads argument {i}, which is not an integer"))
                })?
            }
            None => factor.parse().map_err(|_| bad())?,
        };
        value = value.checked_mul(f).ok_or_else(bad)?;
    }
    if divisor < 1 || value % divisor != 0 {
        return Err(bad());
    }
    Ok(value / divisor)
}

/// Checks a tensor map's `preconditions` (`"arg3 % 16 == 0"`, `"arg5 >= 1"`, ...) on the launch's arguments:
/// a launch that breaks one is refused, as the host would have to refuse it.
fn check_preconditions(dict: &str, ints: &[Option<i64>], loc: &str) -> Result<(), SimError> {
    let Some(conds) = dict_items(dict, "preconditions") else { return Ok(()) };
    for cond in conds {
        let bad = || SimError::new(loc, format!("not modelled: precondition `{cond}`"));
        let (lhs, op, rhs) = ["==", ">=", "<=", "<", ">"]
            .iter()
            .find_map(|op| cond.split_once(op).map(|(l, r)| (l, *op, r)))
            .ok_or_else(bad)?;
        let l = match lhs.split_once('%') {
            Some((a, m)) => {
                let (a, m) = (eval_field(a.trim(), ints, loc)?, eval_field(m.trim(), ints, loc)?);
                a.checked_rem(m).ok_or_else(bad)?
            }
            None => eval_field(lhs.trim(), ints, loc)?,
        };
        let r = eval_field(rhs.trim(), ints, loc)?;
        let holds = match op {
            "==" => l == r,
            ">=" => l >= r,
            "<=" => l <= r,
            "<" => l < r,
            _ => l > r,
        };
        if !holds {
            return err(loc, format!("launch breaks the tensor map's precondition `{cond}` ({l} vs {r})"));
        }
    }
    Ok(())
}

/// The `cuTensorMapEncodeTiled` fields of a tensor-map dictionary (`axe.tensor_maps` entry or the argument's
/// `axe.tma_descriptor`), run-time fields evaluated on the launch's integer arguments.
fn tensor_map(dict: &str, buffer: u64, ints: &[Option<i64>], loc: &str) -> Result<TensorMap, SimError> {
    let get = |k: &str| -> Result<Vec<i64>, SimError> {
        let items = dict_items(dict, k).ok_or_else(|| {
            SimError::new(loc, format!("tensor map without `{k}` (axe.tensor_maps / axe.tma_descriptor)"))
        })?;
        items.iter().map(|t| eval_field(t, ints, loc)).collect()
    };
    let one = |k: &str| get(k).map(|v| v.first().copied().unwrap_or(0));
    let data_type = one("data_type")? as u32;
    let elem_bytes = isa::tensor_map_elem_bytes(data_type)
        .ok_or_else(|| SimError::new(loc, format!("unknown CUtensorMapDataType {data_type}")))?;
    Ok(TensorMap {
        data_type,
        elem_bytes,
        base: buffer + one("global_offset_bytes")? as u64,
        dims: get("global_dims")?,
        strides: get("global_strides_bytes")?,
        box_dims: get("box_dims")?,
        elem_strides: get("element_strides")?,
        swizzle: one("swizzle")? as u32,
        interleave: one("interleave")? as u32,
        oob_fill: one("oob_fill")? as u32,
    })
}

fn block_size(kernel: OperationRef, loc: &str) -> Result<[i64; 3], SimError> {
    let text = kernel
        .attribute("known_block_size")
        .map(|a| a.to_string())
        .map_err(|_| SimError::new(loc, "not modelled: a kernel without known_block_size"))?;
    let v = ints_in(text.split(':').nth(1).unwrap_or(""));
    if v.len() != 3 || v.iter().any(|x| *x < 1) || v.iter().product::<i64>() > 1024 {
        return Err(SimError::new(loc, format!("known_block_size {text} is not a legal block")));
    }
    Ok([v[0], v[1], v[2]])
}

/// A fragment table: (lane, element) -> (row, col).
type Frag = fn(u64, u64) -> (u64, u64);

enum Flow {
    Next,
    Yield(Vec<V>),
    Return,
}

struct Exec<'l> {
    n: usize,
    block_dim: [i64; 3],
    launch: &'l Launch,
    env: HashMap<usize, V>,
    m: Machine,
    /// Shared `memref.global` symbols and their addresses.
    globals: HashMap<String, (u64, u64)>,
    descs: Vec<TensorMap>,
    types: HashMap<usize, Ty>,
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

/// Ops that only move register values: they carry a pending asynchronous result without reading it.
const MOVES: [&str; 11] = [
    "llvm.extractvalue",
    "llvm.insertvalue",
    "llvm.mlir.undef",
    "llvm.mlir.poison",
    "llvm.mlir.zero",
    "llvm.insertelement",
    "llvm.extractelement",
    "llvm.bitcast",
    "arith.bitcast",
    "builtin.unrealized_conversion_cast",
    "nvvm.wgmma.mma_async",
];

fn err<T>(loc: &str, m: impl Into<String>) -> Result<T, SimError> {
    Err(SimError::new(loc, m))
}

impl Exec<'_> {
    fn ty(&mut self, v: Value) -> Ty {
        let k = v.r#type().to_raw().ptr as usize;
        self.types.entry(k).or_insert_with(|| Ty::parse(&v.r#type().to_string())).clone()
    }

    fn alloc_globals(&mut self, kernel: OperationRef) -> Result<(), SimError> {
        let Some(module) = kernel.parent_operation() else { return Ok(()) };
        let mut cursor = access::entry_block(module).and_then(|b| b.first_operation());
        while let Some(op) = cursor {
            if op_name(op) == "memref.global" {
                let loc = loc_of(op);
                let ty_text = op.attribute("type").map(|a| a.to_string()).unwrap_or_default();
                let name = op.attribute("sym_name").map(|a| a.to_string()).unwrap_or_default();
                let align = op.attribute("alignment").map(|a| ints_in(&a.to_string())).ok();
                let align = align.and_then(|v| v.first().copied()).unwrap_or(16) as u64;
                match Ty::parse(&ty_text) {
                    Ty::Mem { shape, elem, space: MemSpace::Shared } => {
                        let bytes = shape.iter().product::<i64>() as u64 * elem.bytes() as u64;
                        let addr = self.m.alloc_shared(bytes, align, &loc)?;
                        self.globals.insert(name.trim_matches('"').to_string(), (addr, bytes));
                    }
                    _ => return err(&loc, format!("not modelled: memref.global of type {ty_text}")),
                }
            }
            cursor = op.next_in_block();
        }
        Ok(())
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
            self.origin.insert(key(r), Origin { step: self.steps, wg: 0, ld: 0 });
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

    fn run_block(&mut self, block: BlockRef, mask: &[bool]) -> Result<Option<Vec<V>>, SimError> {
        let mut cursor = block.first_operation();
        while let Some(op) = cursor {
            match self.exec(op, mask)? {
                Flow::Next => {}
                Flow::Yield(v) => return Ok(Some(v)),
                Flow::Return => return Ok(None),
            }
            cursor = op.next_in_block();
        }
        Ok(Some(Vec::new()))
    }

    fn run_region(
        &mut self,
        op: OperationRef,
        r: usize,
        args: &[V],
        mask: &[bool],
        loc: &str,
    ) -> Result<Vec<V>, SimError> {
        let region = access::region(op, r).ok_or_else(|| SimError::new(loc, format!("missing region {r}")))?;
        let Some(block) = region.first_block() else { return Ok(Vec::new()) };
        for (a, v) in access::arguments(block).zip(args) {
            let value: Value = a.into();
            self.env.insert(key(value), v.clone());
        }
        match self.run_block(block, mask)? {
            Some(v) => Ok(v),
            None => err(loc, "not modelled: gpu.return inside a region"),
        }
    }

    fn thread_index(&self, t: usize) -> [i64; 3] {
        let t = t as i64;
        let [x, y, _] = self.block_dim;
        [t % x, (t / x) % y, t / (x * y)]
    }

    fn dim_attr(op: OperationRef) -> usize {
        let d = op.attribute("dimension").map(|a| a.to_string()).unwrap_or_default();
        if d.contains('y') {
            1
        } else if d.contains('z') {
            2
        } else {
            0
        }
    }

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
        // Moves keep their operands' origin.
        match name.as_str() {
            "llvm.extractvalue"
            | "llvm.extractelement"
            | "llvm.bitcast"
            | "arith.bitcast"
            | "builtin.unrealized_conversion_cast" => {
                let o = self.origin_of(op, 0);
                self.set_origin(op, 0, o);
            }
            "llvm.insertvalue" | "llvm.insertelement" => {
                let o = self.origin_of(op, 0).join(self.origin_of(op, 1));
                self.set_origin(op, 0, o);
            }
            "llvm.mlir.undef" | "llvm.mlir.poison" | "llvm.mlir.zero" => self.set_origin(op, 0, Origin::default()),
            _ => {}
        }
        Ok(flow)
    }

    fn exec_op(&mut self, op: OperationRef, name: &str, mask: &[bool]) -> Result<Flow, SimError> {
        let n = self.n;
        let loc = || loc_of(op);
        let name = name.to_string();
        match name.as_str() {
            "arith.constant" | "llvm.mlir.constant" => {
                let ty = self.result_ty(op, &loc())?;
                let text = op.attribute("value").map(|a| a.to_string()).unwrap_or_default();
                let v = constant(&text, &ty)
                    .ok_or_else(|| SimError::new(&loc(), format!("not modelled: constant {text}")))?;
                self.set(op, 0, V::S(vec![v; n]));
            }
            "gpu.thread_id" | "gpu.block_id" | "gpu.block_dim" | "gpu.grid_dim" => {
                let d = Self::dim_attr(op);
                let v: Vec<u64> = match name.as_str() {
                    "gpu.thread_id" => (0..n).map(|t| self.thread_index(t)[d] as u64).collect(),
                    "gpu.block_id" => vec![self.launch.block_id[d] as u64; n],
                    "gpu.block_dim" => vec![self.block_dim[d] as u64; n],
                    _ => vec![self.launch.grid[d] as u64; n],
                };
                self.set(op, 0, V::S(v));
            }
            "gpu.barrier" => {
                if mask.iter().any(|m| !m) {
                    return err(&loc(), "gpu.barrier (bar.sync) reached by only part of the CTA: it would hang");
                }
                self.m.epoch += 1;
                self.m.clocks.barrier();
            }
            "gpu.return" | "llvm.return" => {
                self.return_loc = Some(loc());
                return Ok(Flow::Return);
            }
            "scf.yield" => {
                let vals = (0..op.operand_count()).map(|i| self.operand(op, i, &loc())).collect::<Result<_, _>>()?;
                return Ok(Flow::Yield(vals));
            }
            "scf.if" => self.scf_if(op, mask)?,
            "scf.for" => self.scf_for(op, mask)?,
            "scf.index_switch" => self.scf_switch(op, mask)?,
            "builtin.unrealized_conversion_cast" | "llvm.addrspacecast" => {
                let v = self.operand(op, 0, &loc())?;
                self.set(op, 0, v);
            }
            "llvm.inttoptr" | "llvm.ptrtoint" => {
                let ty = self.result_ty(op, &loc())?;
                let w = ty.scalar().map(|s| s.bits()).unwrap_or(64);
                let s = self.scalars(op, 0, &loc())?;
                self.set(op, 0, V::S(s.into_iter().map(|x| wrap(w, x)).collect()));
            }
            "llvm.mlir.undef" | "llvm.mlir.poison" | "llvm.mlir.zero" => {
                let ty = self.result_ty(op, &loc())?;
                self.set(op, 0, V::zero(&ty, n));
            }
            "llvm.insertvalue" | "llvm.extractvalue" => {
                let pos = op.attribute("position").map(|a| array_ints(&a.to_string())).unwrap_or_default();
                if pos.len() != 1 {
                    return err(&loc(), "not modelled: nested struct positions");
                }
                let p = pos[0] as usize;
                if name == "llvm.extractvalue" {
                    let V::Agg(es) = self.operand(op, 0, &loc())? else {
                        return err(&loc(), "extractvalue of a non-struct");
                    };
                    let e = es.get(p).cloned().ok_or_else(|| SimError::new(&loc(), "position out of range"))?;
                    self.set(op, 0, e);
                } else {
                    let e = self.operand(op, 1, &loc())?;
                    let V::Agg(mut es) = self.operand(op, 0, &loc())? else {
                        return err(&loc(), "insertvalue into a non-struct");
                    };
                    *es.get_mut(p).ok_or_else(|| SimError::new(&loc(), "position out of range"))? = e;
                    self.set(op, 0, V::Agg(es));
                }
            }
            "llvm.insertelement" => {
                let (e, idx) = (self.scalars(op, 1, &loc())?, self.scalars(op, 2, &loc())?);
                let V::Agg(mut es) = self.operand(op, 0, &loc())? else {
                    return err(&loc(), "insertelement into a non-vector");
                };
                for t in (0..n).filter(|t| mask[*t]) {
                    let Some(V::S(lane)) = es.get_mut(idx[t] as usize) else {
                        return err(&loc(), "vector index out of range");
                    };
                    lane[t] = e[t];
                }
                self.set(op, 0, V::Agg(es));
            }
            "llvm.extractelement" => {
                let idx = self.scalars(op, 1, &loc())?;
                let V::Agg(es) = self.operand(op, 0, &loc())? else {
                    return err(&loc(), "extractelement of a non-vector");
                };
                let mut out = vec![0; n];
                for t in (0..n).filter(|t| mask[*t]) {
                    let Some(V::S(lane)) = es.get(idx[t] as usize) else {
                        return err(&loc(), "vector index out of range");
                    };
                    out[t] = lane[t];
                }
                self.set(op, 0, V::S(out));
            }
            "llvm.bitcast" | "arith.bitcast" => {
                let from = self.operand_ty(op, 0, &loc())?;
                let to = self.result_ty(op, &loc())?;
                let v = self.operand(op, 0, &loc())?;
                self.set(
                    op,
                    0,
                    bitcast(&v, &from, &to, n).ok_or_else(|| SimError::new(&loc(), "not modelled: bitcast"))?,
                );
            }
            "llvm.store" | "llvm.load" => self.llvm_mem(op, mask, &name)?,
            _ if name.starts_with("arith.") => self.arith(op, &name, mask)?,
            _ if name.starts_with("memref.") => self.memref(op, &name, mask)?,
            _ if name.starts_with("nvgpu.") || name.starts_with("nvvm.") => self.nv(op, &name, mask)?,
            _ => return err(&loc(), format!("not modelled: {name}")),
        }
        Ok(Flow::Next)
    }

    fn scf_if(&mut self, op: OperationRef, mask: &[bool]) -> Result<(), SimError> {
        let loc = loc_of(op);
        let c = self.scalars(op, 0, &loc)?;
        let then_m: Vec<bool> = mask.iter().zip(&c).map(|(m, c)| *m && *c != 0).collect();
        let else_m: Vec<bool> = mask.iter().zip(&c).map(|(m, c)| *m && *c == 0).collect();
        let mut results: Vec<V> = Vec::new();
        let mut other: Vec<V> = Vec::new();
        // Divergent sides run one after the other, in the schedule's order.
        let else_first = self.reversed();
        if else_first && else_m.iter().any(|x| *x) && op.region_count() > 1 {
            other = self.run_region(op, 1, &[], &else_m, &loc)?;
        }
        if then_m.iter().any(|x| *x) {
            results = self.run_region(op, 0, &[], &then_m, &loc)?;
        }
        if !else_first && else_m.iter().any(|x| *x) && op.region_count() > 1 {
            other = self.run_region(op, 1, &[], &else_m, &loc)?;
        }
        if !other.is_empty() {
            results = if results.is_empty() {
                other
            } else {
                results.iter().zip(&other).map(|(a, b)| a.select(b, &then_m)).collect()
            };
        }
        for (i, v) in results.into_iter().enumerate() {
            self.set(op, i, v);
        }
        Ok(())
    }

    fn scf_for(&mut self, op: OperationRef, mask: &[bool]) -> Result<(), SimError> {
        let loc = loc_of(op);
        let ty = self.operand_ty(op, 0, &loc)?;
        let w = ty.scalar().map(|s| s.bits()).unwrap_or(64);
        let lb = sext(w, self.uniform(&self.scalars(op, 0, &loc)?, mask, "scf.for lower bound", &loc)?);
        let ub = sext(w, self.uniform(&self.scalars(op, 1, &loc)?, mask, "scf.for upper bound", &loc)?);
        let step = sext(w, self.uniform(&self.scalars(op, 2, &loc)?, mask, "scf.for step", &loc)?);
        if step <= 0 {
            return err(&loc, format!("scf.for step {step} is not positive"));
        }
        let mut carried: Vec<V> =
            (3..op.operand_count()).map(|i| self.operand(op, i, &loc)).collect::<Result<_, _>>()?;
        let mut i = lb;
        while i < ub {
            let mut args = vec![V::S(vec![wrap(w, i as u64); self.n])];
            args.extend(carried.iter().cloned());
            let out = self.run_region(op, 0, &args, mask, &loc)?;
            carried = out;
            i += step;
        }
        for (k, v) in carried.into_iter().enumerate() {
            self.set(op, k, v);
        }
        Ok(())
    }

    fn scf_switch(&mut self, op: OperationRef, mask: &[bool]) -> Result<(), SimError> {
        let loc = loc_of(op);
        let sel = self.scalars(op, 0, &loc)?;
        let cases = op.attribute("cases").map(|a| array_ints(&a.to_string())).unwrap_or_default();
        // Region 0 is the default; region i + 1 is case i.
        let region_of = |x: u64| cases.iter().position(|c| *c as u64 == x).map(|p| p + 1).unwrap_or(0);
        let mut results: Option<Vec<V>> = None;
        let mut order: Vec<usize> = (0..op.region_count()).collect();
        match self.warps {
            WarpOrder::Forward => {}
            WarpOrder::Reverse => order.reverse(),
            WarpOrder::Shuffled(_) => self.rng.shuffle(&mut order),
        }
        for r in order {
            let m: Vec<bool> = (0..self.n).map(|t| mask[t] && region_of(sel[t]) == r).collect();
            if !m.iter().any(|x| *x) {
                continue;
            }
            let out = self.run_region(op, r, &[], &m, &loc)?;
            results = Some(match results {
                None => out,
                Some(prev) => out.iter().zip(&prev).map(|(a, b)| a.select(b, &m)).collect(),
            });
        }
        for (i, v) in results.unwrap_or_default().into_iter().enumerate() {
            self.set(op, i, v);
        }
        Ok(())
    }

    fn arith(&mut self, op: OperationRef, name: &str, mask: &[bool]) -> Result<(), SimError> {
        let loc = loc_of(op);
        let op_ty = self.operand_ty(op, 0, &loc)?;
        let res_ty = self.result_ty(op, &loc)?;
        if let (Ty::Agg(from), Ty::Agg(to), "arith.truncf" | "arith.extf") = (&op_ty, &res_ty, name) {
            // A float conversion of a vector: element by element, each rounded as a scalar one.
            let V::Agg(elements) = self.operand(op, 0, &loc)? else {
                return err(&loc, format!("{name}: operand is not a vector"));
            };
            let mut out = Vec::with_capacity(elements.len());
            for ((e, f), t) in elements.iter().zip(from).zip(to) {
                let (V::S(lanes), Some(f), Some(t)) = (e, f.scalar(), t.scalar()) else {
                    return err(&loc, format!("not modelled: {name} on {op_ty:?}"));
                };
                let lanes = lanes.iter().zip(mask).map(|(&x, &on)| if on { t.from_f64(f.to_f64(x)) } else { 0 });
                out.push(V::S(lanes.collect()));
            }
            self.set(op, 0, V::Agg(out));
            return Ok(());
        }
        let (Some(a_sc), Some(r_sc)) = (op_ty.scalar(), res_ty.scalar()) else {
            return err(&loc, format!("not modelled: {name} on {op_ty:?}"));
        };
        let a = self.scalars(op, 0, &loc)?;
        let b = if op.operand_count() > 1 { self.scalars(op, 1, &loc)? } else { vec![0; self.n] };
        let w = a_sc.bits();
        let third = if op.operand_count() > 2 { self.scalars(op, 2, &loc)? } else { Vec::new() };
        let pred = op.attribute("predicate").map(|a| a.to_string()).unwrap_or_default();
        let pred = ints_in(&pred).first().copied().unwrap_or(-1);
        let mut out = vec![0u64; self.n];
        for t in (0..self.n).filter(|t| mask[*t]) {
            let (x, y) = (a[t], b[t]);
            let (sx, sy) = (sext(w, x), sext(w, y));
            let (fx, fy) = (a_sc.to_f64(x), a_sc.to_f64(y));
            let div0 = || SimError::new(&loc, format!("{name}: division by zero"));
            out[t] = match name {
                "arith.addi" => wrap(w, x.wrapping_add(y)),
                "arith.subi" => wrap(w, x.wrapping_sub(y)),
                "arith.muli" => wrap(w, x.wrapping_mul(y)),
                "arith.divui" => wrap(w, x.checked_div(y).ok_or_else(div0)?),
                "arith.remui" => wrap(w, x.checked_rem(y).ok_or_else(div0)?),
                "arith.divsi" => wrap(w, sx.checked_div(sy).ok_or_else(div0)? as u64),
                "arith.remsi" => wrap(w, sx.checked_rem(sy).ok_or_else(div0)? as u64),
                "arith.floordivsi" => wrap(w, sx.checked_div_euclid(sy).ok_or_else(div0)? as u64),
                "arith.ceildivui" => {
                    wrap(w, x.checked_add(y.saturating_sub(1)).and_then(|s| s.checked_div(y)).ok_or_else(div0)?)
                }
                "arith.ceildivsi" => {
                    let q = sx.checked_div(sy).ok_or_else(div0)?;
                    wrap(w, (if q * sy != sx && ((sx > 0) == (sy > 0)) { q + 1 } else { q }) as u64)
                }
                "arith.andi" => x & y,
                "arith.ori" => x | y,
                "arith.xori" => x ^ y,
                "arith.shli" => {
                    if y >= u64::from(w) {
                        0
                    } else {
                        wrap(w, x << y)
                    }
                }
                "arith.shrui" => {
                    if y >= u64::from(w) {
                        0
                    } else {
                        x >> y
                    }
                }
                "arith.shrsi" => wrap(w, (sx >> y.min(63)) as u64),
                "arith.minsi" => wrap(w, sx.min(sy) as u64),
                "arith.maxsi" => wrap(w, sx.max(sy) as u64),
                "arith.minui" => x.min(y),
                "arith.maxui" => x.max(y),
                "arith.cmpi" => u64::from(match pred {
                    0 => x == y,
                    1 => x != y,
                    2 => sx < sy,
                    3 => sx <= sy,
                    4 => sx > sy,
                    5 => sx >= sy,
                    6 => x < y,
                    7 => x <= y,
                    8 => x > y,
                    9 => x >= y,
                    _ => return err(&loc, "not modelled: cmpi predicate"),
                }),
                "arith.select" => {
                    // operands: condition, true value, false value
                    if x != 0 {
                        y
                    } else {
                        third[t]
                    }
                }
                "arith.index_cast" | "arith.extsi" | "arith.trunci" => wrap(r_sc.bits(), sx as u64),
                "arith.index_castui" | "arith.extui" => wrap(r_sc.bits(), x),
                "arith.addf" => r_sc.from_f64(fx + fy),
                "arith.subf" => r_sc.from_f64(fx - fy),
                "arith.mulf" => r_sc.from_f64(fx * fy),
                "arith.divf" => r_sc.from_f64(fx / fy),
                "arith.maximumf" | "arith.maxnumf" => r_sc.from_f64(fx.max(fy)),
                "arith.minimumf" | "arith.minnumf" => r_sc.from_f64(fx.min(fy)),
                "arith.negf" => r_sc.from_f64(-fx),
                "arith.truncf" | "arith.extf" => r_sc.from_f64(fx),
                "arith.sitofp" => r_sc.from_f64(sx as f64),
                "arith.uitofp" => r_sc.from_f64(x as f64),
                "arith.fptosi" | "arith.fptoui" => wrap(r_sc.bits(), fx as i64 as u64),
                "arith.cmpf" => u64::from(match pred {
                    1 => fx == fy,
                    2 => fx > fy,
                    3 => fx >= fy,
                    4 => fx < fy,
                    5 => fx <= fy,
                    6 => fx != fy,
                    _ => return err(&loc, "not modelled: cmpf predicate"),
                }),
                _ => return err(&loc, format!("not modelled: {name}")),
            };
        }
        self.set(op, 0, V::S(out));
        Ok(())
    }

    fn memref_of(&self, op: OperationRef, i: usize, loc: &str) -> Result<MemRef, SimError> {
        match self.operand(op, i, loc)? {
            V::Mem(m) => Ok(m),
            _ => err(loc, format!("operand {i} is not a memref")),
        }
    }

    fn mem_read(&mut self, space: Space, t: usize, addr: u64, n: usize, loc: &str) -> Result<u64, SimError> {
        let bytes: &[u8] = match space {
            Space::Shared => self.m.read_shared_by(addr, n, t..t + 1, loc)?,
            Space::Global => self.m.read_global(addr, n, loc)?,
            Space::Private(id) => {
                let mem = &self.m.private[id][t];
                mem.get(addr as usize..addr as usize + n)
                    .ok_or_else(|| SimError::new(loc, "out-of-bounds private access"))?
            }
        };
        let mut b = [0u8; 8];
        b[..n].copy_from_slice(bytes);
        Ok(u64::from_le_bytes(b))
    }

    fn mem_write(&mut self, space: Space, t: usize, addr: u64, n: usize, bits: u64, loc: &str) -> Result<(), SimError> {
        let data = &bits.to_le_bytes()[..n];
        match space {
            Space::Shared => self.m.write_shared_by(addr, data, t, loc),
            Space::Global => self.m.write_global(addr, data, loc),
            Space::Private(id) => {
                let mem = &mut self.m.private[id][t];
                let slot = mem
                    .get_mut(addr as usize..addr as usize + n)
                    .ok_or_else(|| SimError::new(loc, "out-of-bounds private access"))?;
                slot.copy_from_slice(data);
                Ok(())
            }
        }
    }

    /// The byte address of `m[idx]` for thread `t`, bounds-checked per dimension.
    fn element_addr(&self, m: &MemRef, idx: &[Vec<u64>], t: usize, loc: &str) -> Result<u64, SimError> {
        let mut lin: i64 = 0;
        for (d, ix) in idx.iter().enumerate() {
            let i = ix[t] as i64;
            if !(0..m.shape[d]).contains(&i) {
                return err(
                    loc,
                    format!(
                        "out-of-bounds memref access: index {i} of dimension {d} (size {}) in thread {t}",
                        m.shape[d]
                    ),
                );
            }
            lin = lin * m.shape[d] + i;
        }
        Ok(m.addr + lin as u64 * m.elem.bytes() as u64)
    }

    fn memref(&mut self, op: OperationRef, name: &str, mask: &[bool]) -> Result<(), SimError> {
        let loc = loc_of(op);
        match name {
            "memref.alloca" => {
                let Ty::Mem { shape, elem, .. } = self.result_ty(op, &loc)? else {
                    return err(&loc, "not modelled: alloca type");
                };
                let bytes = shape.iter().product::<i64>() as usize * elem.bytes();
                self.m.private.push(vec![vec![0; bytes]; self.n]);
                let id = self.m.private.len() - 1;
                self.set(op, 0, V::Mem(MemRef { space: Space::Private(id), addr: 0, shape, elem }));
            }
            "memref.get_global" => {
                let sym = op.attribute("name").map(|a| a.to_string()).unwrap_or_default();
                let Some((addr, _)) = self.globals.get(sym.trim_start_matches('@')).copied() else {
                    return err(&loc, format!("not modelled: memref.get_global {sym}"));
                };
                let Ty::Mem { shape, elem, .. } = self.result_ty(op, &loc)? else {
                    return err(&loc, "get_global type");
                };
                self.set(op, 0, V::Mem(MemRef { space: Space::Shared, addr, shape, elem }));
            }
            "memref.view" => {
                let src = self.memref_of(op, 0, &loc)?;
                if op.operand_count() > 2 {
                    return err(&loc, "not modelled: memref.view with dynamic sizes");
                }
                let shift = self.uniform(&self.scalars(op, 1, &loc)?, mask, "memref.view byte shift", &loc)?;
                let Ty::Mem { shape, elem, .. } = self.result_ty(op, &loc)? else { return err(&loc, "view type") };
                let src_bytes = src.shape.iter().product::<i64>() as u64 * src.elem.bytes() as u64;
                let bytes = shape.iter().product::<i64>() as u64 * elem.bytes() as u64;
                if shift + bytes > src_bytes {
                    return err(
                        &loc,
                        format!("memref.view of {bytes} bytes at byte {shift} overruns its {src_bytes}-byte source"),
                    );
                }
                self.set(op, 0, V::Mem(MemRef { space: src.space, addr: src.addr + shift, shape, elem }));
            }
            "memref.extract_aligned_pointer_as_index" => {
                let m = self.memref_of(op, 0, &loc)?;
                if let Space::Private(_) = m.space {
                    return err(&loc, "not modelled: the address of private memory");
                }
                self.set(op, 0, V::S(vec![m.addr; self.n]));
            }
            "memref.load" | "memref.store" => {
                let store = name == "memref.store";
                let first = usize::from(store);
                let m = self.memref_of(op, first, &loc)?;
                let idx: Vec<Vec<u64>> =
                    (first + 1..op.operand_count()).map(|i| self.scalars(op, i, &loc)).collect::<Result<_, _>>()?;
                if idx.len() != m.shape.len() {
                    return err(&loc, "index count differs from the memref's rank");
                }
                let nb = m.elem.bytes();
                let threads = self.active(mask);
                if store {
                    let v = self.scalars(op, 0, &loc)?;
                    for &t in &threads {
                        let addr = self.element_addr(&m, &idx, t, &loc)?;
                        self.mem_write(m.space, t, addr, nb, v[t], &loc)?;
                    }
                    // A register-array cell keeps the stored value's asynchronous origin; a generic value is
                    // written now.
                    if let (Space::Private(id), Some(&t)) = (m.space, threads.first()) {
                        let addr = self.element_addr(&m, &idx, t, &loc)?;
                        let o = self.origin_of(op, 0);
                        let o = if o.is_async() { o } else { Origin { step: self.steps, ..o } };
                        self.cells.insert((id, addr), o);
                    }
                } else {
                    let mut out = vec![0; self.n];
                    for &t in &threads {
                        let addr = self.element_addr(&m, &idx, t, &loc)?;
                        out[t] = self.mem_read(m.space, t, addr, nb, &loc)?;
                    }
                    self.set(op, 0, V::S(out));
                    if let (Space::Private(id), Some(&t)) = (m.space, threads.first()) {
                        let addr = self.element_addr(&m, &idx, t, &loc)?;
                        let o = self.cells.get(&(id, addr)).copied().unwrap_or_default();
                        self.set_origin(op, 0, o);
                    }
                }
            }
            "memref.dealloca" => {}
            _ => return err(&loc, format!("not modelled: {name}")),
        }
        Ok(())
    }

    /// `llvm.load`/`llvm.store` through a global (`ptr<1>`/generic) or shared (`ptr<3>`) address.
    fn llvm_mem(&mut self, op: OperationRef, mask: &[bool], name: &str) -> Result<(), SimError> {
        let loc = loc_of(op);
        let store = name == "llvm.store";
        let pi = usize::from(store);
        let pty = self.operand_ty(op, pi, &loc)?;
        let space = match pty {
            Ty::Ptr(3) => Space::Shared,
            Ty::Ptr(0) | Ty::Ptr(1) => Space::Global,
            _ => return err(&loc, format!("not modelled: {name} through {pty:?}")),
        };
        let ptr = self.scalars(op, pi, &loc)?;
        let vty = if store { self.operand_ty(op, 0, &loc)? } else { self.result_ty(op, &loc)? };
        let elems: Vec<Scalar> = match &vty {
            Ty::Sc(s) => vec![*s],
            Ty::Agg(es) => es
                .iter()
                .map(|e| e.scalar())
                .collect::<Option<_>>()
                .ok_or_else(|| SimError::new(&loc, "not modelled: nested aggregate"))?,
            _ => return err(&loc, format!("not modelled: {name} of {vty:?}")),
        };
        let value = if store { Some(self.operand(op, 0, &loc)?) } else { None };
        let mut lanes: Vec<Vec<u64>> = vec![vec![0; self.n]; elems.len()];
        for t in self.active(mask) {
            let mut addr = ptr[t];
            for (e, sc) in elems.iter().enumerate() {
                let nb = sc.bytes();
                match &value {
                    Some(V::S(s)) => self.mem_write(space, t, addr, nb, s[t], &loc)?,
                    Some(V::Agg(es)) => {
                        let V::S(s) = &es[e] else { return err(&loc, "nested aggregate") };
                        self.mem_write(space, t, addr, nb, s[t], &loc)?
                    }
                    Some(V::Mem(_)) => return err(&loc, "store of a memref"),
                    None => lanes[e][t] = self.mem_read(space, t, addr, nb, &loc)?,
                }
                addr += nb as u64;
            }
        }
        if !store {
            let v = if matches!(vty, Ty::Sc(_)) {
                V::S(lanes.remove(0))
            } else {
                V::Agg(lanes.into_iter().map(V::S).collect())
            };
            self.set(op, 0, v);
        }
        Ok(())
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

    /// `elect.sync _|p, membermask` (PTX ISA, "elect.sync", sm_90): per warp, each active thread must be in its
    /// `membermask` (undefined otherwise) and waits until every thread of the mask executes the instruction, so a
    /// mask lane of the CTA that is not active here would hang: both are faults. One leader of the mask is
    /// elected, the same one every time; the ISA does not say which, and the hardware's choice, modelled here, is
    /// the lowest lane. `p` is 1 on the leader, 0 on every other thread.
    fn elect_sync(&self, members: &[u64], mask: &[bool], loc: &str) -> Result<Vec<u64>, SimError> {
        let mut out = vec![0; self.n];
        for w in 0..self.n.div_ceil(32) {
            let threads = w * 32..((w + 1) * 32).min(self.n);
            let Some(first) = threads.clone().find(|&t| mask[t]) else { continue };
            let membermask = members[first] & 0xffff_ffff;
            for t in threads.clone() {
                let bit = membermask >> (t - w * 32) & 1 == 1;
                if mask[t] && members[t] & 0xffff_ffff != membermask {
                    return err(loc, format!("elect.sync in warp {w}: membermask differs between active threads"));
                }
                if mask[t] && !bit {
                    return err(
                        loc,
                        format!("elect.sync: thread {t} executes it but is not in membermask {membermask:#x}"),
                    );
                }
                if bit && !mask[t] {
                    return err(loc, format!("elect.sync: lane {} of warp {w} is in membermask {membermask:#x} but does not execute it: the warp would wait forever", t - w * 32));
                }
            }
            out[first] = 1;
        }
        Ok(out)
    }

    fn nv(&mut self, op: OperationRef, name: &str, mask: &[bool]) -> Result<(), SimError> {
        let loc = loc_of(op);
        let act = self.active(mask);
        match name {
            "nvvm.tcgen05.relinquish_alloc_permit" => {}
            // fence.mbarrier_init.release.cluster (PTX ISA 9.7.13.4): orders the thread's mbarrier.init before
            // other threads' uses of the barrier (with a synchronization between them, `machine.rs`).
            "nvvm.fence.mbarrier.init" => {
                for t in act {
                    self.m.fence_mbarrier_init(t);
                }
            }
            "nvvm.fence.proxy" => {
                // fence.proxy.async[.shared::cta]: orders the thread's generic-proxy writes before later
                // async-proxy accesses (other kinds, e.g. tensormap, do not).
                let kind = op.attribute("kind").map(|a| a.to_string()).unwrap_or_default();
                if kind.contains("async") {
                    for t in act {
                        self.m.proxy_fence[t] = self.steps;
                    }
                }
            }
            "nvvm.wgmma.fence.aligned" => {
                self.whole_groups(mask, 128, "wgmma.fence", &loc)?;
                self.m.flight.wg_fence_step = self.steps;
            }
            "nvvm.wgmma.commit.group.sync.aligned" => {
                self.whole_groups(mask, 128, "wgmma.commit_group", &loc)?;
                self.m.flight.wgmma_commit();
            }
            "nvvm.wgmma.wait.group.sync.aligned" => {
                self.whole_groups(mask, 128, "wgmma.wait_group", &loc)?;
                let g = op.attribute("group").map(|a| ints_in(&a.to_string())).unwrap_or_default();
                self.m.wgmma_wait(g.first().copied().unwrap_or(0) as u64);
            }
            "nvvm.cp.async.bulk.commit.group" => self.m.bulk_commit(),
            "nvvm.cp.async.bulk.wait_group" => {
                let g = op.attribute("group").map(|a| ints_in(&a.to_string())).unwrap_or_default();
                let read = op.attribute("read").is_ok();
                self.m.bulk_wait(g.first().copied().unwrap_or(0) as u64, read, &loc)?;
            }
            "nvvm.tcgen05.fence" => {
                let kind = op.attribute("kind").map(|a| a.to_string()).unwrap_or_default();
                if kind.contains("after") {
                    self.m.flight.tc_fence_needed = false;
                }
            }
            "nvvm.tcgen05.wait" => {
                let kind = op.attribute("kind").map(|a| a.to_string()).unwrap_or_default();
                if kind.contains("load") {
                    self.m.flight.lds.1 = self.m.flight.lds.0;
                    self.m.flight.lds.2 = None;
                }
            }
            "nvvm.elect.sync" => {
                let members =
                    if op.operand_count() > 0 { self.scalars(op, 0, &loc)? } else { vec![0xffff_ffff; self.n] };
                let elected = self.elect_sync(&members, mask, &loc)?;
                self.set(op, 0, V::S(elected));
            }
            "nvgpu.mbarrier.create" => {
                let addr = self.m.alloc_shared(8, 8, &loc)?;
                self.m.bar_slots.push(addr);
                self.set(op, 0, V::S(vec![addr; self.n]));
            }
            "nvgpu.mbarrier.init" | "nvvm.mbarrier.init" | "nvvm.mbarrier.init.shared" => {
                let (addr, count) = if name.starts_with("nvgpu") {
                    (self.bar_addr(op, 0, 2, &loc)?, self.scalars(op, 1, &loc)?)
                } else {
                    (self.scalars(op, 0, &loc)?, self.scalars(op, 1, &loc)?)
                };
                for t in act {
                    self.m.init_bar(addr[t], count[t] as i64, t, &loc)?;
                }
            }
            "nvgpu.mbarrier.arrive.expect_tx" | "nvgpu.mbarrier.arrive" => {
                let expect = name.ends_with("expect_tx");
                let addr = self.bar_addr(op, 0, if expect { 2 } else { 1 }, &loc)?;
                let tx = if expect { self.scalars(op, 1, &loc)? } else { vec![0; self.n] };
                for t in act {
                    self.arrive(addr[t], tx[t] as i64, t, &loc)?;
                }
                if !expect {
                    self.set(op, 0, V::S(vec![0; self.n]));
                }
            }
            "nvvm.mbarrier.arrive" | "nvvm.mbarrier.arrive.expect_tx" => {
                let addr = self.scalars(op, 0, &loc)?;
                let tx = if name.ends_with("expect_tx") { self.scalars(op, 1, &loc)? } else { vec![0; self.n] };
                for t in act {
                    self.arrive(addr[t], tx[t] as i64, t, &loc)?;
                }
                self.set(op, 0, V::S(vec![0; self.n]));
            }
            "nvgpu.mbarrier.try_wait.parity" | "nvvm.mbarrier.try_wait.parity" => {
                let (addr, parity) = if name.starts_with("nvgpu") {
                    (self.bar_addr(op, 0, 3, &loc)?, self.scalars(op, 1, &loc)?)
                } else {
                    (self.scalars(op, 0, &loc)?, self.scalars(op, 1, &loc)?)
                };
                let mut done = std::collections::HashSet::new();
                for &t in &act {
                    self.m.check_bar_use(addr[t], t, "try_wait.parity", &loc)?;
                    if done.insert((addr[t], parity[t] & 1)) {
                        self.m.wait_parity(addr[t], parity[t], &loc)?;
                    }
                }
                // Each waiting warp synchronizes with the arrivals of the phase it observed.
                let mut warps = std::collections::HashSet::new();
                for &t in &act {
                    if warps.insert((addr[t], t / 32)) {
                        self.m.waited(addr[t], t / 32, &loc)?;
                    }
                }
            }
            "nvgpu.tma.async.load" => self.tma_load(op, mask, &loc)?,
            "nvvm.cp.async.shared.global" => {
                // cp.async.cg/ca.shared.global (PTX ISA 9.7.9.25.3): `size` bytes, read at issue, delivered by
                // cp.async.wait_group; the shared bytes are pending until then.
                let size = op.attribute("size").map(|a| ints_in(&a.to_string())).unwrap_or_default();
                let size = size.first().copied().unwrap_or(0) as usize;
                if !(2..=3).contains(&op.operand_count()) || ![4, 8, 16].contains(&size) {
                    return err(&loc, "not modelled: this cp.async form");
                }
                let (dst, src) = (self.scalars(op, 0, &loc)?, self.scalars(op, 1, &loc)?);
                // The optional src-size: only that many bytes are read, the rest of the chunk is zero-filled.
                let src_size = if op.operand_count() == 3 { Some(self.scalars(op, 2, &loc)?) } else { None };
                for t in act {
                    let read = src_size.as_ref().map_or(size, |s| s[t] as usize);
                    if read > size {
                        return err(&loc, format!("cp.async src-size {read} exceeds its {size}-byte copy"));
                    }
                    let mut bytes = vec![0u8; size];
                    if read > 0 {
                        bytes[..read].copy_from_slice(self.m.read_global(src[t], read, &loc)?);
                    }
                    if dst[t] + size as u64 > self.m.shared.len() as u64 || dst[t] % size as u64 != 0 {
                        return err(&loc, format!("cp.async destination {} out of bounds or misaligned", dst[t]));
                    }
                    // The copy writes as its thread, from its issue (write-after-read check).
                    self.m.check_war(dst[t], size, t, "cp.async write", &loc)?;
                    // Two copies in flight to the same bytes, or a copy over bytes an asynchronous operation
                    // still reads, race.
                    self.m.check_pending(dst[t], size, "cp.async write", &loc)?;
                    self.m.flight.check_readers(dst[t], size, "cp.async write", &loc)?;
                    let group = Some(self.m.open_group);
                    self.m.pending.push(PendingLoad {
                        bar: u64::MAX,
                        start: dst[t],
                        bytes,
                        tx: 0,
                        loc: loc.clone(),
                        group,
                        thread: t,
                        landed: false,
                        phase: None,
                        clock: Vec::new(),
                    });
                    if self.m.flight.completion == Completion::Eager {
                        self.m.land_load(self.m.pending.len() - 1)?;
                    }
                }
            }
            "nvvm.cp.async.commit.group" => self.m.open_group += 1,
            "nvvm.cp.async.wait.group" => {
                let n = op.attribute("n").map(|a| ints_in(&a.to_string())).unwrap_or_default();
                self.m.wait_groups(n.first().copied().unwrap_or(0) as u64)?;
            }
            "nvvm.ldmatrix" => self.ldmatrix(op, mask, &loc)?,
            "nvvm.stmatrix" => self.stmatrix(op, mask, &loc)?,
            "nvgpu.tma.async.store" => self.tma_store(op, mask, &loc)?,
            "nvvm.wgmma.mma_async" => self.wgmma(op, mask, &loc)?,
            "nvvm.mma.sync" => self.mma_sync(op, mask, &loc)?,
            "nvvm.tcgen05.alloc" => {
                let ptr = self.scalars(op, 0, &loc)?;
                let ncols = self.scalars(op, 1, &loc)?;
                for w in self.whole_groups(mask, 32, "tcgen05.alloc", &loc)? {
                    let t = w * 32;
                    let col = self.m.tmem_alloc(ncols[t] as u32, &loc)?;
                    self.m.write_shared(ptr[t], &col.to_le_bytes(), &loc)?;
                    self.m.mark_async_written(ptr[t], 4);
                }
            }
            "nvvm.tcgen05.dealloc" => {
                let addr = self.scalars(op, 0, &loc)?;
                let ncols = self.scalars(op, 1, &loc)?;
                for w in self.whole_groups(mask, 32, "tcgen05.dealloc", &loc)? {
                    let t = w * 32;
                    self.m.tmem_dealloc((addr[t] & 0xFFFF) as u32, ncols[t] as u32, &loc)?;
                }
            }
            "nvvm.tcgen05.mma" => self.tcgen05_mma(op, mask, &loc)?,
            "nvvm.tcgen05.commit" => {
                let addr = self.scalars(op, 0, &loc)?;
                for t in act {
                    self.m.tcgen05_commit(addr[t], t, &loc)?;
                }
            }
            "nvvm.tcgen05.ld" | "nvvm.tcgen05.st" => self.tcgen05_ldst(op, mask, name == "nvvm.tcgen05.st", &loc)?,
            _ => return err(&loc, format!("not modelled: {name}")),
        }
        Ok(())
    }

    /// An arrival by `thread` on the barrier at `addr` (`tx` transaction bytes expected): it releases the thread's
    /// warp's clock.
    fn arrive(&mut self, addr: u64, tx: i64, thread: usize, loc: &str) -> Result<u64, SimError> {
        self.m.check_bar_use(addr, thread, "arrive", loc)?;
        let clock = self.m.clocks.release(thread / 32);
        self.m.arrive(addr, tx, &clock, loc)
    }

    /// The shared address of barrier `group[mbarId]` per thread (each barrier of a group is 8 bytes).
    fn bar_addr(&self, op: OperationRef, group: usize, id: usize, loc: &str) -> Result<Vec<u64>, SimError> {
        let base = self.scalars(op, group, loc)?;
        let idx = self.scalars(op, id, loc)?;
        Ok(base.iter().zip(&idx).map(|(b, i)| b + 8 * i).collect())
    }

    /// `ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16` (PTX ISA 9.7.14.5.15): thread `8i + r` gives
    /// the address of row `r` of matrix `i` (16 bytes); thread `l` receives in register `i` the elements
    /// `(l / 4, 2 (l % 4) + j)` of matrix `i` (`.trans`: `(2 (l % 4) + j, l / 4)`), `j` = 0 in the low half.
    fn ldmatrix(&mut self, op: OperationRef, mask: &[bool], loc: &str) -> Result<(), SimError> {
        let attr = |k: &str| op.attribute(k).map(|a| a.to_string()).unwrap_or_default();
        let num = ints_in(&attr("num")).first().copied().unwrap_or(0) as usize;
        if !attr("eltType").contains("b16") || !attr("shape").contains("m = 8, n = 8") || ![1, 2, 4].contains(&num) {
            return err(loc, "not modelled: this ldmatrix form");
        }
        let trans = attr("layout").contains("col");
        let ptr = self.scalars(op, 0, loc)?;
        let mut regs = vec![vec![0u64; self.n]; num];
        for w in self.whole_groups(mask, 32, "ldmatrix", loc)? {
            let mut rows = vec![[0u16; 8]; 8 * num];
            for (r, row) in rows.iter_mut().enumerate() {
                let b = self.m.read_shared_by(ptr[w * 32 + r], 16, w * 32..w * 32 + 32, loc)?;
                for (c, x) in row.iter_mut().enumerate() {
                    *x = u16::from_le_bytes([b[2 * c], b[2 * c + 1]]);
                }
            }
            for l in 0..32 {
                for (i, reg) in regs.iter_mut().enumerate() {
                    let at = |j: usize| {
                        let (r, c) = if trans { (2 * (l % 4) + j, l / 4) } else { (l / 4, 2 * (l % 4) + j) };
                        u64::from(rows[8 * i + r][c])
                    };
                    reg[w * 32 + l] = at(0) | at(1) << 16;
                }
            }
        }
        let v = if num == 1 && !matches!(self.result_ty(op, loc)?, Ty::Agg(_)) {
            V::S(regs.remove(0))
        } else {
            V::Agg(regs.into_iter().map(V::S).collect())
        };
        self.set(op, 0, v);
        Ok(())
    }

    /// `stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16` (PTX ISA 9.7.14.5.16): the inverse of
    /// [`Self::ldmatrix`]: thread `8i + r` gives the address of row `r` of matrix `i`; thread `l`'s register `i`
    /// holds the elements `(l / 4, 2 (l % 4) + j)` of matrix `i` (`.trans`: `(2 (l % 4) + j, l / 4)`).
    fn stmatrix(&mut self, op: OperationRef, mask: &[bool], loc: &str) -> Result<(), SimError> {
        let attr = |k: &str| op.attribute(k).map(|a| a.to_string()).unwrap_or_default();
        let num = op.operand_count().saturating_sub(1);
        if !attr("eltType").contains("b16") || !attr("shape").contains("m = 8, n = 8") || ![1, 2, 4].contains(&num) {
            return err(loc, "not modelled: this stmatrix form");
        }
        let trans = attr("layout").contains("col");
        let ptr = self.scalars(op, 0, loc)?;
        let regs: Vec<Vec<u64>> = (1..=num).map(|i| self.scalars(op, i, loc)).collect::<Result<_, _>>()?;
        for w in self.whole_groups(mask, 32, "stmatrix", loc)? {
            let mut rows = vec![[0u16; 8]; 8 * num];
            for l in 0..32 {
                for (i, reg) in regs.iter().enumerate() {
                    for j in 0..2 {
                        let (r, c) = if trans { (2 * (l % 4) + j, l / 4) } else { (l / 4, 2 * (l % 4) + j) };
                        rows[8 * i + r][c] = (reg[w * 32 + l] >> (16 * j)) as u16;
                    }
                }
            }
            for (r, row) in rows.iter().enumerate() {
                let bytes: Vec<u8> = row.iter().flat_map(|x| x.to_le_bytes()).collect();
                self.m.write_shared_by(ptr[w * 32 + r], &bytes, w * 32 + r % 32, loc)?;
            }
        }
        Ok(())
    }

    /// `cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes` (PTX ISA 9.7.9.25.5.1)
    /// as `nvgpu.tma.async.load` expresses it: operands `dst, barriers, descriptor, coordinates..., mbarId`.
    fn tma_load(&mut self, op: OperationRef, mask: &[bool], loc: &str) -> Result<(), SimError> {
        let count = op.operand_count();
        let dst = self.memref_of(op, 0, loc)?;
        let bars = self.scalars(op, 1, loc)?;
        let desc = self.scalars(op, 2, loc)?;
        let last_ty = self.operand_ty(op, count - 1, loc)?;
        if last_ty != Ty::Sc(Scalar::I(64)) {
            return err(loc, "not modelled: multicast or predicated TMA load");
        }
        let ids = self.scalars(op, count - 1, loc)?;
        let coords: Vec<Vec<u64>> = (3..count - 1).map(|i| self.scalars(op, i, loc)).collect::<Result<_, _>>()?;
        for t in self.active(mask) {
            let map = self
                .descs
                .get(desc[t] as usize)
                .cloned()
                .ok_or_else(|| SimError::new(loc, "unknown TMA descriptor"))?;
            if coords.len() != map.dims.len() {
                return err(loc, format!("{} coordinates for a rank-{} tensor map", coords.len(), map.dims.len()));
            }
            let c: Vec<i64> = coords.iter().map(|v| v[t] as i64).collect();
            let span = map.span();
            if dst.addr % 128 != 0 || (span != 0 && dst.addr % (8 * span) != 0) {
                return err(
                    loc,
                    format!(
                        "TMA destination {} not aligned to the swizzle pattern's {} bytes",
                        dst.addr,
                        (8 * span).max(128)
                    ),
                );
            }
            let total = map.box_bytes();
            let mut bytes = vec![0u8; total as usize];
            for (off, g) in map.box_elements(&c) {
                let at = isa::swizzle(span, dst.addr + off) - dst.addr;
                if let Some(g) = g {
                    let src = self.m.read_global(g, map.elem_bytes as usize, loc)?;
                    bytes[at as usize..(at + map.elem_bytes) as usize].copy_from_slice(src);
                }
            }
            let bar = bars[t] + 8 * ids[t];
            self.m.check_bar_use(bar, t, "TMA load complete_tx", loc)?;
            let dst_bytes = dst.shape.iter().product::<i64>() as u64 * dst.elem.bytes() as u64;
            if dst_bytes != total {
                return err(loc, format!("TMA box of {total} bytes into a {dst_bytes}-byte destination"));
            }
            if dst.addr + total > self.m.shared.len() as u64 {
                return err(loc, "TMA destination outside shared memory");
            }
            // Two loads in flight to the same bytes, or a load over bytes an asynchronous operation still
            // reads (a stage reused early), race.
            self.m.check_pending(dst.addr, total as usize, "TMA load write", loc)?;
            self.m.flight.check_readers(dst.addr, total as usize, "TMA load write", loc)?;
            // The load writes as its issuing thread, from its issue: bytes another warp read must be ordered
            // before (a stage is reloaded only once every warp is done with it).
            self.m.check_war(dst.addr, total as usize, t, "TMA load write", loc)?;
            let clock = self.m.clocks.release(t / 32);
            self.m.pending.push(PendingLoad {
                bar,
                start: dst.addr,
                bytes,
                tx: total as i64,
                loc: loc.to_string(),
                group: None,
                thread: t,
                landed: false,
                phase: None,
                clock,
            });
            if self.m.flight.completion == Completion::Eager {
                self.m.land_load(self.m.pending.len() - 1)?;
            }
        }
        Ok(())
    }

    /// `cp.async.bulk.tensor...global.shared::cta.tile.bulk_group` (PTX ISA 9.7.9.25.5.2): shared box to global,
    /// out-of-bounds elements skipped. The source is read through the async proxy (checked at issue: delivered,
    /// written before the writers' `fence.proxy.async` and a barrier); the store is in flight until its bulk
    /// group's waits (`inflight.rs`).
    fn tma_store(&mut self, op: OperationRef, mask: &[bool], loc: &str) -> Result<(), SimError> {
        let count = op.operand_count();
        let src = self.memref_of(op, 0, loc)?;
        let desc = self.scalars(op, 1, loc)?;
        let coords: Vec<Vec<u64>> = (2..count).map(|i| self.scalars(op, i, loc)).collect::<Result<_, _>>()?;
        for t in self.active(mask) {
            let map = self
                .descs
                .get(desc[t] as usize)
                .cloned()
                .ok_or_else(|| SimError::new(loc, "unknown TMA descriptor"))?;
            if coords.len() != map.dims.len() {
                return err(loc, "not modelled: predicated TMA store");
            }
            let c: Vec<i64> = coords.iter().map(|v| v[t] as i64).collect();
            let span = map.span();
            let nb = map.elem_bytes as usize;
            let mut pairs = Vec::new();
            for (off, g) in map.box_elements(&c) {
                let at = isa::swizzle(span, src.addr + off);
                self.m.read_shared(at, nb, loc)?;
                self.m.check_async_read(at, nb, t..t + 1, "the TMA store", loc)?;
                if let Some(g) = g {
                    self.m.global_index(g, nb, loc)?;
                    pairs.push((at, g, nb));
                }
            }
            let mut gaddrs: Vec<u64> = pairs.iter().map(|p| p.1).collect();
            let global = ranges_of(&mut gaddrs, nb as u64);
            self.m.store_issue(
                BulkStore {
                    loc: loc.to_string(),
                    pairs,
                    global,
                    data: None,
                    group: None,
                    read_retired: false,
                    written: false,
                },
                t,
            )?;
        }
        Ok(())
    }

    /// Reads the `mn x k` operand through a shared matrix descriptor; `(mn, k)` order. The read is the async
    /// proxy's on behalf of threads `issuers` (`what` names the instruction); the byte addresses read are added
    /// to `addrs`.
    #[allow(clippy::too_many_arguments)]
    fn gather_desc(
        &self,
        desc: u64,
        tcgen05: bool,
        k_major: bool,
        elem: Scalar,
        mn: u64,
        k: u64,
        issuers: std::ops::Range<usize>,
        addrs: &mut Vec<u64>,
        loc: &str,
    ) -> Result<Vec<f64>, SimError> {
        let d = isa::decode_smem_desc(desc, tcgen05, loc)?;
        let nb = elem.bytes() as u64;
        let what = if tcgen05 { "tcgen05.mma" } else { "wgmma.mma_async" };
        let mut out = Vec::with_capacity((mn * k) as usize);
        for i in 0..mn {
            for j in 0..k {
                let addr = isa::swizzle(d.span, d.start + isa::canonical_offset(&d, k_major, nb, i, j, loc)?);
                let b = self.m.read_shared(addr, nb as usize, loc)?;
                self.m.check_async_read(addr, nb as usize, issuers.clone(), what, loc)?;
                let mut raw = [0u8; 8];
                raw[..nb as usize].copy_from_slice(b);
                out.push(elem.to_f64(u64::from_le_bytes(raw)));
                addrs.push(addr);
            }
        }
        Ok(out)
    }

    /// `wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}` with A and B in shared memory (PTX ISA 9.7.15.5):
    /// operands `accumulator struct, descA, descB`; D = A * B + D (scale-d one) per warpgroup.
    fn wgmma(&mut self, op: OperationRef, mask: &[bool], loc: &str) -> Result<(), SimError> {
        let attr = |k: &str| op.attribute(k).map(|a| a.to_string()).unwrap_or_default();
        let shape = ints_in(&attr("shape"));
        let (ta, tb, td) = (attr("typeA"), attr("typeB"), attr("typeD"));
        let elem = if ta.contains("<f16>") && tb.contains("<f16>") {
            Scalar::F16
        } else if ta.contains("bf16") && tb.contains("bf16") {
            Scalar::BF16
        } else {
            return err(loc, format!("not modelled: wgmma types {ta} {tb}"));
        };
        if !td.contains("f32") || !attr("scaleA").contains("one") || !attr("scaleB").contains("one") {
            return err(loc, "not modelled: wgmma with a non-f32 accumulator or negated inputs");
        }
        let scale_d = attr("scaleD").contains("one");
        let (m, n, k) = (shape[0] as u64, shape[1] as u64, shape[2] as u64);
        if m != 64 || k != 16 {
            return err(loc, format!("not modelled: wgmma m{m}k{k}"));
        }
        let a_kmaj = attr("layoutA").contains("row");
        let b_kmaj = attr("layoutB").contains("col");
        let V::Agg(acc) = self.operand(op, 0, loc)? else { return err(loc, "wgmma accumulator is not a struct") };
        if acc.len() as u64 != n / 2 {
            return err(loc, format!("wgmma m64n{n} takes {} accumulator registers, not {}", n / 2, acc.len()));
        }
        let da = self.scalars(op, 1, loc)?;
        let db = self.scalars(op, 2, loc)?;
        // wgmma.fence (PTX ISA 9.7.15.6) before the first wgmma and between register writes and a wgmma on
        // those registers (accumulators chained from an earlier wgmma excepted).
        let fence = self.m.flight.wg_fence_step;
        if fence == 0 {
            return err(loc, "wgmma.mma_async with no wgmma.fence before it: missing wgmma.fence");
        }
        let acc_origin = self.origin_of(op, 0);
        if acc_origin.step > fence {
            return err(
                loc,
                "wgmma.mma_async on accumulator registers written after the last wgmma.fence: missing wgmma.fence \
                 between the register writes and the wgmma",
            );
        }
        let mut out = acc.clone();
        let mut addrs = Vec::new();
        let groups = self.whole_groups(mask, 128, "wgmma.mma_async", loc)?;
        let warps = groups.first().map_or(0, |g| 4 * g)..groups.last().map_or(0, |g| 4 * g + 4);
        for g in groups {
            let base = g * 128;
            let mk = (base..base + 128).map(|t| (da[t], db[t]));
            let (a0, b0) = (da[base], db[base]);
            if mk.into_iter().any(|(a, b)| a != a0 || b != b0) {
                return err(loc, "wgmma descriptors differ within the warpgroup");
            }
            let a = self.gather_desc(a0, false, a_kmaj, elem, m, k, base..base + 128, &mut addrs, loc)?;
            let b = self.gather_desc(b0, false, b_kmaj, elem, n, k, base..base + 128, &mut addrs, loc)?;
            for th in 0..128u64 {
                let t = base + th as usize;
                for (i, slot) in out.iter_mut().enumerate() {
                    let (r, c) = isa::frag_wgmma_d(th, i as u64);
                    let V::S(lane) = slot else { return err(loc, "nested accumulator") };
                    let prev = if scale_d { Scalar::F32.to_f64(lane[t]) } else { 0.0 };
                    let dot: f64 = (0..k).map(|kk| a[(r * k + kk) as usize] * b[(c * k + kk) as usize]).sum();
                    lane[t] = Scalar::F32.from_f64(prev + dot);
                }
            }
        }
        self.set(op, 0, V::Agg(out));
        // The result is the accumulator of the open group: pending until a wait_group retires it; the operands
        // are read until then.
        let nb = elem.bytes() as u64;
        let loc_id = self.m.cur_loc;
        let group = self.m.flight.wgmma_issue(ranges_of(&mut addrs, nb), warps, loc, loc_id);
        self.set_origin(op, 0, Origin { step: 0, wg: group + 1, ld: 0 });
        Ok(())
    }

    /// `mma.sync.aligned.m16n8k{8,16}.row.col.f32.{f16,bf16}.{f16,bf16}.f32` (PTX ISA 9.7.14.5.7/8) per warp.
    fn mma_sync(&mut self, op: OperationRef, mask: &[bool], loc: &str) -> Result<(), SimError> {
        let attr = |k: &str| op.attribute(k).map(|a| a.to_string()).unwrap_or_default();
        let shape = ints_in(&attr("shape"));
        let seg = array_ints(&attr("operandSegmentSizes"));
        if shape.len() != 3 || seg.len() != 3 || !attr("layoutA").contains("row") || !attr("layoutB").contains("col") {
            return err(loc, "not modelled: this mma.sync form");
        }
        let (m, n, k) = (shape[0] as u64, shape[1] as u64, shape[2] as u64);
        if m != 16 || n != 8 || !(k == 8 || k == 16) {
            return err(loc, format!("not modelled: mma.sync m{m}n{n}k{k}"));
        }
        let elem = if attr("multiplicandAPtxType").contains("bf16") { Scalar::BF16 } else { Scalar::F16 };
        // Flatten each operand group into its elements (a 32-bit register holds two 16-bit elements, low first).
        let mut groups: Vec<Vec<Vec<u64>>> = Vec::new();
        let mut idx = 0;
        for (g, count) in seg.iter().enumerate() {
            let mut elems = Vec::new();
            for _ in 0..*count {
                let ty = self.operand_ty(op, idx, loc)?;
                match (self.operand(op, idx, loc)?, &ty) {
                    (V::Agg(es), _) => {
                        for e in es {
                            let V::S(s) = e else { return err(loc, "nested operand") };
                            elems.push(s);
                        }
                    }
                    (V::S(s), Ty::Sc(Scalar::I(32))) if g < 2 => {
                        elems.push(s.iter().map(|x| x & 0xFFFF).collect());
                        elems.push(s.iter().map(|x| (x >> 16) & 0xFFFF).collect());
                    }
                    (V::S(s), Ty::Sc(Scalar::F32)) if g == 2 => elems.push(s),
                    (_, ty) => return err(loc, format!("not modelled: mma.sync operand of type {ty:?}")),
                }
                idx += 1;
            }
            groups.push(elems);
        }
        let (fa, fb): (Frag, Frag) =
            if k == 16 { (isa::frag_a_m16k16, isa::frag_b_k16n8) } else { (isa::frag_a_m16k8, isa::frag_b_k8n8) };
        if groups[0].len() as u64 != m * k / 32 || groups[1].len() as u64 != k * n / 32 || groups[2].len() != 4 {
            return err(loc, "mma.sync operand counts do not match the shape");
        }
        let mut out: Vec<Vec<u64>> = groups[2].clone();
        for w in self.whole_groups(mask, 32, "mma.sync", loc)? {
            let mut a = vec![0.0; (m * k) as usize];
            let mut b = vec![0.0; (k * n) as usize];
            let mut c = vec![0.0; (m * n) as usize];
            for l in 0..32u64 {
                let t = w * 32 + l as usize;
                for (i, e) in groups[0].iter().enumerate() {
                    let (r, col) = fa(l, i as u64);
                    a[(r * k + col) as usize] = elem.to_f64(e[t]);
                }
                for (i, e) in groups[1].iter().enumerate() {
                    let (r, col) = fb(l, i as u64);
                    b[(r * n + col) as usize] = elem.to_f64(e[t]);
                }
                for (i, e) in groups[2].iter().enumerate() {
                    let (r, col) = isa::frag_c_m16n8(l, i as u64);
                    c[(r * n + col) as usize] = Scalar::F32.to_f64(e[t]);
                }
            }
            for l in 0..32u64 {
                let t = w * 32 + l as usize;
                for (i, o) in out.iter_mut().enumerate() {
                    let (r, col) = isa::frag_c_m16n8(l, i as u64);
                    let d = c[(r * n + col) as usize]
                        + (0..k).map(|kk| a[(r * k + kk) as usize] * b[(kk * n + col) as usize]).sum::<f64>();
                    o[t] = Scalar::F32.from_f64(d);
                }
            }
        }
        self.set(op, 0, V::Agg(out.into_iter().map(V::S).collect()));
        Ok(())
    }

    /// `tcgen05.mma.cta_group::1.kind::f16` with A and B in shared memory (PTX ISA 9.7.16.10.9): operands
    /// `d (tensor-memory address), descA, descB, idesc, enable_input_d`; issued by one thread.
    fn tcgen05_mma(&mut self, op: OperationRef, mask: &[bool], loc: &str) -> Result<(), SimError> {
        let kind = op.attribute("kind").map(|a| a.to_string()).unwrap_or_default();
        if !kind.contains("<f16>") || op.operand_count() != 5 {
            return err(loc, format!("not modelled: tcgen05.mma {kind} with {} operands", op.operand_count()));
        }
        if self.operand_ty(op, 1, loc)? != Ty::Sc(Scalar::I(64)) {
            return err(loc, "not modelled: tcgen05.mma with A in tensor memory");
        }
        let (d, da, db, id, en) = (
            self.scalars(op, 0, loc)?,
            self.scalars(op, 1, loc)?,
            self.scalars(op, 2, loc)?,
            self.scalars(op, 3, loc)?,
            self.scalars(op, 4, loc)?,
        );
        for t in self.active(mask) {
            let i = isa::decode_idesc(id[t] as u32, loc)?;
            if !i.d_f32 {
                return err(loc, "not modelled: tcgen05.mma with an f16 accumulator");
            }
            if self.m.flight.tc_fence_needed {
                return err(
                    loc,
                    "tcgen05.mma after the mbarrier wait that observed tcgen05.mma completion, with no \
                     tcgen05.fence::after_thread_sync between them: missing tcgen05 fence",
                );
            }
            let elem = if i.ab == 1 { Scalar::BF16 } else { Scalar::F16 };
            let k = 16;
            let mut addrs = Vec::new();
            let a = self.gather_desc(da[t], true, !i.a_mn, elem, i.m, k, t..t + 1, &mut addrs, loc)?;
            let b = self.gather_desc(db[t], true, !i.b_mn, elem, i.n, k, t..t + 1, &mut addrs, loc)?;
            let (lane0, col0) = ((d[t] >> 16) as u32, (d[t] & 0xFFFF) as u32);
            for r in 0..i.m {
                for c in 0..i.n {
                    self.m.tmem_cell(lane0 + isa::tmem_lane_of_row(i.m, r) as u32, col0 + c as u32, loc)?;
                }
            }
            // In flight until a wait observes its commit's arrival (`inflight.rs`).
            let index = self.m.flight.mmas.len();
            let ranges = ranges_of(&mut addrs, elem.bytes() as u64);
            let (warps, loc_id) = (t / 32..t / 32 + 1, self.m.cur_loc);
            let (kind, id) = (ReadKind::Tcgen05, index as u64);
            self.m.flight.readers.push(Reader { ranges, kind, id, loc: loc.into(), warps, stamp: 0, loc_id });
            self.m.flight.mmas.push(TcMma {
                loc: loc.to_string(),
                a,
                b,
                mnk: [i.m, i.n, k],
                lane0,
                col0,
                accumulate: en[t] & 1 == 1,
                done: false,
                commit: None,
                observed: false,
            });
            if self.m.flight.completion == Completion::Eager {
                self.m.complete_mma(index);
            }
        }
        Ok(())
    }

    /// `tcgen05.ld/st.sync.aligned.32x32b.xN` (PTX ISA 9.7.16.8.3, "Matrix fragments for tcgen05.ld/st"):
    /// thread `i` of the warp reaches lane `base + i`, register `j` is column `col + j`; warp `w` may only reach
    /// lanes `32 * (w % 4) .. + 32`.
    fn tcgen05_ldst(&mut self, op: OperationRef, mask: &[bool], store: bool, loc: &str) -> Result<(), SimError> {
        let shape = op.attribute("shape").map(|a| a.to_string()).unwrap_or_default();
        if !shape.contains("32x32b") {
            return err(loc, format!("not modelled: tcgen05 ld/st {shape}"));
        }
        let addr = self.scalars(op, 0, loc)?;
        let vals = if store { Some(self.operand(op, 1, loc)?) } else { None };
        let count = if store {
            match &vals {
                Some(V::Agg(es)) => es.len(),
                _ => 1,
            }
        } else {
            match self.result_ty(op, loc)? {
                Ty::Agg(es) => es.len(),
                _ => 1,
            }
        };
        let mut regs = vec![vec![0u64; self.n]; count];
        for w in self.whole_groups(mask, 32, "tcgen05.ld/st", loc)? {
            for l in 0..32 {
                let t = w * 32 + l;
                let (lane0, col0) = ((addr[t] >> 16) as u32, (addr[t] & 0xFFFF) as u32);
                let lane = lane0 + l as u32;
                let quarter = 32 * (w as u32 % 4);
                if lane0 != quarter {
                    return err(loc, format!("warp {w} addresses tensor-memory lanes from {lane0}: it may only reach lanes {quarter}..{}", quarter + 32));
                }
                if l == 0 {
                    let what = if store { "tcgen05.st" } else { "tcgen05.ld" };
                    self.m.flight.check_tmem((lane0, lane0 + 32), (col0, col0 + count as u32), what, loc)?;
                }
                for (j, reg) in regs.iter_mut().enumerate() {
                    let col = col0 + j as u32;
                    if col >= TMEM_COLS {
                        return err(loc, format!("tensor-memory column {col} past 512"));
                    }
                    let cell = self.m.tmem_cell(lane, col, loc)?;
                    match &vals {
                        Some(V::Agg(es)) => {
                            let V::S(s) = &es[j] else { return err(loc, "nested") };
                            self.m.tmem[cell] = s[t] as u32;
                        }
                        Some(V::S(s)) => self.m.tmem[cell] = s[t] as u32,
                        Some(V::Mem(_)) => return err(loc, "store of a memref"),
                        None => reg[t] = u64::from(self.m.tmem[cell]),
                    }
                }
            }
        }
        if !store {
            let v = if count == 1 && !matches!(self.result_ty(op, loc)?, Ty::Agg(_)) {
                V::S(regs.remove(0))
            } else {
                V::Agg(regs.into_iter().map(V::S).collect())
            };
            self.set(op, 0, v);
            // Undefined until tcgen05.wait::ld (PTX ISA 9.7.16.8.5).
            let lds = &mut self.m.flight.lds;
            lds.0 += 1;
            lds.2.get_or_insert_with(|| loc.to_string());
            let id = lds.0;
            self.set_origin(op, 0, Origin { step: 0, wg: 0, ld: id });
        }
        Ok(())
    }
}

/// The bits of a printed constant attribute of type `ty`.
fn constant(text: &str, ty: &Ty) -> Option<u64> {
    let sc = ty.scalar()?;
    let lit = text.split(" : ").next()?.trim();
    match lit {
        "true" => return Some(1),
        "false" => return Some(0),
        _ => {}
    }
    if let Some(hex) = lit.strip_prefix("0x") {
        return u64::from_str_radix(hex, 16).ok();
    }
    if sc.is_float() {
        return lit.parse::<f64>().ok().map(|x| sc.from_f64(x));
    }
    lit.parse::<i128>().ok().map(|x| wrap(sc.bits(), x as u64))
}

/// Reinterprets bits between scalars and vectors of the same total width (little-endian lane order).
fn bitcast(v: &V, from: &Ty, to: &Ty, n: usize) -> Option<V> {
    let lanes = |ty: &Ty| -> Option<Vec<Scalar>> {
        match ty {
            Ty::Agg(es) => es.iter().map(|e| e.scalar()).collect(),
            t => Some(vec![t.scalar()?]),
        }
    };
    let (fl, tl) = (lanes(from)?, lanes(to)?);
    if fl.iter().map(|s| s.bits()).sum::<u32>() != tl.iter().map(|s| s.bits()).sum::<u32>()
        || tl.iter().map(|s| s.bits()).sum::<u32>() > 64
    {
        return None;
    }
    let parts: Vec<Vec<u64>> = match v {
        V::S(s) => vec![s.clone()],
        V::Agg(es) => es.iter().map(|e| if let V::S(s) = e { Some(s.clone()) } else { None }).collect::<Option<_>>()?,
        V::Mem(_) => return None,
    };
    let mut out: Vec<Vec<u64>> = vec![vec![0; n]; tl.len()];
    for t in 0..n {
        let (mut bits, mut shift) = (0u64, 0u32);
        for (p, s) in parts.iter().zip(&fl) {
            bits |= wrap(s.bits(), p[t]) << shift;
            shift += s.bits();
        }
        let mut shift = 0;
        for (o, s) in out.iter_mut().zip(&tl) {
            o[t] = wrap(s.bits(), bits >> shift);
            shift += s.bits();
        }
    }
    Some(if matches!(to, Ty::Agg(_)) { V::Agg(out.into_iter().map(V::S).collect()) } else { V::S(out.remove(0)) })
}
