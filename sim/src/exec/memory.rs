//! Memory ops: `memref.*` (private register arrays, shared globals and views, loads and stores, bounds-checked
//! per dimension) and `llvm.load`/`llvm.store` through shared and global pointers, per active thread.

use super::{err, loc_of, Exec, Origin};
use crate::value::{MemRef, Scalar, Space, Ty, V};
use crate::SimError;
use melior::ir::operation::OperationLike;
use melior::ir::OperationRef;

impl Exec<'_, '_> {
    /// Operand `i` as a memref.
    pub(super) fn memref_of(&self, op: OperationRef, i: usize, loc: &str) -> Result<MemRef, SimError> {
        match self.operand(op, i, loc)? {
            V::Mem(m) => Ok(m),
            _ => err(loc, format!("operand {i} is not a memref")),
        }
    }

    /// Thread `t`'s read of `n` bytes at `addr` in `space` (shared reads checked for races and pending bytes).
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

    /// Thread `t`'s write of the low `n` bytes of `bits` at `addr` in `space`.
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

    /// A `memref` op: `alloca` (a private register array per thread), `get_global`, `view`,
    /// `extract_aligned_pointer_as_index`, `load`, `store`, `dealloca`.
    pub(super) fn memref(&mut self, op: OperationRef, name: &str, mask: &[bool]) -> Result<(), SimError> {
        let loc = loc_of(op);
        match name {
            "memref.alloca" => {
                let Ty::Mem { shape, elem, .. } = self.result_ty(op, &loc)? else {
                    return err(&loc, "not modelled: alloca type");
                };
                let bytes = shape.iter().product::<i64>() as usize * elem.bytes();
                let n = self.n;
                self.m.private.push(vec![vec![0; bytes]; n]);
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
    pub(super) fn llvm_mem(&mut self, op: OperationRef, mask: &[bool], name: &str) -> Result<(), SimError> {
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
}
