//! sm_90 warpgroup MMA: `wgmma.fence`, `wgmma.mma_async` (A and B through shared matrix descriptors, the
//! accumulator in registers, pending until its group retires), `wgmma.commit_group`, `wgmma.wait_group`; and
//! the descriptor read `tcgen05.mma` shares ([`Exec::gather_desc`]).

use super::{err, ints_in, Exec, Origin};
use crate::fp8::Fp8;
use crate::inflight::ranges_of;
use crate::isa;
use crate::value::{Scalar, V};
use crate::SimError;
use melior::ir::operation::OperationLike;
use melior::ir::OperationRef;

impl Exec<'_, '_> {
    /// The `wgmma` ops, each on whole warpgroups.
    pub(super) fn wgmma_op(&mut self, op: OperationRef, name: &str, mask: &[bool], loc: &str) -> Result<(), SimError> {
        match name {
            "nvvm.wgmma.fence.aligned" => {
                self.whole_groups(mask, 128, "wgmma.fence", loc)?;
                self.m.flight.wg_fence_step = self.steps;
            }
            "nvvm.wgmma.commit.group.sync.aligned" => {
                self.whole_groups(mask, 128, "wgmma.commit_group", loc)?;
                self.m.flight.wgmma_commit();
            }
            "nvvm.wgmma.wait.group.sync.aligned" => {
                self.whole_groups(mask, 128, "wgmma.wait_group", loc)?;
                let g = op.attribute("group").map(|a| ints_in(&a.to_string())).unwrap_or_default();
                self.m.wgmma_wait(g.first().copied().unwrap_or(0) as u64);
            }
            "nvvm.wgmma.mma_async" => self.wgmma(op, mask, loc)?,
            _ => return err(loc, format!("not modelled: {name}")),
        }
        Ok(())
    }

    /// Reads the `mn x k` operand through a shared matrix descriptor; `(mn, k)` order. The read is the async
    /// proxy's on behalf of threads `issuers` (`what` names the instruction); the byte addresses read are added
    /// to `addrs`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn gather_desc(
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

    /// `wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}` and `.m64nNk32.f32.{e4m3,e5m2}.{e4m3,e5m2}` with A
    /// and B in shared memory (PTX ISA 9.7.15.5): operands `accumulator struct, descA, descB`; D = A * B + D
    /// (scale-d one) per warpgroup. The 8-bit forms take K = 32 and K-major operands only.
    fn wgmma(&mut self, op: OperationRef, mask: &[bool], loc: &str) -> Result<(), SimError> {
        let attr = |k: &str| op.attribute(k).map(|a| a.to_string()).unwrap_or_default();
        let shape = ints_in(&attr("shape"));
        let (ta, tb, td) = (attr("typeA"), attr("typeB"), attr("typeD"));
        let fp8 = |t: &str| {
            if t.contains("<e4m3>") {
                Some(Scalar::F8(Fp8::E4M3))
            } else if t.contains("<e5m2>") {
                Some(Scalar::F8(Fp8::E5M2))
            } else {
                None
            }
        };
        let (elem_a, elem_b) = if ta.contains("<f16>") && tb.contains("<f16>") {
            (Scalar::F16, Scalar::F16)
        } else if ta.contains("bf16") && tb.contains("bf16") {
            (Scalar::BF16, Scalar::BF16)
        } else if let (Some(a), Some(b)) = (fp8(&ta), fp8(&tb)) {
            (a, b)
        } else {
            return err(loc, format!("not modelled: wgmma types {ta} {tb}"));
        };
        if !td.contains("f32") || !attr("scaleA").contains("one") || !attr("scaleB").contains("one") {
            return err(loc, "not modelled: wgmma with a non-f32 accumulator or negated inputs");
        }
        let scale_d = attr("scaleD").contains("one");
        let (m, n, k) = (shape[0] as u64, shape[1] as u64, shape[2] as u64);
        // K covers 32 bytes of each operand row: 16 two-byte elements, 32 one-byte ones (PTX ISA 9.7.15.5.1).
        if m != 64 || k * elem_a.bytes() as u64 != 32 {
            return err(loc, format!("not modelled: wgmma m{m}k{k} on {ta}"));
        }
        let a_kmaj = attr("layoutA").contains("row");
        let b_kmaj = attr("layoutB").contains("col");
        if elem_a.bytes() == 1 && !(a_kmaj && b_kmaj) {
            return err(loc, "wgmma on 8-bit operands takes them K-major only (PTX ISA 9.7.15.5.1: no transpose)");
        }
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
            let a = self.gather_desc(a0, false, a_kmaj, elem_a, m, k, base..base + 128, &mut addrs, loc)?;
            let b = self.gather_desc(b0, false, b_kmaj, elem_b, n, k, base..base + 128, &mut addrs, loc)?;
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
        let nb = elem_a.bytes() as u64;
        let loc_id = self.m.cur_loc;
        let group = self.m.flight.wgmma_issue(ranges_of(&mut addrs, nb), warps, loc, loc_id);
        self.set_origin(op, 0, Origin { step: 0, wg: group + 1, ld: 0 });
        Ok(())
    }
}
