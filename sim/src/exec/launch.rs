//! Launch set-up: finding the kernel, its block size, the shared `memref.global`s, binding the launch's
//! arguments (integers, floats, buffers as memrefs, raw pointers or tensor maps) and reading the results back;
//! and the ops that read the launch (`gpu.thread_id`, `gpu.block_id`, `gpu.block_dim`, `gpu.grid_dim`).

use super::tensor_maps::{check_preconditions, tensor_map};
use super::{err, ints_in, key, loc_of, op_name, Exec};
use crate::machine::{GlobalBuf, GLOBAL_BASE};
use crate::value::{split_top, wrap, MemRef, MemSpace, Scalar, Space, Ty, V};
use crate::{Arg, Buffer, Outcome, SimError};
use axe_dialect::access;
use axe_passes::shared_lifetimes::{self as window, pack, parse_epochs, WINDOW_ALIGNMENT};
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{BlockRef, Module, OperationRef, Value};

/// The `gpu.func @name` of `module` (inside its `gpu.module`s).
pub(super) fn find_kernel<'c, 'a>(module: &'a Module<'c>, name: &str) -> Option<OperationRef<'c, 'a>> {
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

/// Calls `f` on each op of `block` and of the modules nested in it.
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

/// The kernel's `known_block_size` (the interpreter runs exactly that many threads), checked to be a legal block.
pub(super) fn block_size(kernel: OperationRef, loc: &str) -> Result<[i64; 3], SimError> {
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

/// What the kernel's attributes say about its arguments: the per-argument dictionaries (`arg_attrs`), the
/// tensor maps (`axe.tensor_maps`), and the launch's integer arguments their run-time fields read.
struct ArgAttrs<'a> {
    arg_dicts: Vec<&'a str>,
    maps: Vec<&'a str>,
    ints: Vec<Option<i64>>,
}

impl Exec<'_, '_> {
    /// Places the module's shared `memref.global`s in shared memory (`memref.get_global` finds them by name).
    pub(super) fn alloc_globals(&mut self, kernel: OperationRef) -> Result<(), SimError> {
        let Some(module) = kernel.parent_operation() else { return Ok(()) };
        let mut buffers = Vec::new();
        let mut cursor = access::entry_block(module).and_then(|b| b.first_operation());
        while let Some(op) = cursor {
            if op_name(op) == "memref.global" {
                let loc = loc_of(op);
                let ty_text = op.attribute("type").map(|a| a.to_string()).unwrap_or_default();
                let name = op.attribute("sym_name").map(|a| a.to_string()).unwrap_or_default();
                let align = op.attribute("alignment").map(|a| ints_in(&a.to_string())).ok();
                let align = align.and_then(|v| v.first().copied()).unwrap_or(16);
                match Ty::parse(&ty_text) {
                    Ty::Mem { shape, elem, space: MemSpace::Shared } => {
                        let bytes = shape.iter().product::<i64>() * elem.bytes() as i64;
                        let name = name.trim_matches('"').to_string();
                        buffers.push(window::Buffer { name, bytes, alignment: align, epochs: None });
                    }
                    _ => return err(&loc, format!("not modelled: memref.global of type {ty_text}")),
                }
            }
            cursor = op.next_in_block();
        }
        // Laid out as `--axe-dynamic-shared` lays them out: buffers the kernel's `axe.shared_epochs` says are never
        // live together share bytes, so the machine's checks see any overlap in time. Without lifetimes, each
        // buffer has bytes of its own.
        let loc = loc_of(kernel);
        match kernel.attribute("axe.shared_epochs") {
            Ok(attribute) => {
                let epochs = parse_epochs(&attribute.to_string());
                for buffer in &mut buffers {
                    buffer.epochs = epochs.get(&buffer.name).copied();
                }
                let (offsets, end) = pack(&buffers);
                let base = self.m.alloc_shared(end.max(1) as u64, WINDOW_ALIGNMENT as u64, &loc)?;
                for (buffer, offset) in buffers.iter().zip(offsets) {
                    self.globals.insert(buffer.name.clone(), (base + offset as u64, buffer.bytes as u64));
                }
            }
            Err(_) => {
                for buffer in &buffers {
                    let addr = self.m.alloc_shared(buffer.bytes as u64, buffer.alignment as u64, &loc)?;
                    self.globals.insert(buffer.name.clone(), (addr, buffer.bytes as u64));
                }
            }
        }
        Ok(())
    }

    /// Binds the entry block's arguments to the launch's: integers and floats in every thread, buffers placed in
    /// global memory ([`Self::bind_buffer`]). Returns the (argument, global buffer) pairs of the buffers.
    pub(super) fn bind_args(
        &mut self,
        kernel: OperationRef,
        entry: BlockRef,
        loc: &str,
    ) -> Result<Vec<(usize, usize)>, SimError> {
        let (n, launch) = (self.n, self.launch);
        let arg_attrs = kernel.attribute("arg_attrs").map(|a| a.to_string()).unwrap_or_default();
        let arg_dicts =
            arg_attrs.strip_prefix('[').and_then(|s| s.strip_suffix(']')).map(split_top).unwrap_or_default();
        let maps_attr = kernel.attribute("axe.tensor_maps").map(|a| a.to_string()).unwrap_or_default();
        let maps = maps_attr.strip_prefix('[').and_then(|s| s.strip_suffix(']')).map(split_top).unwrap_or_default();
        let ints: Vec<Option<i64>> =
            launch.args.iter().map(|a| if let Arg::Int(x) = a { Some(*x) } else { None }).collect();
        let attrs = ArgAttrs { arg_dicts, maps, ints };
        let args: Vec<_> = access::arguments(entry).collect();
        if args.len() != launch.args.len() {
            return Err(SimError::new(
                loc,
                format!("kernel takes {} arguments, {} given", args.len(), launch.args.len()),
            ));
        }
        let mut buffer_of_arg = Vec::new();
        for (i, (arg, given)) in args.iter().zip(&launch.args).enumerate() {
            let value: Value = (*arg).into();
            let ty = self.ty(value);
            let v = match (given, &ty) {
                (Arg::Int(x), Ty::Sc(Scalar::I(w))) => V::S(vec![wrap(*w, *x as u64); n]),
                (Arg::Float(x), Ty::Sc(s)) if s.is_float() => V::S(vec![s.from_f64(*x); n]),
                (Arg::Buffer(b), _) => {
                    let (v, g) = self.bind_buffer(i, b, &ty, &attrs, loc)?;
                    buffer_of_arg.push((i, g));
                    v
                }
                _ => return Err(SimError::new(loc, format!("argument {i}: {given:?} does not fit type {ty:?}"))),
            };
            self.env.insert(key(value), v);
        }
        Ok(buffer_of_arg)
    }

    /// Places buffer argument `i` in global memory and gives what its parameter of type `ty` holds: a memref of
    /// it, or for a pointer the tensor map the kernel's attributes describe for it (validated, preconditions
    /// checked) or, without one, the buffer's address. Returns the value and the global buffer's index.
    fn bind_buffer(
        &mut self,
        i: usize,
        b: &Buffer,
        ty: &Ty,
        attrs: &ArgAttrs,
        loc: &str,
    ) -> Result<(V, usize), SimError> {
        let n = self.n;
        let base = GLOBAL_BASE + ((self.m.globals.len() as u64) << 32);
        self.m.globals.push(GlobalBuf { base, bytes: b.bytes.clone() });
        let g = self.m.globals.len() - 1;
        let v = match ty {
            Ty::Mem { shape, elem, space: MemSpace::Global } => {
                let need = shape.iter().product::<i64>() as usize * elem.bytes();
                if b.bytes.len() < need {
                    return Err(SimError::new(
                        loc,
                        format!("argument {i}: {} bytes bound, {need} needed", b.bytes.len()),
                    ));
                }
                V::Mem(MemRef { space: Space::Global, addr: base, shape: shape.clone(), elem: *elem })
            }
            Ty::Ptr(0) | Ty::Ptr(1) => {
                let want = format!("arg = {i} : i64");
                let dict = attrs
                    .maps
                    .iter()
                    .find(|d| d.contains(&want))
                    .or_else(|| attrs.arg_dicts.get(i).filter(|d| d.contains("axe.tma_descriptor")))
                    .copied();
                match dict {
                    Some(dict) => {
                        let map = tensor_map(dict, base, &attrs.ints, loc)?;
                        map.validate(loc)?;
                        check_preconditions(dict, &attrs.ints, loc)?;
                        self.descs.push(map);
                        V::S(vec![(self.descs.len() - 1) as u64; n])
                    }
                    // A raw global pointer: the buffer's address.
                    None => V::S(vec![base; n]),
                }
            }
            _ => return Err(SimError::new(loc, format!("argument {i}: a buffer bound to a {ty:?}"))),
        };
        Ok((v, g))
    }

    /// The launch's buffers as the kernel left them (`None` for its other arguments), and the step count.
    pub(super) fn outcome(&self, bound: &[(usize, usize)]) -> Outcome {
        let mut buffers: Vec<Option<Buffer>> = vec![None; self.launch.args.len()];
        for &(i, g) in bound {
            if let Arg::Buffer(b) = &self.launch.args[i] {
                buffers[i] = Some(Buffer { elem: b.elem, bytes: self.m.globals[g].bytes.clone() });
            }
        }
        Outcome { buffers, steps: self.steps }
    }

    /// Thread `t`'s (x, y, z) in the block.
    fn thread_index(&self, t: usize) -> [i64; 3] {
        let t = t as i64;
        let [x, y, _] = self.block_dim;
        [t % x, (t / x) % y, t / (x * y)]
    }

    /// The `dimension` attribute of a `gpu` id op: 0, 1, 2 for x, y, z.
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

    /// `gpu.thread_id`, `gpu.block_id`, `gpu.block_dim`, `gpu.grid_dim` along the op's dimension.
    pub(super) fn geometry(&mut self, op: OperationRef, name: &str) {
        let n = self.n;
        let d = Self::dim_attr(op);
        let v: Vec<u64> = match name {
            "gpu.thread_id" => (0..n).map(|t| self.thread_index(t)[d] as u64).collect(),
            "gpu.block_id" => vec![self.launch.block_id[d] as u64; n],
            "gpu.block_dim" => vec![self.block_dim[d] as u64; n],
            _ => vec![self.launch.grid[d] as u64; n],
        };
        self.set(op, 0, V::S(v));
    }
}
